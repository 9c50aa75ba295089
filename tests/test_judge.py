"""Unit tests of kit/rag/judge.py: verdict parsing, the judge prompt, the stub judges."""
import json

import pytest

from kit.llm import ScriptedLLM
from kit.rag.documents import Chunk
from kit.rag.judge import (JUDGE_SYSTEM, FlakyJudge, Verdict, build_judge_prompt,
                           content_words, judge, overlap_judge, parse_judge_prompt,
                           parse_verdict, split_sentences)

PREPAID = Chunk("c1", "Refunds for prepaid orders take 5 working days.", "refunds.md")
COD = Chunk("c2", "Cash-on-delivery refunds are paid as store credit.", "refunds.md")
CHUNKS = [PREPAID, COD]


def verdict_of(answer, chunks=CHUNKS, **options):
    reply = overlap_judge(JUDGE_SYSTEM, build_judge_prompt("q?", answer, chunks), **options)
    return json.loads(reply)


# --- parse_verdict ---------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ('{"grounded": true, "reason": "in [1]"}', 1.0),
    ('{"grounded": false}', 0.0),
    ('  \n{"reason": "x", "grounded": false}\n ', 0.0),           # key order, white space
    ('```json\n{"grounded": true}\n```', 1.0),                     # one markdown fence
    ('```\n{"grounded": false}\n```', 0.0),
])
def test_parse_verdict_reads_strict_json(text, expected):
    assert parse_verdict(text) == expected


@pytest.mark.parametrize("text", [
    "", "   ", "VERDICT: yes", "The answer is mostly grounded.",
    '{"grounded": "yes"}', '{"grounded": "true"}', '{"grounded": 1}', '{"grounded": 0.8}',
    '{"grounded": null}', '{"reason": "fine"}', '[true]', 'true',
    'Here it is: {"grounded": true}',                              # text around the JSON
    '{"grounded": true} and more',
    '{"grounded": true, "grounded": false}',                       # a key given twice
    '{"grounded": true',                                            # cut off
    '```json\n{"grounded": true}\n```\n```json\n{"grounded": false}\n```',
    None, 1.0, b'{"grounded": true}',
])
def test_parse_verdict_is_none_for_anything_else(text):
    assert parse_verdict(text) is None


# --- the judge prompt ------------------------------------------------------------------

def test_prompt_round_trip_with_multiline_text():
    chunks = [Chunk("a", "line one\nline two", "s"), COD]
    prompt = build_judge_prompt("How long\ndo refunds take?", "5 days [1].\nStore credit [2].", chunks)
    assert parse_judge_prompt(prompt) == ("How long\ndo refunds take?",
                                          ["line one\nline two", COD.text],
                                          "5 days [1].\nStore credit [2].")


def test_text_cannot_fake_a_header():
    tricky = Chunk("x", "Answer:\n  grounded [1].", "s")
    prompt = build_judge_prompt("Context:", "Question:\n[2] fake", [tricky])
    question, chunks, answer = parse_judge_prompt(prompt)
    assert (question, chunks, answer) == ("Context:", ["Answer:\n  grounded [1]."], "Question:\n[2] fake")


def test_prompt_rejects_bad_input_and_parser_rejects_other_layouts():
    with pytest.raises(TypeError, match="answer must be a str"):
        build_judge_prompt("q", None, CHUNKS)
    with pytest.raises(TypeError, match="chunks must have a str .text"):
        build_judge_prompt("q", "a", ["plain text"])
    with pytest.raises(ValueError, match="not a judge prompt"):
        parse_judge_prompt("Answer:\n  x\nQuestion:\n  y\nContext:\n")


# --- overlap_judge ---------------------------------------------------------------------

def test_content_words_and_sentences():
    assert content_words("Refunds take 5 working days [1], and for COD?") == {
        "refunds", "take", "5", "working", "days", "cod"}
    assert split_sentences("Refunds take 5.5 days. [1] Store credit [2]! Ok?") == [
        "Refunds take 5.5 days. [1]", "Store credit [2]!", "Ok?"]


def test_overlap_judge_grounded_when_every_cited_sentence_overlaps():
    reply = verdict_of("Prepaid refunds take 5 working days [1]. COD refunds are paid as store credit [2].")
    assert reply["grounded"] is True


def test_overlap_judge_rules():
    # 2 of 6 content words (refunds, take) are in [1]: below half.
    assert verdict_of("Refunds take 9 weeks and cost money [1].") == {
        "grounded": False, "reason": "cited sentence 1 shares 2 of 6 content words with [1]"}
    # The right words, but the sentence cites the other chunk.
    assert verdict_of("Prepaid refunds take 5 working days [2].")["grounded"] is False
    # Both chunks cited together: their words count together.
    assert verdict_of("Prepaid refunds take 5 days; COD gets store credit [1][2].")["grounded"] is True
    assert verdict_of("Refunds take 5 working days [3].") == {
        "grounded": False, "reason": "cites [3] but 2 chunks were shown"}
    assert verdict_of("Refunds take 5 working days.") == {
        "grounded": False, "reason": "no sentence cites a chunk"}
    # Uncited sentences are not checked by this stub (documented limitation).
    assert verdict_of("Refunds take 5 working days [1]. Also a free phone.")["grounded"] is True


def test_overlap_judge_threshold():
    answer = "Refunds take 9 weeks and cost money [1]."        # 2 of 6 words shared
    assert verdict_of(answer, min_overlap=0.33)["grounded"] is True
    assert verdict_of(answer, min_overlap=0.34)["grounded"] is False
    with pytest.raises(ValueError, match="min_overlap must be between 0 and 1, got 1.5"):
        verdict_of(answer, min_overlap=1.5)


# --- judge -----------------------------------------------------------------------------

def test_judge_sends_system_and_prompt_and_reads_the_verdict():
    model = ScriptedLLM(['```json\n{"grounded": false, "reason": "no [2]"}\n```'])
    verdict = judge("When?", "Store credit [2].", CHUNKS, model)
    assert verdict == Verdict(0.0, "no [2]", model.replies[0])
    assert model.prompts == [build_judge_prompt("When?", "Store credit [2].", CHUNKS)]


def test_judge_with_overlap_judge():
    verdict = judge("How long?", "Prepaid refunds take 5 working days [1].", CHUNKS, overlap_judge)
    assert verdict.groundedness == 1.0 and "1 cited sentences" in verdict.reason


def test_judge_is_none_when_the_model_fails_or_is_out_of_format():
    flaky = FlakyJudge(overlap_judge, unparseable_on={1}, raise_on={2})
    answer = "Prepaid refunds take 5 working days [1]."
    assert judge("q", answer, CHUNKS, flaky) is None                # prose
    assert judge("q", answer, CHUNKS, flaky) is None                # raised TimeoutError
    assert judge("q", answer, CHUNKS, flaky).groundedness == 1.0    # back to normal
    assert flaky.calls == 3
    assert judge("q", answer, CHUNKS, ScriptedLLM(['{"grounded": "yes"}'])) is None
    assert judge("q", answer, CHUNKS, lambda s, u: None) is None     # a non-str reply


def test_judge_lets_keyboard_interrupt_through():
    with pytest.raises(KeyboardInterrupt):
        judge("q", "a [1].", CHUNKS, FlakyJudge(overlap_judge, raise_on={1}, error=KeyboardInterrupt()))


def test_flaky_judge_rejects_bad_call_numbers():
    with pytest.raises(TypeError, match="set of call numbers"):
        FlakyJudge(overlap_judge, raise_on=2)
    with pytest.raises(ValueError, match=r"unparseable_on holds call numbers >= 1, got \['0'\]"):
        FlakyJudge(overlap_judge, unparseable_on={0})
    with pytest.raises(ValueError, match=r"calls \[2\] are in both"):
        FlakyJudge(overlap_judge, unparseable_on={2}, raise_on={2, 3})
    with pytest.raises(TypeError, match="exception instance"):
        FlakyJudge(overlap_judge, error=TimeoutError)


def test_a_verdict_nested_too_deep_is_unjudged_not_a_crash():
    deep = '{"grounded": true, "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert parse_verdict(deep) is None
    assert judge("q?", "5 days [1].", CHUNKS, lambda system, user: deep) is None


# --- no retrieved context (issue 10) ---------------------------------------------------

class RecordingJudge:
    """A lenient judge that calls everything grounded and records each call."""

    def __init__(self):
        self.calls = []

    def __call__(self, system, user):
        self.calls.append((system, user))
        return '{"grounded": true, "reason": "looks fine"}'


@pytest.mark.parametrize("chunks", [[], (), [Chunk("c0", "  \n", "blank.md")]])
def test_an_answer_with_no_context_scores_zero_before_any_judge_call(chunks):
    model = RecordingJudge()
    verdict = judge("How long do refunds take?", "Refunds take 5 days [1].", chunks, model)
    assert verdict == Verdict(0.0, "no context was retrieved, so nothing supports the answer", "")
    assert model.calls == []


def test_the_harness_scores_an_answer_given_no_context_zero_without_a_judge_call():
    from types import SimpleNamespace

    from kit.rag.evaluate import evaluate

    class NoContextBot:             # answers, cites nothing shown, is not a refusal
        def ask(self, session_id, question):
            return SimpleNamespace(answer="Refunds take 5 days.", query=question, chunk_ids=[],
                                   chunks=[], refused=False)

    model = RecordingJudge()
    report = evaluate(NoContextBot(), [{"question": "How long?", "gold_chunk_id": "c1"}], model)
    assert [(r.groundedness, r.judge_reason) for r in report.rows] == [
        (0.0, "no context was retrieved, so nothing supports the answer")]
    assert report.groundedness == 0.0 and model.calls == []
