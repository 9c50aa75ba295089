"""Wrong fact-memory write steps (lesson 12's last exercise, mechanism "fact memory") and
wrong as-of queries (its first, mechanism "as of").

Each wrong write step is the kit's :class:`~kit.longterm.facts.FactTable` with one thing
changed, so it has the exercise's interface (``cls(decider)``, ``write(candidate)``,
``current()``, ``as_of(day)``, ``history(subject, attribute)``, ``rejected``);
:func:`kit.checks.fact_memory.check_fact_writer` rejects each with a message that holds
its ``hint``. The as-of mistakes have the signature ``facts_as_of(facts, day)`` and are
rejected by :func:`kit.checks.fact_memory.check_facts_as_of`.
"""
from __future__ import annotations

from dataclasses import replace

from kit.longterm.facts import Decision, FactTable, InvalidDecision, check_decision
from kit.mistakes import mistake

__all__ = ["UpdateDeletesOld", "RetractionRemovesHistory", "DuplicateForRephrased",
           "MalformedHalfWritten", "IntervalLeftOpen", "ProvenanceLost", "end_inclusive",
           "current_only"]

MECHANISM = "fact memory"


@mistake(MECHANISM, "update-deletes-old",
         what="an update replaces the old fact: the old row is deleted",
         why="'where did she live in February?' and 'where has she lived?' can no longer be "
             "answered, and a wrong update cannot be undone",
         hint="an update must close the old fact's interval (valid_to, status 'superseded'), "
              "not delete it")
class UpdateDeletesOld(FactTable):
    def write(self, candidate):
        decision = super().write(candidate)
        if decision is not None and decision.op == "update":
            del self.facts[decision.target]
        return decision


@mistake(MECHANISM, "retraction-removes-history",
         what="a retraction deletes the fact",
         why="the fact was true until it was retracted: 'which order was open last week?' "
             "loses its answer, and nothing shows it was ever said",
         hint="a retraction must close the fact's interval (status 'retracted'), not delete it")
class RetractionRemovesHistory(FactTable):
    def write(self, candidate):
        decision = super().write(candidate)
        if decision is not None and decision.op == "retract":
            del self.facts[decision.target]
        return decision


@mistake(MECHANISM, "duplicate-for-rephrased",
         what="a fact said again in other words is added again",
         why="the same value is stored twice, the context repeats it, and a later update "
             "closes only one of the copies",
         hint="a candidate whose value a current fact of the same attribute already holds "
              "(case ignored) is 'none'")
class DuplicateForRephrased(FactTable):
    def decide(self, candidate, similar):
        decision = super().decide(candidate, similar)
        if isinstance(decision, Decision) and decision.op == "none" and not candidate.negated:
            return Decision("add", None, decision.by)
        return decision


@mistake(MECHANISM, "malformed-half-written",
         what="an update whose target is not a current fact still writes the new fact",
         why="a half-applied decision leaves two current values for a one-value attribute: "
             "the model sees both and may answer with the old one",
         hint="check the whole decision before writing anything: a refused decision writes "
              "nothing at all")
class MalformedHalfWritten(FactTable):
    def write(self, candidate):
        similar = self.similar(candidate)
        decision = self.decide(candidate, similar)
        try:
            check_decision(decision, candidate, {f.id: f for f in self.current()})
        except InvalidDecision:
            self.rejected += 1
            if isinstance(decision, Decision) and decision.op == "update":
                self._apply(self.rows_for(Decision("add"), candidate))
            return None
        self._apply(self.rows_for(decision, candidate))
        self.decisions[decision.op] += 1
        return decision


@mistake(MECHANISM, "interval-left-open",
         what="an update or retraction marks the old fact but leaves its valid_to empty",
         why="the old value still counts as valid today: 'now' shows both values and an "
             "as-of query after the change still returns the old one",
         hint="closing a fact sets its valid_to to the date of the turn that closed it")
class IntervalLeftOpen(FactTable):
    def rows_for(self, decision, candidate):
        return [replace(r, valid_to=None) if r.status != "current" else r
                for r in super().rows_for(decision, candidate)]


@mistake(MECHANISM, "provenance-lost",
         what="facts are written without the message numbers they came from",
         why="nobody can show where a remembered fact came from, check it against the "
             "transcript or remove it when that message is deleted",
         hint="keep the candidate's message numbers: source on a new fact, closed_by on "
              "the one it closes")
class ProvenanceLost(FactTable):
    def rows_for(self, decision, candidate):
        return [replace(r, source=(), closed_by=()) for r in super().rows_for(decision, candidate)]


@mistake("as of", "end-inclusive",
         what="counts a fact as valid on the day its interval closed",
         why="on the day she moved both cities come back, so the answer is a coin toss",
         hint="valid_to is exclusive: a fact closed on day d is not valid on d")
def end_inclusive(facts, day):
    return [f for f in facts if f.valid_from <= day and (f.valid_to is None or day <= f.valid_to)]


@mistake("as of", "current-only",
         what="answers an as-of query from the current facts only",
         why="every question about the past gets today's answer",
         hint="a closed fact (valid_to set) is still valid on the days inside its interval")
def current_only(facts, day):
    return [f for f in facts if f.valid_to is None and f.valid_from <= day]
