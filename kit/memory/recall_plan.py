"""The context of a recall memory, decided and rendered (used by :mod:`kit.memory.recall`).

:func:`decide` is a pure function: the fixed parts (system prompt, question, reserve,
summary), the recent window and the recalled candidates, best match first, go through
the budget allocator (:mod:`kit.memory.budget`) and come back as a :class:`RecallPlan`.
The candidates come as arrays (:class:`Candidates`): :func:`pick` finds the ones that
fit with array operations and a walk over those, so a load costs what goes into the
context, not the length of the transcript; the allocator decides over the ones picked
and counts the others as cut.
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
from itertools import groupby
from operator import attrgetter
from typing import TYPE_CHECKING

from kit.memory.budget import Allocation, Part, allocate
from kit.messages import Message

if TYPE_CHECKING:
    import numpy as np

__all__ = ["RecallPlan", "Candidates", "RECALLED_TITLE", "RECENT_TITLE", "turn_part", "pick",
           "decide", "dated", "date_line", "render_context", "render_messages"]

RECALLED_TITLE = "Earlier turns recalled from the transcript:"
RECENT_TITLE = "Recent turns:"


@dataclass(frozen=True)
class Candidates:
    """The older turns offered for recall, best match first, as arrays (no Python
    object per turn): their ``numbers``; their line ``costs`` in the memory's unit (the
    line as sent, line break included, as ``line_cost`` gives it); their ``days`` (an id
    per session day, see ``day_lines``); ``day_lines``: day id -> the day's date line
    (:func:`date_line`, "" for an undated turn); ``fetch``: numbers -> the messages,
    in the order given."""

    numbers: np.ndarray
    costs: np.ndarray
    days: np.ndarray
    day_lines: Sequence[str]
    fetch: Callable[[Sequence[int]], list[Message]]

    def __len__(self) -> int:
        return len(self.numbers)


def pick(candidates: Candidates, room: int, overhead: int,
         day_cost: Callable[[int], int]) -> tuple[list[int], int]:
    """Which candidates go in, in the budget allocator's order (best match first, each
    if it fits in what is left, the ``overhead`` paid with the first, a day's date line,
    ``day_cost(day id)``, with the first of that day), within ``room``. Returns the
    indices chosen (best first) and the tokens all candidates want (the part's
    ``wanted``). It takes the run that fits in one array step, jumps over candidates
    whose line alone exceeds what is left, and stops when no candidate left can fit
    (what is left is below the smallest line to come): the same choice as offering every
    candidate, in time linear in their number, without Python work for those that
    cannot make the cut."""
    import numpy as np
    costs, days = candidates.costs, candidates.days
    if not len(costs):
        return [], 0
    unique, firsts = np.unique(days, return_index=True)
    day_costs = np.array([day_cost(d) for d in unique.tolist()], dtype=np.int64)
    wanted = overhead + int(costs.sum()) + int(day_costs.sum())
    # The run of candidates that all fit, in one step: each costs its line, plus its
    # day's date line if it is the first of its day, plus the overhead for the first.
    first_of_day = np.zeros(len(costs), dtype=np.int64)
    first_of_day[firsts] = day_costs
    spent = np.cumsum(costs + first_of_day)
    spent += overhead
    fit = int(np.searchsorted(spent, room, side="right"))
    chosen = list(range(fit))
    paid = set(days[:fit].tolist())
    left = room - (int(spent[fit - 1]) if fit else 0)
    smallest = np.minimum.accumulate(costs[::-1])[::-1]    # the smallest line from i on
    sizes, day_of, i = costs.tolist(), days.tolist(), fit
    while i < len(sizes):                           # the rest, one by one
        title = 0 if chosen else overhead
        if left < smallest[i] + title:             # nothing from here on can fit
            break
        if sizes[i] + title > left:                # too big alone: jump to one that is not
            i = _first_at_most(costs, i + 1, left - title)
            continue
        day = day_of[i]
        cost = sizes[i] + title + (0 if day in paid else day_cost(day))
        if cost <= left:
            chosen.append(i)
            paid.add(day)
            left -= cost
        i += 1
    return chosen, wanted


def _first_at_most(values: np.ndarray, start: int, limit: int) -> int:
    """The first index >= ``start`` whose value is <= ``limit`` (``len(values)`` if none),
    scanned in blocks that double: the cost is linear in the distance jumped."""
    import numpy as np
    block = 64
    while start < len(values):
        hits = np.flatnonzero(values[start:start + block] <= limit)
        if len(hits):
            return start + int(hits[0])
        start, block = start + block, 2 * block
    return len(values)


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
           candidates: Candidates, *, keep_recent: int, window: int,
           line_cost: Callable[[Message], int], text_cost: Callable[[str], int],
           query: str) -> RecallPlan:
    """Split ``budget`` between the ``fixed`` parts (system, question, reserve, summary),
    the recent window (``newest_first``; the ``keep_recent`` newest protected, up to
    ``window`` in unit) and the older turns (``candidates``, best match first; each goes
    in if it fits in what the others leave). Returns the :class:`RecallPlan`. Nothing is
    measured here that the cost functions do not already know.

    The recalled part's cap (what is left once the fixed parts and the whole window are
    counted) is the tighter of its two limits for every candidate, so which candidates
    fit is decided by :func:`pick` before the allocator sees them; the allocator gets
    the ones that fit, and the others as ``unseen`` (counted as cut, and in what the
    part wanted), so its report is the one it would give for every candidate."""
    recent = turn_part("recent", newest_first, RECENT_TITLE, line_cost, text_cost, priority=1,
                       minimum=min(keep_recent, len(newest_first)), contiguous=True,
                       why=f"keep_recent={keep_recent}, window {window} {unit}")
    cap = max(0, budget - sum(p.wanted for p in fixed) - recent.wanted)
    overhead = text_cost(f"{RECALLED_TITLE}\n") + text_cost("\n")

    def day_cost(day: int) -> int:
        line = candidates.day_lines[day]
        return text_cost(f"{line}\n") if line else 0

    chosen, wanted = pick(candidates, cap, overhead, day_cost)
    ranked = candidates.fetch(candidates.numbers[chosen].tolist())
    sizes = candidates.costs[chosen].tolist()                # = line_cost of each
    days = [candidates.day_lines[d] for d in candidates.days[chosen].tolist()]
    group_costs = {line: text_cost(f"{line}\n") if line else 0 for line in set(days)}
    listed = overhead + sum(sizes) + sum(group_costs.values()) if sizes else 0
    recalled = Part("recalled", sizes, priority=2, cap=cap, overhead=overhead, groups=days,
                    group_costs=group_costs, why="best match first",
                    unseen=(len(candidates) - len(ranked), wanted - listed))
    allocation = allocate(budget, fixed + [recalled, recent], unit)
    return RecallPlan(allocation,
                      tuple(sorted((ranked[i] for i in allocation.given("recalled")),
                                   key=attrgetter("number"))),
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
    for when, run in groupby(messages, key=attrgetter("when")):   # a session's run at once
        day = date_line(when) if when else None
        if day is not None and day != last:        # an undated turn keeps the day open
            lines.append(day)
            last = day
        lines += map(line, run)
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
