"""The lesson-12 checkers reject every registered wrong answer and accept other designs."""
from dataclasses import replace

import pytest

from kit.checks import CheckFailed
from kit.checks.fact_memory import check_fact_writer, check_facts_as_of
from kit.longterm.facts import (Decision, Fact, FactTable, InvalidDecision, check_decision,
                                decide_by_rules, decide_prompt, parse_decision)
from kit.mistakes import mistakes


def test_the_kits_own_table_passes(capsys):
    check_fact_writer(FactTable)
    assert capsys.readouterr().out.startswith("PASS FactWriter")


class EventLog:
    """Another design: an append-only log of (fact, closing) events, facts built on read,
    every current fact passed to the decider (no retrieval)."""

    def __init__(self, decider=None):
        self.decider, self.rejected = decider, 0
        self.made, self.closings = [], {}          # id -> (valid_to, closed_by, status, by)

    def _fact(self, made):
        closing = self.closings.get(made.id)
        if closing is None:
            return made
        valid_to, closed_by, status, by = closing
        return replace(made, valid_to=valid_to, closed_by=closed_by, status=status,
                       superseded_by=by)

    def _all(self):
        return [self._fact(f) for f in self.made]

    def current(self):
        return [f for f in self._all() if f.valid_to is None]

    def as_of(self, day):
        return [f for f in self._all() if f.holds_on(day)]

    def history(self, subject, attribute):
        return [f for f in self._all() if (f.subject, f.attribute) == (subject, attribute)]

    def write(self, candidate):
        similar = self.current()
        decision = None
        if self.decider is not None:
            try:
                decision = parse_decision(self.decider(decide_prompt(candidate, similar)))
            except Exception:
                decision = None
        if decision is None:
            decision = decide_by_rules(candidate, similar)
        try:
            check_decision(decision, candidate, {f.id: f for f in similar})
        except InvalidDecision:
            self.rejected += 1
            return None
        new_id = len(self.made) + 1
        if decision.op in ("update", "retract"):
            self.closings[decision.target] = (
                candidate.when, candidate.source,
                "superseded" if decision.op == "update" else "retracted",
                new_id if decision.op == "update" else None)
        if decision.op in ("add", "update"):
            self.made.append(Fact(new_id, candidate.subject, candidate.attribute,
                                  candidate.value, candidate.when, None, candidate.source))
        return decision


def test_an_event_log_design_passes(capsys):
    check_fact_writer(EventLog)
    assert "PASS" in capsys.readouterr().out


@pytest.mark.parametrize("wrong", mistakes("fact memory"), ids=lambda m: m.name)
def test_every_registered_wrong_writer_is_rejected_with_its_hint(wrong):
    with pytest.raises(CheckFailed) as caught:
        check_fact_writer(wrong.answer)
    assert wrong.hint in str(caught.value)


def test_a_writer_that_asks_the_model_twice_is_told_the_rule():
    class Twice(FactTable):
        def decide(self, candidate, similar):
            if self.decider is not None:
                self.decider(decide_prompt(candidate, similar))
            return super().decide(candidate, similar)
    with pytest.raises(CheckFailed, match="ask the decider once per candidate"):
        check_fact_writer(Twice)


def test_a_stub_is_reported_not_crashed():
    class Stub:
        def __init__(self, decider=None):
            raise NotImplementedError("Exercise: write your answer here")
    with pytest.raises(CheckFailed, match="not written yet|NotImplementedError|Exercise"):
        check_fact_writer(Stub)


def test_the_as_of_checker_accepts_two_designs_and_rejects_the_mistakes(capsys):
    check_facts_as_of(lambda facts, day: [f for f in facts if f.holds_on(day)])
    check_facts_as_of(lambda facts, day: [f for f in facts if not day < f.valid_from
                                          and not (f.valid_to and day >= f.valid_to)])
    assert capsys.readouterr().out.count("PASS") == 2
    for wrong in mistakes("as of"):
        with pytest.raises(CheckFailed) as caught:
            check_facts_as_of(wrong.answer)
        assert wrong.hint in str(caught.value)
    # wrong answers that fail on the same first case as a registered mistake, with the same
    # output there, but behave otherwise elsewhere: the rule, never that mistake's hint
    for other in (lambda facts, day: [f for f in facts if f.valid_from < day and
                                      (f.valid_to is None or day < f.valid_to)],  # start out
                  lambda facts, day: [f for f in facts if f.valid_from <= day]):  # no end
        with pytest.raises(CheckFailed) as caught:
            check_facts_as_of(other)
        assert "valid_from (inclusive) to valid_to (exclusive" in str(caught.value)
        assert not any(w.hint in str(caught.value) for w in mistakes("as of"))
    assert "should be the facts [2], got [1, 2]" in str(caught.value)  # ids on both sides
