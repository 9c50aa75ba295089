"""A hint never names a mistake that was not made (kit.checks.hints): a registered
mistake's hint only when its implementation gives the answer's very outputs up to the
failing case (both named when two cannot be told apart), else the rule of the spec."""
from __future__ import annotations

import pytest

from kit.checks import CheckFailed, failure_box
from kit.checks import chatbot_turn, lease, map_reduce, summary_memory, token_window
from kit.checks.hints import judge, matching, split
from kit.mistakes import mistakes

#: (the checker a lesson's check cell runs, the unjudged run it judges, its mechanism)
CHECKERS = {
    "token window": (token_window.check_token_window, token_window._all_parts),
    "summary memory": (summary_memory.check_summary_memory, summary_memory._all_parts),
    "map-reduce": (map_reduce.check_map_reduce, map_reduce._all_parts),
    "chatbot turn": (chatbot_turn.check_chatbot_turn, chatbot_turn._all_parts),
    "lease store": (lease.check_lease_store, lease._check_store),
}
CASES = [(mechanism, wrong) for mechanism in CHECKERS for wrong in mistakes(mechanism)]


@pytest.mark.parametrize("mechanism, wrong", CASES,
                         ids=[f"{m}:{w.name}" for m, w in CASES])
def test_each_registered_mistake_gets_its_own_hint(mechanism, wrong):
    """Its own hint, in the message the checker writes for its outputs; the mistakes its
    outputs match (itself at least) are those the judge finds."""
    check, raw = CHECKERS[mechanism]
    with pytest.raises(CheckFailed) as failure:
        check(wrong.answer)
    message = str(failure.value)
    assert wrong.hint in message and "Rule:" not in message, message
    same = matching(raw, [mechanism], wrong.answer, split(message)[0])
    assert wrong in same and all(w.hint in message for w in same), message


# -- the rule itself, on a toy checker ------------------------------------------------------
def _toy(answer):
    got = answer(2)
    if got != 4:
        raise CheckFailed(f"{getattr(answer, '__name__', 'f')}(2) should be 4, got {got}. "
                          f"Why: doubling. Hint: a guessed cause.")
    return 1


class _Registry:
    """Stands in for kit.mistakes.mistakes on the toy mechanism."""

    def __init__(self, *answers):
        from kit.mistakes import Mistake
        self.found = [Mistake("toy", a.__name__, "what", "why", f"hint of {a.__name__}", a)
                      for a in answers]

    def __call__(self, mechanism=None):
        return self.found


def plus_one(x):
    return x + 1


def square_minus_one(x):
    return x * x - 1


def triple(x):
    return 3 * x


@pytest.fixture
def registry(monkeypatch):
    import kit.mistakes
    fake = _Registry(plus_one, square_minus_one)
    monkeypatch.setattr(kit.mistakes, "mistakes", fake)
    from kit.checks import hints
    monkeypatch.setattr(hints, "_SEEN", {})
    return fake


def test_an_answer_no_mistake_reproduces_gets_the_rule_not_a_guess(registry):
    with pytest.raises(CheckFailed) as failure:
        judge(_toy, triple, "toy", [(r"should be 4", "f(x) = 2x")])
    text = str(failure.value)
    assert text == "triple(2) should be 4, got 6. Rule: f(x) = 2x.", text
    assert any("Rule:" in line for line in failure_box(failure.value))


def test_two_mistakes_that_give_the_same_outputs_are_both_named(registry):
    def own(x):                         # the learner's: 3 at 2, as both mistakes give
        return 3
    with pytest.raises(CheckFailed) as failure:
        judge(_toy, own, "toy")
    text = str(failure.value)
    assert "hint of plus_one" in text and "hint of square_minus_one" in text
    assert "2 mistakes give exactly this" in text and "a guessed cause" not in text


def test_the_answers_own_name_does_not_keep_a_mistake_from_matching(registry):
    def plus_one_again(x):              # same outputs as plus_one, another name
        return x + 1
    with pytest.raises(CheckFailed) as failure:
        judge(_toy, plus_one_again, "toy")
    assert "hint of plus_one" in str(failure.value)


def test_a_failure_that_only_reports_what_the_answer_did_is_left_alone(registry):
    def not_written(x):
        raise CheckFailed("not_written is not written yet")
    with pytest.raises(CheckFailed, match="^not_written is not written yet$"):
        judge(lambda answer: answer(2), not_written, "toy")
    observed = CheckFailed("called with two arguments. Why: it takes one. Hint: pass one.")
    observed.observed = True

    def misuses(answer):
        raise observed
    with pytest.raises(CheckFailed, match="Hint: pass one"):
        judge(misuses, triple, "toy")
