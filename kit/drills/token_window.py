"""Drill 01: a token-budget window, from a blank page in 20 minutes.

The candidate writes ``TokenWindow(budget, measure, system=None)`` with the learner
protocol (``add(role, content)``, ``context()``, ``messages()``, ``size``): the newest
messages that fit the budget, the system prompt pinned and counted, no orphaned reply
once the window has slid, an oversized message refused with nothing changed, each
message measured once. The rubric is the lesson-02 checker split into its parts
(:mod:`kit.checks.token_window`); the wrong answers it is tested against are those of
:mod:`kit.mistakes.window`.
"""
from __future__ import annotations

from kit.checks.token_window import RUBRIC
from kit.drills import Drill

__all__ = ["DRILL"]

DRILL = Drill(
    name="token-window",
    title="A token-budget window",
    minutes=20,
    symbol="TokenWindow",
    notebook="01_token_window",
    rubric=dict(RUBRIC),
    talking_points=(
        "Each message is measured once, on add; size is a running total, so an add costs "
        "O(1) tokenizer calls however long the chat.",
        "The system prompt is pinned and counts against the budget; a total equal to the "
        "budget fits (evict while size > budget).",
        "After the window slides, a leading reply whose question left is dropped too (a "
        "while, not an if); an opening greeting stays until then.",
        "A message that can never fit raises ValueError before anything changes, so the "
        "caller can split or summarise it and retry.",
        "messages() returns a new list of new dicts: a caller appending the question or "
        "editing a message must not change the memory.",
    ),
    mechanism="token window",
)
