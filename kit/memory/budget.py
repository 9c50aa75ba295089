"""One token budget, split between the parts of a prompt, with a report of what was cut.

A prompt is built from *parts*: the system prompt, a running summary, recent turns,
turns recalled from the transcript, the question, and a reserve left free for the
reply. Each part is a list of items (a turn, a summary, a question) with sizes in
tokens (or whatever unit the memory measures in), listed most-wanted first.
:func:`allocate` decides which items go in:

1. **Protected first.** The first ``minimum`` items of every part are never cut (the
   system prompt, the question, the reply reserve, the ``keep_recent`` newest turns).
   If they alone exceed the budget, they all go in anyway, nothing else does, and
   the allocation says so (``over_budget``): the budget loses, as ``keep_recent`` wins
   over it in summary memory (lesson 03's laptop example: 26 > 20 words).
2. **Then by priority**, highest first (ties: the order the parts were given). Within a
   part, items are tried in order; one that does not fit (the budget, or the part's
   ``cap``) is cut and the next, smaller one may still fit. A ``contiguous`` part (a
   window of recent turns) stops at the first item that does not fit, so it has no
   holes. So the lowest priority is cut first: an item is only cut if it would not fit
   even if every lower-priority part gave back what it got.
3. **Headers are paid once.** A part's ``overhead`` (a section title) is charged with
   its first item; items sharing a ``group`` (a session date line) pay that group's
   cost once, with the first of them.

The result, :class:`Allocation`, lists per part what was wanted, what was given and
why anything was cut; :meth:`Allocation.table` shows it as a :class:`kit.trace.Table`.
Deterministic: the same parts and budget give the same allocation. Every memory in
:mod:`kit.memory` builds its context through it.
"""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from kit.trace import Table

__all__ = ["Part", "PartResult", "Allocation", "allocate"]


def _size(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an int >= 0, got {value!r}")
    return value


@dataclass(frozen=True)
class Part:
    """One part of a prompt.

    ``name``: unique among the parts ("system", "summary", "recent", ...); ``sizes``:
    the items' sizes (ints >= 0), most wanted first; ``priority``: higher is filled
    first; ``minimum``: how many of the first items are protected (never cut);
    ``cap``: at most this many tokens for the part, overhead included (None: no cap;
    protected items may exceed it); ``contiguous``: stop at the first item that does
    not fit; ``overhead``: tokens charged once, with the first item given (a title);
    ``groups``: one key per item (or empty: no groups); ``group_costs``: key -> tokens
    charged once per group given (a missing key costs 0); ``why``: what the part is, in
    words, for the report ("never cut", "keep_recent=2"); ``unseen``: ``(count, tokens)``,
    items after the listed ones that the caller has found cannot fit (each costs more
    than the part can still get, however the listed ones fare: recall memory's
    candidates beyond the last that fits), counted as cut and in :attr:`wanted` (the
    tokens they add to it) without being listed.

    Raises ValueError naming a bad size, minimum, cap or group list, and TypeError for
    a name that is not a non-empty str, a priority that is not an int (a NaN would make
    the order depend on the list), a ``contiguous`` that is not a bool, or sizes and
    group costs of the wrong kind.
    """

    name: str
    sizes: tuple[int, ...]
    priority: int = 0
    minimum: int = 0
    cap: int | None = None
    contiguous: bool = False
    overhead: int = 0
    groups: tuple[Hashable, ...] = ()
    group_costs: Mapping[Hashable, int] = field(default_factory=dict)
    why: str = ""
    unseen: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise TypeError(f"part name must be a non-empty str, got {self.name!r:.60}")
        if isinstance(self.sizes, (str, bytes)) or not hasattr(self.sizes, "__iter__"):
            raise TypeError(f"part {self.name!r}: sizes must be a sequence of ints, got "
                            f"{self.sizes!r:.60}")
        if isinstance(self.priority, bool) or not isinstance(self.priority, int):
            raise TypeError(f"part {self.name!r}: priority must be an int, got "
                            f"{self.priority!r:.60}")
        if not isinstance(self.contiguous, bool):
            raise TypeError(f"part {self.name!r}: contiguous must be True or False, got "
                            f"{self.contiguous!r:.60}")
        if not isinstance(self.group_costs, Mapping):
            raise TypeError(f"part {self.name!r}: group_costs must be a mapping, got "
                            f"{self.group_costs!r:.60}")
        object.__setattr__(self, "sizes", tuple(self.sizes))
        object.__setattr__(self, "groups", tuple(self.groups))
        if self.sizes and (set(map(type, self.sizes)) != {int} or min(self.sizes) < 0):
            for i, size in enumerate(self.sizes):      # name the first bad one
                _size(f"part {self.name!r}: size of item {i}", size)
        _size(f"part {self.name!r}: overhead", self.overhead)
        if _size(f"part {self.name!r}: minimum", self.minimum) > len(self.sizes):
            raise ValueError(f"part {self.name!r}: minimum {self.minimum} is more than its "
                             f"{len(self.sizes)} items")
        if self.cap is not None:
            _size(f"part {self.name!r}: cap", self.cap)
        if self.groups and len(self.groups) != len(self.sizes):
            raise ValueError(f"part {self.name!r}: {len(self.groups)} groups for "
                             f"{len(self.sizes)} items")
        for key, cost in self.group_costs.items():
            _size(f"part {self.name!r}: cost of group {key!r}", cost)
        if not isinstance(self.unseen, tuple) or len(self.unseen) != 2:
            raise ValueError(f"part {self.name!r}: unseen must be a pair (count, tokens), "
                             f"got {self.unseen!r:.60}")
        _size(f"part {self.name!r}: unseen count", self.unseen[0])
        _size(f"part {self.name!r}: unseen tokens", self.unseen[1])
        if not self.unseen[0] and self.unseen[1]:
            raise ValueError(f"part {self.name!r}: unseen tokens without unseen items: "
                             f"{self.unseen!r}")

    @cached_property
    def wanted(self) -> int:
        """Tokens the part needs to go in whole: items, overhead and group costs (and
        what its ``unseen`` items add)."""
        if not self.sizes:
            return self.unseen[1]
        groups = set(self.groups)
        return (self.overhead + sum(self.sizes) + sum(self.group_costs.get(g, 0) for g in groups)
                + self.unseen[1])

    @property
    def items(self) -> int:
        """How many items the part has, listed and unseen."""
        return len(self.sizes) + self.unseen[0]


@dataclass(frozen=True)
class PartResult:
    """What one part got. ``given``: indices of the items that go in (in the part's
    order); ``wanted`` / ``tokens``: tokens needed for everything / tokens given
    (overheads included); ``cut``: items left out; ``reason``: why, in words."""

    name: str
    wanted: int
    tokens: int
    given: tuple[int, ...]
    cut: int
    reason: str


@dataclass(frozen=True)
class Allocation:
    """The outcome of :func:`allocate`.

    ``budget``: the budget (None: unlimited); ``parts``: one :class:`PartResult` per
    part, in the order given; ``total``: tokens given; ``protected``: tokens of the
    protected items; ``over_budget``: True when the protected items alone exceed the
    budget (then ``total`` > ``budget`` and nothing unprotected went in); ``unit``:
    the size unit, for the report.
    """

    budget: int | None
    parts: tuple[PartResult, ...]
    total: int
    protected: int
    over_budget: bool
    unit: str = "tokens"

    def part(self, name: str) -> PartResult:
        """The result of the part called ``name``. Raises KeyError naming it."""
        for p in self.parts:
            if p.name == name:
                return p
        raise KeyError(f"no part {name!r}; parts are {[p.name for p in self.parts]}")

    def given(self, name: str) -> tuple[int, ...]:
        """Indices of the items of part ``name`` that go in ((): none, or no such part)."""
        return next((p.given for p in self.parts if p.name == name), ())

    @property
    def note(self) -> str:
        """One sentence on the whole allocation."""
        if self.budget is None:
            return f"no budget: {self.total} {self.unit}, nothing cut"
        if self.over_budget:
            return (f"over budget: the protected parts alone need {self.protected} > "
                    f"{self.budget} {self.unit}")
        cut = sum(p.cut for p in self.parts)
        return (f"{self.total} of {self.budget} {self.unit} used"
                + (f"; {cut} item{'s' if cut != 1 else ''} cut" if cut else "; nothing cut"))

    def table(self, title: str = ""):
        """One row per part: part, wanted, given, cut (items), reason; the title
        defaults to :attr:`note`. Returns a :class:`kit.trace.Table`."""
        rows = [[p.name, p.wanted, p.tokens, p.cut, p.reason] for p in self.parts]
        return Table(["part", f"wanted ({self.unit})", f"given ({self.unit})", "cut (items)",
                      "reason"], rows, title or self.note)


class _Ledger:
    """The running state of one allocation: what each part got so far."""

    def __init__(self, parts: Sequence[Part]) -> None:
        self.given: dict[str, list[int]] = {p.name: [] for p in parts}
        self.tokens: dict[str, int] = {p.name: 0 for p in parts}
        self.paid: dict[str, set] = {p.name: set() for p in parts}
        self.used = 0

    def cost(self, part: Part, i: int) -> int:
        """Tokens item ``i`` adds now: its size, the part's overhead if it is the
        first, its group's cost if its group is new."""
        extra = part.overhead if not self.given[part.name] else 0
        if part.groups and part.groups[i] not in self.paid[part.name]:
            extra += part.group_costs.get(part.groups[i], 0)
        return part.sizes[i] + extra

    def give_all(self, part: Part) -> None:
        """Give every listed item not given yet (the caller checked that they fit)."""
        rest = part.wanted - part.unseen[1] - self.tokens[part.name]
        self.given[part.name] += range(len(self.given[part.name]), len(part.sizes))
        self.tokens[part.name] += rest
        self.paid[part.name].update(part.groups)
        self.used += rest

    def give(self, part: Part, i: int) -> None:
        cost = self.cost(part, i)
        self.given[part.name].append(i)
        self.tokens[part.name] += cost
        if part.groups:
            self.paid[part.name].add(part.groups[i])
        self.used += cost


def _check(budget: object, parts: Sequence[Part]) -> list[Part]:
    if budget is not None:
        _size("budget", budget)
    parts = list(parts)
    for p in parts:
        if not isinstance(p, Part):
            raise TypeError(f"parts must be Part objects, got {p!r:.60}")
    names = [p.name for p in parts]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"part names must be unique; repeated: {', '.join(twice)}")
    return parts


def allocate(budget: int | None, parts: Sequence[Part], unit: str = "tokens") -> Allocation:
    """Split ``budget`` (an int >= 0 in ``unit``, or None for no limit) between ``parts``.

    See the module docstring for the rules. Returns an :class:`Allocation`; raises
    ValueError for a negative or non-int budget or repeated part names, TypeError for
    something that is not a :class:`Part`. Nothing is changed: a pure function.
    """
    parts = _check(budget, parts)
    ledger = _Ledger(parts)
    reasons: dict[str, list[str]] = {p.name: [] for p in parts}
    for p in parts:                                  # 1. protected items, whatever the budget
        for i in range(p.minimum):
            ledger.give(p, i)
    protected = ledger.used
    over = budget is not None and protected > budget
    if over:
        for p in parts:
            if len(ledger.given[p.name]) < p.items:
                reasons[p.name].append("the protected parts alone exceed the budget")
    else:                                            # 2. the rest, highest priority first
        for p in sorted(parts, key=lambda p: -p.priority):   # sorted() is stable
            _fill(p, budget, ledger, reasons[p.name])
    results = []
    for p in parts:
        given = tuple(sorted(ledger.given[p.name]))
        cut = p.items - len(given)
        results.append(PartResult(p.name, p.wanted, ledger.tokens[p.name], given, cut,
                                  _reason(p, budget, cut, reasons[p.name])))
    return Allocation(budget, tuple(results), ledger.used, protected, over, unit)


def _fill(part: Part, budget: int | None, ledger: _Ledger, reasons: list[str]) -> None:
    rest = part.wanted - part.unseen[1] - ledger.tokens[part.name]   # the listed items left
    if ((part.cap is None or ledger.tokens[part.name] + rest <= part.cap)
            and (budget is None or ledger.used + rest <= budget)):
        ledger.give_all(part)          # they all fit: the item-by-item walk gives each one
    else:
        _walk(part, budget, ledger, reasons)
    if part.unseen[0]:
        why = (f"over the part's cap of {part.cap}" if part.cap is not None
               else "no room left in the budget")
        if why not in reasons:
            reasons.append(why)


def _walk(part: Part, budget: int | None, ledger: _Ledger, reasons: list[str]) -> None:
    for i in range(part.minimum, len(part.sizes)):
        cost = ledger.cost(part, i)
        if part.cap is not None and ledger.tokens[part.name] + cost > part.cap:
            why = f"over the part's cap of {part.cap}"
        elif budget is not None and ledger.used + cost > budget:
            why = "no room left in the budget"
        else:
            ledger.give(part, i)
            continue
        if why not in reasons:
            reasons.append(why)
        if part.contiguous:
            if len(part.sizes) - i > 1:
                reasons.append("older items cut with it (a window has no holes)")
            return


def _reason(part: Part, budget: int | None, cut: int, reasons: list[str]) -> str:
    what = f" ({part.why})" if part.why else ""
    if not part.items:
        return f"empty{what}"
    if part.minimum == part.items:
        return f"protected{what}"
    if cut == 0:
        return ("all given" if budget is not None else "no budget") + what
    return f"{cut} of {part.items} cut{what}: {'; '.join(reasons)}"
