"""What each part of recall memory's search adds, with its uncertainty, and a check
that the settings were not fitted to the conversations they were measured on.

**Ablation** (:func:`run_ablation`, :func:`ablation_table`): recall memory with its
defaults, and once with each part (:data:`PARTS`) switched: off if it is on by
default, on if it is off, at every budget on every conversation. A part's gain is the
all-evidence coverage with it minus the coverage without it, in points, pooled over the conversations' questions, with a 95 %
confidence interval from a paired bootstrap over questions (Efron and Tibshirani 1993:
resample the questions with replacement, 2,000 times, seeded; the 2.5th and 97.5th
percentiles of the resampled gains). A gain whose interval holds 0 is not yet a gain:
43 multi-hop questions move 2.3 points each. With the ``semantic`` extra installed the
packaged embedding model is a part too (:data:`MODEL`, on by default, switched off), and
the static table distilled from it an option (:data:`STATIC`, measured against the memory
with no model; ``benchmarks/dense_weight_cv.py`` prints both).

**Cross-validation** (:func:`cross_validate`, :func:`cv_table`): a setting chosen on
the conversations it is then scored on flatters itself. Leave one conversation out:
choose the setting that scores best on the others, score it on the one left out, and
report that beside the default. With the two shared LoCoMo conversations: tune on 26,
report on 30, and the other way round. The settings are which of the search's
switchable parts are on (:data:`GRID`).

Every number inside the parts is stated before looking at results, from the IR
literature's defaults: BM25 ``k1 = 1.5``, ``b = 0.75`` (bm25s); Bo1 with 3 documents
and 10 terms (Terrier); RRF's ``k = 60`` (Cormack et al.); three sessions opened by
the two-stage search; one neighbour, the adjacency pair.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kit.locomo import LongConversation
from kit.memory import RecallMemory, RecallSearch, SharedScores, TurnIndex
from kit.memory_eval import CachedMeasure, evaluate
from kit.memory_scores import EvalRun
from kit.ranking.dense import HashingEmbedder, semantic_available
from kit.trace import Table
from kit.validation import check_budget, check_int

__all__ = ["PARTS", "OPTIONAL", "FULL", "MODEL", "STATIC", "recall_factory", "AblationRun",
           "run_ablation", "gain",
           "ablation_table", "cross_validate", "cv_table", "CVResult", "GRID", "STATED",
           "variants", "leave_one_out"]

FULL = "recall memory, defaults"
# part -> (on by default, the TurnIndex keywords and the RecallSearch keywords that
# switch it to the other state). A part on by default is measured by switching it off,
# one off by default by switching it on: either way its gain is (with it) - (without).
PARTS: dict[str, tuple[bool, dict, dict]] = {
    "speaker indexed": (True, {"index_speaker": False}, {}),
    "session date indexed": (True, {"index_date": False}, {}),
    "relative dates resolved": (True, {"resolve_dates": False}, {}),
    "query split": (True, {}, {"split": False}),
    "feedback (Bo1)": (True, {"feedback": (0, 0)}, {}),
    "spread": (True, {"spread": (0.0, 0.0)}, {}),
    "speaker boost": (True, {"speaker_boost": 0.0}, {}),
    "two-stage search": (False, {}, {"sessions": 3}),
    "neighbour expansion": (False, {}, {"neighbours": True}),
    "dense, hashing stand-in": (False, {}, {"embedder": HashingEmbedder()}),
}
# parts a user turns on with a real model (RecallSearch keyword -> part name)
OPTIONAL = {"embedder": "dense retrieval", "decompose": "model decomposition"}
# the packaged model, on by default when installed (measured by switching it off), and
# the static table distilled from it (measured against no model at all)
MODEL = "dense retrieval (MiniLM)"
STATIC = "dense, static table instead"
RESAMPLES, SEED = 2000, 0


def recall_factory(budget: int, index: Mapping | None = None, search: Mapping | None = None,
                   shared: SharedScores | None = None) -> Callable:
    """``measure -> RecallMemory(budget, measure, search=RecallSearch(TurnIndex(**index),
    **search))``: a fresh memory per call; ``shared``: scores its index shares with
    indexes of the same turns and settings (:class:`kit.memory.SharedScores`)."""
    budget = check_budget(budget)
    index, search = dict(index or {}), dict(search or {})

    def factory(measure):
        return RecallMemory(budget, measure,
                            search=RecallSearch(TurnIndex(**index, shared=shared), **search))
    return factory


@dataclass(frozen=True)
class AblationRun:
    """Recall memory on one conversation at one ``budget``: with its defaults
    (``variant`` :data:`FULL`) or with one part switched (``variant`` the part's name);
    the evaluator's ``run``."""

    variant: str
    budget: int
    run: EvalRun


def variants(options: Mapping | None = None, static=None) -> dict[str, tuple[bool, dict, dict]]:
    """:data:`PARTS`, plus a part for each real model in ``options`` (RecallSearch
    keywords ``embedder``, ``decompose``: on in the full memory, measured by switching
    it off; a real embedder replaces the hashing stand-in). With no ``embedder`` in
    ``options`` and the ``semantic`` extra installed, the default memory has the packaged
    model: :data:`MODEL` is measured by switching it off (and replaces the hashing
    stand-in), and ``static`` (an embedder, e.g. a
    :class:`~kit.ranking.static_embedder.StaticEmbedder`) adds :data:`STATIC`, the
    memory with that embedder instead, measured against the memory with no model."""
    options = dict(options or {})
    found = dict(PARTS)
    if "embedder" not in options and semantic_available():
        del found["dense, hashing stand-in"]
        found[MODEL] = (True, {}, {"embedder": None})
        if static is not None:
            found[STATIC] = (False, {}, {"embedder": static})
    if options.get("embedder") is not None:
        del found["dense, hashing stand-in"]
    for key, name in OPTIONAL.items():
        if options.get(key) is not None:
            found[name] = (True, {}, {key: None})
    return found


def run_ablation(conversations: Iterable[LongConversation], budgets: Sequence[int],
                 parts: Iterable[str] | None = None, *, options: Mapping | None = None,
                 measure: CachedMeasure | None = None, static=None) -> list[AblationRun]:
    """Recall memory with its defaults (plus ``options``: RecallSearch keywords, e.g.
    ``embedder=`` / ``decompose=`` a real model) and once with each of ``parts``
    switched (default all of :func:`variants`), at each budget (ints > 0, tokens) on
    each conversation; ``static``: see :func:`variants` (:data:`STATIC` also runs the
    memory without the model). Raises ValueError naming an unknown part or a bad
    budget; nothing runs before the arguments are checked."""
    conversations, budgets = list(conversations), [check_budget(b) for b in budgets]
    options, known = dict(options or {}), variants(options, static)
    picked = list(known) if parts is None else [parts] if isinstance(parts, str) else list(parts)
    if STATIC in picked and MODEL not in picked:
        picked.append(MODEL)                    # the static row is measured against it
    unknown = [p for p in picked if p not in known]
    if unknown:
        raise ValueError(f"unknown part(s) {unknown}; choose from {', '.join(known)}")
    cache = measure if measure is not None else CachedMeasure()
    runs, shared = [], SharedScores()
    for conversation in conversations:
        for budget in budgets:
            for variant in [FULL, *picked]:
                _, index, search = known.get(variant, (True, {}, {}))
                factory = recall_factory(budget, index, {**options, **search}, shared)
                runs.append(AblationRun(variant, budget,
                                        evaluate(conversation, factory, variant, measure=cache)))
    return runs


def _outcomes(runs: Sequence[EvalRun], categories: Sequence[int]) -> np.ndarray:
    """1 / 0 per question with evidence in ``categories``, all evidence in the context
    or not, over the runs in order (each run's questions in order)."""
    return np.array([float(q.all_evidence) for run in runs for q in run.results
                     if q.category in categories and q.all_evidence is not None])


def gain(full: Sequence[EvalRun], without: Sequence[EvalRun], categories: Sequence[int],
         resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, float, float, int]:
    """``(gain, low, high, questions)``: the full runs' all-evidence coverage minus the
    ``without`` runs' (the same conversations, in the same order), in points, with the
    paired bootstrap's 95 % interval; NaNs and 0 when no question has evidence. Raises
    ValueError when the runs do not hold the same questions."""
    if isinstance(categories, (str, int)) or not all(
            isinstance(c, int) and not isinstance(c, bool) for c in categories):
        raise TypeError(f"categories must be a sequence of ints (1-5), got {categories!r:.60}")
    a, b = _outcomes(full, categories), _outcomes(without, categories)
    if len(a) != len(b) or [r.conversation for r in full] != [r.conversation for r in without]:
        raise ValueError("the runs compared must hold the same conversations and questions")
    if not len(a):
        return float("nan"), float("nan"), float("nan"), 0
    d = a - b
    picks = np.random.default_rng(seed).integers(0, len(d), size=(check_int(
        "resamples", resamples, 1), len(d)))
    means = d[picks].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return 100 * float(d.mean()), 100 * float(low), 100 * float(high), len(d)


def _cell(g: tuple[float, float, float, int]) -> str:
    value, low, high, n = g
    if not n:
        return "-"
    return f"{value:+.1f} [{low:+.1f}, {high:+.1f}]"


GROUPS = (("all 1-4", (1, 2, 3, 4)), ("multi-hop", (1,)), ("temporal", (2,)))


def ablation_table(runs: Sequence[AblationRun], options: Mapping | None = None,
                   title: str = "") -> Table:
    """One row per part and budget: whether the part is on by default, the default
    memory's all-evidence coverage % over categories 1-4, and the part's gain (with it
    minus without it, points, 95 % CI) over 1-4, multi-hop and temporal, pooled over
    the conversations run (:data:`STATIC`: with the static table minus with no model)."""
    known = variants(options, static=True)
    by: dict[tuple[str, int], list[EvalRun]] = {}
    for r in runs:
        by.setdefault((r.variant, r.budget), []).append(r.run)
    budgets = list(dict.fromkeys(r.budget for r in runs))
    names = [n for n in dict.fromkeys(r.variant for r in runs) if n != FULL]
    rows = []
    for name in names:
        on = known[name][0]
        for budget in budgets:
            full, switched = by[(FULL, budget)], by[(name, budget)]
            with_it, without = (full, switched) if on else (switched, full)
            if name == STATIC:                  # against the memory with no model at all
                without = by[(MODEL, budget)]
            pooled = _outcomes(full, (1, 2, 3, 4))
            rows.append([name, "on" if on else "off", f"{budget:,}", len(pooled),
                         f"{100 * pooled.mean():.1f}",
                         *(_cell(gain(with_it, without, cats)) for _, cats in GROUPS)])
    return Table(["part", "default", "budget (tokens)", "questions 1-4", "default 1-4 %",
                  *(f"gain {label} (95% CI)" for label, _ in GROUPS)], rows, title)


def _config_label(search: Mapping) -> str:
    on = [name for name, value in (("split", search["split"]),
                                   ("neighbours", search["neighbours"]),
                                   (f"sessions={search['sessions']}", search["sessions"]))
          if value]
    return " + ".join(on) or "direct only"


# The settings cross-validated: which of the search's switchable parts are on.
GRID = tuple({"split": split, "neighbours": neighbours, "sessions": sessions}
             for split in (True, False) for neighbours in (False, True) for sessions in (0, 3))
STATED = GRID[0]                    # the default: split on, neighbours off, sessions 0


@dataclass(frozen=True)
class CVResult:
    """One fold at one ``budget``: the setting ``chosen`` on ``tuned_on`` (conversation
    names), scored on ``held_out``; ``scores`` maps each setting's label to (its mean
    coverage on the tuning conversations, its coverage on the held-out one), fractions
    0-1; ``stated``: the default's label."""

    held_out: str
    tuned_on: tuple[str, ...]
    budget: int
    chosen: str
    stated: str
    scores: dict


def leave_one_out(scores: Mapping[str, Sequence[float]]) -> list[tuple[str, float]]:
    """Leave-one-out choice of a setting: for each conversation ``i``, the setting with
    the best mean score over the *other* conversations (ties: the setting listed first)
    and its score on ``i``, the held-out figure.

    ``scores``: ``{setting: [score on conversation 0, 1, ...]}`` (numbers; the same
    length, at least 2, for every setting). Returns ``[(chosen, held-out score), ...]``,
    one per conversation, in order. Raises ValueError for no settings, fewer than 2
    conversations or lists of different lengths. The score on ``i`` never takes part in
    choosing for ``i``.
    """
    lengths = {len(v) for v in scores.values()}
    if not scores or len(lengths) != 1 or lengths.pop() < 2:
        raise ValueError(f"scores must give every setting one score per conversation, at "
                         f"least 2 and the same number each; got "
                         f"{ {k: len(v) for k, v in scores.items()} }")
    bad = [(k, v) for k, values in scores.items() for v in values
           if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v)]
    if bad:
        raise ValueError(f"scores must be finite numbers; {bad[0][0]!r} has {bad[0][1]!r}")
    settings = list(scores)
    n = len(scores[settings[0]])
    folds = []
    for held in range(n):
        def on_others(setting):
            return sum(s for i, s in enumerate(scores[setting]) if i != held) / (n - 1)
        chosen = max(settings, key=lambda s: (on_others(s), -settings.index(s)))
        folds.append((chosen, scores[chosen][held]))
    return folds


def cross_validate(conversations: Sequence[LongConversation],
                   budgets: Sequence[int] = (2000,), grid: Sequence[Mapping] = GRID,
                   stated: Mapping = STATED, categories: Sequence[int] = (1, 2, 3, 4), *,
                   measure: CachedMeasure | None = None,
                   options: Mapping | None = None) -> list[CVResult]:
    """Leave-one-conversation-out cross-validation of which search parts are on
    (``grid``: RecallSearch keywords ``split``, ``neighbours``, ``sessions``;
    ``stated``: the default), at each budget: each setting's all-evidence coverage over
    ``categories`` on each conversation, then :func:`leave_one_out`. ``options``: other
    RecallSearch keywords for every setting (e.g. ``embedder=None``: no model). Raises
    ValueError for fewer than 2 conversations."""
    options = dict(options or {})
    conversations = list(conversations)
    if len(conversations) < 2:
        raise ValueError(f"cross-validation needs at least 2 conversations, got "
                         f"{len(conversations)}")
    budgets = [check_budget(b) for b in budgets]
    for setting in [*grid, stated]:
        if not isinstance(setting, Mapping) or set(setting) != {"split", "neighbours", "sessions"}:
            raise ValueError(f"each setting must give exactly split, neighbours and sessions, "
                             f"got {setting!r:.80}")
    labels = [_config_label(g) for g in grid]
    if len(set(labels)) != len(labels):
        raise ValueError(f"the grid holds a setting twice: {labels}")
    cache = measure if measure is not None else CachedMeasure()
    folds, shared = [], SharedScores()
    for budget in budgets:
        scores = {label: [float(_outcomes([evaluate(c, recall_factory(budget, {},
                                                                      {**options, **g}, shared),
                                                    label, measure=cache)], categories).mean())
                          for c in conversations]
                  for g, label in zip(grid, labels)}
        n = len(conversations)
        for held, (chosen, _) in enumerate(leave_one_out(scores)):
            tuning = {label: (sum(v for i, v in enumerate(scores[label]) if i != held) / (n - 1),
                              scores[label][held]) for label in labels}
            folds.append(CVResult(conversations[held].name,
                                  tuple(c.name for i, c in enumerate(conversations) if i != held),
                                  budget, chosen, _config_label(stated), tuning))
    return folds


def cv_table(folds: Sequence[CVResult], title: str = "") -> Table:
    """One row per fold: budget, held out, tuned on, the setting chosen, its coverage %
    on the tuning set and on the held-out conversation, and the default's held-out %."""
    rows = [[f"{f.budget:,}", f.held_out, ", ".join(f.tuned_on), f.chosen,
             f"{100 * f.scores[f.chosen][0]:.1f}", f"{100 * f.scores[f.chosen][1]:.1f}",
             f"{100 * f.scores[f.stated][1]:.1f}" if f.stated in f.scores else "-"]
            for f in folds]
    return Table(["budget (tokens)", "held out", "tuned on", "chosen on the others",
                  "tuned-on %", "held-out %", "default held-out %"], rows, title)
