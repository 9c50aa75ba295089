"""Evaluating memories on facts that change: answerable, stale, abstention right (lesson 12).

Each memory is fed a :class:`~kit.synthetic_changes.ChangeConversation` turn by turn the
way :mod:`kit.memory_eval` feeds every evaluation (its :func:`~kit.memory_eval.render_turn`:
speaker and session date as keywords when ``add`` takes them; one shared
:class:`~kit.memory_eval.CachedMeasure`), then, for each question, the context it would
give the model (``context(query=question)``) is scored by the values it holds (a value
is present when it occurs as whole words, case ignored):

- **answerable**: every gold value is present and no conflicting one (for a current
  value: no older value; for a value as of a date: no value of another time; for a
  history: every value, in any order);
- **stale**: a conflicting value is present without the gold one: the model would
  answer with what used to be true;
- **abstention right**: no value that would state an answer is present (the order
  was cancelled; the car was never mentioned).

The policies (:data:`POLICIES`, budget in tokens): append-only facts, overwrite facts,
the temporal fact memory (:mod:`kit.longterm.fact_memory`), and lesson 09's summary and
recall memories (:func:`kit.policy_bench.strategy_factories`; recall memory without
the embedding model, ``embedder=None``: what changes is a matter of which value is
current, not of finding the turn, and 20 conversations would cost about 50 s of model
time). :func:`change_table` gives one row per split and policy (held-out first, then the
others in the order of :data:`~kit.synthetic_changes.SPLITS`); :func:`check_change_targets`
sets the issue's targets beside the figures of a split (held-out by default).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kit.longterm.fact_memory import AppendOnlyFacts, FactMemory, OverwriteFacts
from kit.memory_eval import CachedMeasure, MemoryFactory, _accepts, _build, render_turn
from kit.policy_bench import strategy_factories
from kit.synthetic_changes import SPLITS, ChangeConversation, ChangeQuestion
from kit.tokens import Measure
from kit.trace import Table
from kit.validation import check_budget

__all__ = ["POLICIES", "ChangeResult", "policy_factories", "score_context", "evaluate_changes",
           "run_changes", "change_table", "check_change_targets", "TARGETS"]

POLICIES = ("append-only", "overwrite", "summary", "recall", "fact memory")
# (kind, measure, at least): the targets for the fact memory on the held-out half
TARGETS = (("current", "answerable", 0.95), ("current", "stale", 0.0),
           ("as_of", "answerable", 0.90), ("abstention", "right", 0.90),
           ("unchanged", "answerable", 0.95))


@dataclass(frozen=True)
class ChangeResult:
    """One question's score. ``answerable`` / ``stale``: None for abstention;
    ``right``: None except for abstention; ``tokens``: the context's size."""

    policy: str
    split: str
    conversation: str
    kind: str
    question: str
    answerable: bool | None
    stale: bool | None
    right: bool | None
    tokens: int


def _present(value: str, context: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(value) + r"(?!\w)", context, re.I) is not None


def score_context(question: ChangeQuestion, context: str) -> tuple[bool | None, bool | None,
                                                                    bool | None]:
    """``(answerable, stale, right)`` of one context (see the module docstring)."""
    if question.kind == "abstention":
        return None, None, not any(_present(v, context) for v in question.forbidden)
    gold = all(_present(v, context) for v in question.gold)
    conflict = any(_present(v, context) for v in question.conflicting)
    return gold and not conflict, conflict and not gold, None


def policy_factories(budget: int = 2000, names: Iterable[str] | None = None
                     ) -> dict[str, MemoryFactory]:
    """Policy name -> ``measure -> fresh memory`` at ``budget`` tokens (int >= 1).
    ``names``: some of :data:`POLICIES` (default all). Raises ValueError naming an
    unknown policy or a bad budget."""
    budget = check_budget(budget)
    names = list(POLICIES if names is None else names)
    unknown = [n for n in names if n not in POLICIES]
    if unknown:
        raise ValueError(f"unknown policies {unknown}; policies are {', '.join(POLICIES)}")
    lesson09 = strategy_factories(budget, ["summary", "recall"], search={"embedder": None})
    speakers = ("Maya", "Leo")
    built = {"append-only": lambda m: AppendOnlyFacts(budget, m, speakers=speakers),
             "overwrite": lambda m: OverwriteFacts(budget, m, speakers=speakers),
             "summary": lesson09["summary"], "recall": lesson09["recall"],
             "fact memory": lambda m: FactMemory(budget, m, speakers=speakers)}
    return {name: built[name] for name in names}


def evaluate_changes(conversation: ChangeConversation, factory: MemoryFactory, name: str, *,
                     measure: CachedMeasure | Measure | None = None) -> list[ChangeResult]:
    """Feed the conversation into ``factory(measure)`` and score every question's
    context. Raises TypeError for a conversation that is not a ChangeConversation and
    what :mod:`kit.memory_eval` raises for a bad factory."""
    if not isinstance(conversation, ChangeConversation):
        raise TypeError(f"conversation must be a ChangeConversation, got {conversation!r:.60}")
    cache = measure if isinstance(measure, CachedMeasure) else CachedMeasure(measure)
    memory, label = _build(factory, cache, name)
    keywords = _accepts(memory.add, "speaker", "when")
    with_query = _accepts(memory.context, "query")
    talk = conversation.conversation
    for turn in talk.turns:
        content, extra = render_turn(turn, keywords)
        memory.add(talk.role_of(turn.speaker), content, **extra)
    results = []
    for q in conversation.questions:
        text = memory.context(query=q.question) if with_query else memory.context()
        answerable, stale, right = score_context(q, text)
        results.append(ChangeResult(label, conversation.split, talk.name, q.kind, q.question,
                                    answerable, stale, right, cache.once(text)))
    return results


def run_changes(conversations: Sequence[ChangeConversation], budget: int = 2000,
                names: Iterable[str] | None = None, *,
                measure: CachedMeasure | Measure | None = None) -> list[ChangeResult]:
    """Every policy on every conversation (one shared measure); results in order."""
    cache = measure if isinstance(measure, CachedMeasure) else CachedMeasure(measure)
    factories = policy_factories(budget, names)
    return [r for c in conversations for name, factory in factories.items()
            for r in evaluate_changes(c, factory, name, measure=cache)]


def _share(results: list[ChangeResult], kind: str, field: str) -> float | None:
    values = [getattr(r, field) for r in results if r.kind == kind]
    return sum(values) / len(values) if values else None


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}"


def change_table(results: Sequence[ChangeResult], title: str = "") -> Table:
    """One row per split and policy: % of current-value questions answerable and stale,
    % answerable as of a date, % of histories whole, % of abstentions right, % of
    never-changed facts answerable, the mean context size (tokens) and questions."""
    rows = []
    order = ("held-out", *(s for s in SPLITS if s != "held-out"))
    keys = sorted({(r.split, r.policy) for r in results},
                  key=lambda k: (order.index(k[0]) if k[0] in order else len(order), k[0],
                                 POLICIES.index(k[1]) if k[1] in POLICIES else len(POLICIES),
                                 k[1]))
    for split, policy in keys:
        got = [r for r in results if (r.split, r.policy) == (split, policy)]
        rows.append([split, policy, _pct(_share(got, "current", "answerable")),
                     _pct(_share(got, "current", "stale")), _pct(_share(got, "as_of", "answerable")),
                     _pct(_share(got, "history", "answerable")),
                     _pct(_share(got, "abstention", "right")),
                     _pct(_share(got, "unchanged", "answerable")),
                     round(sum(r.tokens for r in got) / len(got)), len(got)])
    return Table(["split", "policy", "current answerable %", "current stale %",
                  "as-of answerable %", "history whole %", "abstention right %",
                  "unchanged answerable %", "context (tokens)", "questions"], rows, title)


def check_change_targets(results: Sequence[ChangeResult], policy: str = "fact memory",
                         split: str = "held-out") -> list[tuple[str, float | None, float, bool]]:
    """``(target, figure, bound, met)`` for each of :data:`TARGETS` (stale: at most the
    bound, the others at least), on ``policy``'s results of ``split``."""
    got = [r for r in results if (r.policy, r.split) == (policy, split)]
    checks = []
    for kind, field, bound in TARGETS:
        figure = _share(got, kind, field)
        met = figure is not None and (figure <= bound if field == "stale" else figure >= bound)
        checks.append((f"{kind} {field}", figure, bound, met))
    return checks

