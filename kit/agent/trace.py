"""Seeded agent traces: one task, hundreds of tool calls with large results (lesson 11).

A trace is what a scripted agent does, fixed in advance so every context policy sees the
same run: a user task that states 5 planted facts the task depends on (an id, an amount,
a deadline, a constraint, a name), then ``steps`` tool calls, each with a result of 200 to
4,000 tokens (cl100k; seeded), and a second user message part-way through.

- :func:`long_trace`: 400 steps, the second message at step 200, a context window of
  200,000 tokens: kept in full, the run passes the window at step 104.
- :func:`short_trace`: 40 steps, the second message at step 20, a window of 40,000
  tokens (for the lesson and the tests): kept in full, it passes the window at step 25.

Results are made of one-token words, so a result's planned size is its cl100k size
(within a token or two for its header); every size the kit uses is measured, never taken
from here. Traces are cached per ``(steps, seed)``: building the long one takes about a
second.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Step", "AgentTrace", "make_trace", "long_trace", "short_trace", "FACTS", "TASK",
           "TOOLS"]

#: The planted facts, as they appear in the task (each must reach the final context).
FACTS = ("ORD-48213", "$1,284.50", "14 March", "before 9 am", "Priya Raman")
TASK = ("Refund order ORD-48213 for the customer Priya Raman: the amount is $1,284.50 and "
        "it must be paid by 14 March. Constraint: never email the customer before 9 am. "
        "Find why the payment failed, fix the refund job, run the tests, then tell me what "
        "you changed.")
FOLLOW_UP = ("Also: when you are done, add a note for the finance team saying which "
             "invoices the fix touched.")
SYSTEM = ("You are a careful support engineer with tools to read files, search code, run "
          "tests and look up orders. Use the tools, keep notes of what you did, and finish "
          "with a short report.")
#: The tools the agent has: name -> one-line description (their definitions lead the prompt).
TOOLS = {"read_file": "read a file of the billing service",
         "grep": "search the code for a pattern",
         "run_tests": "run the test suite, or one test file",
         "lookup_order": "look up an order, its payments and refunds"}
_WORDS = ("the of and to in is for on that with as by at from this data file line value "
          "order item status check table field row test case user code note error result "
          "change record index list page batch entry match query source target report "
          "build log cache queue event state stage step task job run node path link key "
          "type form view part point rule term unit week month year time date plan team "
          "role group account price cost total refund invoice payment customer ticket "
          "email reply issue fix patch module function class method import config option "
          "flag limit size count rate level score range delta offset").split()
_FILES = ("billing/refunds.py", "billing/jobs.py", "billing/invoices.py", "tests/test_refunds.py",
          "billing/payments.py", "billing/notify.py")


@dataclass(frozen=True)
class Step:
    """One tool call of the script: ``tool`` (a name of :data:`TOOLS`), ``arguments``
    (JSON text), ``result`` (the tool's output) and ``planned`` (its size in cl100k
    tokens, within a token or two)."""

    tool: str
    arguments: str
    result: str
    planned: int


@dataclass(frozen=True)
class AgentTrace:
    """A scripted run: ``system`` prompt, ``tools`` (name -> description), the user
    ``task`` and its planted ``facts``, the ``steps``, the ``follow_up`` user message
    sent before step ``follow_up_at`` (0-based), the context ``window`` in tokens, and
    ``seconds`` between two model calls (for cache lifetimes)."""

    name: str
    system: str
    tools: dict
    task: str
    facts: tuple
    steps: tuple
    follow_up: str
    follow_up_at: int
    window: int
    seconds: float = 6.0

    def tool_text(self) -> str:
        """The tool definitions as sent at the head of every request (JSON text)."""
        return json.dumps([{"name": n, "description": d} for n, d in self.tools.items()])


def _arguments(tool: str, rng: random.Random, i: int) -> str:
    if tool == "read_file":
        return json.dumps({"path": rng.choice(_FILES)})
    if tool == "grep":
        return json.dumps({"pattern": rng.choice(("refund", "retry", "invoice", "deadline"))})
    if tool == "run_tests":
        return json.dumps({"target": rng.choice(_FILES[3:4] + ("all",))})
    return json.dumps({"order": "ORD-48213", "page": i % 7})


def _result(tool: str, i: int, size: int, rng: random.Random) -> str:
    head = f"{tool} output, step {i + 1}:"
    return head + " " + " ".join(rng.choice(_WORDS) for _ in range(size - 8))


@lru_cache(maxsize=4)
def make_trace(steps: int = 40, seed: int = 11, window: int = 40_000,
               follow_up_at: int | None = None, low: int = 200, high: int = 4_000) -> AgentTrace:
    """A seeded trace of ``steps`` tool calls with results of ``low`` to ``high`` tokens,
    the follow-up before step ``follow_up_at`` (default: half way) and a ``window`` in
    tokens. The same arguments give the same trace. Raises ValueError for ``steps`` < 2
    or sizes outside 20 <= low <= high."""
    if not isinstance(steps, int) or steps < 2:
        raise ValueError(f"steps must be an int >= 2, got {steps!r}")
    if not 20 <= low <= high:
        raise ValueError(f"result sizes must satisfy 20 <= low <= high, got {low}, {high}")
    rng = random.Random(seed)
    tools = list(TOOLS)
    made = []
    for i in range(steps):
        tool = tools[i % 7 % 4] if i % 5 else "read_file"
        size = rng.randint(low, high)
        made.append(Step(tool, _arguments(tool, rng, i), _result(tool, i, size, rng), size))
    at = steps // 2 if follow_up_at is None else follow_up_at
    return AgentTrace(f"{steps} steps", SYSTEM, dict(TOOLS), TASK, FACTS, tuple(made),
                      FOLLOW_UP, at, window)


def long_trace() -> AgentTrace:
    """400 steps, the follow-up at step 200, a 200,000-token window (seed 11)."""
    return make_trace(400, 11, 200_000, 200)


def short_trace() -> AgentTrace:
    """40 steps, the follow-up at step 20, a 40,000-token window (seed 11)."""
    return make_trace(40, 11, 40_000, 20)
