"""The lesson-03 checkers accept the right answers and reject the typical wrong ones."""
from __future__ import annotations

import pytest

from kit.checks import CheckFailed, role_turns
from kit.checks import as_messages, compaction
from kit.checks import summary as checks
from kit.checks.compaction import check_compact
from kit.checks.summary import check_split_turns
from kit.llm import fact_listing_summariser, gist_summariser
from kit.memory import CARELESS_PROMPT, build_summary_prompt, split_for_compaction


# -- split_turns(turns, keep_recent) -----------------------------------------------------
def split_turns(turns, keep_recent):
    split = max(len(turns) - keep_recent, 0)
    while 0 < split < len(turns) and turns[split][0] == "assistant":
        split -= 1
    return turns[:split], turns[split:]


def split_negative_slice(turns, keep_recent):      # turns[:-0] == []: the classic trap
    old, recent = turns[:-keep_recent], turns[-keep_recent:]
    while old and recent and recent[0][0] == "assistant":
        old, recent = old[:-1], old[-1:] + recent
    return old, recent


def split_no_move_back(turns, keep_recent):        # recent may start with a reply
    split = max(len(turns) - keep_recent, 0)
    return turns[:split], turns[split:]


def split_moves_back_once(turns, keep_recent):     # `if` instead of `while`
    split = max(len(turns) - keep_recent, 0)
    if 0 < split < len(turns) and turns[split][0] == "assistant":
        split -= 1
    return turns[:split], turns[split:]


def split_off_by_one(turns, keep_recent):          # keeps one message too many
    split = max(len(turns) - keep_recent - 1, 0)
    while 0 < split < len(turns) and turns[split][0] == "assistant":
        split -= 1
    return turns[:split], turns[split:]


def split_off_by_one_other_way(turns, keep_recent):  # keeps one message too few
    split = min(max(len(turns) - keep_recent + 1, 0), len(turns))
    while 0 < split < len(turns) and turns[split][0] == "assistant":
        split -= 1
    return turns[:split], turns[split:]


def split_mutating(turns, keep_recent):            # pops from the caller's list
    old = []
    while len(turns) > keep_recent:
        old.append(turns.pop(0))
    while old and turns and turns[0][0] == "assistant":
        turns.insert(0, old.pop())
    return old, turns


def split_returns_input(turns, keep_recent):       # aliases the input for keep_recent=0
    if keep_recent == 0:
        return turns, []
    return split_turns(turns, keep_recent)


def split_stub(turns, keep_recent):
    raise NotImplementedError("Exercise: write your answer here")


def test_split_turns_right_answer_passes(passes):
    passes(check_split_turns, split_turns, "split_turns")


@pytest.mark.parametrize("wrong, hint", [
    (split_negative_slice, "turns[:-0]"),
    (split_no_move_back, "move the split back"),
    (split_moves_back_once, "a while, not an if"),
    (split_off_by_one, "off by one"),
    (split_off_by_one_other_way, "off by one"),
    (split_mutating, "changed its input in place"),
    (split_returns_input, "input list itself"),
    (split_stub, "not written yet"),
])
def test_split_turns_wrong_answers_fail(wrong, hint, rejects):
    rejects(check_split_turns, wrong, hint)


def test_split_cases_agree_with_kit():
    for roles, keep_recent, want_old, _ in checks._SPLIT_CASES:
        turns = role_turns(roles)
        messages = as_messages(turns)
        assert len(split_for_compaction(messages, keep_recent)[0]) == want_old, (roles, keep_recent)


# -- compact(summary, turns, keep_recent, summariser) ------------------------------------
def compact(summary, turns, keep_recent, summariser):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    new_summary = summariser(build_summary_prompt(summary, old))
    return new_summary, recent


def compact_whole_transcript(summary, turns, keep_recent, summariser):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    return summariser(build_summary_prompt(summary, turns)), recent


def compact_drops_summary(summary, turns, keep_recent, summariser):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    return summariser(build_summary_prompt("", old)), recent


def compact_deletes_first(summary, turns, keep_recent, summariser):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    del turns[:len(old)]                 # commits before the call
    return summariser(build_summary_prompt(summary, old)), turns


def compact_always_calls(summary, turns, keep_recent, summariser):
    old, recent = split_for_compaction(turns, keep_recent)
    return summariser(build_summary_prompt(summary, old)), recent


def compact_swallows(summary, turns, keep_recent, summariser):
    try:
        return compact(summary, turns, keep_recent, summariser)
    except TimeoutError:
        return summary, list(turns)


def compact_off_by_one(summary, turns, keep_recent, summariser):   # plain slice, no move back
    split = max(len(turns) - keep_recent - 1, 0)
    old, recent = turns[:split], turns[split:]
    if not old:
        return summary, recent
    return summariser(build_summary_prompt(summary, old)), recent


def compact_merges_reply(summary, turns, keep_recent, summariser):  # appends instead of replacing
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    reply = summariser(build_summary_prompt(summary, old))
    return "; ".join(filter(None, [summary, reply])), recent


def compact_own_layout(summary, turns, keep_recent, summariser):    # a prompt the stubs can't read
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    return summariser(summary + "\n" + "\n".join(m.content for m in old)), recent


def compact_decides_by_length(summary, turns, keep_recent, summariser):  # not by the split
    if len(turns) <= keep_recent:
        return summary, list(turns)
    old, recent = split_for_compaction(turns, keep_recent)
    return summariser(build_summary_prompt(summary, old)), recent


def compact_returns_input(summary, turns, keep_recent, summariser):  # `turns` itself back
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, turns
    return summariser(build_summary_prompt(summary, old)), recent


def compact_retries(summary, turns, keep_recent, summariser):      # three tries on a timeout
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    for attempt in range(3):
        try:
            return summariser(build_summary_prompt(summary, old)), recent
        except TimeoutError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def compact_new_timeout(summary, turns, keep_recent, summariser):  # replaces the exception
    try:
        return compact(summary, turns, keep_recent, summariser)
    except TimeoutError as exc:
        raise TimeoutError(f"compaction failed: {exc}") from exc


def compact_moves_back_once(summary, turns, keep_recent, summariser):  # `if`, not `while`
    split = max(len(turns) - keep_recent, 0)
    if 0 < split < len(turns) and turns[split].role == "assistant":
        split -= 1
    old, recent = turns[:split], turns[split:]
    if not old:
        return summary, list(turns)
    return summariser(build_summary_prompt(summary, old)), list(recent)


def compact_stub(summary, turns, keep_recent, summariser):
    raise NotImplementedError("Exercise: write your answer here")


def test_compact_right_answer_passes(passes):
    passes(check_compact, compact, "compact")


@pytest.mark.parametrize("wrong, hint", [
    (compact_whole_transcript, "holds every turn"),
    (compact_drops_summary, "current summary should be"),
    (compact_deletes_first, "changed the turns list in place"),
    (compact_always_calls, "nothing is old"),
    (compact_swallows, "instead of letting the TimeoutError propagate"),
    (compact_off_by_one, "should be the"),
    (compact_merges_reply, "summariser's reply"),
    (compact_own_layout, "build_summary_prompt"),
    (compact_decides_by_length, "compact('order 88412', 3 turns u a u, keep_recent=2) called "
                                "the summariser, but nothing is old"),
    (compact_decides_by_length, "not from `len(turns) <= keep_recent`"),
    (compact_decides_by_length, "\"New turns:\" section was empty"),
    (compact_returns_input, "returned the input list `turns` itself"),
    (compact_returns_input, "list(turns)"),
    (compact_retries, "with a summariser that times out called it 3 times; call it "
                      "exactly once"),
    (compact_new_timeout, "raised a new TimeoutError('compaction failed: model timed out'), "
                          "not the summariser's own exception"),
    (compact_moves_back_once, "6 turns u a u a a u, keep_recent=2): the prompt's new turns "
                              "should be the 2 old turn(s) [1, 2], got 3 turn(s)"),
    (compact_moves_back_once, "a while, not an if"),
    (compact_stub, "not written yet"),
])
def test_compact_wrong_answers_fail(wrong, hint, rejects):
    rejects(check_compact, wrong, hint)


def test_compact_cases_agree_with_kit():
    for _, texts, keep_recent, n_old, _ in compaction._COMPACT_CASES:
        messages = as_messages(texts)
        assert len(split_for_compaction(messages, keep_recent)[0]) == n_old, (texts, keep_recent)


def test_compact_cases_cover_the_traps():
    cases = [(summary, "".join(r[0] for r, _ in texts), keep_recent, n_old)
             for summary, texts, keep_recent, n_old, _ in compaction._COMPACT_CASES]
    assert ("order 88412", "uau", 2, 0) in cases           # more turns than keep_recent, none old
    assert any("aa" in roles and n_old for _, roles, _, n_old in cases)   # two replies in a row


def test_the_timeout_is_the_summarisers_own_and_comes_once():
    """The right answer lets the very exception through, after one call."""
    failing = compaction._Timeout()
    turns = as_messages(compaction._CHAT[:6])
    with pytest.raises(TimeoutError) as raised:
        compact("order 88412", turns, 2, failing)
    assert failing.calls == 1 and raised.value is failing.errors[0]
    failing = compaction._Timeout()
    with pytest.raises(TimeoutError) as raised:
        compact_new_timeout("order 88412", turns, 2, failing)
    assert failing.calls == 1 and raised.value is not failing.errors[0]


def test_the_right_answer_returns_a_new_list_when_nothing_is_old():
    turns = as_messages(compaction._CHAT[:3])
    summary, kept = compact("order 88412", turns, 2, compaction._Recorder())
    assert summary == "order 88412" and kept == turns and kept is not turns


def test_mutation_after_a_failed_call_is_caught():
    def deletes_then_fails(summary, turns, keep_recent, summariser):
        old, recent = split_for_compaction(turns, keep_recent)
        if not old:
            return summary, recent
        if summariser.__class__.__name__ == "_Timeout":
            del turns[:len(old)]
        return summariser(build_summary_prompt(summary, old)), recent

    with pytest.raises(CheckFailed, match="Compute first, then commit"):
        check_compact(deletes_then_fails)


# -- hardening: wrong answers that used to pass or crash with a raw error ----------------
def split_none_when_keeping_many(turns, keep_recent):   # a path without a return
    if keep_recent > 6:
        return None
    return split_turns(turns, keep_recent)


def split_unguarded(turns, keep_recent):                # turns[len(turns)]: IndexError
    split = max(len(turns) - keep_recent, 0)
    while turns[split][0] == "assistant":
        split -= 1
    return turns[:split], turns[split:]


@pytest.mark.parametrize("wrong, hints", [
    (split_none_when_keeping_many,
     ["split_turns(4 messages u a u a, keep_recent=9) should return a tuple (old, recent), "
      "got None", "without a `return`"]),
    (split_unguarded,
     ["split_turns(4 messages u a u a, keep_recent=0) raised IndexError: list index out "
      "of range"]),
])
def test_split_turns_errors_name_the_case(wrong, hints, rejects):
    rejects(check_split_turns, wrong, *hints)


def compact_two_args(summary, turns, keep_recent, summariser):     # system prompt + prompt
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    return summariser("You summarise.", build_summary_prompt(summary, old)), recent


def compact_keyword(summary, turns, keep_recent, summariser):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    return summariser(prompt=build_summary_prompt(summary, old)), recent


def compact_two_args_swallowed(summary, turns, keep_recent, summariser):  # hides the error
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    try:
        return summariser("You summarise.", build_summary_prompt(summary, old)), recent
    except Exception:
        return summary, list(turns)


def compact_careless_prompt(summary, turns, keep_recent, summariser):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    return summariser(build_summary_prompt(summary, old, CARELESS_PROMPT)), recent


def compact_own_instructions(summary, turns, keep_recent, summariser):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    return summariser("Be brief.\n" + build_summary_prompt(summary, old)), recent


def compact_squashed_layout(summary, turns, keep_recent, summariser):  # parses, but not the kit's
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    prompt = build_summary_prompt(summary, old).replace("\n\nNew turns:", "\nNew turns:")
    return summariser(prompt), recent


def compact_returns_count(summary, turns, keep_recent, summariser):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    return summariser(build_summary_prompt(summary, old)), len(recent)


def compact_forgets_return(summary, turns, keep_recent, summariser):
    old, recent = split_for_compaction(turns, keep_recent)
    if not old:
        return summary, recent
    summariser(build_summary_prompt(summary, old))


def compact_wraps_timeout(summary, turns, keep_recent, summariser):
    try:
        return compact(summary, turns, keep_recent, summariser)
    except TimeoutError as exc:
        raise RuntimeError("could not summarise") from exc


def compact_last_turn(summary, turns, keep_recent, summariser):    # turns[-1] on []
    if turns[-1].role == "user" and keep_recent == 0:
        keep_recent = 0
    return compact(summary, turns, keep_recent, summariser)


@pytest.mark.parametrize("wrong, hints", [
    (compact_two_args, ["summariser('You summarise.', 'You maintain",
                        "exactly one argument, the prompt string"]),
    (compact_keyword, ["summariser(prompt='You maintain", "exactly one argument"]),
    (compact_two_args_swallowed, ["summariser('You summarise.'", "exactly one argument"]),
    (compact_careless_prompt, ["exactly build_summary_prompt(summary, old)",
                               repr(CARELESS_PROMPT), "with no third argument"]),
    (compact_own_instructions, ["its instructions are 'Be brief.", "send its result unchanged"]),
    (compact_squashed_layout, ["exactly build_summary_prompt(summary, old); yours differs "
                               "from character"]),
    (compact_returns_count, ["got int 2 as the second item", "a count?"]),
    (compact_forgets_return, ["should return a tuple (new_summary, recent), got None",
                              "without a `return`"]),
    (compact_wraps_timeout, ["with a summariser that times out raised RuntimeError: could "
                             "not summarise", "let the TimeoutError propagate"]),
    (compact_last_turn, ["compact('order 88412', 0 turns (none), keep_recent=0) raised "
                         "IndexError: list index out of range"]),
])
def test_compact_more_wrong_answers_fail_with_hint(wrong, hints, rejects):
    rejects(check_compact, wrong, *hints)


def test_learner_exception_stays_chained_for_the_traceback():
    with pytest.raises(CheckFailed) as failure:
        check_split_turns(split_unguarded)
    assert isinstance(failure.value.__cause__, IndexError)


def test_the_kit_summarisers_accept_the_checked_call():
    """The recorder's rule (one str argument) is how the kit's own summarisers are called."""
    turns = as_messages(compaction._CHAT[:4])
    prompt = build_summary_prompt("", turns[:2])
    assert fact_listing_summariser(prompt) and gist_summariser(prompt)
    recorder = compaction._Recorder()
    assert recorder(prompt) == "summary v1" and recorder.misuse is None
    with pytest.raises(CheckFailed):
        recorder("You summarise.", prompt)
    assert recorder.misuse is not None and recorder.prompts == [prompt]
