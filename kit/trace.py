"""Trace events and tables: what each ``add`` of a memory did, and how to show it.

:class:`TraceEvent` is the record a memory appends on every ``add``; :class:`Table`
holds column names and rows of plain values and displays as HTML in Jupyter (text
escaped) or aligned plain text in a terminal; :func:`trace_table` turns a memory's
event list into one, with the size unit in the column names.
"""
from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

from typing import NamedTuple

from kit.messages import span

__all__ = ["TraceEvent", "Table", "trace_table", "describe_event", "span", "compaction_table"]


class TraceEvent(NamedTuple):
    """What one ``add`` did.

    ``message``: the message's number (1-based); ``tokens``: its size;
    ``size_before``: context size right after appending it, before any eviction or
    compaction; ``size_after``: size when ``add`` returned; ``turns_before`` /
    ``turns_after``: verbatim turns at those two moments; ``action``: "kept",
    "evicted", "compacted" or "failed"; ``moved``: numbers of the messages evicted or
    folded into the summary; ``note``: why, in words. Sizes are in ``unit``.
    ``summariser``: who wrote the new summary ("model", "fallback"; "" when no
    summary was written); ``trigger``: why compaction fired (the trigger's ``why``, see
    :mod:`kit.memory.triggers`; "" when it did not).
    """

    message: int
    role: str
    tokens: int
    size_before: int
    size_after: int
    turns_before: int
    turns_after: int
    unit: str
    action: str = "kept"
    moved: tuple[int, ...] = ()
    note: str = ""
    summariser: str = ""
    trigger: str = ""

    @property
    def compacted(self) -> bool:
        return self.action == "compacted"


class Table:
    """A small table: ``Table(["a", "b"], [[1, 2], [3, 4]])``.

    Displays as HTML in Jupyter (every cell escaped with ``html.escape``) and as aligned
    text with ``str()``/``print``. Raises ValueError if a row's length differs from the
    number of columns, TypeError for a non-str title or a string given as the
    columns or as a row.
    """

    def __init__(self, columns: Sequence[str], rows: Iterable[Sequence[object]],
                 title: str = "") -> None:
        if not isinstance(title, str):
            raise TypeError(f"title must be a str, got {type(title).__name__}: {title!r:.60}")
        if isinstance(columns, str):
            raise TypeError(f"columns must be a list of names, not one string: {columns!r:.60}")
        self.columns = [str(c) for c in columns]
        self.rows = []
        for i, row in enumerate(rows):
            if isinstance(row, str):
                raise TypeError(f"row {i} must be a list of cells, not one string: {row!r:.60}")
            self.rows.append(list(row))
        self.title = title
        for i, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(f"row {i} has {len(row)} cells, expected {len(self.columns)}")

    def column(self, name: str) -> list[object]:
        """The values of one column. Raises KeyError naming an unknown column."""
        if name not in self.columns:
            raise KeyError(f"no column {name!r}; columns are {self.columns}")
        i = self.columns.index(name)
        return [row[i] for row in self.rows]

    def __str__(self) -> str:
        cells = [self.columns] + [[str(v) for v in row] for row in self.rows]
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.columns))]
        lines = ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in cells]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(([self.title] if self.title else []) + lines)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
                       for row in self.rows)
        caption = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def __repr__(self) -> str:
        return str(self)


def describe_event(event: TraceEvent) -> str:
    """One phrase for what an add did: "no", "yes: turns 1-2 folded ...", "evicted 1-2"."""
    if event.action == "compacted":
        return f"yes: {event.note}"
    if event.action == "evicted":
        return f"evicted {span(event.moved)} ({event.note})"
    if event.action == "failed":
        return f"failed: {event.note}"
    return f"no ({event.note})" if event.note else "no"


def trace_table(events: Sequence[TraceEvent], title: str = "") -> Table:
    """One row per add: message, role, its size, turns, context size before and after.

    Units come from the events (e.g. "size (words)").
    """
    unit = events[0].unit if events else "tokens"
    columns = ["message", "role", f"message ({unit})", "turns", f"size ({unit})",
               f"after ({unit})", "compaction / eviction"]
    rows = [[e.message, e.role, e.tokens, e.turns_before, e.size_before, e.size_after,
             describe_event(e)] for e in events]
    return Table(columns, rows, title)


def compaction_table(events: Sequence[TraceEvent], title: str = "") -> Table:
    """One row per compaction, done or failed: message, what was folded, why it fired
    (the trigger), who wrote the summary (model or fallback), sizes before and after,
    and the note. Adds where nothing was folded are left out. Units come from the
    events (e.g. "size (tokens)")."""
    unit = events[0].unit if events else "tokens"
    columns = ["message", "action", "folded", "trigger", "summariser", f"size ({unit})",
               f"after ({unit})", "note"]
    rows = [[e.message, e.action, span(e.moved), e.trigger, e.summariser, e.size_before,
             e.size_after, e.note] for e in events if e.action in ("compacted", "failed")]
    return Table(columns, rows, title)
