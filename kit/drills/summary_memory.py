"""Drill 02: summary memory from a spec, in 30 minutes.

The candidate writes ``SummaryMemory(summariser, budget, keep_recent, measure,
system=None)`` with the learner protocol: the newest ``keep_recent`` turns verbatim, the
older ones folded into a running summary by one summariser call when the context is over
the budget, a reply never separated from its question, compute first and then commit (a
failing summariser loses nothing and its error propagates), each message measured once.
The rubric is the lesson-03 checker split into its parts
(:mod:`kit.checks.summary_memory`); the wrong answers it is tested against are those of
:mod:`kit.mistakes.summary`.
"""
from __future__ import annotations

from kit.checks.summary_memory import RUBRIC
from kit.drills import Drill

__all__ = ["DRILL"]

DRILL = Drill(
    name="summary-memory",
    title="Summary memory from a spec",
    minutes=30,
    symbol="SummaryMemory",
    notebook="02_summary_memory",
    rubric=dict(RUBRIC),
    talking_points=(
        "Compact only when size > budget, once per add, and only what is older than "
        "keep_recent; keep_recent wins over the budget.",
        "The split moves back from a reply to its question, and keep_recent=0 folds "
        "everything (turns[-0:] is the whole list).",
        "Compute first, then commit: call the summariser, and only when it returned swap "
        "in the new summary and drop the folded turns; its error propagates.",
        "The update is incremental: previous summary + the turns to fold, never the whole "
        "transcript again.",
        "size counts the system prompt, the summary and the verbatim texts, each measured "
        "once and kept as running totals.",
    ),
    mechanism="summary memory",
)
