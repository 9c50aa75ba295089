"""An interactive explorer of summary memory: sliders for budget and keep_recent.

The logic lives in :func:`explore_summary` (tested); :func:`summary_explorer` only
wires ipywidgets sliders to it. The explorer also offers a PNG of its current plot
beside the live view, so a saved notebook (whose widget state is not kept) shows
that picture until the cell is run again.
"""
from __future__ import annotations

from collections.abc import Sequence

from kit.conversations import Turn, replay
from kit.llm import fact_listing_summariser
from kit.memory import FullHistory, SummaryMemory
from kit.tokens import Measure, count_words
from kit.trace import Table, trace_table

__all__ = ["explore_summary", "summary_explorer"]


def explore_summary(turns: Sequence[Turn], budget: int, keep_recent: int,
                    measure: Measure = count_words, summariser=fact_listing_summariser
                    ) -> tuple[Table, dict[str, list[int]], SummaryMemory]:
    """Replay ``turns`` into a fresh SummaryMemory and a FullHistory.

    Returns (trace table, ``{"full history": sizes, "summary memory": sizes}`` in the
    measure's unit, the memory). Raises what SummaryMemory raises for bad arguments.
    """
    memory = SummaryMemory(summariser, budget=budget, keep_recent=keep_recent, measure=measure)
    full = FullHistory(measure=measure)
    events = replay(memory, turns)
    sizes = {"full history": [e.size_after for e in replay(full, turns)],
             "summary memory": [e.size_after for e in events]}
    return trace_table(events, f"budget={budget}, keep_recent={keep_recent}"), sizes, memory


def summary_explorer(turns: Sequence[Turn], budget: int = 20, keep_recent: int = 2,
                     measure: Measure = count_words, summariser=fact_listing_summariser):
    """Sliders for budget (1-200) and keep_recent (0-10, even) redrawing trace and plot.

    Arguments as in :func:`explore_summary`; returns an ``ipywidgets.VBox`` whose display
    also carries an ``image/png`` of its current plot (what a saved notebook shows). Raises
    ValueError for starting values outside the sliders' ranges.
    """
    if not (isinstance(budget, int) and 1 <= budget <= 200):
        raise ValueError(f"budget must be an int from 1 to 200 (the slider's range), got {budget!r}")
    if not (isinstance(keep_recent, int) and 0 <= keep_recent <= 10 and keep_recent % 2 == 0):
        raise ValueError(f"keep_recent must be an even int from 0 to 10, got {keep_recent!r}")
    import base64
    import io

    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    from kit.plots import plot_sizes

    class Explorer(widgets.VBox):
        """The sliders and the output, plus ``picture``: the PNG of the last plot."""
        picture = b""

        def _repr_mimebundle_(self, **kwargs):
            bundle = super()._repr_mimebundle_(**kwargs)
            if self.picture:
                bundle["image/png"] = base64.b64encode(self.picture).decode("ascii")
            return bundle

    budget_slider = widgets.IntSlider(value=budget, min=1, max=200, description="budget")
    keep_slider = widgets.IntSlider(value=keep_recent, min=0, max=10, step=2,
                                    description="keep_recent")
    out = widgets.Output()

    def redraw(_=None):
        out.clear_output(wait=True)
        with out:
            try:
                table, sizes, memory = explore_summary(turns, budget_slider.value,
                                                       keep_slider.value, measure, summariser)
            except (TypeError, ValueError) as exc:
                print(f"not allowed: {exc}")
                return
            display(table)
            plot_sizes(sizes, memory.unit, budget_slider.value)
            picture = io.BytesIO()
            plt.gcf().savefig(picture, format="png", bbox_inches="tight")
            explorer.picture = picture.getvalue()
            plt.show()

    explorer = Explorer([widgets.HBox([budget_slider, keep_slider]), out])
    budget_slider.observe(redraw, names="value")
    keep_slider.observe(redraw, names="value")
    redraw()
    return explorer
