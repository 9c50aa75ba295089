"""Unit tests of kit/llm.py: the deterministic model stubs and the summary-prompt parser.

Prompts are built with the real :func:`kit.memory.build_summary_prompt`, so a change of
layout on either side (prompt builder or parser) breaks these tests.
"""
import pytest

from kit.llm import CountingLLM, FailingLLM, ScriptedLLM, ScriptExhaustedError, fact_listing_summariser, gist_summariser, prompt_following_summariser, lossy_summariser, NOTHING_LEFT
from kit.memory import CARELESS_PROMPT, SUMMARY_PROMPT, build_summary_prompt
from kit.messages import make_message
from kit.prompts import parse_summary_prompt, parse_summary_turns
from kit.tokens import approx_tokens, count_words

LAPTOP = [("user", "I need a laptop under Rs 60000"),
          ("assistant", "For coding or gaming?"),
          ("user", "Coding, and it must weigh under 1.5 kg"),
          ("assistant", "Try the Zenbook 14 at Rs 57990")]
FIRST_SUMMARY = "I need a laptop under Rs 60000; For coding or gaming?"


def messages(turns, start=1):
    return [make_message(role, text, count_words, n) for n, (role, text) in
            enumerate(turns, start)]


def prompt(summary, turns, instructions=SUMMARY_PROMPT):
    return build_summary_prompt(summary, messages(turns), instructions)


# --- ScriptedLLM ----------------------------------------------------------------------

def test_scripted_replies_in_order_and_records_prompts():
    model = ScriptedLLM(["first", "second", "third"])
    assert model("p1") == "first"
    assert model("you are terse", "p2") == "second"        # chat shape: (system, user)
    assert model("p3") == "third"
    assert model.prompts == ["p1", "p2", "p3"]


def test_scripted_exhausted_names_the_call_number():
    model = ScriptedLLM(["only"])
    model("a")
    with pytest.raises(ScriptExhaustedError, match=r"has 1 replies but call 2") as error:
        model("the second prompt")
    assert "the second prompt" in str(error.value)
    assert model.prompts == ["a"]


def test_scripted_exhausted_names_each_call_number():
    # kit/llm.py ScriptedLLM.__call__ numbers calls by len(self.prompts) + 1, and a
    # failed call is not recorded, so every call after the script ran out repeats the
    # number of the first one ("call 1" twice here).
    model = ScriptedLLM([])
    with pytest.raises(ScriptExhaustedError, match="call 1"):
        model("x")
    with pytest.raises(ScriptExhaustedError, match="call 2"):
        model("y")


def test_scripted_rejects_bad_replies_and_arguments():
    with pytest.raises(TypeError, match="replies must be strings"):
        ScriptedLLM(["ok", 3])
    model = ScriptedLLM(["ok"])
    with pytest.raises(TypeError):
        model()
    with pytest.raises(TypeError):
        model("system", None)
    assert model.prompts == []


# --- parse_summary_prompt -----------------------------------------------------------------

def test_parse_prompt_without_a_summary():
    assert parse_summary_prompt(prompt("", LAPTOP[:2])) == ("", [LAPTOP[0][1], LAPTOP[1][1]])


def test_parse_prompt_with_a_summary():
    assert parse_summary_prompt(prompt(FIRST_SUMMARY, LAPTOP[2:])) == (
        FIRST_SUMMARY, [LAPTOP[2][1], LAPTOP[3][1]])


def test_parse_keeps_colons_inside_a_turn():
    turns = [("user", "Order: 88412, time: 10:30")]
    assert parse_summary_prompt(prompt("", turns)) == ("", ["Order: 88412, time: 10:30"])


def test_parse_turns_keeps_each_speaker_and_multi_line_turns():
    turns = [("user", "first line, ref 12345\nassistant: pretend turn"), ("assistant", "Ok: done")]
    assert parse_summary_turns(prompt(FIRST_SUMMARY, turns)) == (FIRST_SUMMARY, turns)
    assert parse_summary_turns(prompt("", [])) == ("", [])
    assert parse_summary_prompt(prompt(FIRST_SUMMARY, turns)) == (
        FIRST_SUMMARY, [text for _, text in turns])


@pytest.mark.parametrize("text", ["Summarise this: user: hi", "Current summary:\n(none)",
                                  "New turns:\nuser: hi", ""])
def test_parse_rejects_a_non_summary_prompt(text):
    with pytest.raises(ValueError, match="not a summary prompt"):
        parse_summary_prompt(text)
    with pytest.raises(ValueError, match="not a summary prompt"):
        parse_summary_turns(text)


def test_parse_turns_needs_a_str():
    with pytest.raises(TypeError, match="a summary prompt is a str, got int: 7"):
        parse_summary_turns(7)


# --- summarisers ----------------------------------------------------------------------------

def test_fact_listing_reproduces_the_seed_summary():
    assert fact_listing_summariser(prompt("", LAPTOP[:2])) == FIRST_SUMMARY


def test_fact_listing_is_incremental():
    assert fact_listing_summariser(prompt(FIRST_SUMMARY, LAPTOP[2:])) == (
        FIRST_SUMMARY + "; Coding, and it must weigh under 1.5 kg; Try the Zenbook 14 at Rs 57990")


def test_gist_drops_numbers_and_cuts_to_four_words():
    assert gist_summariser(prompt("", LAPTOP[:2])) == "I need a laptop; For coding or gaming?"
    assert gist_summariser(prompt("", LAPTOP[2:])) == "Coding, and it must; Try the Zenbook at"
    assert gist_summariser(prompt("", LAPTOP[2:]), words_per_turn=2) == "Coding, and; Try the"


def test_gist_keeps_the_previous_summary_and_skips_empty_gists():
    turns = [("user", "88412"), ("assistant", "Noted, thanks")]
    assert gist_summariser(prompt("old summary 1", turns)) == "old summary 1; Noted, thanks"


def test_gist_with_max_words_stays_short():
    # LAPTOP gists: "I need a laptop; For coding or gaming?; Coding, and it must; Try ..."
    text = prompt("", LAPTOP)
    assert gist_summariser(text, max_words=6) == "I need a laptop; For coding"
    assert gist_summariser(text, max_words=4) == "I need a laptop"     # no dangling ";"
    assert gist_summariser(text, max_words=100) == gist_summariser(text)
    # the cap holds fold after fold: the previous summary is cut too
    again = prompt(gist_summariser(text, max_words=6), LAPTOP)
    assert gist_summariser(again, max_words=6) == "I need a laptop; For coding"


@pytest.mark.parametrize("bad", [0, -1, True, "20", 2.5])
def test_max_words_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match=f"max_words must be an int >= 1 or None, got {bad!r}"):
        gist_summariser(prompt("", LAPTOP), max_words=bad)
    with pytest.raises(ValueError, match="max_words must be an int >= 1 or None"):
        prompt_following_summariser(prompt("", LAPTOP), max_words=bad)


def test_prompt_following_keeps_facts_when_asked():
    turns = LAPTOP + [("user", "I am allergic to peanuts"), ("assistant", "Have a nice day!")]
    assert prompt_following_summariser(prompt("earlier", turns)) == "; ".join(
        ["earlier", LAPTOP[0][1], LAPTOP[2][1], LAPTOP[3][1], "I am allergic to peanuts"])


def test_prompt_following_is_careless_under_a_careless_prompt():
    careless = prompt("", LAPTOP, CARELESS_PROMPT)
    expected = "I need a laptop; For coding or gaming?; Coding, and it must; Try the Zenbook at"
    assert prompt_following_summariser(careless) == expected == gist_summariser(careless)
    assert "60000" not in expected and "57990" not in expected
    # max_words shortens only the careless gist, never a fact-keeping summary
    assert prompt_following_summariser(careless, max_words=4) == "I need a laptop"
    keeping = prompt("", LAPTOP)
    assert (prompt_following_summariser(keeping, max_words=4)
            == prompt_following_summariser(keeping))


# --- FailingLLM -------------------------------------------------------------------------------

def test_failing_fails_only_on_chosen_calls():
    inner = ScriptedLLM(["r1", "r3"])
    model = FailingLLM(inner, fail_on={2})
    assert model("p1") == "r1"
    with pytest.raises(TimeoutError, match="model timed out"):
        model("p2")
    assert model("sys", "p3") == "r3"
    assert model.calls == 3
    assert inner.prompts == ["p1", "p3"]                  # the failed call never reached it


def test_failing_with_fail_on_none_always_fails():
    inner = ScriptedLLM(["never"])
    model = FailingLLM(inner)
    for _ in range(3):
        with pytest.raises(TimeoutError):
            model("p")
    assert (model.calls, inner.prompts) == (3, [])


def test_failing_raises_a_custom_error():
    error = ConnectionError("rate limited")
    model = FailingLLM(fail_on=[1], error=error)
    with pytest.raises(ConnectionError) as raised:
        model("p")
    assert raised.value is error
    with pytest.raises(RuntimeError, match="no model to answer call 2"):
        model("p")


# --- CountingLLM -------------------------------------------------------------------------------

def test_counting_counts_calls_and_words_exactly():
    model = CountingLLM(ScriptedLLM(["four words reply here", "ok"]), measure=count_words)
    assert model("be brief", "what laptop should I buy") == "four words reply here"
    assert (model.calls, model.prompt_tokens, model.reply_tokens) == (1, 2 + 5, 4)
    model("one more question")
    assert (model.calls, model.prompt_tokens, model.reply_tokens) == (2, 10, 5)


def test_counting_defaults_to_approx_tokens():
    model = CountingLLM(lambda text: "x" * 9)
    model("y" * 12)
    assert (model.calls, model.prompt_tokens, model.reply_tokens) == (
        1, approx_tokens("y" * 12), 2)
    assert model.prompt_tokens == 3


def test_multi_line_messages_are_kept_whole():
    turns = [make_message("user", "Order details:\nPrice: Rs 500\nDelivery: Friday", count_words, 1),
             make_message("assistant", "Noted.", count_words, 2)]
    summary, contents = parse_summary_prompt(build_summary_prompt("", turns))
    assert contents == ["Order details:\nPrice: Rs 500\nDelivery: Friday", "Noted."]
    assert fact_listing_summariser(build_summary_prompt("", turns)) == (
        "Order details:\nPrice: Rs 500\nDelivery: Friday; Noted.")


def test_scripted_llm_refuses_one_string_as_its_script():
    with pytest.raises(TypeError, match="not one string"):
        ScriptedLLM("a short summary")


@pytest.mark.parametrize("kwargs, error, text", [
    ({"fail_on": 3}, TypeError, "set of call numbers"),
    ({"fail_on": {0}}, ValueError, "call numbers >= 1"),
    ({"error": "boom"}, TypeError, "exception instance"),
])
def test_failing_llm_rejects_bad_settings(kwargs, error, text):
    with pytest.raises(error, match=text):
        FailingLLM(fact_listing_summariser, **kwargs)


def test_failing_llm_traceback_does_not_grow():
    model = FailingLLM()
    depths = []
    for _ in range(3):
        try:
            model("x")
        except TimeoutError as exc:
            tb, depth = exc.__traceback__, 0
            while tb:
                depth, tb = depth + 1, tb.tb_next
            depths.append(depth)
    assert depths[0] == depths[1] == depths[2]


def test_gist_needs_a_positive_word_count():
    with pytest.raises(ValueError, match="words_per_turn must be an int >= 1, got -1"):
        gist_summariser(build_summary_prompt("", []), words_per_turn=-1)


# --- lossy_summariser -----------------------------------------------------------------

def test_lossy_summariser_keeps_everything_on_an_update():
    text = prompt("order 88412", LAPTOP[:2])
    assert lossy_summariser(text) == fact_listing_summariser(text)


def test_lossy_resummarise_drops_small_talk_and_the_first_number():
    summary = "Hi there; order 88412 and Rs 60000\nsee you soon; allergic to peanuts; id 88412"
    once = lossy_summariser(build_summary_prompt(summary, []))
    assert once == "order and Rs 60000; allergic to peanuts; id 88412"
    twice = lossy_summariser(build_summary_prompt(once, []))
    assert twice == "order and Rs; allergic to peanuts; id 88412"


def test_lossy_resummarise_drifts_one_number_per_pass():
    from kit.memory import resummarise
    passes = resummarise("paid 5 then 7; then 9", lossy_summariser, 4)
    # a clause left without a number is small talk at the next pass, and goes
    assert passes == ["paid then 7; then 9", "paid then; then 9", "then", "then"]


def test_lossy_resummarise_keeps_a_word_or_says_nothing_is_left():
    assert lossy_summariser(build_summary_prompt("thanks a lot; see you", [])) == "thanks a lot"
    assert lossy_summariser(build_summary_prompt("88412", [])) == NOTHING_LEFT
    assert lossy_summariser(build_summary_prompt("order 88412", [])) == "order"
