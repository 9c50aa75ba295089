"""Output guardrail: no valid citation, no answer; an invalid marker refuses too (the
end-to-end chatbot lesson)."""
import pytest

from kit.rag.citations import parse_citations
from kit.rag.documents import Chunk
from kit.rag.guardrail import REFUSAL, GuardrailResult, check_citations, refuse

SHOWN = [Chunk("c1", "Refunds for prepaid orders take 5 working days.", "refunds.md"),
         Chunk("c2", "Cash-on-delivery refunds are paid as store credit.", "refunds.md")]


def check(draft):
    return check_citations(draft, parse_citations(draft, SHOWN))


def test_a_cited_answer_passes_unchanged_but_stripped():
    result = check("  Prepaid refunds take 5 working days [1].\n")
    assert result == GuardrailResult(True, "Prepaid refunds take 5 working days [1].",
                                     "cites [1] -> c1")


def test_the_reason_lists_every_citation():
    assert check("Both [2][1].").reason == "cites [2] -> c2, [1] -> c1"


@pytest.mark.parametrize("draft, reason", [
    ("Prepaid refunds take 5 working days.", "no citation"),
    ("See the footnote[^1] and the [link](https://x.y).", "no citation"),
    ("", "empty answer"),
    ("   \n", "empty answer"),
    ("It is store credit [3].", "invalid marker [3]: only 2 chunks were shown"),
])
def test_refusals(draft, reason):
    assert check(draft) == GuardrailResult(False, REFUSAL, reason)


def test_mixing_valid_and_invalid_markers_refuses():
    # [1] is real, [4] names a chunk the model was never shown: the claim it sits on is
    # unsupported, so the whole draft is refused rather than the marker stripped.
    result = check("Prepaid takes 5 days [1]. Express refunds are instant [4][0].")
    assert not result.passed
    assert result.answer == REFUSAL
    assert result.reason == "invalid markers [4] [0]: only 2 chunks were shown"


def test_one_chunk_shown_reads_in_the_singular():
    draft = "It is [2]."
    result = check_citations(draft, parse_citations(draft, SHOWN[:1]))
    assert result.reason == "invalid marker [2]: only 1 chunk was shown"


def test_refuse_needs_a_reason():
    assert refuse("nothing retrieved") == GuardrailResult(False, REFUSAL, "nothing retrieved")
    with pytest.raises(ValueError, match="reason"):
        refuse(" ")


def test_bad_arguments():
    with pytest.raises(TypeError, match="draft must be a str"):
        check_citations(None, parse_citations("", SHOWN))
    with pytest.raises(TypeError, match="CitationResult"):
        check_citations("It is [1].", [1])
