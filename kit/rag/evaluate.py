"""The evaluation harness: retrieval recall and judged groundedness, reported apart.

A wrong answer has two possible causes, and one blended score cannot tell which:

- the gold chunk was not retrieved -> fix chunking, the query rewrite or the search;
- it was retrieved, yet the answer is not grounded -> fix the prompt or the model.

So :func:`evaluate` reports **recall@k** (was the gold chunk among the first k retrieved
ids?) and **groundedness** (the mean verdict of a judge, :mod:`kit.rag.judge`) as two
numbers, and :func:`diagnose` names the cause per case. Scripted multi-turn
conversations are replayed by :mod:`kit.rag.multiturn`.

A *hit* is the gold chunk or one of the case's ``also_correct`` near-duplicates (a FAQ
entry that answers as well): recall@k counts a case as retrieved when any of them is
among the first k ids, and :attr:`EvalRow.hit_rank` is the rank of the first of them;
:attr:`EvalRow.gold_rank` is the rank of the gold chunk itself.

A bot is anything with ``ask(session_id, question)`` returning an object with
``answer`` (str), ``query`` (the search query used) and ``chunk_ids`` (retrieved ids,
best first); ``citations``, ``refused`` and ``chunks`` are used when present (see
:func:`evaluate`). Each case runs in a fresh session ``"eval-<i>"`` so one case's memory
cannot change the next case's retrieval.

Progress bars (tqdm) are off by default (``progress=False``) so notebook outputs stay
the same on every run; pass ``progress=True`` to see one, or ``None`` to let tqdm show
it only on a terminal.

Source: the end-to-end chatbot lesson (the evaluation harness: "recall of the gold chunk,
judged groundedness", a fresh session per case, an unparseable verdict counted apart).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from tqdm.auto import tqdm

from kit.rag.judge import judge
from kit.trace import Table

__all__ = ["EvalRow", "EvalReport", "evaluate", "diagnose", "ADVICE"]

# diagnosis -> what to change; "rewrite failure" is a step diagnosis of kit.rag.multiturn.
ADVICE = {
    "ok": "the gold chunk was retrieved and the answer judged grounded",
    "retrieval failure": "the gold chunk was not retrieved: fix chunking, the query rewrite or the search",
    "generation failure": "the gold chunk was retrieved but the answer is ungrounded or refused: "
                          "fix the prompt or the model",
    "unjudged": "the judge gave no verdict (it raised or replied out of format): rerun it or read the answer",
    "rewrite failure": "the standalone query differs from the expected one and missed the gold chunk: "
                       "fix the query rewrite",
}


@dataclass(frozen=True)
class EvalRow:
    """One evaluated case (``case``: its 0-based index; ``session``: the session it ran in).

    ``chunk_ids``: the retrieved ids, best first (all of them, not cut at k);
    ``retrieved_gold``: a hit (the gold chunk or one of ``also_correct``) is among the
    first k ids (None when the case has no gold chunk); ``cited_gold``: the answer cites
    a hit (None when unknown); ``refused``: the bot refused (then not judged);
    ``groundedness``: 1.0 / 0.0 from the judge, None when unjudged or refused;
    ``judge_reason``: the judge's one sentence ("" if none). Ranks are 1-based positions
    in ``chunk_ids``: :meth:`rank`, :attr:`hit_rank`, :attr:`gold_rank`.
    """

    case: int
    session: str
    question: str
    answer: str
    query: str
    chunk_ids: tuple[str, ...]
    gold_chunk_id: str | None
    retrieved_gold: bool | None
    cited_gold: bool | None
    refused: bool
    groundedness: float | None
    judge_reason: str = ""
    also_correct: tuple[str, ...] = ()

    def rank(self, chunk_id: str) -> int | None:
        """1-based rank of ``chunk_id`` among the retrieved ids, None if not retrieved."""
        return self.chunk_ids.index(chunk_id) + 1 if chunk_id in self.chunk_ids else None

    @property
    def hit_rank(self) -> int | None:
        """Rank of the first hit (the gold chunk or an also-correct one), None if none was
        retrieved or the case has no gold chunk. Over all retrieved ids, not cut at k."""
        accepted = _accepted(self.gold_chunk_id, self.also_correct)
        return next((n for n, i in enumerate(self.chunk_ids, 1) if i in accepted), None)

    @property
    def gold_rank(self) -> int | None:
        """Rank of the gold chunk itself (an also-correct one may rank higher: see
        :attr:`hit_rank`), None if it was not retrieved or the case has none."""
        return None if self.gold_chunk_id is None else self.rank(self.gold_chunk_id)


def diagnose(row: EvalRow) -> str:
    """"retrieval failure", "generation failure", "unjudged" or "ok" (see :data:`ADVICE`).

    In order: gold missed -> retrieval failure; refused although the gold chunk was
    retrieved -> generation failure (a refusal on a case with no gold chunk is ok);
    no verdict -> unjudged; judged not grounded -> generation failure; else ok.
    """
    if row.retrieved_gold is False:
        return "retrieval failure"
    if row.refused:
        return "ok" if row.gold_chunk_id is None else "generation failure"
    if row.groundedness is None:
        return "unjudged"
    return "ok" if row.groundedness >= 1 else "generation failure"


def _rate(hits: Sequence[bool]) -> float | None:
    return sum(hits) / len(hits) if hits else None


def _show(value: float | None, hits: int | None = None, of: int | None = None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.3f}" + (f" ({hits} of {of})" if of is not None else "")


@dataclass(frozen=True)
class EvalReport:
    """What :func:`evaluate` measured. ``recall``: recall@k over cases with a gold chunk;
    ``groundedness``: mean verdict over judged answers only; ``unjudged``: answers the
    judge gave no verdict for; ``refusals``: answers refused by the bot (not judged).
    Rates are floats in [0, 1], or None when nothing was counted."""

    rows: tuple[EvalRow, ...]
    k: int | None

    @property
    def n(self) -> int:
        return len(self.rows)

    @property
    def recall(self) -> float | None:
        return _rate([r.retrieved_gold for r in self.rows if r.retrieved_gold is not None])

    @property
    def groundedness(self) -> float | None:
        scores = [r.groundedness for r in self.rows if r.groundedness is not None]
        return sum(scores) / len(scores) if scores else None

    @property
    def judged(self) -> int:
        return sum(r.groundedness is not None for r in self.rows)

    @property
    def refusals(self) -> int:
        return sum(r.refused for r in self.rows)

    @property
    def unjudged(self) -> int:
        return self.n - self.judged - self.refusals

    def summary(self) -> Table:
        """One row per metric: cases, recall@k, groundedness, judged, unjudged, refusals."""
        gold = [r.retrieved_gold for r in self.rows if r.retrieved_gold is not None]
        at = f"recall@{self.k}" if self.k else "recall (all retrieved)"
        rows = [["cases", self.n],
                [at, _show(self.recall, sum(gold), len(gold))],
                ["groundedness (judged only)", _show(self.groundedness)],
                ["judged", self.judged], ["unjudged", self.unjudged], ["refusals", self.refusals]]
        return Table(["metric", "value"], rows, "evaluation")

    def table(self) -> Table:
        """One row per case: question, gold id, hit rank, gold rank ("-" for none),
        cited gold, verdict (yes / no / unjudged / refused) and diagnosis."""
        def verdict(r: EvalRow) -> str:
            if r.refused:
                return "refused"
            return "unjudged" if r.groundedness is None else ("yes" if r.groundedness >= 1 else "no")
        rows = [[r.case, r.question, r.gold_chunk_id or "-", r.hit_rank or "-",
                 r.gold_rank or "-", {True: "yes", False: "no", None: "-"}[r.cited_gold],
                 verdict(r), diagnose(r)] for r in self.rows]
        return Table(["case", "question", "gold", "hit rank", "gold rank", "cited gold",
                      "grounded", "diagnosis"], rows, "cases")

    def __str__(self) -> str:
        return str(self.summary())


def _field(item: object, name: str, where: str) -> object:
    if isinstance(item, Mapping):
        if name not in item:
            raise ValueError(f"{where} has no {name!r}: {item!r:.80}")
        return item[name]
    if not hasattr(item, name):
        raise ValueError(f"{where} has no {name!r}: {item!r:.80}")
    return getattr(item, name)


def _case(item: object, where: str) -> tuple[str, str | None, tuple[str, ...]]:
    """(question, gold id or None, also-correct ids) of a case, checked."""
    question = _field(item, "question", where)
    gold = _field(item, "gold_chunk_id", where)
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"{where}: question must be a non-empty str, got {question!r:.60}")
    if gold is not None and not isinstance(gold, str):
        raise ValueError(f"{where}: gold_chunk_id must be a str or None, got {gold!r:.60}")
    also = item.get("also_correct", ()) if isinstance(item, Mapping) else getattr(item, "also_correct", ())
    if isinstance(also, str) or not all(isinstance(a, str) for a in also):
        raise ValueError(f"{where}: also_correct must be a list of chunk ids, got {also!r:.60}")
    if also and gold is None:
        raise ValueError(f"{where}: also_correct {list(also)} given without a gold_chunk_id")
    return question, gold, tuple(also)


def _accepted(gold: str | None, also: Sequence[str]) -> tuple[str, ...]:
    """The ids that count as a hit: the gold id and its also-correct ids; () if no gold."""
    return (gold, *also) if gold is not None else ()


def _hit(ids: Sequence[str], accepted: Sequence[str]) -> bool | None:
    """Any accepted id among ``ids``; None when nothing is accepted (no gold chunk)."""
    return any(i in accepted for i in ids) if accepted else None


def _bots(source: object) -> Callable[[], object]:
    """A function giving the bot for the next case: the same bot, or a new one."""
    if hasattr(source, "ask"):
        return lambda: source
    if callable(source):
        return source
    raise TypeError(f"bot must have .ask(session_id, question) or be a factory returning "
                    f"such a bot, got {type(source).__name__}")


def _check_fresh(bot: object, session: str) -> None:
    sessions = getattr(bot, "sessions", None)
    if isinstance(sessions, Mapping) and session in sessions:
        raise ValueError(f"session {session!r} already exists on this bot, so its memory would "
                         f"leak into the case: use a new bot or another session_prefix")


def _check_progress(progress: object) -> bool | None:
    if progress not in (True, False, None) or isinstance(progress, int) and not isinstance(progress, bool):
        raise ValueError(f"progress must be True, False or None, got {progress!r}")
    return None if progress is None else not progress


def _cited_ids(out: object) -> tuple[str, ...] | None:
    citations = getattr(out, "citations", None)
    if citations is None:
        return None
    ids = getattr(citations, "chunk_ids", None)            # a CitationResult
    if ids is not None:
        return tuple(ids)
    return tuple(c["chunk_id"] if isinstance(c, Mapping) else c.chunk_id for c in citations)


def _refused(out: object) -> bool:
    refused = getattr(out, "refused", None)
    if refused is not None:
        return bool(refused)
    cited = _cited_ids(out)
    return cited is not None and not cited


def _shown_chunks(out: object, corpus: Mapping[str, object] | None, where: str) -> list:
    chunks = getattr(out, "chunks", None)
    if chunks is not None:
        return list(chunks)
    if corpus is None:
        raise ValueError(f"{where}: the answer has no .chunks, so pass corpus= (chunk id -> Chunk) "
                         f"to show the judge the retrieved chunks")
    missing = [i for i in out.chunk_ids if i not in corpus]
    if missing:
        raise ValueError(f"{where}: retrieved ids {missing} are not in corpus")
    return [corpus[i] for i in out.chunk_ids]


def _check_k(k: object) -> int | None:
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise ValueError(f"k must be an int >= 1 or None, got {k!r}")
    return k


def evaluate(bot: object, cases: Iterable[object], judge_model: Callable[[str, str], str] | None,
             *, k: int | None = None, corpus: Iterable[object] | Mapping[str, object] | None = None,
             progress: bool | None = False, session_prefix: str = "eval") -> EvalReport:
    """Ask every case in a fresh session, then measure retrieval and groundedness apart.

    ``bot``: a bot with ``.ask`` (shared; case i runs in session ``f"{session_prefix}-{i}"``,
    i from 0), or a factory ``() -> bot`` called once per case. ``cases``: objects or
    dicts with ``question`` (str), ``gold_chunk_id`` (str, or None for a question the
    documents cannot answer) and optionally ``also_correct`` (ids of near-duplicate
    chunks that answer it too, as in :class:`kit.rag.goldset.GoldQuestion`: retrieving
    one of them is a hit). ``judge_model``: a chat model ``(system, user) -> str`` for
    :func:`kit.rag.judge.judge`, or None to skip judging (every answer is then
    unjudged). ``k``: a cut-off in chunks, an int >= 1: recall@k counts a hit among the
    first k retrieved ids; None counts all of them. ``corpus``: chunks (or id -> chunk)
    to show the judge when answers carry no ``.chunks``. ``progress``: a tqdm bar
    (False: none, True: always, None: on a terminal only).

    An answer is *refused* when it has ``refused`` true, or else ``citations`` that are
    empty; refusals are not judged. One ``ask`` and at most one judge call per case.
    Returns an :class:`EvalReport` with one :class:`EvalRow` per case, in order.
    Raises ValueError naming the case for a bad case (no ``question``, a non-str gold id,
    ``also_correct`` without a gold id), ValueError for a bad ``k`` or ``progress`` or a
    session id the bot already holds, TypeError for a bot without ``ask``, all before
    asking anything; ValueError when an answer has no ``.chunks`` and no ``corpus`` was
    given (before its judge call); an exception from the bot propagates.
    """
    k, disable = _check_k(k), _check_progress(progress)
    make_bot = _bots(bot)
    cases = [_case(c, f"case {i}") for i, c in enumerate(cases)]
    if corpus is not None and not isinstance(corpus, Mapping):
        corpus = {c.id: c for c in corpus}
    if hasattr(bot, "ask"):
        for i in range(len(cases)):
            _check_fresh(bot, f"{session_prefix}-{i}")
    rows = []
    for i, (question, gold, also) in enumerate(tqdm(cases, desc="cases", disable=disable)):
        session, current = f"{session_prefix}-{i}", make_bot()
        _check_fresh(current, session)
        out = current.ask(session, question)
        ids = tuple(out.chunk_ids)
        cited, refused = _cited_ids(out), _refused(out)
        verdict = None
        if judge_model is not None and not refused:
            shown = _shown_chunks(out, corpus, f"case {i}")
            verdict = judge(question, out.answer, shown, judge_model)
        accepted = _accepted(gold, also)
        rows.append(EvalRow(
            case=i, session=session, question=question, answer=out.answer, query=out.query,
            chunk_ids=ids, gold_chunk_id=gold, retrieved_gold=_hit(ids[:k], accepted),
            cited_gold=None if not accepted or cited is None else any(a in cited for a in accepted),
            refused=refused, groundedness=verdict.groundedness if verdict else None,
            judge_reason=verdict.reason if verdict else "", also_correct=also))
    return EvalReport(tuple(rows), k)
