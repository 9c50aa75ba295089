"""Retrievers (kit.rag.retrieval): the keyword trace of the end-to-end chatbot lesson, BM25
ranks and scores, reciprocal rank fusion, lazy re-indexing and errors."""
import math

import pytest

from kit.rag.documents import Chunk, load_corpus, seed_chunks
from kit.rag.retrieval import (BM25Retriever, HybridRetriever, KeywordRetriever, Retriever,
                               keyword_words, rrf, s_stem, tokenize)


def ids(chunks):
    return [c.id for c in chunks]


def chunks_of(*texts):
    return [Chunk(f"d{i}", text, "t.md") for i, text in enumerate(texts, start=1)]


# --- the trace of "A real-life example" in the end-to-end chatbot lesson --------------

def test_seed_turn_1_finds_both_chunks_in_corpus_order():
    assert ids(KeywordRetriever(seed_chunks()).search("How long do prepaid refunds take?", 5)) \
        == ["c1", "c2"]


def test_seed_rewritten_turn_2_finds_only_the_cod_chunk():
    # "refund" is not "refunds" (no stemming) and c1 has no "cash-on-delivery"
    assert ids(KeywordRetriever(seed_chunks()).search("cash-on-delivery refund", 5)) == ["c2"]


def test_seed_raw_follow_up_finds_nothing():
    retriever = KeywordRetriever(seed_chunks())
    assert retriever.query_words("and for COD?") == set()  # "and", "for", "cod": < 4 letters
    assert retriever.search("and for COD?", 5) == []


def test_keyword_words_strip_outer_punctuation_only():
    assert keyword_words("Cash-on-delivery (COD) refunds, paid.") == {
        "cash-on-delivery", "cod", "refunds", "paid"}


def test_keyword_returns_corpus_order_not_overlap_order():
    docs = chunks_of("refund only", "refund policy window", "nothing here", "policy alone")
    retriever = KeywordRetriever(docs)
    assert retriever.search_scored("refund policy window", 10) == [
        (docs[0], 1.0), (docs[1], 3.0), (docs[3], 1.0)]
    assert ids(retriever.search("refund policy window", 2)) == ["d1", "d2"]
    assert ids(KeywordRetriever(docs, min_len=7).search("refund policy window", 5)) == []
    assert ids(KeywordRetriever(docs, min_len=6).search("refund policy window", 5)) \
        == ["d1", "d2", "d4"]


# --- tokenizer -------------------------------------------------------------------------

@pytest.mark.parametrize("word, stem", [
    ("refunds", "refund"), ("deliveries", "delivery"), ("fees", "fee"), ("address", "address"),
    ("status", "status"), ("days", "day"), ("cod", "cod"), ("series", "sery"),
    ("agrees", "agree"), ("goes", "goe")])
def test_s_stemmer(word, stem):
    # Harman's three rules; "series" -> "sery" and "goes" -> "goe" are its known misfires
    assert s_stem(word) == stem


def test_tokenize_lowercases_drops_stopwords_and_folds_plurals():
    assert tokenize("And for COD orders?") == ["cod", "order"]
    assert tokenize("Cash-on-delivery refunds: 7 to 10 days") == [
        "cash", "delivery", "refund", "7", "10", "day"]
    assert tokenize("the, and. of!") == []


# --- BM25 ----------------------------------------------------------------------------

TINY = chunks_of("refund refund policy", "refund for prepaid orders takes five days",
                 "gift card balance")


def lucene_bm25(query, docs, k1=1.5, b=0.75):
    """Lucene BM25 written out from its formula, over tokenize()'d docs."""
    tokens = [tokenize(d) for d in docs]
    n, avgdl = len(tokens), sum(map(len, tokens)) / len(tokens)
    scores = []
    for doc in tokens:
        score = 0.0
        for term in tokenize(query):
            df = sum(term in d for d in tokens)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            tf = doc.count(term)
            score += idf * tf / (tf + k1 * (1 - b + b * len(doc) / avgdl))
        scores.append(score)
    return scores


def test_bm25_ranks_and_scores_on_a_tiny_corpus():
    found = BM25Retriever(TINY).search_scored("refunds", 5)
    assert [c.id for c, _ in found] == ["d1", "d2"]  # d3 has no match and is left out
    expected = lucene_bm25("refunds", [c.text for c in TINY])
    assert [s for _, s in found] == pytest.approx(expected[:2], rel=1e-6)
    # by hand: idf = ln(1 + 1.5/2.5); d1 tf=2 |d|=3, d2 tf=1 |d|=6, avgdl=4
    idf = math.log(1.6)
    assert expected[:2] == pytest.approx([idf * 2 / (2 + 1.5 * (0.25 + 0.75 * 3 / 4)),
                                          idf * 1 / (1 + 1.5 * (0.25 + 0.75 * 6 / 4))])


def test_bm25_rare_term_outranks_common_term():
    found = BM25Retriever(TINY).search("refund for prepaid", 3)
    assert ids(found) == ["d2", "d1"]


def test_bm25_ties_keep_corpus_order():
    docs = [Chunk("z", "store credit", "t.md"), Chunk("a", "store credit", "t.md"),
            Chunk("m", "bank transfer", "t.md")]
    assert ids(BM25Retriever(docs).search("store credit", 5)) == ["z", "a"]


def test_bm25_k_larger_than_corpus_and_empty_queries():
    retriever = BM25Retriever(TINY)
    # "gift" is rarer (idf 0.98 vs 0.47) and d3 short: d3 0.442 > d1 0.292 > d2 0.153
    assert ids(retriever.search("refund gift", 100)) == ["d3", "d1", "d2"]
    assert [round(s, 3) for s in lucene_bm25("refund gift", [c.text for c in TINY])] == [
        0.292, 0.153, 0.442]
    assert retriever.search("", 3) == []
    assert retriever.search("and for the", 3) == []  # stopwords only
    assert retriever.search("and for COD?", 3) == []  # no chunk says "cod"
    assert BM25Retriever().search("refund", 3) == []
    assert BM25Retriever(chunks_of("the and of", "a to")).search("the refund", 3) == []


def test_bm25_add_reindexes_lazily_once():
    retriever = BM25Retriever(TINY[:2])
    assert retriever.builds == 0
    assert ids(retriever.search("gift", 3)) == []
    assert retriever.builds == 1
    retriever.search("refund", 3)
    assert retriever.builds == 1  # no rebuild without an add
    retriever.add(TINY[2:])
    retriever.add([])
    assert retriever.builds == 1  # add does not rebuild
    assert ids(retriever.search("gift", 3)) == ["d3"]
    assert retriever.builds == 2
    assert retriever.search_scored("refunds", 5) == BM25Retriever(TINY).search_scored("refunds", 5)


def test_bad_add_changes_nothing():
    retriever = BM25Retriever(TINY[:2])
    with pytest.raises(ValueError, match="duplicate chunk id 'd1'"):
        retriever.add([TINY[2], TINY[0]])
    with pytest.raises(ValueError, match="chunk 'x' has no text"):
        retriever.add([TINY[2], Chunk("x", "", "t.md")])
    assert ids(retriever.chunks) == ["d1", "d2"] and len(retriever) == 2
    assert retriever.search("gift", 3) == []


def test_bm25_parameters_are_checked():
    with pytest.raises(ValueError, match="k1 must be a finite number >= 0, got -1"):
        BM25Retriever(TINY, k1=-1)
    with pytest.raises(ValueError, match="b must be between 0 and 1, got 2"):
        BM25Retriever(TINY, b=2)
    with pytest.raises(TypeError, match="tokenizer must be callable"):
        BM25Retriever(TINY, tokenizer="split")


def test_custom_tokenizer_is_used():
    retriever = BM25Retriever(TINY, tokenizer=str.split)  # no lowercasing, no stemming
    assert ids(retriever.search("refunds", 3)) == []
    assert ids(retriever.search("refund", 3)) == ["d1", "d2"]


# --- reciprocal rank fusion ----------------------------------------------------------

A, B, C, D = (Chunk(x, x, "t.md") for x in "abcd")


def test_rrf_fused_order_by_hand():
    fused = rrf([[A, B, C], [C, A, D]], k_rrf=60)
    assert [c.id for c, _ in fused] == ["a", "c", "b", "d"]
    assert [s for _, s in fused] == [1 / 61 + 1 / 62, 1 / 61 + 1 / 63, 1 / 62, 1 / 63]


def test_rrf_ties_go_to_the_best_rank_then_the_earlier_ranking():
    fused = rrf([[A, B], [B, A]])
    assert [c.id for c, _ in fused] == ["a", "b"] and fused[0][1] == fused[1][1]
    assert [c.id for c, _ in rrf([[C, A], [B, D]])] == ["c", "b", "a", "d"]
    assert [c.id for c, _ in rrf([[A, B], [B]], k_rrf=0)] == ["b", "a"]  # 1.5 > 1


class Fixed(Retriever):
    """A stub retriever with a fixed ranking that records the k it was asked for."""

    def __init__(self, ranking):
        super().__init__(ranking)
        self.asked = []

    def _ranked(self, query, k):
        self.asked.append(k)
        return [(c, 1.0) for c in self.chunks[:k]]


def test_hybrid_fuses_and_asks_each_retriever_for_depth():
    first, second = Fixed([A, B, C]), Fixed([C, A, D])
    hybrid = HybridRetriever([first, second], depth=10)
    assert ids(hybrid.search("q", 2)) == ["a", "c"]
    assert first.asked == second.asked == [10]
    hybrid.search("q", 20)
    assert first.asked[-1] == 20


def test_hybrid_of_keyword_and_bm25_on_the_seed():
    hybrid = HybridRetriever([KeywordRetriever(seed_chunks()), BM25Retriever(seed_chunks())])
    assert ids(hybrid.search("cash-on-delivery refund", 5)) == ["c2", "c1"]  # BM25 stems "refund"
    assert hybrid.search("and for COD?", 5) == []


def test_hybrid_add_reaches_every_retriever_or_none():
    keyword, bm25 = KeywordRetriever(TINY[:1]), BM25Retriever(TINY[:2])
    hybrid = HybridRetriever([keyword, bm25])
    with pytest.raises(ValueError, match="duplicate chunk id 'd2'"):
        hybrid.add([TINY[2], TINY[1]])  # d2 is new to keyword but not to bm25
    assert len(keyword) == 1 and len(bm25) == 2
    hybrid.add(TINY[2:])
    assert ids(hybrid.search("gift balance", 3)) == ["d3"]
    assert len(hybrid) == 3


def test_hybrid_arguments_are_checked():
    with pytest.raises(ValueError, match="at least one retriever"):
        HybridRetriever([])
    with pytest.raises(TypeError, match="has no search"):
        HybridRetriever([object()])
    with pytest.raises(ValueError, match="k_rrf must be a finite number >= 0, got -1"):
        HybridRetriever([Fixed([A])], k_rrf=-1)
    with pytest.raises(ValueError, match="depth must be >= 1, got 0"):
        HybridRetriever([Fixed([A])], depth=0)


# --- one interface, one set of errors ------------------------------------------------

RETRIEVERS = [lambda c: KeywordRetriever(c), lambda c: BM25Retriever(c),
              lambda c: HybridRetriever([KeywordRetriever(c), BM25Retriever(c)])]


@pytest.mark.parametrize("make", RETRIEVERS)
def test_bad_k_and_query_are_named(make):
    retriever = make(seed_chunks())
    with pytest.raises(ValueError, match="k must be >= 1, got 0"):
        retriever.search("refunds", 0)
    with pytest.raises(TypeError, match="k must be an int, got str: '3'"):
        retriever.search("refunds", "3")
    with pytest.raises(TypeError, match="k must be an int, got bool"):
        retriever.search("refunds", True)
    with pytest.raises(TypeError, match="query must be a str, got NoneType: None"):
        retriever.search(None, 3)
    with pytest.raises(TypeError, match=r"query must be a str, got list: \['refunds'\]"):
        retriever.search_scored(["refunds"], 3)


@pytest.mark.parametrize("make", RETRIEVERS)
def test_every_retriever_returns_chunks_best_first(make):
    corpus = load_corpus()
    found = make(corpus).build().search_scored("cash-on-delivery refund", 5)
    assert 1 <= len(found) <= 5 and all(isinstance(c, Chunk) and c in corpus for c, _ in found)
    assert all(s > 0 for _, s in found)


def test_bm25_finds_the_cod_refund_chunk_in_the_shipped_corpus():
    found = ids(BM25Retriever(load_corpus()).search("refund time for cash-on-delivery orders", 3))
    assert "refunds-04" in found


@pytest.mark.parametrize("name, value", [("k1", math.nan), ("k1", math.inf), ("b", math.nan)])
def test_bm25_rejects_nan_and_inf_parameters(name, value):
    with pytest.raises(ValueError, match=f"{name} must be a finite number >= 0, got {value}"):
        BM25Retriever(TINY, **{name: value})


@pytest.mark.parametrize("value", [-1, -60, math.nan, math.inf])
def test_rrf_and_hybrid_reject_a_bad_k_rrf(value):
    with pytest.raises(ValueError, match=f"k_rrf must be a finite number >= 0, got {value}"):
        rrf([[A], [A]], k_rrf=value)
    with pytest.raises(ValueError, match="k_rrf must be a finite number >= 0"):
        HybridRetriever([Fixed([A])], k_rrf=value)
