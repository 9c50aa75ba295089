"""The RAG chatbot: memory + query rewrite + retrieval + cited generation + guardrail.

One turn of :meth:`Chatbot.ask` (the end-to-end chatbot lesson)::

    question -> [rewrite, if the session has history] -> query -> retriever.search(query, top_k)
             -> [no chunks: refuse] -> llm(SYSTEM_PROMPT, history + numbered chunks + question)
             -> parse [n] citations -> guardrail -> save the turn in memory -> Answer

- One memory per session, made by ``memory_factory`` on the session's first ask.
- Compute first, commit after: the memory is written only after retrieval and
  generation returned. If any step raises, the exception propagates and the memory is
  as it was; a rewrite failure is not a turn failure (the raw question is used).
  Sizes are checked before the first write, and a summary memory whose compaction
  fails while saving keeps the message (:class:`~kit.memory.CompactionError`), so the
  turn is saved whole and ``Answer.memory_note`` says compaction will be retried.
- Memory gets the question, then the answer (or the refusal) with each run of ``[n]``
  markers replaced by the cited chunk ids, ``"... days (source: c1)."``
  (:func:`kit.rag.citations.markers_to_ids`): ``[1]`` names this turn's first chunk
  only, and the next turn numbers its own chunks from [1] again. The user still sees
  the markers (``Answer.answer``; ``Answer.saved_answer`` is what memory holds).
- "History" means the memory holds turns or a summary; the first turn of a session has
  none, so it makes no rewrite call.
- A lock per session: two asks on one session run one after the other, so their turns
  are recorded in order; asks on different sessions do not wait for each other.
- Every turn's latency (ms, from the injected ``clock``) goes to ``metrics`` under
  :data:`TURN_METRIC`; a failed turn's goes under :data:`FAILED_METRIC`.

The two-turn example of the end-to-end chatbot lesson ("and for COD?") is in
:mod:`kit.rag.cod`.
"""
from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager as ContextManager
from dataclasses import dataclass, field
from types import SimpleNamespace

from kit.fence import defuse, fence
from kit.llm import fact_listing_summariser
from kit.memory import CompactionError, SummaryMemory
from kit.messages import indent_continuation, number_runs, render
from kit.rag.citations import CitationResult, markers_to_ids, number_chunks, parse_citations
from kit.rag.guardrail import GuardrailResult, check_citations, refuse
from kit.rag.metrics import Metrics
from kit.rag.rewrite import MAX_QUERY_WORDS, Rewrite, rewrite_query
from kit.trace import Table

__all__ = ["Chatbot", "Answer", "SYSTEM_PROMPT", "TURN_METRIC", "FAILED_METRIC",
           "NOTHING_RETRIEVED", "default_memory", "build_answer_prompt", "TRACE_COLUMNS",
           "trace_row", "trace_table"]

SYSTEM_PROMPT = (
    "You are a support assistant. Answer only from the numbered context. Cite the chunk "
    "behind every statement as [n], for example [1] or [1][2]. If the context does not "
    "contain the answer, say so."
)
TURN_METRIC = "turn"
FAILED_METRIC = "failed turn"
NOTHING_RETRIEVED = "nothing retrieved"


def default_memory() -> SummaryMemory:
    """A fresh summary memory per session: the fact-listing stub summariser, budget 500
    cl100k tokens, the newest 6 messages verbatim."""
    return SummaryMemory(fact_listing_summariser, budget=500)


def build_answer_prompt(history: str, chunks: Sequence[object], question: str) -> str:
    """The generation call's user message (str): ``"Conversation so far:\n<history>"``
    (left out when ``history`` is blank), ``"Context:\n[1] ...\n\n[2] ..."`` (see
    :func:`kit.rag.citations.number_chunks`) and ``"Question: <question>"``, separated by
    blank lines. Raises TypeError for chunks without str ``id``, ``text`` and ``source``."""
    parts = [f"Conversation so far:\n{history.strip()}"] if history.strip() else []
    parts += [f"Context:\n{number_chunks(chunks)}",
              f"Question: {indent_continuation(question.strip())}"]
    return "\n\n".join(parts)


@dataclass(frozen=True)
class Answer:
    """One turn's result.

    ``turn``: 1-based number of the turn in its session; ``answer``: what the user sees
    (the draft, or the refusal); ``query``: the text sent to retrieval (``rewrite`` says
    how it was chosen); ``chunk_ids`` and ``chunks``: what was retrieved, in rank order
    (the chunks were numbered [1], [2]... in the prompt); ``citations``: the draft's
    parsed markers (empty if there was no draft); ``guardrail``: pass or refuse, with
    the reason; ``refused``: the guardrail did not pass; ``model_calls``: calls of ``llm`` in
    this turn (rewrite + generation); ``latency_ms``: the turn's time in milliseconds by
    the chatbot's clock, read before the turn is saved to memory; ``draft``: the model's raw reply (None if nothing was retrieved);
    ``memory_note``: "" or why compaction failed while saving (the turn was saved);
    ``saved_answer``: the answer as written to memory, each run of ``[n]`` markers
    replaced by the cited chunk ids (``"... days (source: c1)."``; the refusal as it is).
    """

    session_id: str
    turn: int
    question: str
    answer: str
    query: str
    rewrite: Rewrite
    chunk_ids: tuple[str, ...]
    chunks: tuple
    citations: CitationResult
    guardrail: GuardrailResult
    model_calls: int
    latency_ms: float
    draft: str | None = None
    memory_note: str = ""
    saved_answer: str = ""

    @property
    def cited_ids(self) -> tuple[str, ...]:
        """Ids of the chunks the draft cited validly, first-seen order."""
        return self.citations.chunk_ids

    @property
    def refused(self) -> bool:
        """True if the guardrail replaced the draft (or there was none) with the refusal."""
        return not self.guardrail.passed


@dataclass
class _Session:
    memory: object
    lock: ContextManager
    answers: list[Answer] = field(default_factory=list)


def _check_callable(name: str, value: object, shape: str) -> None:
    if not callable(value):
        raise TypeError(f"{name} must be callable {shape}, got {value!r:.60}")


def _history(memory) -> str:
    """The memory as text, or "" if it holds nothing yet (no turns, no summary).

    Never starts its turns with an assistant reply whose question has left the memory
    (a window after a long reply): such leading replies are left out, unless the
    conversation itself opened with them (message 1, a greeting)."""
    if not (memory.turns or getattr(memory, "summary", "")):
        return ""
    text, turns = memory.context(), memory.turns
    lead = 0
    while lead < len(turns) and turns[lead].role == "assistant" and turns[lead].number > 1:
        lead += 1
    shown = render(turns)
    if lead and shown and text.endswith(shown):
        text = (text[:len(text) - len(shown)] + render(turns[lead:])).rstrip()
    return text


def _provenance(memory) -> str:
    """Where a memory's text came from, for its fence: "summary of earlier messages,
    messages 2-3, 7-8" (the numbers of the verbatim turns its context shows: recalled
    ones too, by ``context_numbers()`` where the memory has it)."""
    parts = ["summary of earlier messages"] if getattr(memory, "summary", "") else []
    shown = getattr(memory, "context_numbers", None)
    numbers = list(shown()) if callable(shown) else [t.number for t in memory.turns]
    runs = number_runs(numbers)
    if runs:
        parts.append("messages " + ", ".join(f"{a}-{b}" if b > a else str(a) for a, b in runs))
    return "conversation memory: " + ", ".join(parts)


def _check_ask(session_id: object, question: object) -> None:
    """Raise ValueError/TypeError naming a bad session id or question."""
    if not isinstance(session_id, str) or not session_id.strip():
        raise ValueError(f"session_id must be a non-empty str, got {session_id!r}")
    if not isinstance(question, str):
        raise TypeError(f"question must be a str, got {type(question).__name__}: "
                        f"{question!r:.60}")
    if not question.strip():
        raise ValueError(f"question must not be empty, got {question!r}")


def _elapsed_ms(start: object, end: object) -> float:
    """Milliseconds from ``start`` to ``end`` (clock readings in seconds). Raises TypeError
    for a reading that is not a number, ValueError for a non-finite or negative span."""
    for name, value in (("start", start), ("end", end)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"clock must return seconds as a number, got {value!r:.60} "
                            f"at the {name} of the turn; nothing was saved")
    ms = (end - start) * 1000
    if not math.isfinite(ms) or ms < 0:
        raise ValueError(f"clock must not go backwards or return inf/NaN, read {start!r} "
                         f"then {end!r}; nothing was saved")
    return ms


def _check_fits(memory, role: str, text: str) -> None:
    """Raise ValueError before any write if a budgeted memory could never hold ``text``."""
    budget, measure = getattr(memory, "budget", None), getattr(memory, "measure", None)
    if budget is None or measure is None:
        return
    room = budget - getattr(memory, "fixed_tokens", 0)
    sizing = getattr(memory, "sizing", None)              # the memory's counting rule
    chat_role = "user" if role == "question" else "assistant"
    size = sizing.message(chat_role, text) if sizing is not None else measure(text)
    if size > room:
        unit = getattr(memory, "unit", "tokens")
        raise ValueError(f"the {role} message has {size} {unit}, more than the {room} {unit} "
                         f"the memory's budget of {budget} leaves for turns; nothing was saved")


class Chatbot:
    """A support chatbot over a retriever, with memory per session.

    ``retriever``: has ``.search(query, k) -> list[Chunk]``; ``llm``: a chat model
    ``(system, user) -> str`` used for the rewrite and the answer; ``memory_factory``:
    ``() -> memory`` (an object with ``.turns``, ``.add(role, text)``, ``.context()``),
    default :func:`default_memory`; ``metrics``: a :class:`Metrics` (a new one if None);
    ``top_k``: chunks per query (int >= 1); ``clock``: ``() -> seconds`` for latency;
    ``rewrite``: False sends the raw question every turn (to show why rewriting
    matters); ``max_query_words``: longest accepted rewrite, in words;
    ``lock_factory``: ``() -> lock`` (a context manager), one per session, default
    ``threading.Lock``; with several server processes, plug in a shared lock (a Redis
    or database lock); ``fence_memory``: True puts the memory's text (summary and
    turns) into the rewrite and answer prompts as quoted data with its provenance
    (:func:`kit.fence.fence`), so an instruction planted in an earlier turn is not read
    as one (lesson 12, injection), and defuses any fence marker in the prompts' copies of
    the question and the retrieved chunks (one there would open a fence round the
    question); False (the lesson-07 prompt) leaves it bare. Raises
    TypeError/ValueError naming a bad argument.
    """

    def __init__(self, retriever, llm: Callable[[str, str], str],
                 memory_factory: Callable[[], object] | None = None,
                 metrics: Metrics | None = None, top_k: int = 5,
                 clock: Callable[[], float] = time.perf_counter, rewrite: bool = True,
                 max_query_words: int = MAX_QUERY_WORDS,
                 lock_factory: Callable[[], ContextManager] = threading.Lock,
                 fence_memory: bool = False) -> None:
        _check_callable("retriever.search", getattr(retriever, "search", None), "(query, k)")
        _check_callable("llm", llm, "(system, user) -> str")
        _check_callable("memory_factory", memory_factory or default_memory, "() -> memory")
        _check_callable("clock", clock, "() -> seconds")
        _check_callable("lock_factory", lock_factory, "() -> lock")
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ValueError(f"top_k must be an int >= 1, got {top_k!r}")
        if metrics is not None and not callable(getattr(metrics, "record", None)):
            raise TypeError(f"metrics must have .record(name, ms), got {metrics!r:.60}")
        for name, flag in (("rewrite", rewrite), ("fence_memory", fence_memory)):
            if not isinstance(flag, bool):
                raise TypeError(f"{name} must be True or False, got {flag!r}")
        if isinstance(max_query_words, bool) or not isinstance(max_query_words, int) \
                or max_query_words < 1:
            raise ValueError(f"max_query_words must be an int >= 1, got {max_query_words!r}")
        self.retriever, self.llm, self.top_k, self.clock = retriever, llm, top_k, clock
        self.memory_factory = memory_factory or default_memory
        self.metrics = metrics if metrics is not None else Metrics()
        self.rewrite, self.max_query_words = rewrite, max_query_words
        self.lock_factory, self.fence_memory = lock_factory, fence_memory
        self._sessions: dict[str, _Session] = {}
        self._registry = threading.Lock()       # guards _sessions only, held briefly

    # -- sessions ----------------------------------------------------------------
    def _session(self, session_id: str) -> _Session:
        with self._registry:
            if session_id not in self._sessions:
                self._sessions[session_id] = _Session(self.memory_factory(), self.lock_factory())
            return self._sessions[session_id]

    @property
    def sessions(self) -> dict[str, object]:
        """Session id -> memory, for every session that has asked (a snapshot dict)."""
        with self._registry:
            return {sid: s.memory for sid, s in self._sessions.items()}

    def memory(self, session_id: str):
        """The memory of a session. KeyError for a session that never asked."""
        with self._registry:
            if session_id not in self._sessions:
                raise KeyError(f"no session {session_id!r}; sessions: {list(self._sessions)}")
            return self._sessions[session_id].memory

    def answers(self, session_id: str) -> list[Answer]:
        """The session's answered turns, in order (a copy; [] for an unknown session)."""
        with self._registry:
            session = self._sessions.get(session_id)
        return list(session.answers) if session else []

    def trace(self, session_id: str, show_latency: bool = False) -> Table:
        """One row per answered turn of the session (see :func:`trace_table`)."""
        return trace_table(self.answers(session_id), f"Session {session_id}", show_latency)

    # -- one turn ----------------------------------------------------------------
    def ask(self, session_id: str, question: str) -> Answer:
        """Answer ``question`` in session ``session_id``; save the turn; return an
        :class:`Answer`.

        The user gets ``Answer.answer`` (the draft with its ``[n]`` markers, or the
        refusal); memory gets the question and ``Answer.saved_answer`` (markers replaced by
        the cited chunk ids). Raises ValueError for an empty session id or question (or a
        question or saved answer the session's memory could never hold), TypeError for
        non-str arguments or a model reply that is not a str, TypeError / ValueError for a
        clock that returns no number or goes backwards; any exception of the
        retriever or the generation call propagates. In all these cases the memory is
        unchanged.
        """
        _check_ask(session_id, question)
        session = self._session(session_id)
        with session.lock:
            # numbered when it commits, as the answers list grows (without a lock, a turn
            # that overtakes another is numbered before it)
            answer = self._timed(session.memory, session_id, question,
                                 lambda: len(session.answers) + 1)
            session.answers.append(answer)
            return answer

    def answer_turn(self, memory, session_id: str, question: str, turn: int) -> Answer:
        """One turn on a memory the caller holds: :meth:`ask` without the session
        registry and its lock, for a service that loads each session's memory from a
        shared store and holds the session's lock itself (:mod:`kit.serve`).

        ``memory``: the session's memory (as ``memory_factory`` makes them); ``turn``:
        the turn's number in its session (int >= 1), recorded in the Answer. The answer
        is not kept by the chatbot (``answers()`` does not list it); the latency goes to
        ``metrics``. Raises what :meth:`ask` raises, with the memory unchanged, and
        ValueError for a ``turn`` that is not an int >= 1."""
        _check_ask(session_id, question)
        if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
            raise ValueError(f"turn must be an int >= 1, got {turn!r}")
        return self._timed(memory, session_id, question, lambda: turn)

    def _timed(self, memory, session_id: str, question: str,
               number: Callable[[], int]) -> Answer:
        """The turn, its latency recorded under TURN_METRIC (FAILED_METRIC if it raised);
        ``number()`` gives its turn number once it has been answered."""
        _check_fits(memory, "question", question)
        start = self.clock()
        try:
            answer = self._turn(memory, session_id, question, start, number)
        except Exception:
            try:
                failed_ms = _elapsed_ms(start, self.clock())
            except Exception:               # a broken clock must not hide the error
                failed_ms = None
            if failed_ms is not None:
                self.metrics.record(FAILED_METRIC, failed_ms)
            raise
        self.metrics.record(TURN_METRIC, answer.latency_ms)
        return answer

    def _turn(self, memory, session_id: str, question: str, start: float,
              number: Callable[[], int]) -> Answer:
        calls = [0]

        def counted(system: str, user: str) -> str:
            calls[0] += 1
            return self.llm(system, user)

        history, asked = _history(memory), question
        if self.fence_memory:       # a marker in the question would open a fence round it
            history = fence(history, _provenance(memory)) if history else history
            asked = defuse(question)
        if self.rewrite:
            rewrite = rewrite_query(counted, history, asked, self.max_query_words)
        else:
            rewrite = Rewrite(question, False, "rewrite off: raw question")
        chunks = list(self.retriever.search(rewrite.query, self.top_k))[:self.top_k]
        draft = None
        if chunks:
            shown = chunks
            if self.fence_memory:           # so is a marker in a retrieved document
                shown = [SimpleNamespace(id=c.id, text=defuse(c.text), source=c.source)
                         if isinstance(getattr(c, "text", None), str) else c for c in chunks]
            prompt = build_answer_prompt(history, shown, asked)   # checks the chunks
            draft = counted(SYSTEM_PROMPT, prompt)
            if not isinstance(draft, str):
                raise TypeError(f"the model must return a str, got {type(draft).__name__}: "
                                f"{draft!r:.60}")
            citations = parse_citations(draft, chunks)
            verdict = check_citations(draft, citations)
        else:
            citations, verdict = CitationResult((), (), 0), refuse(NOTHING_RETRIEVED)
        # [n] means "this turn's chunk n": memory keeps the chunk ids instead.
        saved = markers_to_ids(verdict.answer, chunks)
        _check_fits(memory, "answer", saved)
        latency_ms = _elapsed_ms(start, self.clock())   # a broken clock fails before any write
        # Commit: every step has returned.
        note = ""
        for role, text in (("user", question), ("assistant", saved)):
            try:
                memory.add(role, text)
            except CompactionError as exc:      # the message was kept; compaction retries later
                note = f"compaction failed: {exc.__cause__!r}"
        return Answer(session_id=session_id, turn=number(),
                        question=question, answer=verdict.answer, query=rewrite.query,
                        rewrite=rewrite, chunk_ids=tuple(c.id for c in chunks),
                        chunks=tuple(chunks), citations=citations, guardrail=verdict,
                        model_calls=calls[0], latency_ms=latency_ms,
                        draft=draft, memory_note=note, saved_answer=saved)


# -- trace -------------------------------------------------------------------------
TRACE_COLUMNS = ["turn", "question", "query sent", "rewrite", "retrieved", "model calls",
                 "cited", "guardrail"]


def trace_row(answer: Answer, show_latency: bool = False) -> list[object]:
    """One trace row: the :data:`TRACE_COLUMNS` of ``answer`` (+ latency in ms)."""
    verdict = answer.guardrail
    row = [answer.turn, answer.question, answer.query, answer.rewrite.reason,
           ", ".join(answer.chunk_ids) or "(none)", answer.model_calls,
           ", ".join(answer.cited_ids) or "(none)",
           f"{'passed' if verdict.passed else 'refused'}: {verdict.reason}"]
    return row + [round(answer.latency_ms, 1)] if show_latency else row


def trace_table(answers: Sequence[Answer], title: str = "",
                show_latency: bool = False) -> Table:
    """One row per turn: question, query sent, rewrite, retrieved ids, model calls, cited
    ids, guardrail verdict; ``show_latency`` adds "latency (ms)" (use it with an
    injected clock wherever the output is compared)."""
    columns = TRACE_COLUMNS + (["latency (ms)"] if show_latency else [])
    return Table(columns, [trace_row(a, show_latency) for a in answers], title)
