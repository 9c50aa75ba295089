"""Progress for a benchmark that runs longer than about 10 seconds.

:func:`progress` wraps the benchmark's outer loop in a tqdm bar written to standard error,
shown only once the loop has run for :data:`DELAY` seconds: a short run (the tests', say)
prints nothing, a long one shows how far it is, and standard output keeps only the table.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

from tqdm import tqdm

__all__ = ["progress", "DELAY"]

DELAY = 10.0            # seconds before the bar appears
T = TypeVar("T")


def progress(items: Iterable[T], desc: str, total: int | None = None, *,
             delay: float = DELAY, file=None) -> Iterator[T]:
    """``items``, one by one, with a progress bar on ``file`` (standard error) after
    ``delay`` seconds; the bar is removed when the loop ends."""
    return iter(tqdm(items, desc=desc, total=total, delay=delay, leave=False,
                     file=sys.stderr if file is None else file, dynamic_ncols=True))
