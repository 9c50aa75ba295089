"""Wrong answers to lesson 05's exercise 3, map-reduce summarisation end to end.

Each has the exercise's signature,
``map_reduce(items, summarise, window, measure, batch_size, max_rounds)`` (see
:mod:`kit.checks.map_reduce`), and is caught by :func:`kit.checks.map_reduce.check_map_reduce`
with a message that holds its ``hint``. They share the three helpers a right answer has
(:func:`_prompt`, :func:`_pack`, :func:`_merge`); each mistake is in the few lines that
follow them. Entries are ``(label, text, ids)`` triples.
"""
from __future__ import annotations

from kit.hierarchical import build_batch_prompt
from kit.mistakes import mistake

MECHANISM = "map-reduce"

__all__ = ["MECHANISM"]


def _prompt(batch, level):
    return build_batch_prompt([(label, text) for label, text, _ in batch], level)


def _pack(entries, level, measure, window, batch_size):
    """Greedy, in order, by count and by the measured prompt (right)."""
    batches = []
    for entry in entries:
        if (batches and len(batches[-1]) < batch_size
                and measure(_prompt(batches[-1] + [entry], level)) <= window):
            batches[-1].append(entry)
        else:
            batches.append([entry])
    return batches


def _merge(summarise, batch, level, number):
    """One model call; the summary covers every id of the batch (right)."""
    return (f"L{level}.{number}", summarise(_prompt(batch, level)),
            [i for _, _, ids in batch for i in ids])


def _map(items, summarise, window, measure, batch_size):
    """Round 1, right: every batch summarised, an item too large refused."""
    batches = _pack([(i, text, [i]) for i, text in items], 1, measure, window, batch_size)
    for batch in batches:
        if measure(_prompt(batch, 1)) > window:
            raise ValueError(f"item {batch[0][0]!r} alone needs a prompt over the window")
    return [_merge(summarise, batch, 1, n) for n, batch in enumerate(batches, 1)]


def _carry_or_merge(summarise, batches, level):
    return [batch[0] if len(batch) == 1 else _merge(summarise, batch, level, n)
            for n, batch in enumerate(batches, 1)]


def _result(top):
    return [(text, ids) for _, text, ids in top]


@mistake(MECHANISM, "no-round-limit",
         what="reduces `while len(summaries) > 1` with no round limit and no progress check",
         why="on a summariser that does not shrink, every round carries each summary alone "
             "and the loop never ends: the request hangs",
         hint="the loop goes on")
def no_round_limit(items, summarise, window, measure, batch_size, max_rounds):
    top, level = _map(items, summarise, window, measure, batch_size), 1
    while len(top) > 1:
        level += 1
        top = _carry_or_merge(summarise, _pack(top, level, measure, window, batch_size), level)
    return _result(top)


@mistake(MECHANISM, "no-progress-check",
         what="bounds the reduce by max_rounds but goes on after a round that merged nothing",
         why="on a summariser that does not shrink, it spins through every remaining round "
             "(a max_rounds of 100,000 is a hang), packing and measuring for nothing",
         hint="stop before a round that would make no progress")
def no_progress_check(items, summarise, window, measure, batch_size, max_rounds):
    top, level = _map(items, summarise, window, measure, batch_size), 1
    while len(top) > 1 and level < max_rounds:
        level += 1
        top = _carry_or_merge(summarise, _pack(top, level, measure, window, batch_size), level)
    return _result(top)


@mistake(MECHANISM, "batches-by-count",
         what="packs batch_size entries per prompt and never measures the prompt",
         why="long items or summaries make a prompt over the window: the API rejects it or "
             "cuts it, and the summary misses items",
         hint="not only by count")
def batches_by_count(items, summarise, window, measure, batch_size, max_rounds):
    def pack(entries):
        return [entries[i:i + batch_size] for i in range(0, len(entries), batch_size)]

    batches = pack([(i, text, [i]) for i, text in items])
    top = [_merge(summarise, batch, 1, n) for n, batch in enumerate(batches, 1)]
    for level in range(2, max_rounds + 1):
        if len(top) <= 1:
            break
        top = _carry_or_merge(summarise, pack(top), level)
    return _result(top)


@mistake(MECHANISM, "ids-dropped-at-level-2",
         what="a merged summary takes the ids of its last entry (assigns in the loop "
              "instead of extending)",
         why="the top summary claims to cover one batch of items: a fact can no longer be "
             "traced to its item, and coverage checks report items as lost",
         hint="ids dropped at level 2")
def ids_dropped_at_level_2(items, summarise, window, measure, batch_size, max_rounds):
    top, level = _map(items, summarise, window, measure, batch_size), 1
    while len(top) > 1 and level < max_rounds:
        batches = _pack(top, level + 1, measure, window, batch_size)
        if len(batches) == len(top):
            break
        level, merged = level + 1, []
        for n, batch in enumerate(batches, 1):
            if len(batch) == 1:
                merged.append(batch[0])
                continue
            for _, _, ids in batch:
                sources = list(ids)                 # should be: sources += ids
            merged.append((f"L{level}.{n}", summarise(_prompt(batch, level)), sources))
        top = merged
    return _result(top)


@mistake(MECHANISM, "stops-one-round-early",
         what="stops as soon as the summaries left fit one prompt, without sending it",
         why="the caller gets several summaries where one was asked for, and a prompt "
             "that would have fit was never sent",
         hint="you stopped a round early")
def stops_one_round_early(items, summarise, window, measure, batch_size, max_rounds):
    top, level = _map(items, summarise, window, measure, batch_size), 1
    while len(top) > 1 and level < max_rounds:
        batches = _pack(top, level + 1, measure, window, batch_size)
        if len(batches) in (1, len(top)):          # "they fit: done"
            break
        level += 1
        top = _carry_or_merge(summarise, batches, level)
    return _result(top)


@mistake(MECHANISM, "re-summarises-the-top",
         what="after the loop, summarises the one summary left once more, to polish it",
         why="a wasted call and one more lossy rewrite of the final summary",
         hint="summarise was called on the one summary left")
def re_summarises_the_top(items, summarise, window, measure, batch_size, max_rounds):
    top, level = _map(items, summarise, window, measure, batch_size), 1
    while len(top) > 1 and level < max_rounds:
        batches = _pack(top, level + 1, measure, window, batch_size)
        if len(batches) == len(top):
            break
        level += 1
        top = _carry_or_merge(summarise, batches, level)
    if len(top) == 1:
        top = [_merge(summarise, top, level + 1, 1)]
    return _result(top)


@mistake(MECHANISM, "drops-the-last-partial-batch",
         what="closes a batch when it is full or the next entry does not fit, and never "
              "adds the last batch after the loop",
         why="the newest memories (the last, partial batch) are never summarised",
         hint="add the last batch too")
def drops_the_last_partial_batch(items, summarise, window, measure, batch_size, max_rounds):
    def pack(entries, level):
        batches, batch = [], []
        for entry in entries:
            if batch and (len(batch) == batch_size
                          or measure(_prompt(batch + [entry], level)) > window):
                batches.append(batch)
                batch = []
            batch.append(entry)
        return batches                             # the last `batch` is forgotten

    batches = pack([(i, text, [i]) for i, text in items], 1)
    top, level = [_merge(summarise, batch, 1, n) for n, batch in enumerate(batches, 1)], 1
    while len(top) > 1 and level < max_rounds:
        batches = pack(top, level + 1)
        if len(batches) in (0, len(top)):
            break
        level += 1
        top = _carry_or_merge(summarise, batches, level)
    return _result(top)


@mistake(MECHANISM, "ignores-max-rounds",
         what="reduces until one summary is left or no progress, never looking at max_rounds",
         why="the caller's bound on depth (calls, latency, drift) is not kept",
         hint="and the map is round 1")
def ignores_max_rounds(items, summarise, window, measure, batch_size, max_rounds):
    top, level = _map(items, summarise, window, measure, batch_size), 1
    while len(top) > 1:
        batches = _pack(top, level + 1, measure, window, batch_size)
        if len(batches) == len(top):
            break
        level += 1
        top = _carry_or_merge(summarise, batches, level)
    return _result(top)


@mistake(MECHANISM, "max-rounds-without-the-map",
         what="runs max_rounds reduce rounds after the map (one round more than allowed)",
         why="off by one: every run is one level deeper, one more set of calls and one more "
             "lossy rewrite than the caller asked for",
         hint="and the map is round 1")
def max_rounds_without_the_map(items, summarise, window, measure, batch_size, max_rounds):
    top = _map(items, summarise, window, measure, batch_size)
    for level in range(2, max_rounds + 2):
        if len(top) <= 1:
            break
        batches = _pack(top, level, measure, window, batch_size)
        if len(batches) == len(top):
            break
        top = _carry_or_merge(summarise, batches, level)
    return _result(top)


@mistake(MECHANISM, "summarises-a-lone-summary",
         what="sends a reduce batch that holds a single summary to the model",
         why="nothing is merged: a wasted call and one more lossy rewrite of that summary",
         hint="carry a lone summary up")
def summarises_a_lone_summary(items, summarise, window, measure, batch_size, max_rounds):
    top, level = _map(items, summarise, window, measure, batch_size), 1
    while len(top) > 1 and level < max_rounds:
        batches = _pack(top, level + 1, measure, window, batch_size)
        if len(batches) == len(top):
            break
        level += 1
        top = [_merge(summarise, batch, level, n) for n, batch in enumerate(batches, 1)]
    return _result(top)


@mistake(MECHANISM, "carries-a-lone-item",
         what="carries a map batch of one item up as it is, like a lone summary",
         why="raw item text then sits among the summaries: it is never summarised, and it "
             "is larger than a summary",
         hint="a lone item is raw text")
def carries_a_lone_item(items, summarise, window, measure, batch_size, max_rounds):
    batches = _pack([(i, text, [i]) for i, text in items], 1, measure, window, batch_size)
    for batch in batches:
        if measure(_prompt(batch, 1)) > window:
            raise ValueError(f"item {batch[0][0]!r} alone needs a prompt over the window")
    top, level = _carry_or_merge(summarise, batches, 1), 1
    while len(top) > 1 and level < max_rounds:
        batches = _pack(top, level + 1, measure, window, batch_size)
        if len(batches) == len(top):
            break
        level += 1
        top = _carry_or_merge(summarise, batches, level)
    return _result(top)


@mistake(MECHANISM, "drops-an-oversize-item",
         what="skips an item whose prompt alone is over the window",
         why="a memory disappears without a word: nobody will ever summarise it",
         hint="raise ValueError naming item 'm8'")
def drops_an_oversize_item(items, summarise, window, measure, batch_size, max_rounds):
    fits = [(i, text) for i, text in items
            if measure(build_batch_prompt([(i, text)], 1)) <= window]
    top, level = _map(fits, summarise, window, measure, batch_size), 1
    while len(top) > 1 and level < max_rounds:
        batches = _pack(top, level + 1, measure, window, batch_size)
        if len(batches) == len(top):
            break
        level += 1
        top = _carry_or_merge(summarise, batches, level)
    return _result(top)


def _reduce(top, summarise, window, measure, batch_size, max_rounds, pack=_pack):
    """The reduce rounds, right: stop at one summary, at max_rounds or without progress."""
    level = 1
    while len(top) > 1 and level < max_rounds:
        batches = pack(top, level + 1, measure, window, batch_size)
        if len(batches) == len(top):
            break
        level += 1
        top = _carry_or_merge(summarise, batches, level)
    return _result(top)


def _pack_below(entries, level, measure, window, batch_size):
    batches = []
    for entry in entries:
        if (batches and len(batches[-1]) < batch_size
                and measure(_prompt(batches[-1] + [entry], level)) < window):
            batches[-1].append(entry)
        else:
            batches.append([entry])
    return batches


@mistake(MECHANISM, "packs-below-window",
         what="closes a batch when the prompt with the next entry would reach the window "
              "(< window instead of <= window)",
         why="a prompt of exactly the window's size fits; closing early makes more batches, "
             "more model calls and maybe one more round",
         hint="a prompt of exactly window tokens fits")
def packs_below_window(items, summarise, window, measure, batch_size, max_rounds):
    batches = _pack_below([(i, text, [i]) for i, text in items], 1, measure, window, batch_size)
    for batch in batches:
        if measure(_prompt(batch, 1)) > window:
            raise ValueError(f"item {batch[0][0]!r} alone needs a prompt over the window")
    top = [_merge(summarise, batch, 1, n) for n, batch in enumerate(batches, 1)]
    return _reduce(top, summarise, window, measure, batch_size, max_rounds, _pack_below)


@mistake(MECHANISM, "refuses-after-calls",
         what="summarises the batches in order and raises ValueError only on reaching the "
              "batch of an item too large for any prompt",
         why="the model calls made before the refusal are paid for and thrown away; the spec "
             "says the item is refused before any call",
         hint="before any call of summarise")
def refuses_after_calls(items, summarise, window, measure, batch_size, max_rounds):
    batches = _pack([(i, text, [i]) for i, text in items], 1, measure, window, batch_size)
    top = []
    for n, batch in enumerate(batches, 1):
        if measure(_prompt(batch, 1)) > window:
            raise ValueError(f"item {batch[0][0]!r} alone needs a prompt over the window")
        top.append(_merge(summarise, batch, 1, n))
    return _reduce(top, summarise, window, measure, batch_size, max_rounds)
