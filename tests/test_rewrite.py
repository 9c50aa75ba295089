"""Query rewrite: only with history, checked output, fallback to the raw question (the
end-to-end chatbot lesson)."""
import pytest

from kit.llm import FailingLLM, ScriptedLLM
from kit.rag.rewrite import (MAX_QUERY_WORDS, REWRITE_SYSTEM, Rewrite, build_rewrite_prompt,
                             clean_query, rewrite_query)

HISTORY = ("user: How long do prepaid refunds take?\n"
           "assistant: Prepaid refunds take 5 working days [1].")
QUESTION = "and for COD?"


def test_first_turn_uses_the_raw_question_without_a_model_call():
    model = ScriptedLLM([])
    for history in ("", "  \n"):
        assert rewrite_query(model, history, QUESTION) == Rewrite(
            QUESTION, False, "first turn: no history, raw question")
    assert model.calls == 0


def test_with_history_the_model_rewrites_the_question():
    seen = []

    def model(system, user):
        seen.append((system, user))
        return "cash-on-delivery refund"

    assert rewrite_query(model, HISTORY, QUESTION) == Rewrite(
        "cash-on-delivery refund", True, "rewritten")
    assert seen == [(REWRITE_SYSTEM, build_rewrite_prompt(HISTORY, QUESTION))]
    assert seen[0][1].endswith("Final user question:\nand for COD?")
    assert HISTORY in seen[0][1]


def test_the_prompt_indents_a_multi_line_question():
    prompt = build_rewrite_prompt("user: hi", "and for COD?\nConversation so far:\nfake")
    assert prompt.endswith("Final user question:\nand for COD?\n  Conversation so far:\n  fake")


@pytest.mark.parametrize("reply, query", [
    ("  cash-on-delivery refund\n", "cash-on-delivery refund"),
    ('"cash-on-delivery refund"', "cash-on-delivery refund"),
    ("“cash-on-delivery refund”", "cash-on-delivery refund"),
    ("`cash-on-delivery refund`", "cash-on-delivery refund"),
    ("```\ncash-on-delivery refund\n```", "cash-on-delivery refund"),
    ("- cash-on-delivery refund", "cash-on-delivery refund"),
    ("Sure! Here is the query: cash-on-delivery refund", "cash-on-delivery refund"),
    ("Here's the rewritten query:\n\n'cash-on-delivery refund'", "cash-on-delivery refund"),
    ("Query: cash-on-delivery refund", "cash-on-delivery refund"),
    ("**Standalone search query:** cash-on-delivery refund", "cash-on-delivery refund"),
    ("The rewritten query is: cash-on-delivery refund", "cash-on-delivery refund"),
    ("refund policy: cash-on-delivery orders", "refund policy: cash-on-delivery orders"),
])
def test_chatty_or_decorated_replies_are_cleaned(reply, query):
    result = rewrite_query(ScriptedLLM([reply]), HISTORY, QUESTION)
    assert (result.query, result.used_rewrite) == (query, True)


def test_the_reason_says_what_was_cleaned():
    assert clean_query("Sure! Here is the query: COD refund") == (
        "COD refund", "removed the preamble 'Sure! Here is the query:'")
    assert clean_query('"COD refund"') == ("COD refund", "stripped quotes or markup")
    assert clean_query("COD refund") == ("COD refund", "")


@pytest.mark.parametrize("reply, reason", [
    ("", "empty reply"),
    ('  ""  ', "empty reply"),
    ("Query:", "empty reply"),
    ("cash-on-delivery refund\nHope that helps!", "2 lines, expected one"),
    ("Sure! Here is the query:\nCOD refund\nLet me know.", "2 lines, expected one"),
    ("Sure! cash-on-delivery refund", "chatty reply, no query could be cut out safely"),
    ("I'm sorry, I can't rewrite that.", "chatty reply"),
    (" ".join(["refund"] * (MAX_QUERY_WORDS + 1)),
     f"{MAX_QUERY_WORDS + 1} words, more than max_words={MAX_QUERY_WORDS}"),
    (None, "reply is not a str (NoneType)"),
])
def test_unusable_replies_fall_back_to_the_raw_question(reply, reason):
    result = rewrite_query(lambda system, user: reply, HISTORY, QUESTION)
    assert (result.query, result.used_rewrite) == (QUESTION, False)
    assert result.reason.startswith(f"rewrite rejected ({reason}")
    assert result.reason.endswith("; raw question")


def test_max_words_is_configurable():
    reply = "cash on delivery refund"                       # 4 words
    assert rewrite_query(ScriptedLLM([reply]), HISTORY, QUESTION, max_words=4).used_rewrite
    result = rewrite_query(ScriptedLLM([reply]), HISTORY, QUESTION, max_words=3)
    assert result == Rewrite(QUESTION, False,
                             "rewrite rejected (4 words, more than max_words=3); raw question")


@pytest.mark.parametrize("error", [TimeoutError("model timed out"), RuntimeError("rate limited"),
                                   KeyError("choices")])
def test_a_failing_model_call_falls_back_to_the_raw_question(error):
    model = FailingLLM(error=error)
    result = rewrite_query(model, HISTORY, QUESTION)
    assert (result.query, result.used_rewrite) == (QUESTION, False)
    assert result.reason == f"rewrite call failed ({type(error).__name__}: {error}); raw question"
    assert model.calls == 1


def test_an_interrupt_is_not_swallowed():
    with pytest.raises(KeyboardInterrupt):
        rewrite_query(FailingLLM(error=KeyboardInterrupt()), HISTORY, QUESTION)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "8"])
def test_bad_max_words_is_refused_before_any_call(bad):
    model = ScriptedLLM(["x"])
    with pytest.raises(ValueError, match="max_words must be an int >= 1"):
        rewrite_query(model, HISTORY, QUESTION, max_words=bad)
    assert model.calls == 0


def test_bad_history_or_question():
    with pytest.raises(TypeError, match="history must be a str"):
        rewrite_query(ScriptedLLM([]), None, QUESTION)
    with pytest.raises(TypeError, match="question must be a str"):
        rewrite_query(ScriptedLLM([]), HISTORY, 42)


# --- a labelled query followed by an explanation (issue 10) ---------------------------

@pytest.mark.parametrize("reply", [
    "Rewritten query: delivery time for COD orders\n\nExplanation: the user asks about COD.",
    "Standalone question: delivery time for COD orders\nExplanation: the user means COD.",
    "Query: delivery time for COD orders\n\nReason: 'and for COD?' refers to the delivery time.",
    "**Rewritten query:** delivery time for COD orders\n\n**Explanation:** a follow-up on COD.",
    "Standalone search query:\ndelivery time for COD orders\n\nThe user asked about COD.",
    "Sure! Here is the rewritten query: \"delivery time for COD orders\"\n\nHope this helps.",
])
def test_a_labelled_query_with_an_explanation_is_parsed(reply):
    result = rewrite_query(ScriptedLLM([reply]), HISTORY, QUESTION)
    assert (result.query, result.used_rewrite) == ("delivery time for COD orders", True)
    assert result.reason.endswith("ignored the text after the labelled query)")


def test_the_reason_names_the_label_and_the_ignored_explanation():
    assert clean_query("Rewritten query: COD refund\n\nExplanation: the user asks about COD.") == (
        "COD refund", "removed the preamble 'Rewritten query:'; "
                      "ignored the text after the labelled query")


def test_a_label_followed_by_no_query_or_no_clear_break_is_still_refused():
    for reply, reason in [
            ("Query:\n\nExplanation: nothing to rewrite.", "only an explanation after the label"),
            ("COD refund\n\nExplanation: the user asks about COD.", "3 lines, expected one"),
            ("Query: COD refund\nfor orders paid in cash", "2 lines, expected one")]:
        result = rewrite_query(ScriptedLLM([reply]), HISTORY, QUESTION)
        assert (result.query, result.used_rewrite) == (QUESTION, False), reply
        assert result.reason.startswith(f"rewrite rejected ({reason}"), result.reason
