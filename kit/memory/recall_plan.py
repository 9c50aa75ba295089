"""The context of a recall memory, decided and rendered (used by :mod:`kit.memory.recall`).

:func:`decide` is a pure function: the fixed parts (system prompt, question, reserve,
summary), the recent window and the recalled candidates, best match first, go through
the budget allocator (:mod:`kit.memory.budget`) and come back as a :class:`RecallPlan`.
:func:`render_context` and :func:`render_messages` turn a plan into text or chat
messages, with the recalled and the recent turns in time order under their session's
date (``[8 May, 2023]``, :func:`date_line`).

Every size is in the memory's unit (tokens by default), separators included: a turn
costs its line as sent (``"Caroline: text"``, its note of resolved times and its line
break, measured together), a date line with its line break once per day its turns come
from, and a block's title with its line break, plus the line break that ends the block,
once if any of its turns goes in. Lines are measured apart, so the sum can err high by
a token where a block ends, never low.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from kit.memory.budget import Allocation, Part, allocate
from kit.messages import Message

__all__ = ["RecallPlan", "RECALLED_TITLE", "RECENT_TITLE", "turn_part", "decide", "dated",
           "date_line", "render_context", "render_messages"]

RECALLED_TITLE = "Earlier turns recalled from the transcript:"
RECENT_TITLE = "Recent turns:"


@dataclass(frozen=True)
class RecallPlan:
    """One context, decided: the ``allocation`` (what each part got and why),
    the ``recalled`` and ``recent`` messages that go in (oldest first), whether the
    ``summary`` goes in, and the ``query`` used for recall ("" if none)."""

    allocation: Allocation
    recalled: tuple[Message, ...]
    recent: tuple[Message, ...]
    summary: bool
    query: str

    @property
    def numbers(self) -> tuple[int, ...]:
        """Numbers of the messages in the context, oldest first."""
        return tuple(m.number for m in self.recalled + self.recent)


def turn_part(name: str, messages: Sequence[Message], title: str,
              line_cost: Callable[[Message], int], text_cost: Callable[[str], int],
              **options) -> Part:
    """A :class:`~kit.memory.budget.Part` of turns: one item per message (its
    ``line_cost``, its line break included), the ``title`` with its line break and the
    blank line that ends the block as overhead, and one date line with its line break
    per day the given items come from (:func:`date_line`: two sessions of one day share
    a line). ``options`` go to ``Part``."""
    days = tuple(date_line(m.when) if m.when else "" for m in messages)
    return Part(name, tuple(line_cost(m) for m in messages),
                overhead=text_cost(f"{title}\n") + text_cost("\n") if title else 0,
                groups=days,
                group_costs={d: text_cost(f"{d}\n") if d else 0 for d in set(days)},
                **options)


def decide(budget: int, unit: str, fixed: list[Part], newest_first: Sequence[Message],
           ranked: Sequence[Message], *, keep_recent: int, window: int,
           line_cost: Callable[[Message], int], text_cost: Callable[[str], int],
           query: str) -> RecallPlan:
    """Split ``budget`` between the ``fixed`` parts (system, question, reserve, summary),
    the recent window (``newest_first``; the ``keep_recent`` newest protected, up to
    ``window`` in unit) and the ``ranked`` older turns (best match first; each goes in
    if it fits in what the others leave). Returns the :class:`RecallPlan`. Nothing is
    measured here that the cost functions do not already know."""
    recent = turn_part("recent", newest_first, RECENT_TITLE, line_cost, text_cost, priority=1,
                       minimum=min(keep_recent, len(newest_first)), contiguous=True,
                       why=f"keep_recent={keep_recent}, window {window} {unit}")
    room = budget - sum(p.wanted for p in fixed) - recent.wanted
    recalled = turn_part("recalled", ranked, RECALLED_TITLE, line_cost, text_cost, priority=2,
                         cap=max(0, room), why="best match first")
    allocation = allocate(budget, fixed + [recalled, recent], unit)
    return RecallPlan(allocation,
                      tuple(sorted((ranked[i] for i in allocation.given("recalled")),
                                   key=lambda m: m.number)),
                      tuple(newest_first[i] for i in sorted(allocation.given("recent"),
                                                             reverse=True)),
                      bool(allocation.given("summary")), query)


_CLOCK = re.compile(r"\d{1,2}:\d{2}\s*[ap]\.?m\.?\s+on\s+", re.IGNORECASE)


@lru_cache(maxsize=4096)
def date_line(when: str) -> str:
    """The line over a run of one session's turns: ``when`` without its clock time,
    ``"1:56 pm on 8 May, 2023"`` -> ``[8 May, 2023]`` (no question asks for the minute,
    and it costs tokens on every run); a date written otherwise is shown as it is."""
    found = _CLOCK.match(when)
    return f"[{when[found.end():]}]" if found and found.end() < len(when) else f"[{when}]"


def dated(messages: Sequence[Message], line: Callable[[Message], str] = Message.line) -> str:
    """The messages as lines (``line(message)``), each run of one session under its
    ``[date]`` line."""
    lines, last = [], None
    for m in messages:
        day = date_line(m.when) if m.when else None
        if day is not None and day != last:        # an undated turn keeps the day open
            lines.append(day)
            last = day
        lines.append(line(m))
    return "\n".join(lines)


def render_context(plan: RecallPlan, system: Message | None, summary_block: str,
                   line: Callable[[Message], str] = Message.line) -> str:
    """System prompt, summary block (if the plan has it), recalled turns (titled
    :data:`RECALLED_TITLE`), recent turns (:data:`RECENT_TITLE`), separated by blank
    lines; each turn as ``line(message)``."""
    blocks = [system.line()] if system else []
    if plan.summary:
        blocks.append(summary_block)
    if plan.recalled:
        blocks.append(f"{RECALLED_TITLE}\n{dated(plan.recalled, line)}")
    if plan.recent:
        blocks.append(f"{RECENT_TITLE}\n{dated(plan.recent, line)}")
    return "\n\n".join(blocks)


def render_messages(plan: RecallPlan, system: Message | None, summary_block: str,
                    line: Callable[[Message], str] = Message.line) -> list[dict[str, str]]:
    """Chat messages: the system prompt, the summary and the recalled turns (with their
    dates, each as ``line(message)``) as system messages, then the recent turns as they
    were said."""
    head = [system.chat()] if system else []
    if plan.summary:
        head.append({"role": "system", "content": summary_block})
    if plan.recalled:
        head.append({"role": "system", "content": f"{RECALLED_TITLE}\n{dated(plan.recalled, line)}"})
    return head + [m.chat() for m in plan.recent]
