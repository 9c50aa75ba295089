"""Unit tests of kit/ranking/dense.py: the hashing embedder, check_vectors and DenseIndex."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kit.ranking.dense import DenseIndex, HashingEmbedder, check_vectors


# --- the hashing embedder ------------------------------------------------------------------

def test_hashing_is_the_same_in_another_process():
    texts = ["I signed up for a pottery class", "Caroline went camping last week!"]
    here = HashingEmbedder(dim=64)(texts)
    code = ("import sys; from kit.ranking.dense import HashingEmbedder; "
            "print(HashingEmbedder(dim=64)(sys.argv[1:]).tolist())")
    # A different hash seed: Python's hash() would give other vectors there.
    out = subprocess.run([sys.executable, "-c", code, *texts], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[1],
                         env={"PYTHONHASHSEED": "12345", "PATH": ""}).stdout
    assert np.array_equal(np.array(eval(out)), here)


def test_vectors_have_the_shape_and_unit_length():
    vectors = HashingEmbedder(dim=32)(["Painting at dawn", "a", "x y z w"])
    assert vectors.shape == (3, 32) and vectors.dtype == np.float64
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)


def test_an_empty_or_punctuation_text_is_the_zero_vector():
    vectors = HashingEmbedder(dim=16)(["", "?!... --", "ok"])
    assert not vectors[0].any() and not vectors[1].any() and vectors[2].any()


def test_features_are_the_word_and_its_padded_ngrams():
    assert HashingEmbedder().features("paint") == [
        "w:paint", "g:#pa", "g:pai", "g:ain", "g:int", "g:nt#"]
    assert HashingEmbedder(ngrams=(4,), words=False).features("a") == ["g:#a#"]


def test_similar_texts_score_higher_than_unrelated_ones():
    a, b, c = HashingEmbedder()(["She loves painting landscapes",
                                 "he painted a landscape", "the train to Boston was late"])
    assert a @ b > 0.3 > a @ c


@pytest.mark.parametrize("kwargs, error, message", [
    ({"dim": 0}, ValueError, "dim must be >= 1, got 0"),
    ({"dim": 2.5}, TypeError, "dim must be an int"),
    ({"ngrams": [3]}, TypeError, "ngrams must be a tuple"),
    ({"ngrams": (0,)}, ValueError, r"ngrams must be a tuple of ints >= 1, got \(0,\)"),
    ({"words": 1}, TypeError, "words must be a bool"),
    ({"words": False, "ngrams": ()}, ValueError, "needs features"),
])
def test_bad_settings_are_refused(kwargs, error, message):
    with pytest.raises(error, match=message):
        HashingEmbedder(**kwargs)


def test_texts_must_be_a_list_of_str():
    with pytest.raises(TypeError, match="texts must be a list of str"):
        HashingEmbedder()("one text")


# --- DenseIndex ----------------------------------------------------------------------------

class Table:
    """An embedder from a table of vectors, counting its calls; ``raw=True`` returns
    Python lists, not an array."""

    def __init__(self, vectors, raw=False):
        self.vectors, self.raw, self.calls = vectors, raw, []

    def __call__(self, texts):
        self.calls.append(list(texts))
        rows = [self.vectors[t] for t in texts]
        return rows if self.raw else np.array(rows, dtype=float)


VECTORS = {"a": [1, 0, 0], "b": [1, 1, 0], "c": [0, 1, 0], "d": [-1, 0, 0], "e": [2, 0, 0],
           "q": [1, 0, 0], "zero": [0, 0, 0]}


def filled(raw=False):
    index = DenseIndex(Table(VECTORS, raw))
    for key, text in [(1, "a"), (3, "b"), (4, "c"), (7, "d"), (9, "e")]:
        index.add(key, text)
    return index


def test_search_is_cosine_best_first_with_ties_by_key():
    index = filled()
    # a and e point the same way (cosine 1: a tie, smaller key first); b at 45 degrees;
    # c is orthogonal (0) and d opposite (-1): neither scores > 0.
    assert index.search("q") == [(1, 1.0), (9, 1.0), (3, pytest.approx(2 ** -0.5))]
    assert len(index) == 5 and index.dim == 3


def test_below_and_limit():
    index = filled()
    assert index.search("q", below=9) == [(1, 1.0), (3, pytest.approx(2 ** -0.5))]
    assert index.search("q", below=3) == [(1, 1.0)]
    assert index.search("q", below=1) == [] and index.search("q", below=-5) == []
    assert index.search("q", limit=2) == [(1, 1.0), (9, 1.0)]
    assert index.search("q", below=9, limit=1) == [(1, 1.0)]
    assert index.search("q", limit=0) == []


def test_a_search_on_nothing_calls_no_embedder():
    index = filled()
    calls = len(index.embedder.calls)
    assert DenseIndex(Table(VECTORS)).search("q") == [] and index.search("q", below=0) == []
    assert len(index.embedder.calls) == calls


def test_a_zero_query_finds_nothing():
    assert filled().search("zero") == []


def test_identical_texts_tie_exactly_whatever_their_position():
    embed = HashingEmbedder(dim=64)
    index = DenseIndex(embed)
    index.extend((key, "we went camping at the beach" if key % 7 == 0 else f"turn {key}")
                 for key in range(50))
    found = index.search("camping at the beach")
    assert [key for key, _ in found[:8]] == [0, 7, 14, 21, 28, 35, 42, 49]
    assert len({score for _, score in found[:8]}) == 1


def test_extend_is_add_one_by_one_in_one_call():
    items = [(key, f"note {key}: painting and pottery, day {key % 5}") for key in range(40)]
    one_by_one, batch = DenseIndex(HashingEmbedder()), DenseIndex(HashingEmbedder())
    for key, text in items:
        one_by_one.add(key, text)
    batch.extend(iter(items))
    for query in ["pottery day 3", "painting", "note 17"]:
        assert batch.search(query) == one_by_one.search(query)
    assert (batch.embed_calls, batch.embedded) == (4, 43)         # 1 extend + 3 queries
    assert (one_by_one.embed_calls, one_by_one.embedded) == (43, 43)
    assert len(batch) == len(one_by_one) == 40


def test_extend_of_nothing_calls_no_embedder():
    index = DenseIndex(Table(VECTORS))
    index.extend([])
    assert index.embedder.calls == [] and len(index) == 0 and index.dim is None


def test_an_embedder_returning_lists_works():
    assert filled(raw=True).search("q") == filled().search("q")


def test_vectors_are_stored_normalised():
    index = DenseIndex(Table(VECTORS))
    index.add(0, "e")                                    # [2, 0, 0]
    assert index.search("q") == [(0, 1.0)]


def state(index):
    return (list(index.keys), index.dim, index._vectors[:len(index)].copy(),
            index.embed_calls, index.embedded)


def same_state(before, after):
    return before[:2] == after[:2] and np.array_equal(before[2], after[2]) \
        and before[3:] == after[3:]


class Broken:
    """Embeds well until ``fail`` is set, then returns ``fail(texts)`` or raises it."""

    def __init__(self):
        self.good, self.fail = HashingEmbedder(dim=8), None

    def __call__(self, texts):
        if self.fail is None:
            return self.good(texts)
        if isinstance(self.fail, Exception):
            raise self.fail
        return self.fail(texts)


@pytest.mark.parametrize("fail, error, message", [
    (RuntimeError("model server down"), RuntimeError, "model server down"),
    (lambda texts: np.zeros((len(texts) - 1, 8)), ValueError,
     "embedder returned 2 vectors for 3 texts"),
    (lambda texts: np.ones((len(texts), 4)), ValueError,
     "vector 0 has 4 numbers, the index holds 8"),
    (lambda texts: [[1.0] * 8, [1.0] * 8, [1.0] * 9], ValueError,
     "vector 2 has 9 numbers, the index holds 8"),
    (lambda texts: [[1.0] * 8, [float("nan")] + [0.0] * 7, [1.0] * 8], ValueError,
     "vector 1 holds nan"),
    (lambda texts: np.full((3, 8), np.inf), ValueError, "vector 0 holds inf"),
    (lambda texts: [["1"] * 8] * 3, ValueError, "expected numbers"),
    (lambda texts: None, ValueError, "not one vector per text"),
])
def test_a_failing_or_wrong_embedder_leaves_the_index_as_it_was(fail, error, message):
    embedder = Broken()
    index = DenseIndex(embedder)
    index.extend([(1, "camping"), (2, "pottery")])
    found = index.search("pottery class")
    before = state(index)
    embedder.fail = fail
    with pytest.raises(error, match=message):
        index.extend([(5, "a"), (6, "b"), (7, "c")])
    assert same_state(before, state(index))
    with pytest.raises(error):
        index.add(5, "a")
    with pytest.raises(error):
        index.search("camping")
    embedder.fail = None
    assert same_state(before, state(index)) and index.search("pottery class") == found


def test_the_first_batch_fixes_the_dimension_only_when_it_is_stored():
    embedder = Broken()
    index = DenseIndex(embedder)
    embedder.fail = lambda texts: [[1.0, 2.0], [1.0]]
    with pytest.raises(ValueError, match="vector 1 has 1 numbers, vector 0 has 2"):
        index.extend([(1, "a"), (2, "b")])
    assert index.dim is None and len(index) == 0
    embedder.fail = None
    index.add(1, "a")
    assert index.dim == 8


@pytest.mark.parametrize("items, error, message", [
    ([(3, "x")], ValueError, "keys must be increasing ints; got 3 after 9"),
    ([(10, "x"), (10, "y")], ValueError, "got 10 after 10"),
    ([(True, "x")], ValueError, "got True after 9"),
    ([("16", "x")], ValueError, "got '16' after 9"),
    ([(10, "x"), (11, None)], TypeError, "text of key 11 must be a str"),
])
def test_bad_keys_and_texts_are_refused_before_any_call(items, error, message):
    index = filled()
    before, calls = state(index), len(index.embedder.calls)
    with pytest.raises(error, match=message):
        index.extend(items)
    assert same_state(before, state(index)) and len(index.embedder.calls) == calls


@pytest.mark.parametrize("kwargs, error, message", [
    ({"query": None}, TypeError, "query must be a str"),
    ({"query": "q", "below": 2.0}, TypeError, "below must be an int or None"),
    ({"query": "q", "limit": -1}, ValueError, "limit must be >= 0, got -1"),
])
def test_bad_search_arguments_are_refused(kwargs, error, message):
    with pytest.raises(error, match=message):
        filled().search(**kwargs)


def test_a_wrong_query_vector_is_refused():
    index = filled()
    index.embedder.vectors["long"] = [1, 0, 0, 0]
    with pytest.raises(ValueError, match="vector 0 has 4 numbers, the index holds 3"):
        index.search("long")


def test_the_embedder_must_be_callable():
    with pytest.raises(TypeError, match="embedder must be callable"):
        DenseIndex("not a model")


def test_capacity_doubles_and_search_is_one_product():
    index = DenseIndex(HashingEmbedder(dim=8))
    capacities = set()
    for key in range(100):
        index.add(key, f"turn {key}")
        capacities.add(len(index._vectors))
    assert capacities == {16, 32, 64, 128}
    assert index.search("turn 42")[0][0] == 42


# --- check_vectors -------------------------------------------------------------------------

def test_check_vectors_accepts_lists_and_arrays():
    assert check_vectors([[1, 2], [3, 4]], 2, None).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert check_vectors(np.ones((1, 3), dtype=np.float32), 1, 3).dtype == np.float64
    assert check_vectors([], 0, 5).shape == (0, 5)


def test_check_vectors_reads_other_array_types():
    class Tensor:                                   # e.g. a torch tensor: only __array__
        def __array__(self, dtype=None, copy=None):
            return np.array([[3.0, 4.0]])
    assert check_vectors(Tensor(), 1, 2).tolist() == [[3.0, 4.0]]


@pytest.mark.parametrize("vectors, count, dim, message", [
    ([[1.0]], 2, None, "embedder returned 1 vector for 2 texts"),
    (np.ones(3), 3, None, r"embedder returned an array of shape \(3,\)"),
    ([[1.0], 2.0], 2, None, "vector 1 is not a sequence of numbers"),
    ([[]], 1, None, "vectors of no numbers"),
    ([[[1.0], [2.0]]], 1, None, "not flat sequences of numbers"),
    ([[1.0, None]], 1, None, "expected numbers"),
    ([[True, False]], 1, None, "expected numbers"),
    ([[1.0, -np.inf]], 1, 2, "vector 0 holds -inf"),
    ("abc", 3, None, "not one vector per text"),
])
def test_check_vectors_names_what_is_wrong(vectors, count, dim, message):
    with pytest.raises(ValueError, match=message):
        check_vectors(vectors, count, dim)
