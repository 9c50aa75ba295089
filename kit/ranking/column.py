"""A Python list of numbers read as a numpy array, without rebuilding it at every read.

An index that takes one document per turn and is searched after every turn must not
rebuild its arrays from Python lists at each search (that is a cost per turn of the
whole conversation). A :class:`Column` keeps a list (appending to it costs what a list
append costs) and a numpy buffer whose capacity doubles when full; :meth:`Column.array`
copies only the values appended since the last read, so reading after each append is
amortised O(1). numpy is imported on the first read.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Column"]


class Column:
    """Numbers appended one at a time (``values``, a list: append, never edit), read as
    an array of ``dtype`` (default int64) with :meth:`array`."""

    def __init__(self, dtype: str = "int64") -> None:
        self.dtype = dtype
        self.values: list = []
        self._buffer: np.ndarray | None = None
        self._copied = 0

    def __len__(self) -> int:
        return len(self.values)

    def append(self, value) -> None:
        """Add ``value`` at the end."""
        self.values.append(value)

    def array(self) -> np.ndarray:
        """The values so far, oldest first, as a read-only view (the new ones copied in)."""
        import numpy as np
        n = len(self.values)
        if self._buffer is None or n > len(self._buffer):
            grown = np.zeros(max(8, 2 * n), dtype=self.dtype)
            if self._buffer is not None:
                grown[:self._copied] = self._buffer[:self._copied]
            self._buffer = grown
        if self._copied < n:
            self._buffer[self._copied:n] = self.values[self._copied:n]
            self._copied = n
        view = self._buffer[:n]
        view.flags.writeable = False
        return view
