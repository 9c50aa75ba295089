"""The batch prompt of map-reduce summarization: how it is laid out and read back.

Layout (:func:`build_batch_prompt`; :func:`parse_batch_prompt` reads it back)::

    <instructions>

    Memory items, one per line as [id] text:      <- "Batch summaries, ..." above level 1
    [m1] The user prefers window seats.
    [m2] Order 1234 ships on Monday.
      further lines of a text are indented by two spaces

Ids stay in the prompt so a fact can be traced back: item ids at level 1, summary ids
(``L1.3``: level 1, batch 3) above. The batched-summarization request describes the
batches; the layout is ours.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from kit.messages import indent_continuation

__all__ = ["HIERARCHY_PROMPT", "ITEMS_HEADER", "SUMMARIES_HEADER", "build_batch_prompt",
           "parse_batch_prompt", "prompt_head", "entry_line"]

HIERARCHY_PROMPT = (
    "Summarise the entries below in one short text. Keep, exactly as written, every name, "
    "number, id, date, decision and stated constraint; drop small talk. After each fact, "
    "cite the [id] of the entry it came from."
)
ITEMS_HEADER = "Memory items, one per line as [id] text:"
SUMMARIES_HEADER = "Batch summaries, one per line as [id] text:"


def prompt_head(instructions: str, level: int) -> str:
    """What every prompt of ``level`` starts with: the instructions, a blank line and the
    header line (items at level 1, batch summaries above), then a line break."""
    return f"{instructions}\n\n{ITEMS_HEADER if level == 1 else SUMMARIES_HEADER}\n"


def entry_line(label: str, text: str) -> str:
    """One entry of a prompt, ``[label] text``, further lines indented by two spaces."""
    return f"[{label}] {indent_continuation(text)}"


def build_batch_prompt(entries: Sequence[tuple[str, str]], level: int = 1,
                       instructions: str = HIERARCHY_PROMPT) -> str:
    """The prompt for one batch of ``(id, text)`` entries (layout in the module docstring).

    ``level`` 1 lists memory items, a higher level batch summaries.
    """
    return prompt_head(instructions, level) + "\n".join(entry_line(i, t) for i, t in entries)


def parse_batch_prompt(prompt: str) -> list[tuple[str, str]]:
    """The ``(id, text)`` entries of a prompt built by :func:`build_batch_prompt`.

    Raises ValueError if the prompt has no header line.
    """
    lines = prompt.split("\n")
    heads = [n for n, line in enumerate(lines) if line in (ITEMS_HEADER, SUMMARIES_HEADER)]
    if not heads:
        raise ValueError(f"not a batch prompt (no {ITEMS_HEADER!r} line): {prompt[:60]!r}")
    entries: list[tuple[str, list[str]]] = []          # (id, lines of the text)
    for line in lines[heads[-1] + 1:]:
        match = re.match(r"\[([^\]]+)\] (.*)", line)
        if match:
            entries.append((match[1], [match[2]]))
        elif entries and line.startswith("  "):
            entries[-1][1].append(line[2:])
    return [(label, "\n".join(text)) for label, text in entries]
