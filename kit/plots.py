"""Matplotlib pictures of memory behaviour: context size per message and the cost curve.

Every function draws on ``ax`` (a new figure if None) and returns the Axes; the
caller ends the cell with ``plt.show()``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["plot_sizes", "plot_costs", "LINE_STYLES"]

#: One style per line, in order: the first wide and pale, the next ones thinner, dashed or
#: dotted and marked, drawn on top; so a line that coincides with another (full history
#: and summary memory before the first compaction) stays visible.
LINE_STYLES = (
    {"linestyle": "-", "linewidth": 4.5, "alpha": 0.45},
    {"linestyle": "--", "linewidth": 1.8, "marker": "o", "markersize": 3.5},
    {"linestyle": ":", "linewidth": 2.2, "marker": "s", "markersize": 3.5},
    {"linestyle": "-.", "linewidth": 1.8, "marker": "^", "markersize": 3.5},
)


def _style(index: int) -> dict:
    return LINE_STYLES[index % len(LINE_STYLES)]


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt
        _, ax = plt.subplots(figsize=(7, 3.5))
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))   # message and call numbers
    return ax


def plot_sizes(sizes: Mapping[str, Sequence[int]], unit: str = "tokens",
               budget: int | None = None, ax=None):
    """Context size after each message, one line per strategy, each in its own style
    (:data:`LINE_STYLES`), so lines that coincide all stay visible.

    ``sizes``: ``{"full history": [7, 11, ...], ...}`` in ``unit``; ``budget`` draws a
    dashed horizontal line.
    """
    ax = _axes(ax)
    for index, (name, values) in enumerate(sizes.items()):
        ax.plot(range(1, len(values) + 1), values, label=name, **_style(index))
    if budget is not None:
        ax.axhline(budget, linestyle="--", color="grey", label=f"budget ({budget} {unit})")
    ax.set_xlabel("message number")
    ax.set_ylabel(f"context size ({unit})")
    ax.set_title("Context size per message")
    ax.legend()
    return ax


def plot_costs(costs: Mapping[str, Sequence[int]], unit: str = "tokens", ax=None):
    """Cumulative prompt size per model call (one call per user message), one line each.

    ``costs``: ``{"full history": [7, 25, ...], ...}`` in ``unit``, e.g. from
    :func:`kit.conversations.prompt_costs`. Full history grows quadratically.
    """
    ax = _axes(ax)
    for index, (name, values) in enumerate(costs.items()):
        ax.plot(range(1, len(values) + 1), values, label=name, **_style(index))
    ax.set_xlabel("model call (user message)")
    ax.set_ylabel(f"total prompt {unit} sent")
    ax.set_title("Cumulative prompt cost")
    ax.legend()
    return ax
