"""Starter for the drill summary-memory: write your answer, then check it with

    .venv/bin/python -m kit drill summary-memory <this file>

(from the repository root; `python -m kit drill ...` with the environment active).
The spec, hints and follow-ups are in the notebook notebooks/drills/02_summary_memory.ipynb (your copy: work/drills/02_summary_memory.ipynb)."""

from kit.memory import build_summary_prompt
from kit.messages import make_message


class SummaryMemory:
    """Recent turns verbatim, older turns folded into a running summary by a model.

    summariser: a prompt model str -> str (it may raise: the error propagates out of add,
    nothing lost). budget: int > 0 in measure's unit; keep_recent: int >= 0 turns always
    verbatim; measure: str -> int; system: a system prompt or None, never folded.
    size: system prompt + summary + verbatim texts. messages(): system messages (system
    prompt, summary) first, then the turns as {"role", "content"} dicts, oldest first.
    """

    def __init__(self, summariser, budget, keep_recent, measure, system=None):
        raise NotImplementedError("Exercise: write your answer here")

    @property
    def size(self):
        """System prompt + summary + verbatim turns, in measure's unit; no measure call."""
        raise NotImplementedError("Exercise: write your answer here")

    def add(self, role, content):
        """Add one message; compact once if the context is then over budget."""
        raise NotImplementedError("Exercise: write your answer here")

    def messages(self):
        """The system prompt and the summary as system messages, then the turns."""
        raise NotImplementedError("Exercise: write your answer here")

    def context(self):
        """The same messages as text, one `role: content` line each."""
        raise NotImplementedError("Exercise: write your answer here")
