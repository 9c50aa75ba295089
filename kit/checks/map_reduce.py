"""Checker for lesson 05 (hierarchical summarisation), exercise 3: map-reduce, end to end.

:func:`check_map_reduce`: the exercise
``map_reduce(items, summarise, window, measure, batch_size, max_rounds)``.

- ``items``: a list of ``(id, text)`` pairs, oldest first; ids are unique, one word.
- ``summarise``: the model, ``prompt (str) -> summary (str)``. Every prompt is built with
  :func:`kit.hierarchical.build_batch_prompt` ``(entries, level)``: ``(label, text)``
  entries, level 1 for items (the labels are the item ids), 2 and up for summaries
  (labels of your own, one word each, e.g. ``L2.1``).
- ``window``: int, the largest prompt, in ``measure``'s unit (tokens); ``measure``:
  ``str -> int`` (the checker's counts one token per word and one per line break).
- ``batch_size``: int >= 2, the most entries per prompt; ``max_rounds``: int >= 1, the
  most rounds, the map being round 1 (as :func:`kit.hierarchical.hierarchical_summary`
  counts its levels).

Map: pack the items greedily and in order (a batch takes the next item while it holds
fewer than ``batch_size`` and the prompt with that item is at most ``window`` tokens: a
prompt of exactly ``window`` fits) and summarise each batch, a batch of one item too. An
item whose prompt alone is over the window: raise ValueError naming its id, before any
call of ``summarise``. Reduce: pack the summaries the same way; a batch
of two or more becomes one summary (one call), a batch of one summary is carried up
unchanged, without a call. Stop when one summary is left, after ``max_rounds`` rounds,
or before a round that would make no progress (every batch would hold one summary).
Return a list of ``(summary, source_ids)``: the summaries left at the top, in order, each
with the ids of every item it covers, in order; one pair when done, several when the
run stopped early (nothing dropped). ``items`` must not change.

The right answer of each case is the kit's own run, :func:`kit.hierarchical.hierarchical_summary`
with the same summariser (calls, rounds and the summaries left). The checker sees the
prompts (each one measured against the window, each entry traced back to an item or to a
summary the summariser returned), the calls of ``measure`` and the return value. Its
summariser is one of :mod:`kit.hierarchical.stubs`, counted; it stops a loop that never
ends after :data:`CALL_LIMIT` calls, and its measure after :data:`MEASURE_LIMIT` calls,
so the check fails instead of hanging. It prints one pass line
(:func:`kit.checks.passed`) or raises :class:`kit.checks.CheckFailed` naming the case.

The cases come in four parts, one per rubric category of the drill ``map-reduce``
(:mod:`kit.drills.map_reduce`), each a public function returning the cases it passed:
:func:`check_map_reduce_correctness`, :func:`check_map_reduce_failure_safety` (termination),
:func:`check_map_reduce_edge_cases` and :func:`check_map_reduce_complexity`;
:func:`check_map_reduce` runs them in that order.

The window rule is exact, the same in the statement, the kit's packer
(:func:`kit.hierarchical.batching.pack_level`) and here: a prompt of exactly ``window``
tokens fits (``<= window``). Three cases sit at an exact fit (window 81), just below (80)
and just above (82). An item too large for any prompt is refused before any call of
``summarise``.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kit.checks import CheckFailed, call_learner, expect, passed, show_call
from kit.checks.hints import judge, judged
from kit.hierarchical import (ITEMS_HEADER, SUMMARIES_HEADER, ShrinkingStub,
                              first_sentence_summariser, hierarchical_summary,
                              parse_batch_prompt, sample_items)

__all__ = ["check_map_reduce", "check_map_reduce_correctness", "check_map_reduce_failure_safety",
           "check_map_reduce_edge_cases", "check_map_reduce_complexity", "words_and_breaks",
           "CALL_LIMIT", "MEASURE_LIMIT"]

CALL_LIMIT = 500          # calls of summarise before a run counts as a loop that never ends
MEASURE_LIMIT = 20_000    # calls of measure before the same


def words_and_breaks(text: str) -> int:
    """The checker's measure: one token per word and one per line break."""
    return len(text.split()) + text.count("\n")


words_and_breaks.unit = "tokens"     # type: ignore[attr-defined]

# The seven memories of the lesson's worked example.
MEMORY = [
    ("m1", "Priya is vegetarian. She said so at her first booking."),
    ("m2", "Her passport number ends in 4471. It was renewed last spring."),
    ("m3", "She wants an aisle seat on flights over 3 hours. A window seat is fine otherwise."),
    ("m4", "Invoice 2093 was paid on 14 March. The receipt went to her work email."),
    ("m5", "The team offsite moved to Lisbon. The dates are still open."),
    ("m6", "Her hotel budget is 180 euros a night. That includes taxes."),
    ("m7", "She asked us to stop the newsletter. Support confirmed it."),
]
_LONG = ("m8", "The full travel policy she sent: " + " ".join(["economy"] * 70) + ".")
_NAMES = {"first sentence": "a first-sentence summariser", "halving": "a halving summariser",
          "a third": "a summariser keeping a third", "does not shrink":
          "a summariser that does not shrink"}
_STUBS = {"first sentence": lambda: first_sentence_summariser,
          "halving": lambda: ShrinkingStub(0.5), "a third": lambda: ShrinkingStub(0.3),
          "does not shrink": lambda: ShrinkingStub(1.0)}


def _sample(n: int, seed: int) -> list[tuple[str, str]]:
    return [(item.id, item.text) for item in sample_items(n, seed)]


@dataclass(frozen=True)
class _Case:
    items: list[tuple[str, str]]
    stub: str           # a key of _STUBS
    window: int
    batch_size: int
    max_rounds: int
    why: str
    part: str = "correctness"       # the rubric part that runs it (see check_map_reduce)

    @property
    def label(self) -> str:
        items = f"{len(self.items)} item{'s' * (len(self.items) != 1)}"
        return (f"map_reduce({items}, {_NAMES[self.stub]}, "
                f"window={self.window}, batch_size={self.batch_size}, "
                f"max_rounds={self.max_rounds})")


_CASES = [
    _Case(MEMORY, "first sentence", 1000, 3, 10,
          "the worked example: batches of 3 (m1-m3, m4-m6, m7), three map calls, then one "
          "reduce call: 4 calls, 2 rounds"),
    _Case(MEMORY[:5], "first sentence", 1000, 2, 10,
          "pairs: 3 level-1 summaries, then L1.1 + L1.2 merge and L1.3, alone in its batch, "
          "is carried up without a call; round 3 merges the two: 5 calls", "edge cases"),
    _Case(MEMORY, "first sentence", 1000, 50, 10,
          "everything fits one prompt: one call, one round"),
    _Case(MEMORY[:1], "halving", 1000, 3, 10,
          "one item: it is raw text, so it is summarised (one call)", "edge cases"),
    _Case(_sample(12, 3), "halving", 88, 50, 10,
          "batch_size never binds: every batch closes on the window (12 items -> 4 -> 2 -> "
          "1, 7 calls)", "complexity"),
    _Case(_sample(12, 3), "halving", 99, 50, 10,
          "batches close on the window: 12 items -> 3 -> 2 (one carried up) -> 1, 5 calls",
          "complexity"),
    _Case(_sample(12, 3), "halving", 80, 50, 10,
          "just below an exact fit: 12 items -> 6 -> 3 -> 2 -> 1, 11 calls", "complexity"),
    _Case(_sample(12, 3), "halving", 81, 50, 10,
          "a prompt of exactly the window fits (81 tokens here): 12 items -> 5 -> 3 -> 2 -> "
          "1, 9 calls", "complexity"),
    _Case(_sample(12, 3), "halving", 82, 50, 10,
          "just above an exact fit: the same batches as at 81", "complexity"),
    _Case(_sample(40, 2), "a third", 105, 5, 10,
          "40 items -> 10 -> 3 -> 1: 14 calls in 3 rounds"),
    _Case(_sample(20, 1), "does not shrink", 104, 10, 10,
          "the summariser keeps every word: after the map, no two summaries fit one "
          "prompt, so a reduce round would change nothing: stop with the 5 level-1 summaries",
          "failure safety"),
    _Case(_sample(30, 4), "does not shrink", 180, 10, 100_000,
          "the summariser keeps every word: one reduce round still merges some summaries "
          "(4 -> 3), the next would change nothing: stop there, long before max_rounds",
          "failure safety"),
    _Case(MEMORY, "halving", 1000, 2, 2,
          "max_rounds=2 is the map and one reduce round: 7 items -> 4 -> 2, then stop with "
          "2 summaries", "failure safety"),
    _Case(MEMORY, "halving", 1000, 3, 1, "max_rounds=1 is the map alone: 3 summaries left",
          "failure safety"),
    _Case(_sample(40, 2), "halving", 106, 3, 3,
          "max_rounds=3 stops the run with 3 summaries left (40 items -> 14 -> 5 -> 3)",
          "failure safety"),
]
_OVERSIZE = _Case([*MEMORY[:3], _LONG, *MEMORY[3:]], "halving", 80, 3, 10,
                  "item m8 alone needs a prompt over the window: no batch can hold it",
                  "edge cases")


@dataclass(frozen=True)
class _Node:
    """What a text in a prompt is: an item (depth 0) or a summary (depth = its round)."""
    sources: tuple[str, ...]
    depth: int


class _Measure:
    """``measure`` for the checks: :func:`words_and_breaks`, counted, with a limit."""

    def __init__(self, label: str) -> None:
        self.label, self.calls, self.unit = label, 0, "tokens"
        self.failure: CheckFailed | None = None

    def __call__(self, *args: object, **kwargs: object) -> int:
        if self.failure is not None:
            raise self.failure
        self.calls += 1
        if len(args) != 1 or kwargs or not isinstance(args[0], str):
            self.failure = CheckFailed(
                f"{self.label}: measure takes one str, a prompt (or a line); it was called as "
                f"{show_call('measure', args)}")
            raise self.failure
        if self.calls > MEASURE_LIMIT:
            self.failure = CheckFailed(
                f"{self.label}: measure was called {MEASURE_LIMIT:,} times and the loop goes "
                f"on. Why: the summariser does not shrink, so from some round on every batch "
                f"holds one summary and a round changes nothing; a loop that does not stop "
                f"there runs up to max_rounds rounds, or forever without a round limit. Hint: "
                f"stop before a round that would make no progress (every batch holds one "
                f"summary), and after max_rounds rounds.")
            raise self.failure
        return words_and_breaks(args[0])


class _Summariser:
    """``summarise`` for the checks: a stub of :mod:`kit.hierarchical.stubs` that checks
    every prompt (a batch prompt, within the window and ``batch_size``, entries that are
    items or summaries it returned, no lone summary) and traces what it returns: the items
    it covers and its depth (round). A text it already knows (the halving stub can return
    exactly one of its entries) gets a ``'`` appended, so that every text is one node."""

    def __init__(self, case: _Case, label: str = "") -> None:
        self.case, self.label = case, label
        self.model = _STUBS[case.stub]()
        self.ids = tuple(i for i, _ in case.items)
        self.known = {text: _Node((i,), 0) for i, text in case.items}
        self.prompts: list[str] = []
        self.sent: list[str] = []             # item ids, as they went into level-1 prompts
        self.failure: CheckFailed | None = None

    def fail(self, message: str) -> None:
        self.failure = self.failure or CheckFailed(f"{self.label}: {message}")
        raise self.failure

    def __call__(self, *args: object, **kwargs: object) -> str:
        if self.failure is not None:
            raise self.failure
        if len(args) != 1 or kwargs or not isinstance(args[0], str):
            self.fail(f"summarise takes one argument, the prompt (a str from "
                      f"build_batch_prompt); it was called as {show_call('summarise', args)}"
                      f"{' with keywords ' + ', '.join(kwargs) if kwargs else ''}")
        prompt = args[0]
        if len(self.prompts) >= CALL_LIMIT:
            self.fail(f"summarise was called {CALL_LIMIT} times and the loop goes on. Why: a "
                      f"run with no round limit never ends on a summariser that does not "
                      f"shrink. Hint: stop when one summary is left, before a round that "
                      f"would make no progress, and after max_rounds rounds.")
        nodes = self._entries(prompt)
        self.prompts.append(prompt)
        text = self.model(prompt)
        while text in self.known:             # keep every text traceable to one node
            text += "'"
        self.known[text] = _Node(tuple(i for n in nodes for i in n.sources),
                                 1 + max(n.depth for n in nodes))
        return text

    def _entries(self, prompt: str) -> list[_Node]:
        """The prompt's entries as nodes, after checking the prompt; fails on a wrong one."""
        try:
            entries = parse_batch_prompt(prompt)
        except ValueError:
            self.fail(f"summarise was sent {prompt!r:.80}, not a batch prompt. Build every "
                      f"prompt with build_batch_prompt(entries, level).")
        if not entries:
            self.fail("summarise was sent a prompt with no entries (an empty batch?)")
        if len(entries) > self.case.batch_size:
            self.fail(f"summarise was sent a prompt of {len(entries)} entries, more than "
                      f"batch_size={self.case.batch_size}. Hint: close a batch once it holds "
                      f"batch_size entries.")
        size = words_and_breaks(prompt)
        if size > self.case.window:
            if len(entries) == 1 and entries[0][1] in self.known \
                    and not self.known[entries[0][1]].depth:
                self.fail(f"summarise was sent item {entries[0][0]!r} alone in a prompt of "
                          f"{size} tokens, more than the window of {self.case.window}. Why: "
                          f"no batch can hold it, and a real API rejects or cuts that prompt. "
                          f"Hint: raise ValueError naming the item, before any call.")
            self.fail(f"summarise was sent a prompt of {size} tokens ({len(entries)} entries), "
                      f"more than the window of {self.case.window}. Why: a real API rejects "
                      f"it, or cuts it silently and the summary misses items. Hint: close a "
                      f"batch when the prompt with the next entry would be over the window, "
                      f"not only by count: measure(build_batch_prompt(batch + [next], "
                      f"level)) <= window.")
        nodes = []
        for label, text in entries:
            node = self.known.get(text)
            if node is None:
                self.fail(f"summarise was sent the entry [{label}] {_short(text, 60)}, which is "
                          f"neither an item's text nor a summary summarise returned. Put "
                          f"the texts into the prompts unchanged.")
            nodes.append(node)
        items = [n.depth == 0 for n in nodes]
        if any(items) and not all(items):
            raw = next(label for (label, _), item in zip(entries, items) if item)
            self.fail(f"summarise was sent a prompt that mixes summaries and items ([{raw}] "
                      f"is an item's raw text). Hint: a lone item is raw text, not a summary: "
                      f"round 1 summarises every batch, even a batch of one item; later rounds "
                      f"reduce only summaries.")
        header = ITEMS_HEADER if all(items) else SUMMARIES_HEADER
        if header + "\n" not in prompt:
            self.fail(f"summarise was sent a prompt of {'items' if all(items) else 'summaries'}"
                      f" without the header {header!r}: build_batch_prompt(entries, level) "
                      f"takes level 1 for items and 2 or more for summaries.")
        if all(items):
            labels = [label for label, _ in entries]
            if labels != [n.sources[0] for n in nodes]:
                self.fail(f"summarise was sent items labelled {labels}: label each item "
                          f"with its own id, so that a fact traces back to it.")
            again = [i for i in labels if i in self.sent]
            if again:
                self.fail(f"summarise was sent items {again} a second time: every item goes "
                          f"into exactly one batch of the map.")
            self.sent += labels
        elif len(nodes) == 1 and nodes[0].sources == self.ids:
            self.fail(f"summarise was called on the one summary left, which already covers "
                      f"all {len(self.ids)} items. Why: it is the answer; summarising it again "
                      f"costs a call and one more lossy rewrite. Hint: stop as soon as one "
                      f"summary is left.")
        elif len(nodes) == 1:
            self.fail(f"summarise was called on a batch of one summary, [{entries[0][0]}]. "
                      f"Why: there is nothing to merge, so the call is wasted and adds one "
                      f"more lossy rewrite. Hint: carry a lone summary up to the next round "
                      f"unchanged, without a call (L2.2 carries L1.3 in the lesson).")
        return nodes


def _short(text: str, width: int = 40) -> str:
    """``text`` quoted, cut to about ``width`` characters ("..." marks the cut)."""
    return repr(text if len(text) <= width else text[:width - 3] + "...")


def _reraise(*doubles: object) -> None:
    for double in doubles:
        failure = getattr(double, "failure", None)
        if failure is not None:
            raise CheckFailed(str(failure)) from None


def _run(map_reduce: Callable, case: _Case, expected: tuple = (), model: object = None
         ) -> tuple:
    """The learner's answer and the two doubles; re-raises a failure a double recorded
    (even if the learner's code caught it)."""
    label = case.label
    model, measure = model or _Summariser(case, label), _Measure(label)
    given = list(case.items)
    try:
        got = call_learner(map_reduce, given, model, case.window, measure, case.batch_size,
                           case.max_rounds, name="map_reduce", shown=label, expected=expected)
    except CheckFailed:
        _reraise(model, measure)
        raise
    except expected:
        _reraise(model, measure)
        raise
    _reraise(model, measure)
    expect(given == case.items, f"{label} changed the items list in place (it now holds "
                                f"{len(given)} entries): build new lists and leave it alone.")
    return got, model


def _pairs(got: object, label: str) -> list[tuple[str, list[str]]]:
    """``got`` as (text, ids) pairs, or CheckFailed describing its shape."""
    missing = " (does one path of your function end without a `return`?)" * (got is None)
    shape = (f"{label} should return a list of (summary, source_ids) pairs, e.g. "
             f"[('Priya is vegetarian. ...', ['m1', 'm2', ...])], got ")
    expect(isinstance(got, list) and got != [], shape + f"{got!r:.100}{missing}")
    pairs = []
    for pair in got:   # type: ignore[union-attr]
        ok = (isinstance(pair, (tuple, list)) and len(pair) == 2 and isinstance(pair[0], str)
              and isinstance(pair[1], (list, tuple)) and all(isinstance(i, str) for i in pair[1]))
        expect(ok, shape + f"an entry {pair!r:.100}")
        pairs.append((pair[0], list(pair[1])))
    return pairs


def _check_case(map_reduce: Callable, case: _Case) -> None:
    label = case.label
    kit_model = _Summariser(case)
    want = hierarchical_summary(case.items, kit_model, window=case.window,
                                batch_size=case.batch_size, max_rounds=case.max_rounds,
                                measure=words_and_breaks)
    want_top = [(s.text, list(s.source_ids)) for s in want.levels[-1]]
    got, model = _run(map_reduce, case)
    pairs = _pairs(got, label)
    ids = list(model.ids)
    unsent = [i for i in ids if i not in model.sent]
    if unsent:
        raise CheckFailed(f"{label}: items {unsent} were never sent to summarise. Why: a "
                          f"memory left out of every batch is lost for good. Hint: after the "
                          f"loop, add the last batch too, the one that is not full.")
    nodes = []
    for text, reported in pairs:
        node = model.known.get(text)
        if node is None:
            raise CheckFailed(f"{label} returned the summary {_short(text, 60)}, which summarise "
                              f"never returned. Return the summaries as summarise gave them.")
        if node.depth == 0:
            raise CheckFailed(f"{label} returned the text of item {node.sources[0]!r} as a "
                              f"summary. Why: {case.why}. Hint: a lone item is raw text, not "
                              f"a summary: round 1 summarises every batch, even a batch of "
                              f"one item.")
        if reported != list(node.sources):
            lost = [i for i in node.sources if i not in reported]
            raise CheckFailed(
                f"{label} returned the summary {_short(text)} with source ids {reported}, but "
                f"it was made from items {list(node.sources)}: ids dropped at level "
                f"{node.depth}"
                f"{f' ({lost} are missing)' if lost else ''}. Why: the ids are how a fact of "
                f"the top summary traces back to its item. Hint: a merged summary's ids are "
                f"all the ids of the entries it merged, in order (extend the list, do not "
                f"replace it).")
        nodes.append(node)
    covered = [i for node in nodes for i in node.sources]
    if covered != ids:
        lost = [i for i in ids if i not in covered]
        raise CheckFailed(f"{label} returned {len(pairs)} summaries covering items {covered}"
                          f"{f'; {lost} are lost' if lost else ''}. Why: {case.why}. Hint: "
                          f"return every summary of the last round, each once and in order "
                          f"(carried ones too), not only the first.")
    depth, want_depth = max(n.depth for n in nodes), len(want.levels)
    if len(pairs) != len(want_top):
        rounds = (f"max_rounds={case.max_rounds} allows {case.max_rounds} "
                  f"round{'s' * (case.max_rounds != 1)} and the map is round 1")
        if depth < want_depth and want_depth == case.max_rounds:
            hint = f"{rounds}; you stopped after {depth}"
        elif depth < want_depth:
            hint = ("you stopped a round early: when the summaries left fit one prompt, that "
                    "prompt is the last round, so send it; stop only when one summary is left")
        elif want_depth == case.max_rounds:
            hint = (f"{rounds} (so {case.max_rounds - 1} reduce "
                    f"round{'s' * (case.max_rounds != 2)}): stop after them with the "
                    f"summaries you have")
        else:
            hint = "stop when one summary is left, or before a round that would merge nothing"
        raise CheckFailed(f"{label} should return {len(want_top)} summar"
                          f"{'y' if len(want_top) == 1 else 'ies'} after {want_depth} "
                          f"round{'s' * (want_depth != 1)}, got {len(pairs)} after {depth}. "
                          f"Why: {case.why}. Hint: {hint}.")
    calls = len(model.prompts)
    expect(calls == want.calls,
           f"{label} called summarise {calls} times, the kit's own run {want.calls} times. "
           f"Why: {case.why}. Hint: one call per batch of the map, then one per batch of two "
           f"or more summaries in each round, and only once per batch.")
    expect(pairs == want_top,
           f"{label} should return {want_top!r:.160}, got {pairs!r:.160}. Why: {case.why}. "
           f"Hint: pack greedily and in order (a batch takes the next entry while it holds "
           f"fewer than batch_size and the prompt with it fits the window), and carry a "
           f"lone summary up unchanged.")


def _check_oversize(map_reduce: Callable, case: _Case) -> None:
    label = case.label
    bad = _LONG[0]
    model = _Summariser(case, label)
    try:
        got, _ = _run(map_reduce, case, expected=(ValueError,), model=model)
    except ValueError as error:
        expect(bad in str(error),
               f"{label} raised ValueError({str(error)!r:.100}): name the item, {bad!r}, so "
               f"that the caller knows which memory to split.")
        expect(not model.prompts,
               f"{label} raised ValueError naming {bad!r} after {len(model.prompts)} call"
               f"{'s' * (len(model.prompts) != 1)} of summarise. Why: {case.why}; the calls "
               f"made before the refusal are paid for and thrown away. Hint: check every "
               f"item's prompt alone against the window first, and raise before any call of "
               f"summarise.")
        return
    raise CheckFailed(f"{label} returned {got!r:.80}. Why: {case.why}. Hint: raise "
                      f"ValueError naming item {bad!r} instead (as make_batches does), "
                      f"never drop it silently.")


def _check_part(map_reduce: Callable, part: str) -> int:
    """Run the cases of rubric part ``part`` (the oversize item with the edge cases);
    return how many passed (all, or CheckFailed at the first that fails)."""
    cases = [case for case in _CASES if case.part == part]
    for case in cases:
        _check_case(map_reduce, case)
    if _OVERSIZE.part == part:
        _check_oversize(map_reduce, _OVERSIZE)
        return len(cases) + 1
    return len(cases)


def check_map_reduce_correctness(map_reduce: Callable) -> int:
    """The worked example, everything in one prompt, and 40 items over three rounds: the
    top summaries, the calls and the rounds of the kit's run, every item id at the top.
    Returns the cases passed (3) or raises CheckFailed."""
    return _check_part(map_reduce, "correctness")


def check_map_reduce_failure_safety(map_reduce: Callable) -> int:
    """Termination: a summariser that does not shrink stops as soon as a round would merge
    nothing (never loops, even with ``max_rounds=100_000``), and ``max_rounds`` of 1, 2
    and 3 stop the run with every summary left returned, none dropped. Returns 5."""
    return _check_part(map_reduce, "failure safety")


def check_map_reduce_edge_cases(map_reduce: Callable) -> int:
    """A lone summary carried up without a call, the last partial batch, a lone item
    summarised (it is raw text), and an item too large for any prompt refused with a
    ValueError naming it. Returns 3."""
    return _check_part(map_reduce, "edge cases")


def check_map_reduce_complexity(map_reduce: Callable) -> int:
    """Batches that close on the window, not on the count: every prompt within the
    window and the model calls counted equal to the kit's. Returns 2."""
    return _check_part(map_reduce, "complexity")


MECHANISM = "map-reduce"            # its wrong answers in kit.mistakes
#: The rule of the spec each kind of failure breaks (stated when no registered mistake
#: reproduces the learner's outputs: :mod:`kit.checks.hints`).
RULES = (
    (r"ValueError", "an item whose prompt alone is over the window raises ValueError naming "
                    "its id, before any call of summarise"),
    (r"never sent|lost|covering items", "every item is summarised once in round 1 and every "
                                        "summary left is returned, in order"),
    (r"source ids", "a summary's ids are all the ids of the entries it merged, in order"),
    (r"never returned|as a summary", "return the summaries summarise returned; round 1 "
                                     "summarises every batch, a batch of one item too"),
    (r"after \d+ rounds?|round", "stop when one summary is left, after max_rounds rounds (the "
                                 "map is round 1), or before a round that would merge nothing"),
    (r"called summarise|should return", "pack greedily and in order: a batch takes the next "
                                        "entry while it holds fewer than batch_size and the "
                                        "prompt with it is at most window tokens (exactly "
                                        "window fits); one call per batch of the map and per "
                                        "reduce batch of two or more; a lone summary is "
                                        "carried up without a call"),
)


def check_map_reduce(map_reduce: Callable) -> None:
    """Check ``map_reduce(items, summarise, window, measure, batch_size, max_rounds)``:
    the four parts above, in order (correctness, failure safety, edge cases, complexity).

    Prints one pass line or raises CheckFailed. Rejects: a prompt over the window (batches
    by count only) or over ``batch_size``, a run without a round limit (it goes on until
    :data:`MEASURE_LIMIT` calls of ``measure`` or :data:`CALL_LIMIT` calls of
    ``summarise``), a call on a lone summary (carry it up) or on the one summary left
    (the top summarised again), a lone item not summarised, the last partial batch
    dropped, source ids dropped at a reduce level, summaries lost at the top, a run
    that stops a round early or is off by one in ``max_rounds``, extra calls, an item
    too large for any prompt not refused with a ValueError naming it, and a changed
    ``items`` list. A failure the learner's code catches is still reported.
    """
    passed("map_reduce", judge(_all_parts, map_reduce, MECHANISM, RULES))


def _all_parts(map_reduce: Callable) -> int:
    """Every part, unjudged, in order: the cases passed."""
    return sum(part.raw(map_reduce) for part in (
        check_map_reduce_correctness, check_map_reduce_failure_safety,
        check_map_reduce_edge_cases, check_map_reduce_complexity))


_judged = judged(MECHANISM, RULES)
check_map_reduce_correctness = _judged(check_map_reduce_correctness)
check_map_reduce_failure_safety = _judged(check_map_reduce_failure_safety)
check_map_reduce_edge_cases = _judged(check_map_reduce_edge_cases)
check_map_reduce_complexity = _judged(check_map_reduce_complexity)
