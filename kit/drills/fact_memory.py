"""Drill 09: the decide-and-write step of a fact memory, from a blank page in 30 minutes.

The candidate writes ``FactWriter(decider)``: ``write(candidate)`` finds the similar
current facts, asks the decider once (or the rules), checks the decision, and writes it
(add / update / retract / none: an update or retraction closes the old fact's validity
interval, never deletes it; provenance kept; a refused decision writes nothing and is
counted), with ``current()``, ``as_of(day)`` and ``history(subject, attribute)``. The
rubric is lesson 12's checker split into its parts (:mod:`kit.checks.fact_memory`); the
wrong answers it is tested against are those of :mod:`kit.mistakes.facts`.
"""
from __future__ import annotations

from kit.checks.fact_memory import RUBRIC
from kit.drills import Drill

__all__ = ["DRILL"]

DRILL = Drill(
    name="fact-memory",
    title="The write path of a fact memory",
    minutes=30,
    symbol="FactWriter",
    notebook="09_fact_memory",
    rubric=dict(RUBRIC),
    talking_points=(
        "An update or retraction closes the old fact (valid_to, closed_by, status); nothing "
        "is deleted, so 'now', 'as of a date' and the history all stay answerable.",
        "Intervals are half-open: the day a fact closes belongs to its successor.",
        "Every decision is checked before anything is written; a refused one writes nothing "
        "(never half) and is counted, so a misbehaving model shows in the metrics.",
        "A model that raises or answers in prose gives way to the rules, without a second call; "
        "a confident but wrong decision is refused, not repaired.",
        "A value said again is 'none'; a many-valued attribute (allergies) adds, it does not "
        "update.",
        "Provenance: the message numbers on every fact, and on the turn that closed it.",
    ),
    mechanism="fact memory",
)
