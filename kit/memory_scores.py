"""Scores of the memory-policy evaluator (:mod:`kit.memory_eval`): per question, per
category, per run, and the tables that print them.

- :class:`QuestionResult`: one question in one run (which evidence turns were found,
  whether the answer was in the context, the context size).
- :class:`CategoryScore`: a group of questions: "2 temporal", "1-4", "5 adversarial".
- :class:`EvalRun`: one memory on one conversation, with its model and tokenizer calls;
  :meth:`EvalRun.scores` gives the rows to plot.
- :func:`category_table` (one row per run and category) and :func:`coverage_table`
  (one row per run, all-evidence coverage by category in columns).

Rates are fractions 0-1 here and percentages in the tables; a rate with nothing to rate
(no question of that kind has evidence, or an answer) is None, printed "-".
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kit.locomo import CATEGORIES
from kit.trace import Table

__all__ = ["QuestionResult", "CategoryScore", "EvalRun", "category_table", "coverage_table"]


@dataclass(frozen=True)
class QuestionResult:
    """One question in one run: ``evidence`` (dia ids) and the ``found`` ones;
    ``answer_present`` (None when not asked: adversarial or no answer);
    ``context_tokens``: size of the context it got."""

    index: int
    category: int
    question: str
    evidence: tuple[str, ...]
    found: tuple[str, ...]
    answer_present: bool | None
    context_tokens: int

    @property
    def all_evidence(self) -> bool | None:
        return len(self.found) == len(self.evidence) if self.evidence else None

    @property
    def any_evidence(self) -> bool | None:
        return bool(self.found) if self.evidence else None


@dataclass(frozen=True)
class CategoryScore:
    """A group of questions: ``label`` ("4 single-hop", "1-4", "5 adversarial");
    ``questions``; ``with_evidence`` / ``with_answer``: how many the rates are over;
    ``all_evidence`` / ``any_evidence`` / ``answer_present``: fractions 0-1 (None when
    nothing to rate); ``context_tokens``: mean context size."""

    label: str
    questions: int
    with_evidence: int
    all_evidence: float | None
    any_evidence: float | None
    with_answer: int
    answer_present: float | None
    context_tokens: float


def _rate(values: list[bool | None]) -> tuple[int, float | None]:
    rated = [v for v in values if v is not None]
    return len(rated), (sum(rated) / len(rated) if rated else None)


def _score(label: str, results: Sequence[QuestionResult]) -> CategoryScore:
    n_ev, all_ev = _rate([r.all_evidence for r in results])
    _, any_ev = _rate([r.any_evidence for r in results])
    n_ans, answer = _rate([r.answer_present for r in results])
    tokens = sum(r.context_tokens for r in results) / len(results) if results else 0.0
    return CategoryScore(label, len(results), n_ev, all_ev, any_ev, n_ans, answer, tokens)


@dataclass(frozen=True)
class EvalRun:
    """One memory on one conversation.

    ``rule``: "text" or "numbers" (how evidence was found); ``rendering``: "keywords"
    or "prefix" (see :func:`render_turn`); ``unit``: of ``context_tokens``;
    ``add_*`` / ``query_*``: model and tokenizer calls while adding the turns / while
    building and measuring the contexts; ``ambiguous``: evidence ids the text rule may
    over-count (empty under the numbers rule); ``sizes``: where ``context_tokens`` came
    from, "memory" (the size each memory reported under its own counting rule) or
    "measured" (the context text measured whole: a memory that reports no size, or
    ``sizes="measured"``); ``checked``: how many loads were re-counted by the memory's
    own rule and agreed (0 when none was asked for, or the memory reports no sizes).
    """

    conversation: str
    memory: str
    turns: int
    results: tuple[QuestionResult, ...]
    unit: str
    rule: str
    rendering: str
    add_model_calls: int
    query_model_calls: int
    add_tokenizer_calls: int
    query_tokenizer_calls: int
    ambiguous: tuple[str, ...] = ()
    sizes: str = "measured"
    checked: int = 0

    @property
    def model_calls(self) -> int:
        return self.add_model_calls + self.query_model_calls

    @property
    def tokenizer_calls(self) -> int:
        return self.add_tokenizer_calls + self.query_tokenizer_calls

    def score(self, categories: Iterable[int]) -> CategoryScore:
        """The questions of these categories as one group, labelled like "1-4" or "2 temporal"."""
        wanted = sorted(set(categories))
        label = (f"{wanted[0]} {CATEGORIES.get(wanted[0], '')}".strip() if len(wanted) == 1
                 else f"{wanted[0]}-{wanted[-1]}")
        return _score(label, [r for r in self.results if r.category in wanted])

    def scores(self) -> list[CategoryScore]:
        """Each category 1-4 present, their total "1-4", then "5 adversarial" if present."""
        present = sorted({r.category for r in self.results})
        rows = [self.score([c]) for c in present if c != 5]
        if any(c != 5 for c in present):
            rows.append(self.score([1, 2, 3, 4]))
        if 5 in present:
            rows.append(self.score([5]))
        return rows


# -- tables ---------------------------------------------------------------------------
def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def category_table(runs: Iterable[EvalRun], title: str = "") -> Table:
    """One row per run and category group (see :meth:`EvalRun.scores`): questions,
    all / any evidence % and answer present % (over the questions that have evidence /
    an answer), mean context size."""
    runs = list(runs)
    unit = runs[0].unit if runs else "tokens"
    rows = [[r.conversation, r.memory, s.label, s.questions, _pct(s.all_evidence),
             _pct(s.any_evidence), _pct(s.answer_present), round(s.context_tokens)]
            for r in runs for s in r.scores()]
    return Table(["conversation", "memory", "category", "questions", "all evidence %",
                  "any evidence %", "answer present %", f"context ({unit})"], rows, title)


def coverage_table(runs: Iterable[EvalRun], title: str = "") -> Table:
    """One row per run: all-evidence coverage % by category (1-4 and their total),
    any-evidence % and answer-present % over 1-4, the adversarial questions apart
    (their count and any-evidence %), mean context size, model and tokenizer calls."""
    runs = list(runs)
    unit = runs[0].unit if runs else "tokens"
    rows = []
    for r in runs:
        main, adversarial = r.score([1, 2, 3, 4]), r.score([5])
        by_cat = [_pct(r.score([c]).all_evidence) for c in (1, 2, 3, 4)]
        rows.append([r.conversation, r.memory, main.questions, *by_cat, _pct(main.all_evidence),
                     _pct(main.any_evidence), _pct(main.answer_present), adversarial.questions,
                     _pct(adversarial.any_evidence),
                     round(_score("", r.results).context_tokens), r.model_calls,
                     r.tokenizer_calls])
    return Table(["conversation", "memory", "questions 1-4", "multi-hop %", "temporal %",
                  "open-domain %", "single-hop %", "all 1-4 %", "any 1-4 %", "answer 1-4 %",
                  "adversarial", "adv. any %", f"context ({unit})", "model calls",
                  "tokenizer calls"], rows, title)
