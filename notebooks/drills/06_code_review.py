"""Starter for the drill code-review: write your answer, then check it with

    .venv/bin/python -m kit drill code-review <this file>

(from the repository root; `python -m kit drill ...` with the environment active).
The spec, hints and follow-ups are in the notebook notebooks/drills/06_code_review.ipynb (your copy: work/drills/06_code_review.ipynb)."""

import time

from kit.memory import build_summary_prompt, split_for_compaction
from kit.messages import make_message


# The code under review is BuggyMemory in kit/mistakes/review.py (the notebook prints it):
# start from a copy of it and fix the five bugs.
class ReviewedMemory:
    """BuggyMemory, fixed: recent turns verbatim, older turns folded into a running summary.

    summariser: a prompt model str -> str (it may raise); budget: int > 0 and keep_recent:
    int >= 0, in measure's unit and in messages; measure: str -> int; system: a system
    prompt or None. clock: () -> seconds (None: time.monotonic), read once per add and only
    when max_age (seconds) is set. Compacts once after an add if size > budget, or else if
    the oldest verbatim turn is more than max_age seconds old. Follows the learner protocol.
    """

    def __init__(self, summariser, budget, keep_recent, measure, system=None, *,
                 clock=None, max_age=None):
        raise NotImplementedError("Exercise: write your answer here")

    @property
    def size(self):
        """System prompt + summary + verbatim turns, in measure's unit."""
        raise NotImplementedError("Exercise: write your answer here")

    def add(self, role, content):
        """Add one message; compact once if over budget or if the oldest turn is stale."""
        raise NotImplementedError("Exercise: write your answer here")

    def messages(self):
        """The system prompt, the summary, then the verbatim turns, as chat messages."""
        raise NotImplementedError("Exercise: write your answer here")

    def context(self):
        """The same as one string."""
        raise NotImplementedError("Exercise: write your answer here")
