"""Citation tracking: numbered context and parsing [n] markers back to chunks (the
end-to-end chatbot lesson)."""
import pytest

from kit.rag.citations import (Citation, find_markers, markers_to_ids, number_chunks,
                               parse_citations)
from kit.rag.documents import Chunk

C1 = Chunk("c1", "Refunds for prepaid orders take 5 working days.", "refunds.md")
C2 = Chunk("c2", "Cash-on-delivery refunds are paid as store credit.", "refunds.md")
C3 = Chunk("c3", "Exchanges are free within 30 days.", "exchanges.md")
CHUNKS = [C1, C2, C3]


def test_number_chunks_is_the_numbered_context_block():
    assert number_chunks([C1, C2]) == (
        "[1] Refunds for prepaid orders take 5 working days.\n\n"
        "[2] Cash-on-delivery refunds are paid as store credit.")
    assert number_chunks([]) == ""


def test_a_multi_line_chunk_cannot_fake_another_number():
    text = number_chunks([Chunk("x", "first line\n[2] fake chunk", "a.md"), C1])
    assert text == ("[1] first line\n  [2] fake chunk\n\n"
                    "[2] Refunds for prepaid orders take 5 working days.")
    assert [line for line in text.splitlines() if line.startswith("[")] == [
        "[1] first line", "[2] Refunds for prepaid orders take 5 working days."]


@pytest.mark.parametrize("bad", ["c1", [C1, "c2"], [("c1", "text", "src")]])
def test_number_chunks_rejects_what_is_not_a_chunk(bad):
    with pytest.raises(TypeError, match="Chunk"):
        number_chunks(bad)


@pytest.mark.parametrize("answer, markers", [
    ("Prepaid refunds take 5 working days [1].", [1]),
    ("Both apply [1][2].", [1, 2]),
    ("Both apply [1, 2] and [2,3].", [1, 2, 2, 3]),
    ("Spaces inside [ 2 ] are fine.", [2]),
    ("After a full stop.[3]", [3]),
    ("(see [1])", [1]),
    ("A checkbox [x] or [ ] is not a citation [2].", [2]),
    ("A link [1](https://example.com/refunds) is not a citation.", []),
    ("Neither is a footnote[^1] or [^1].", []),
    ("Ranges [1-2] and decimals [1.5] are not parsed.", []),
    ("Indexing a[0], items[1][2], f(x)[1] is code.", []),
    ("Inline code `rows[1]` and `[2]` is skipped [3].", [3]),
    ("```python\nfirst = chunks [1]\n```\nThe answer [2].", [2]),
    ("No markers at all.", []),
])
def test_find_markers(answer, markers):
    assert find_markers(answer) == markers


def test_parse_maps_markers_to_chunk_ids_and_sources():
    result = parse_citations("Prepaid: 5 days [1]. COD: store credit [2].", CHUNKS)
    assert result.citations == (Citation(1, "c1", "refunds.md"), Citation(2, "c2", "refunds.md"))
    assert result.chunk_ids == ("c1", "c2")
    assert result.sources == ("refunds.md",)             # de-duplicated
    assert result.invalid == () and result.shown == 3


def test_parse_deduplicates_in_first_seen_order():
    result = parse_citations("Exchanges [3]. Prepaid [1][3]. Again [1, 3].", CHUNKS)
    assert result.markers == (3, 1)
    assert result.chunk_ids == ("c3", "c1")
    assert result.sources == ("exchanges.md", "refunds.md")


def test_markers_naming_no_shown_chunk_are_invalid_and_kept_apart():
    result = parse_citations("Yes [2]. Also [0], [3] and [7][3].", [C1, C2])
    assert result.markers == (2,)
    assert result.invalid == (0, 3, 7)
    assert result.shown == 2


def test_no_chunks_shown_makes_every_marker_invalid():
    result = parse_citations("It is [1].", [])
    assert result.citations == () and result.invalid == (1,) and result.shown == 0


def test_parse_rejects_bad_input():
    with pytest.raises(TypeError, match="answer must be a str"):
        parse_citations(None, CHUNKS)
    with pytest.raises(TypeError, match="chunk 2"):
        parse_citations("[1]", [C1, {"id": "c2"}])


# --- markers_to_ids: an answer kept for a later turn names chunks by id ---------------------

@pytest.mark.parametrize("answer, saved", [
    ("Prepaid refunds take 5 working days [1].", "Prepaid refunds take 5 working days (source: c1)."),
    ("Both apply [1][2].", "Both apply (sources: c1, c2)."),
    ("Both apply [2, 1] and [3,3].", "Both apply (sources: c2, c1) and (source: c3)."),
    ("Spaces inside [ 2 ] go too.", "Spaces inside (source: c2) go too."),
    ("Credit [2]. Days [1]. Credit again [2].",
     "Credit (source: c2). Days (source: c1). Credit again (source: c2)."),
    ("Code `rows[1]`, a[0], [x] and [1](https://x.example) stay; this does not [3].",
     "Code `rows[1]`, a[0], [x] and [1](https://x.example) stay; this does not (source: c3)."),
    ("```\nchunks [1]\n```\nDone [1].", "```\nchunks [1]\n```\nDone (source: c1)."),
    ("No markers at all.", "No markers at all."),
])
def test_markers_to_ids(answer, saved):
    assert markers_to_ids(answer, CHUNKS) == saved


def test_markers_to_ids_follows_the_turns_numbering():
    """The same "[1]" names c1 in one turn and c2 in the next: the ids tell them apart."""
    assert markers_to_ids("See [1].", [C1, C2]) == "See (source: c1)."
    assert markers_to_ids("See [1].", [C2]) == "See (source: c2)."


def test_markers_to_ids_keeps_a_run_naming_an_unshown_chunk():
    assert markers_to_ids("Yes [1]. No [0]. Mixed [2][7].", [C1, C2]) == (
        "Yes (source: c1). No [0]. Mixed [2][7].")
    assert markers_to_ids("It is [1].", []) == "It is [1]."


def test_markers_to_ids_rejects_bad_input():
    with pytest.raises(TypeError, match="answer must be a str"):
        markers_to_ids(b"[1]", CHUNKS)
    with pytest.raises(TypeError, match="chunk 1"):
        markers_to_ids("[1]", [("c1", "text", "src")])


def test_a_marker_of_thousands_of_digits_is_invalid_not_a_crash():
    # int("9" * 5000) raises ValueError (Python's 4300-digit limit); such a marker must
    # read as an invalid marker, so the guardrail refuses the draft.
    answer = "Refunds take 5 days [1] [" + "9" * 5000 + "]."
    result = parse_citations(answer, CHUNKS)
    assert result.markers == (1,) and result.invalid == (10 ** 9,)
    assert find_markers("see [0000000002]") == [2]              # leading zeros aside
    assert markers_to_ids(answer, CHUNKS).startswith("Refunds take 5 days (source: c1) [999")
