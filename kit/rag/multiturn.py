"""Multi-turn evaluation: replay scripted conversations and check every step.

Single questions do not test the query rewrite. A scripted conversation does: each step
holds what the user types, the **standalone query** a good rewrite produces from the
history, and the gold chunk (:class:`kit.rag.goldset.GoldConversation`).
:func:`evaluate_conversations` replays each conversation in a fresh session and records,
per step, whether the query the bot searched with matches the expected one
(:func:`normalise_query`) and whether a hit (the gold chunk or an also-correct one) was
among the first k retrieved ids. :func:`diagnose_step` then tells a **rewrite failure**
(wrong query, gold missed) from a **retrieval failure** (right query, gold missed).

Bots, sessions, ``k`` and progress bars work as in :func:`kit.rag.evaluate.evaluate`;
no judge is called here.

Source: the follow-up "How do you evaluate multi-turn behaviour?" of the end-to-end chatbot
lesson (scripted conversations with the expected standalone query and gold chunk at each
step).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from tqdm.auto import tqdm

# The single-turn harness's argument checks and rate formatting, shared on purpose.
from kit.rag.evaluate import (_accepted, _bots, _case, _check_fresh, _check_k,
                              _check_progress, _field, _hit, _rate, _show)
from kit.trace import Table

__all__ = ["StepRow", "ConversationReport", "evaluate_conversations", "diagnose_step",
           "normalise_query"]


def normalise_query(text: str) -> str:
    """Casefold, turn every run of characters other than letters and digits into one
    space, strip: "Refund time for cash-on-delivery?" -> "refund time for cash on delivery"."""
    return re.sub(r"[\W_]+", " ", text.casefold()).strip()


@dataclass(frozen=True)
class StepRow:
    """One step of a scripted conversation: ``conversation`` (0-based index), ``step``
    (1-based), ``query`` (what the bot searched with), ``expected_query`` (the gold
    standalone query, or None); ``query_match``: the two are equal after
    :func:`normalise_query` (None when none expected); ``chunk_ids``: retrieved ids, best
    first; ``retrieved_gold``: a hit (the gold chunk or an also-correct one) among the
    first k of them (None when the step has no gold chunk)."""

    conversation: int
    step: int
    session: str
    question: str
    query: str
    expected_query: str | None
    query_match: bool | None
    chunk_ids: tuple[str, ...]
    gold_chunk_id: str | None
    retrieved_gold: bool | None


def diagnose_step(row: StepRow) -> str:
    """"ok" when a hit was retrieved (or the step has no gold chunk), else "rewrite
    failure" when the query differs from the expected one, else "retrieval failure"
    (advice for each: :data:`kit.rag.evaluate.ADVICE`)."""
    if row.retrieved_gold is not False:
        return "ok"
    return "rewrite failure" if row.query_match is False else "retrieval failure"


@dataclass(frozen=True)
class ConversationReport:
    """What :func:`evaluate_conversations` measured: one :class:`StepRow` per step, and
    ``query_match`` and ``recall`` (recall@k) as floats in [0, 1] over the steps that have
    an expected query / a gold chunk (None if no step has one)."""

    rows: tuple[StepRow, ...]
    k: int | None

    @property
    def steps(self) -> int:
        return len(self.rows)

    @property
    def query_match(self) -> float | None:
        return _rate([r.query_match for r in self.rows if r.query_match is not None])

    @property
    def recall(self) -> float | None:
        return _rate([r.retrieved_gold for r in self.rows if r.retrieved_gold is not None])

    def summary(self) -> Table:
        """One row per metric: conversations, steps, standalone query match, recall@k."""
        match = [r.query_match for r in self.rows if r.query_match is not None]
        gold = [r.retrieved_gold for r in self.rows if r.retrieved_gold is not None]
        at = f"recall@{self.k}" if self.k else "recall (all retrieved)"
        rows = [["conversations", len({r.conversation for r in self.rows})],
                ["steps", self.steps],
                ["standalone query match", _show(self.query_match, sum(match), len(match))],
                [at, _show(self.recall, sum(gold), len(gold))]]
        return Table(["metric", "value"], rows, "multi-turn evaluation")

    def table(self) -> Table:
        """One row per step: question, query used, expected query, match, gold, diagnosis."""
        mark = {True: "yes", False: "no", None: "-"}
        rows = [[r.conversation, r.step, r.question, r.query, r.expected_query or "-",
                 mark[r.query_match], r.gold_chunk_id or "-", mark[r.retrieved_gold],
                 diagnose_step(r)] for r in self.rows]
        return Table(["conversation", "step", "question", "query used", "expected query",
                      "match", "gold", "retrieved", "diagnosis"], rows, "steps")

    def __str__(self) -> str:
        return str(self.summary())


def _steps(conversation: object, where: str) -> list[tuple[str, str | None, tuple[str, ...]]]:
    """(question, expected standalone query or None, accepted gold ids) per step."""
    steps = conversation if isinstance(conversation, (list, tuple)) else _field(conversation, "steps", where)
    out = []
    for j, step in enumerate(steps, 1):
        question, gold, also = _case(step, f"{where} step {j}")
        expected = _field(step, "standalone_query", f"{where} step {j}")
        if expected is not None and not isinstance(expected, str):
            raise ValueError(f"{where} step {j}: standalone_query must be a str or None, got {expected!r:.60}")
        out.append((question, expected, _accepted(gold, also)))
    if not out:
        raise ValueError(f"{where} has no steps")
    return out


def evaluate_conversations(bot: object, conversations: Iterable[object], *, k: int | None = None,
                           progress: bool | None = False,
                           session_prefix: str = "conv") -> ConversationReport:
    """Replay scripted conversations, each in its own fresh session, checking every step.

    ``conversations``: each a list of steps, or an object/dict with ``steps`` (such as
    :class:`kit.rag.goldset.GoldConversation`); a step has ``question``,
    ``standalone_query`` (the query a good rewrite gives, or None) and ``gold_chunk_id``
    (or None; optional ``also_correct`` as in :func:`kit.rag.evaluate.evaluate`).
    Conversation i (from 0) runs in session ``f"{session_prefix}-{i}"``; ``bot``, ``k``
    (a cut-off in chunks, or None for all retrieved) and ``progress`` as in
    :func:`kit.rag.evaluate.evaluate`. The query match is exact after
    :func:`normalise_query` (case, punctuation and hyphens ignored; word order and wording
    are not). One ``ask`` per step, no judge calls. Returns a :class:`ConversationReport`.

    Raises ValueError naming the conversation and step for a bad step (no ``question``,
    no ``standalone_query``, no steps at all), ValueError for a bad ``k`` or
    ``progress`` or a session the bot already holds, TypeError for a bot without
    ``ask``, all before asking anything; an exception from the bot propagates.
    """
    k, disable = _check_k(k), _check_progress(progress)
    make_bot = _bots(bot)
    scripts = [_steps(c, f"conversation {i}") for i, c in enumerate(conversations)]
    if hasattr(bot, "ask"):
        for i in range(len(scripts)):
            _check_fresh(bot, f"{session_prefix}-{i}")
    rows = []
    for i, steps in enumerate(tqdm(scripts, desc="conversations", disable=disable)):
        session, current = f"{session_prefix}-{i}", make_bot()
        _check_fresh(current, session)
        for j, (question, expected, accepted) in enumerate(steps, 1):
            out = current.ask(session, question)
            ids = tuple(out.chunk_ids)
            rows.append(StepRow(
                conversation=i, step=j, session=session, question=question, query=out.query,
                expected_query=expected,
                query_match=None if expected is None else normalise_query(out.query) == normalise_query(expected),
                chunk_ids=ids, gold_chunk_id=accepted[0] if accepted else None,
                retrieved_gold=_hit(ids[:k], accepted)))
    return ConversationReport(tuple(rows), k)
