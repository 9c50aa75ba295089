"""Starter for the drill map-reduce: write your answer, then check it with

    .venv/bin/python -m kit drill map-reduce <this file>

(from the repository root; `python -m kit drill ...` with the environment active).
The spec, hints and follow-ups are in the notebook notebooks/drills/03_map_reduce.ipynb (your copy: work/drills/03_map_reduce.ipynb)."""

from kit.hierarchical import build_batch_prompt


def map_reduce(items, summarise, window, measure, batch_size, max_rounds):
    """Map-reduce summarisation of items too many for one prompt, in bounded rounds.

    items: non-empty list of (id, text) pairs, oldest first.
    summarise: the model, prompt (str) -> summary (str); build each prompt with
        build_batch_prompt(entries, level): level 1 for items, 2 and up for summaries.
    window: int, the largest prompt, in measure's unit; measure: str -> int.
    batch_size: int >= 2, the most entries per prompt.
    max_rounds: int >= 1, the most rounds, the map being round 1.
    Returns a list of (summary, source_ids) pairs: the summaries left at the top, in order,
    each with the ids of every item it covers; one pair when done. Raises ValueError for an
    empty items list, and naming an item whose prompt alone is over the window, before any
    call. Does not change `items`.
    """
    raise NotImplementedError("Exercise: write your answer here")
