"""Matplotlib pictures of memory behaviour: context size per message and the cost curve.

Every function draws on ``ax`` (a new figure if None) and returns the Axes; the
caller ends the cell with ``plt.show()``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["plot_sizes", "plot_costs"]


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt
        _, ax = plt.subplots(figsize=(7, 3.5))
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))   # message and call numbers
    return ax


def plot_sizes(sizes: Mapping[str, Sequence[int]], unit: str = "tokens",
               budget: int | None = None, ax=None):
    """Context size after each message, one line per strategy.

    ``sizes``: ``{"full history": [7, 11, ...], ...}`` in ``unit``; ``budget`` draws a
    dashed horizontal line.
    """
    ax = _axes(ax)
    for name, values in sizes.items():
        ax.plot(range(1, len(values) + 1), values, label=name)
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
    for name, values in costs.items():
        ax.plot(range(1, len(values) + 1), values, label=name)
    ax.set_xlabel("model call (user message)")
    ax.set_ylabel(f"total prompt {unit} sent")
    ax.set_title("Cumulative prompt cost")
    ax.legend()
    return ax
