"""Fault injection for the memories with a summary: what a summariser does to them when
it fails, and whether any turn is lost.

A :class:`FaultyModel` wraps a summariser and, on the calls a seeded plan picks, does
what real models do: raises, hangs past the memory's timeout, answers with an empty
string or with junk (plain text that summarises nothing), or is down for an outage
of N consecutive messages. It also has a context window: a prompt larger than
``window`` tokens raises, as a real model's API does. :func:`run` replays a long
shopping conversation (:func:`kit.conversations.shopping_chat`) into one kind of memory
and reports what was lost and what the faults cost.

"Lost" (:func:`lost_turns`): a message that is neither verbatim in the memory nor, for
a summary memory, folded into the summary with its facts (the ids, numbers, amounts,
dates and names of :mod:`kit.memory.facts`) still there; for recall memory, a message
missing from its transcript. ``benchmarks/reliability.py`` prints the campaign table.
"""
from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

from kit.conversations import shopping_chat
from kit.extractive import extractive_summariser, make_extractive_summariser
from kit.memory import (BackgroundSummaryMemory, CompactionError, RecallMemory,
                        RobustSummaryMemory)
from kit.memory.facts import facts_in
from kit.tokens import cl100k_tokens
from kit.validation import check_int

__all__ = ["FAULTS", "FaultyModel", "KINDS", "run", "lost_turns"]

FAULTS = ("raise", "timeout", "empty", "junk", "outage")
KINDS = ("summary memory", "background summary memory", "recall memory")
JUNK = "I'm sorry, I can't help with that. Is there anything else you would like to know?"


class FaultyModel:
    """``model`` with faults: ``fault`` (one of :data:`FAULTS`) on a share ``rate`` of
    the calls (one call in every ``round(1 / rate)``, at an offset chosen by ``seed``), or
    while ``down`` is set (the "outage" fault, set message by message by the driver); any
    prompt over ``window`` tokens (cl100k) raises ValueError.

    ``calls``, ``faults`` and ``prompt_chars`` count what it was sent. A "timeout" call
    blocks until :meth:`release` (the memory's ``timeout`` gives up first), then answers
    late: :func:`run` releases it after the add that gave up on it.
    """

    def __init__(self, model: Callable[[str], str], fault: str, *, rate: float = 0.1,
                 seed: int = 0, window: int | None = None) -> None:
        if fault not in FAULTS:
            raise ValueError(f"fault must be one of {FAULTS}, got {fault!r:.60}")
        self.model, self.fault, self.rate, self.window = model, fault, rate, window
        self.period = max(1, round(1 / rate)) if rate > 0 else 1
        self.offset = random.Random(seed).randrange(self.period)   # which call of each period
        self.calls = self.faults = self.prompt_chars = 0
        self.down = False              # an outage: set by the driver, message by message
        self._hung: list[threading.Event] = []

    def release(self) -> None:
        """Let every hung "timeout" call return."""
        while self._hung:
            self._hung.pop().set()

    def _faulty(self) -> bool:
        if self.fault == "outage":
            return self.down
        return self.rate > 0 and (self.calls - 1) % self.period == self.offset

    def __call__(self, prompt: str) -> str:
        self.calls += 1
        self.prompt_chars += len(prompt)
        if self.window is not None and cl100k_tokens(prompt) > self.window:
            raise ValueError(f"the prompt is longer than the model's window of "
                             f"{self.window} tokens")
        if not self._faulty():
            return self.model(prompt)
        self.faults += 1
        if self.fault in ("raise", "outage"):
            raise ConnectionError("the model is unavailable")
        if self.fault == "timeout":
            event = threading.Event()
            self._hung.append(event)
            event.wait()
            return self.model(prompt)
        return "" if self.fault == "empty" else JUNK


def lost_turns(memory, turns: list[tuple[str, str]]) -> list[int]:
    """The numbers of the messages of ``turns`` (as added, 1-based) that ``memory`` lost
    (see the module docstring)."""
    verbatim = {m.number for m in memory.turns}
    if isinstance(memory, RecallMemory):
        kept = verbatim | set(memory.archive)
        return [n for n in range(1, len(turns) + 1) if n not in kept]
    folded, summary = set(memory.folded), facts_in(memory.summary) | set(memory.summary.split())
    lost = []
    for number, (_, text) in enumerate(turns, 1):
        if number in verbatim:
            continue
        if number not in folded or not facts_in(text) <= summary:
            lost.append(number)
    return lost


def _memory(kind: str, model: FaultyModel, budget: int, timeout: float | None,
            fallback: bool):
    fallback = extractive_summariser if fallback else None
    if kind == "recall memory":
        return RecallMemory(budget, summariser=model, fallback=fallback, keep_recent=2,
                            timeout=timeout)
    cls = BackgroundSummaryMemory if kind == "background summary memory" else RobustSummaryMemory
    return cls(model, budget, keep_recent=4, fallback=fallback, timeout=timeout)


def _settle(memory, seconds: float = 2.0) -> None:
    """Wait (at most ``seconds``) until no summariser call of ``memory`` is running."""
    deadline = time.monotonic() + seconds
    while len(memory.slots) and time.monotonic() < deadline:
        time.sleep(0.0005)


def run(kind: str, fault: str, *, messages: int = 1000, budget: int = 300, rate: float = 0.25,
        outage: int = 0, seed: int = 0, fallback: bool = True) -> dict:
    """Replay ``messages`` messages of the shopping chat into a fresh memory of ``kind``
    (one of :data:`KINDS`; with ``fallback``, the extractive summariser is its fallback)
    whose summariser (the extractive one, capped at a third of ``budget`` tokens, with
    a window of 4 x ``budget`` tokens) has ``fault`` on a share ``rate`` of its calls;
    for "outage", the model is down for ``outage`` messages from message 50 on. The
    memories use their defaults (cl100k tokens, ``keep_recent`` 4, or 2 for recall).
    Returns a row: ``kind``, ``fallback``, ``fault``, ``faults`` (injected), ``lost`` (turns
    lost), ``model_calls``, ``prompt_kb`` (prompts sent, kB of text), ``over_budget_at_end`` (bool) and
    ``threads_most`` (the most summariser threads running at once), ``recovered_after``
    (messages from the end of an outage until the memory was back
    within budget; None when it never was or there was no outage).
    """
    check_int("messages", messages, 2)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r:.60}")
    inner = make_extractive_summariser(cap=budget // 3, measure=cl100k_tokens)
    model = FaultyModel(inner, fault, rate=rate, seed=seed, window=4 * budget)
    timeout = 0.02 if fault == "timeout" else None
    memory = _memory(kind, model, budget, timeout, fallback)
    turns = shopping_chat(messages, seed=seed)
    before, threads = threading.active_count(), 0
    end = 50 + outage if fault == "outage" else None
    recovered = None
    for number, (role, text) in enumerate(turns, 1):
        model.down = end is not None and 50 <= number < end
        try:
            memory.add(role, text)
        except CompactionError:
            pass                            # the message is kept; the next add retries
        threads = max(threads, threading.active_count() - before)
        if isinstance(memory, BackgroundSummaryMemory):
            memory.wait()
        if fault == "timeout":
            model.release()                 # the hung call answers late, after the add
            _settle(memory)
        if (end is not None and number >= end and recovered is None
                and memory.size <= memory.budget):
            recovered = number - end
    model.release()
    return {"kind": kind, "fallback": fallback, "fault": fault if fault != "outage" else f"outage of {outage}",
            "faults": model.faults, "lost": len(lost_turns(memory, turns)),
            "model_calls": model.calls, "prompt_kb": round(model.prompt_chars / 1000, 1),
            "threads_most": threads, "over_budget_at_end": memory.size > memory.budget,
            "recovered_after": recovered}
