"""Starter for the drill token-window: write your answer, then check it with

    .venv/bin/python -m kit drill token-window <this file>

(from the repository root; `python -m kit drill ...` with the environment active).
The spec, hints and follow-ups are in the notebook notebooks/drills/01_token_window.ipynb (your copy: work/drills/01_token_window.ipynb)."""

from collections import deque


class TokenWindow:
    """The newest messages of a chat that fit a token budget; the system prompt pinned.

    budget: int > 0, in measure's unit. measure: str -> int, called once per message and
    once for the system prompt. system: a system prompt (str) or None; never evicted,
    counted against the budget. add(role, content) raises ValueError, changing nothing,
    for a message bigger than budget - measure(system). messages(): a new list of
    {"role", "content"} dicts, the system prompt first. size: an int, system prompt +
    kept texts (no labels).
    """

    def __init__(self, budget, measure, system=None):
        raise NotImplementedError("Exercise: write your answer here")

    @property
    def size(self):
        """System prompt + kept messages, in measure's unit; no measure call."""
        raise NotImplementedError("Exercise: write your answer here")

    def add(self, role, content):
        """Append one message, then evict the oldest while over budget, then orphans."""
        raise NotImplementedError("Exercise: write your answer here")

    def messages(self):
        """The system prompt, then the kept messages, oldest first: a new list."""
        raise NotImplementedError("Exercise: write your answer here")

    def context(self):
        """The same messages as text, one `role: content` line each."""
        raise NotImplementedError("Exercise: write your answer here")
