"""Starter for the drill fact-memory: write your answer, then check it with

    .venv/bin/python -m kit drill fact-memory <this file>

(from the repository root; `python -m kit drill ...` with the environment active).
The spec, hints and follow-ups are in the notebook notebooks/drills/09_fact_memory.ipynb (your copy: work/drills/09_fact_memory.ipynb)."""

from dataclasses import replace

from kit.longterm.facts import (Fact, InvalidDecision, check_decision, decide_by_rules,
                                decide_prompt, parse_decision)


class FactWriter:
    """Facts with validity intervals, written through checked decisions.

    decider: a model prompt -> reply (JSON), or None for the rules only.
    write(candidate) -> the Decision written, or None when check_decision refused it.
    current() / as_of(day) / history(subject, attribute) -> lists of Fact.
    rejected: how many decisions were refused.
    """

    def __init__(self, decider=None):
        raise NotImplementedError("Exercise: write your answer here")

    def current(self):
        raise NotImplementedError("Exercise: write your answer here")

    def as_of(self, day):
        raise NotImplementedError("Exercise: write your answer here")

    def history(self, subject, attribute):
        raise NotImplementedError("Exercise: write your answer here")

    def write(self, candidate):
        raise NotImplementedError("Exercise: write your answer here")
