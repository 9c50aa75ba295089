"""Checker for lesson 07's whole-mechanism exercise: the RAG chatbot turn, end to end.

:func:`check_chatbot_turn` takes the learner's class, e.g. ``RagChatbot``, built as
``RagChatbot(retriever=..., llm=..., memory_factory=..., top_k=...)``:

- ``retriever``: has ``search(query, k) -> list of chunks`` (each with str ``id``,
  ``text``, ``source``), best first, ``[]`` when nothing matches;
- ``llm``: a chat model ``llm(system, user) -> str``; it may raise;
- ``memory_factory``: ``() -> memory``, a fresh memory of the learner protocol
  (:mod:`kit.checks.protocol`: ``add(role, content)``, ``context() -> str``, "" while
  empty); one per session, made on the session's first ask;
- ``top_k``: chunks per search (int >= 1).

``ask(session_id, question)`` answers one turn, as :meth:`kit.rag.chatbot.Chatbot.ask`:
history = the session memory's ``context()``; the standalone query by
``rewrite_query(llm, history, question)`` (no call on the first turn; the raw question
when the call raises any exception or the reply is junk); ``retriever.search(query,
top_k)``; nothing
retrieved: ``refuse(NOTHING_RETRIEVED)`` with no model call; else one call
``llm(SYSTEM_PROMPT, build_answer_prompt(history, chunks, question))``, then
``check_citations(draft, parse_citations(draft, chunks))`` (marker ``[n]`` is
``chunks[n - 1]``: ``[0]`` names no chunk; the answer is the draft stripped of the white
space around it). Only then the memory gets
``add("user", question)`` and ``add("assistant", markers_to_ids(answer, chunks))``,
the refusal included. An exception of the model's answer call (or of the retriever)
propagates, with every memory as it was (a failed search is not "nothing retrieved").
``ask`` returns a new dict on every call (or any object with these attributes, such as
:class:`kit.rag.chatbot.Answer`), which later asks leave as it was: ``answer`` (str,
what the user sees), ``query`` (str, sent to retrieval), ``chunk_ids`` (retrieved, rank
order) and ``cited_ids`` (``parse_citations(draft, chunks).chunk_ids``, empty with no
draft).

The checker replays scripted conversations (:class:`kit.llm.ScriptedLLM`,
:class:`kit.llm.FailingLLM`, the keyword retriever over the two refund chunks, a
summary memory of budget 500 per session, 40 in one case) through the kit's own
:class:`~kit.rag.chatbot.Chatbot` and through the learner's class, and compares turn by
turn: the model calls (system prompt and user message), the queries sent to retrieval,
the exception raised, the returned fields, when memory was written and what every
session's memory holds; at the end of each case it reads every turn's result again (it
must not have changed). The cases: the lesson's "and for COD?" trace, a rewrite that
raises (a timeout, then another error), a search that raises, a junk and an empty
rewrite, failing answer calls, refusals, a marker ``[0]``, a draft with white space
around it, two sessions, two chunks cited at once, ``top_k=1``, a memory that compacts
(the history is its context(), summary included), then 12 random
conversations (seed 7). Each
failure names the case and the turn. Deterministic, offline, well under a second.

The cases come in four parts, one per rubric category of the drill ``chatbot-turn``
(:mod:`kit.drills.chatbot_turn`), each a public function returning the turns it passed:
:func:`check_chatbot_turn_correctness`, :func:`check_chatbot_turn_failure_safety`,
:func:`check_chatbot_turn_edge_cases` and :func:`check_chatbot_turn_complexity` (the
random conversations, their model calls counted turn by turn); :func:`check_chatbot_turn`
runs them in that order.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from kit.checks import CheckFailed, call_learner, expect, passed
from kit.checks.hints import judge, judged
from kit.checks.protocol import state
from kit.llm import FailingLLM, ScriptedLLM, ScriptExhaustedError, fact_listing_summariser
from kit.memory import SummaryMemory
from kit.rag.chatbot import SYSTEM_PROMPT, Chatbot
from kit.rag.cod import COD_QUESTIONS, COD_REPLIES
from kit.rag.documents import seed_chunks
from kit.rag.guardrail import REFUSAL
from kit.rag.retrieval import KeywordRetriever
from kit.rag.rewrite import REWRITE_SYSTEM

__all__ = ["check_chatbot_turn", "check_chatbot_turn_correctness",
           "check_chatbot_turn_failure_safety", "check_chatbot_turn_edge_cases",
           "check_chatbot_turn_complexity", "FIELDS"]

FIELDS = ("answer", "query", "chunk_ids", "cited_ids")
PREPAID, COD = COD_QUESTIONS
LONG_COD = "and for cash-on-delivery?"      # a follow-up the raw question still finds
STORE_CREDIT = "They are paid as store credit [1]."
_SEED, _RANDOM_CONVERSATIONS = 7, 12
_MISSING = object()


@dataclass(frozen=True)
class _Case:
    """A scripted conversation: ``turns`` of (session id, question); ``replies``: the
    model's replies in call order; ``fail_on``: calls (1-based) that raise ``error``
    (an exception class); ``search_fails``: searches (1-based) that raise ConnectionError."""

    name: str
    turns: tuple[tuple[str, str], ...]
    replies: tuple[str, ...]
    why: str
    fail_on: frozenset[int] = frozenset()
    top_k: int = 5
    part: str = "correctness"       # the rubric part that runs it (see check_chatbot_turn)
    error: type = TimeoutError
    search_fails: frozenset[int] = frozenset()
    memory_budget: int = 500        # each session memory's budget (cl100k tokens)
    keep_recent: int = 6            # and its keep_recent (messages)


_CASES = [
    _Case("the COD trace", ((("s1", PREPAID), ("s1", COD))), COD_REPLIES,
          "the lesson's worked example: turn 1 retrieves c1, c2 and cites c1; turn 2 is "
          "rewritten to 'cash-on-delivery refund', retrieves c2 and cites c2"),
    _Case("a rewrite call that raises", (("s1", PREPAID), ("s1", LONG_COD)),
          (COD_REPLIES[0], STORE_CREDIT),
          "turn 2's rewrite call times out: a failed helper call must not fail the turn, "
          "the raw question goes to retrieval", frozenset({2}), part="failure safety"),
    _Case("a junk rewrite", (("s1", PREPAID), ("s1", LONG_COD)),
          (COD_REPLIES[0], "Sure, I can help with that!", STORE_CREDIT),
          "the rewrite reply is chatter, which clean_query rejects: the raw question goes "
          "to retrieval", part="edge cases"),
    _Case("an empty rewrite", (("s1", PREPAID), ("s1", LONG_COD)),
          (COD_REPLIES[0], "", STORE_CREDIT),
          "the rewrite reply is empty, which clean_query rejects: the raw question goes "
          "to retrieval", part="edge cases"),
    _Case("failing answer calls", (("s1", PREPAID), ("s1", PREPAID), ("s1", COD), ("s1", COD)),
          (COD_REPLIES[0], COD_REPLIES[1], COD_REPLIES[1], STORE_CREDIT),
          "model calls 1 (turn 1's answer) and 4 (turn 3's answer) time out: the "
          "TimeoutError propagates, memory stays as it was, and the retry works as if "
          "the failure never happened", frozenset({1, 4}), part="failure safety"),
    _Case("refusals", (("s1", PREPAID), ("s1", COD), ("s1", "and for prepaid?")),
          ("Prepaid refunds take 5 working days.", "cash-on-delivery refund",
           "They are paid as store credit [2].", "prepaid refund", "Five working days [1][2]."),
          "the guardrail refuses a draft with no citation, one citing [2] when 1 chunk was "
          "shown, and one mixing a valid [1] with that [2]; memory saves the refusal",
          part="edge cases"),
    _Case("two sessions", (("s1", PREPAID), ("s2", COD), ("s1", COD)), COD_REPLIES,
          "each session has its own memory: s2's first turn has no history (no rewrite, "
          "nothing retrieved for 'and for COD?'), while s1's follow-up is rewritten"),
    _Case("two chunks cited", (("s1", PREPAID),),
          ("5 working days if prepaid, store credit if COD [1][2].",),
          "one run of markers [1][2] cites two chunks: memory keeps '(sources: c1, c2)'"),
    _Case("top_k=1", (("s1", PREPAID),), COD_REPLIES[:1],
          "top_k=1: the search returns one chunk, c1", top_k=1),
    _Case("a history that compacts",
          (("s1", PREPAID), ("s1", COD), ("s1", "and for prepaid?"), ("s1", COD)),
          (COD_REPLIES[0], "cash-on-delivery refund", "They are paid as store credit [1].",
           "prepaid refund", "Five working days [1].", "cash-on-delivery refund",
           "Store credit [1]."),
          "the session's memory (budget 40 tokens, keep_recent=2) compacts while saving "
          "turn 3: from then on its context() holds a summary and the newest turns, and that "
          "is the history the rewrite and the answer prompt get", memory_budget=40,
          keep_recent=2),
    _Case("a rewrite call that raises ConnectionError", (("s1", PREPAID), ("s1", LONG_COD)),
          (COD_REPLIES[0], STORE_CREDIT),
          "turn 2's rewrite call fails with ConnectionError, not a timeout: any failure of "
          "the helper call falls back to the raw question", frozenset({2}),
          part="failure safety", error=ConnectionError),
    _Case("a search that raises", (("s1", PREPAID), ("s1", COD), ("s1", COD)),
          (COD_REPLIES[0], "cash-on-delivery refund", "cash-on-delivery refund",
           COD_REPLIES[1]),
          "turn 2's search raises ConnectionError after its rewrite call: the error "
          "propagates, every memory as it was, and the retry works as if it never happened",
          part="failure safety", search_fails=frozenset({2})),
    _Case("a marker [0]", (("s1", PREPAID),), ("Five working days [0].",),
          "the chunks are numbered from [1], so a draft citing [0] cites nothing that was "
          "shown: the guardrail refuses it", part="edge cases"),
    _Case("white space around the draft", (("s1", PREPAID),),
          ("\n\nPrepaid refunds take 5 working days [1].\n",),
          "the user and memory get check_citations' answer, which strips the draft: a "
          "reply's blank lines are no part of the answer", part="edge cases"),
]


# -- the doubles the checker passes in ----------------------------------------------------
class _Model:
    """The chat model: records every ``(system, user)`` call, then answers from
    ScriptedLLM(replies) wrapped in FailingLLM(fail_on); ``ended`` counts the calls that
    returned or raised.
    A call of another shape raises CheckFailed (kept in ``misuse``)."""

    def __init__(self, case: _Case) -> None:
        script = ScriptedLLM(case.replies)
        error = case.error("model timed out" if case.error is TimeoutError
                           else "model unavailable")
        self.inner = (FailingLLM(script, fail_on=case.fail_on, error=error) if case.fail_on
                      else script)
        self.calls: list[tuple[str, str]] = []
        self.ended = 0
        self.misuse: CheckFailed | None = None

    def __call__(self, *args: object, **kwargs: object) -> str:
        if len(args) != 2 or kwargs or not all(isinstance(a, str) for a in args):
            shown = ", ".join([f"{a!r:.40}" for a in args] + [f"{k}=..." for k in kwargs])
            self.misuse = CheckFailed(
                f"ask called llm({shown}). Hint: the model is a chat model: call it with two "
                f"strings, llm(system, user)")
            raise self.misuse
        self.calls.append((args[0], args[1]))   # type: ignore[arg-type]
        try:
            return self.inner(args[0], args[1])
        finally:
            self.ended += 1


class _Retriever:
    """The keyword retriever over c1 and c2 (query words of 4+ letters); records searches.
    The searches numbered in ``fails`` (1-based) raise ConnectionError, counted in
    ``failed``."""

    def __init__(self, fails: frozenset[int] = frozenset()) -> None:
        self.inner = KeywordRetriever(seed_chunks(), min_len=4)
        self.searches: list[tuple[object, object]] = []
        self.fails, self.failed = fails, 0

    def search(self, query: str, k: int) -> list:
        self.searches.append((query, k))
        if len(self.searches) in self.fails:
            self.failed += 1
            raise ConnectionError("search service unavailable")
        return self.inner.search(query, k)


class _Memory(SummaryMemory):
    """A session memory (summary memory, the case's budget and keep_recent: 500 and 6 but
    in one case). Logs each add with the number of model calls that had ended by then and
    the session whose ask was running."""

    def __init__(self, run: _Run) -> None:
        super().__init__(fact_listing_summariser, budget=run.case.memory_budget,
                         keep_recent=run.case.keep_recent)
        self.run, self.log = run, []

    def add(self, role: str, content: str, **kwargs: object) -> None:
        self.log.append((role, content, self.run.model.ended, self.run.active))
        super().add(role, content, **kwargs)


@dataclass
class _Turn:
    """What one ask did: its result or error, the model calls and searches it made, the
    memory writes ``(role, content, model calls ended, session)``, ``ended``: the model
    calls ended when the ask returned (both counted from the run's start), each session's messages
    after it (None if its writes went to several memories), and the memories written for
    more than one session (their sessions)."""

    result: object = None
    error: BaseException | None = None
    calls: list[tuple[str, str]] = field(default_factory=list)
    searches: list[tuple[object, object]] = field(default_factory=list)
    adds: list[tuple] = field(default_factory=list)
    ended: int = 0
    memories: dict[object, list[dict] | None] = field(default_factory=dict)
    shared: list[list[object]] = field(default_factory=list)
    rewrite_reply: object = None
    search_failed: bool = False


class _Run:
    """One bot over one case: the doubles, every memory made, the session asking now."""

    def __init__(self, case: _Case) -> None:
        self.case, self.model = case, _Model(case)
        self.retriever = _Retriever(case.search_fails)
        self.made: list[_Memory] = []
        self.active: object = None          # the session of the ask running now

    def factory(self) -> _Memory:
        self.made.append(_Memory(self))
        return self.made[-1]

    def ask(self, ask: Callable, session: str, question: str, learner: bool) -> _Turn:
        calls, searches = len(self.model.calls), len(self.retriever.searches)
        failed = self.retriever.failed
        logs = [len(m.log) for m in self.made]
        self.active, turn = session, _Turn()
        try:
            if learner:
                turn.result = call_learner(ask, session, question, name="ask",
                                           shown=f"ask({session!r}, {question!r})",
                                           expected=(Exception,))
            else:
                turn.result = ask(session, question)
        except CheckFailed:
            raise
        except Exception as exc:            # noqa: BLE001 - compared with the kit's run
            turn.error = exc
        finally:
            self.active = None
        if self.model.misuse is not None:
            raise self.model.misuse
        turn.calls, turn.searches = self.model.calls[calls:], self.retriever.searches[searches:]
        turn.ended = self.model.ended
        turn.search_failed = self.retriever.failed > failed
        logs += [0] * (len(self.made) - len(logs))
        turn.adds = [entry for m, n in zip(self.made, logs) for entry in m.log[n:]]
        routes: dict[object, list[_Memory]] = {}
        for memory in self.made:
            sessions = list(dict.fromkeys(entry[3] for entry in memory.log))
            if len(sessions) > 1:
                turn.shared.append(sessions)
            for sid in sessions:
                routes.setdefault(sid, []).append(memory)
        turn.memories = {sid: state(ms[0], f"session {sid!r}'s memory")[1] if len(ms) == 1
                         else None for sid, ms in routes.items()}
        return turn


def _kit_turns(case: _Case) -> list[_Turn]:
    """The reference: the kit's Chatbot on ``case``, turn by turn."""
    run = _Run(case)
    bot = Chatbot(retriever=run.retriever, llm=run.model, memory_factory=run.factory,
                  top_k=case.top_k)
    return [run.ask(bot.ask, sid, q, learner=False) for sid, q in case.turns]


# -- reading the learner's result -----------------------------------------------------------
def _field(result: object, name: str, label: str) -> object:
    value = (result.get(name, _MISSING) if isinstance(result, Mapping)
             else getattr(result, name, _MISSING))
    expect(value is not _MISSING,
           f"{label} should return a dict with keys {', '.join(FIELDS)} (or an object with "
           f"those attributes), got {result!r:.100}"
           + " (does ask end without a `return`?)" * (result is None))
    if name in ("chunk_ids", "cited_ids"):
        expect(isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value),
               f"{label}'s {name} should be a list of chunk ids (str), got {value!r:.80}. "
               f"Hint: take c.id of each chunk")
        return tuple(value)
    expect(isinstance(value, str), f"{label}'s {name} should be a str, got {value!r:.80}")
    return value


def _expected(result: object) -> dict[str, object]:
    return {name: getattr(result, name) for name in FIELDS}


# -- diagnosis ------------------------------------------------------------------------------
_HISTORY = re.compile(r"\AConversation so far:\n(.*?)\n\n(?:Context|Final user question):",
                      re.DOTALL)
_NUMBERED = re.compile(r"^\[(\d+)\] ", re.MULTILINE)
_AFTER = ("write memory only after the model call returned and the guardrail decided "
          "(compute first, commit after)")
_OTHER = ("keep one memory per session, a dict session_id -> memory_factory(), and read "
          "only this session's memory: you used another session's history")


def _history_of(user: str) -> str:
    found = _HISTORY.match(user)
    return found.group(1) if found else ""


def _other_session(user: str, session: str, run: _Run) -> bool:
    """True if the prompt's history shows a question asked in another session only."""
    history = _history_of(user)
    mine = {q for sid, q in run.case.turns if sid == session}
    return any(f"user: {q}" in history and q not in mine
               for sid, q in run.case.turns if sid != session)


def _short(text: object, width: int = 70) -> str:
    text = repr(text)
    return text if len(text) <= width else text[:width - 4] + "...'"


def _line_diff(want: str, got: str) -> tuple[str, str]:
    """``("line N: <want line>", "line N: <got line>")`` at the first line that differs."""
    want_lines, got_lines = want.split("\n"), got.split("\n")
    n = next((i for i, (w, g) in enumerate(zip(want_lines, got_lines)) if w != g),
             min(len(want_lines), len(got_lines)))
    def line(lines: list[str]) -> str:
        return f"line {n + 1} {_short(lines[n], 80)}" if n < len(lines) else f"no line {n + 1}"
    return line(want_lines), line(got_lines)


def _fail(label: str, should: str, got: str, why: str, hint: str) -> None:
    raise CheckFailed(f"{label} should {should}, got {got}. Why: {why}. Hint: {hint}.")


def _count(turn: _Turn, system: str) -> int:
    return sum(call[0] == system for call in turn.calls)


def _calls(turn: _Turn) -> str:
    """``"1 rewrite + 1 answer call"``: the model calls of a turn, counted by kind."""
    return f"{_count(turn, REWRITE_SYSTEM)} rewrite + {_count(turn, SYSTEM_PROMPT)} answer call"


def _prefix(got: _Turn, want: _Turn) -> bool:
    """True if the kinds of the learner's calls begin the kit's (it stopped at an error)."""
    kinds = [call[0] for call in got.calls]
    return kinds == [call[0] for call in want.calls][:len(kinds)]


def _call_advice(want: _Turn, got: _Turn) -> str:
    """What the learner's model calls of a turn got wrong, as advice."""
    rewrites, answers = (_count(got, s) - _count(want, s) for s in (REWRITE_SYSTEM, SYSTEM_PROMPT))
    if rewrites > 0:
        return ("make no rewrite call on a session's first turn (a blank history has nothing "
                "to resolve), and at most one per turn")
    if rewrites < 0:
        return ("this session has history, so rewrite the follow-up into a standalone query "
                "first, rewrite_query(llm, memory.context(), question); keep one memory per "
                "session across its asks, or the history is lost")
    if answers > 0:
        return ("when search returns no chunks, refuse(NOTHING_RETRIEVED) without calling the "
                "model; otherwise one answer call per turn")
    return ("one rewrite call only when there is history, one answer call only when "
            "something was retrieved")


def _compare_error(label: str, want: _Turn, got: _Turn, why: str) -> None:
    if want.error is not None and got.error is None:
        _fail(label, f"raise {type(want.error).__name__} ({want.error})",
              f"a return value {_short(got.result, 60)}", why,
              "let the retriever's exception propagate out of ask: a failed search is not "
              "'nothing retrieved' (a refusal saved for an outage), nothing is saved, and "
              "the caller can retry" if want.search_failed else
              "let the model's exception propagate out of ask (no try/except around the "
              "answer call): nothing is saved, and the caller can retry")
    if got.error is None:
        return
    err = got.error
    raised = f"{type(err).__name__}: {err}"
    if want.error is not None:
        if type(err) is not type(want.error):
            raise CheckFailed(
                f"{label} should raise {type(want.error).__name__} ({want.error}), got "
                f"{raised}. Why: {why}. Hint: let the model's exception propagate "
                f"unchanged, do not wrap it.") from err
        return
    if isinstance(err, ScriptExhaustedError) or not _prefix(got, want):
        hint = (f"ask made other model calls than the kit's run ({_calls(got)}, expected "
                f"{_calls(want)}), so it met a reply or a timeout meant for another call: "
                f"{_call_advice(want, got)}")
    elif isinstance(err, TimeoutError) and any(c[0] == REWRITE_SYSTEM for c in got.calls):
        hint = ("a failed rewrite must not fail the turn: fall back to the raw question when "
                "the rewrite call raises (rewrite_query does)")
    elif got.calls and got.calls[-1][0] == REWRITE_SYSTEM and not got.search_failed:
        hint = (f"fall back to the raw question on any exception of the rewrite call, not "
                f"only TimeoutError: a helper call that fails with {type(err).__name__} must "
                f"not fail the turn either (rewrite_query catches Exception)")
    elif any(not isinstance(q, str) for q, _ in got.searches):
        hint = ("search with a str query: clean_query returns (None, reason) for a rejected "
                "reply, and then the raw question is the query")
    else:
        hint = "run that ask yourself to see the whole traceback"
    raise CheckFailed(f"{label} raised {raised}. Why: {why}. Hint: {hint}.") from err


def _compare_routes(label: str, session: str, got: _Turn, why: str) -> None:
    if got.shared:
        _fail(label, "write each session's turns to its own memory",
              f"one memory holding the turns of sessions {', '.join(map(repr, got.shared[0]))}",
              why, _OTHER)
    if got.memories.get(session, []) is None:
        _fail(label, f"keep one memory for session {session!r}",
              "its turns written to several memories", why,
              "make a session's memory on its first ask and keep it (one memory per "
              "session, a dict session_id -> memory): a new memory forgets the history")


def _compare_rewrite(label: str, question: str, session: str, want: _Turn, got: _Turn,
                     run: _Run, why: str) -> None:
    want_rw = [c for c in want.calls if c[0] == REWRITE_SYSTEM]
    got_rw = [c for c in got.calls if c[0] == REWRITE_SYSTEM]
    if got_rw and not want_rw:
        if _other_session(got_rw[0][1], session, run):
            _fail(label, "make no rewrite call (this session has no history yet)",
                  f"a rewrite call whose history is {_short(_history_of(got_rw[0][1]))}",
                  why, _OTHER)
        _fail(label, "make no rewrite call", f"{len(got_rw)} rewrite call(s)",
              "the first turn of a session has no history, so nothing to resolve",
              "rewrite only when the session's memory.context() is not blank "
              "(rewrite_query makes no call for a blank history)")
    if len(got_rw) != len(want_rw):
        want_q = want.searches[0][0] if want.searches else question
        got_q = got.searches[0][0] if got.searches else "(no search)"
        _fail(label, f"rewrite the follow-up once and send {want_q!r} to retrieval",
              f"{len(got_rw)} rewrite calls and the query {_short(got_q)}",
              f"retrieval sees only the query, and {question!r} leans on the history",
              "with history, rewrite the follow-up into a standalone query first: "
              "rewrite_query(llm, memory.context(), question)")
    for (_, want_user), (_, got_user) in zip(want_rw, got_rw):
        if got_user != want_user:
            compacted = any(m.summary for m in run.made if any(e[3] == session for e in m.log))
            hint = (_OTHER if _other_session(got_user, session, run) else
                    "the history is the session memory's context(), which holds a summary "
                    "once the memory compacts: read it from the memory on every turn, not "
                    "from a transcript of your own" if compacted else
                    "call llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question)) with "
                    "history = this session's memory.context() (rewrite_query does)")
            want_line, got_line = _line_diff(want_user, got_user)
            _fail(label, f"send the rewrite call a user message with {want_line}", got_line,
                  why, hint)


def _compare_search(label: str, question: str, want: _Turn, got: _Turn, why: str) -> None:
    if len(got.searches) != len(want.searches):
        _fail(label, f"call retriever.search {len(want.searches)} time(s)",
              f"{len(got.searches)}", why,
              "search once per turn, retriever.search(query, top_k)")
    for (want_q, want_k), (got_q, got_k) in zip(want.searches, got.searches):
        if got_q != want_q:
            reply = got.rewrite_reply
            if isinstance(got_q, str) and not got_q.strip():
                hint = ("an empty query retrieves nothing: when clean_query rejects the "
                        "reply, fall back to the raw question")
            elif isinstance(reply, str) and got_q in (reply, reply.strip()):
                hint = ("the rewrite reply is junk: check it with clean_query(reply) and fall "
                        "back to the raw question when it is rejected (rewrite_query does)")
            elif got_q == question:
                hint = "send the rewritten query to retrieval, not the question"
            else:
                hint = "send rewrite_query(llm, memory.context(), question).query"
            _fail(label, f"send the query {want_q!r} to retrieval", _short(got_q), why, hint)
        if got_k != want_k:
            _fail(label, f"search with k={want_k} (top_k)", f"k={got_k!r}", why,
                  "call retriever.search(query, self.top_k)")


def _compare_answer_call(label: str, question: str, session: str, want: _Turn, got: _Turn,
                         run: _Run, why: str) -> None:
    others = [c for c in got.calls if c[0] not in (REWRITE_SYSTEM, SYSTEM_PROMPT)]
    if others:
        _fail(label, "call the model with REWRITE_SYSTEM or SYSTEM_PROMPT as the system prompt",
              f"the system prompt {_short(others[0][0], 60)}", why,
              "the answer call is llm(SYSTEM_PROMPT, build_answer_prompt(history, chunks, "
              "question))")
    want_a = [c for c in want.calls if c[0] == SYSTEM_PROMPT]
    got_a = [c for c in got.calls if c[0] == SYSTEM_PROMPT]
    if got_a and not want_a:
        _fail(label, "make no answer call (nothing was retrieved)", f"{len(got_a)} answer call",
              "with no chunks there is nothing to answer from",
              "when search returns no chunks, refuse(NOTHING_RETRIEVED) without calling the model")
    if len(got_a) != len(want_a):
        _fail(label, "call the model once to answer", f"{len(got_a)} answer calls", why,
              "one call llm(SYSTEM_PROMPT, build_answer_prompt(history, chunks, question)) "
              "when something was retrieved")
    for (_, want_user), (_, got_user) in zip(want_a, got_a):
        if got_user == want_user:
            continue
        numbers = [int(n) for n in _NUMBERED.findall(got_user.partition("Context:\n")[2])]
        if numbers and numbers[0] == 0:
            hint = ("off by one: number the chunks from [1] (number_chunks or "
                    "build_answer_prompt does), so marker [n] is chunks[n - 1]")
        elif _other_session(got_user, session, run):
            hint = _OTHER
        elif not got_user.rstrip().endswith(f"Question: {question.strip()}"):
            hint = ("the answer prompt ends with the user's original question, not the "
                    "rewritten query")
        elif _history_of(got_user) != _history_of(want_user):
            hint = ("the answer prompt starts with this session's history, "
                    "memory.context(), read before the turn (a summary and the newest turns "
                    "once the memory compacts)")
        else:
            hint = "build the user message with build_answer_prompt(history, chunks, question)"
        want_line, got_line = _line_diff(want_user, got_user)
        _fail(label, f"send the answer call a user message with {want_line}", got_line, why,
              hint)


def _memory_change(want: dict, got: dict) -> str:
    for sid in sorted(set(want) | set(got), key=str):
        w, g = want.get(sid) or [], got.get(sid) or []
        if w != g:
            last = _short(g[-1]["content"], 60) if g else "none"
            return f"session {sid}'s memory holding {len(g)} messages, not {len(w)} (last: {last})"
    return "a different memory"


def _compare_failed_memory(label: str, want: _Turn, got: _Turn, why: str) -> None:
    if got.memories != want.memories:
        _fail(label, "leave every memory as it was (the turn failed)",
              _memory_change(want.memories, got.memories), why,
              f"a failing model call must not leave an orphan question: {_AFTER}")


def _compare_order(label: str, got: _Turn) -> None:
    early = [(role, text) for role, text, ended, _ in got.adds if ended < got.ended]
    if early:
        role, text = early[0]
        _fail(label, "write memory after the model calls of the turn returned",
              f"memory.add({role!r}, {_short(text, 50)}) before a model call returned",
              "had that call failed, the memory would keep a question without its answer",
              _AFTER)


def _shifted(cited: tuple, result: object) -> bool:
    """True if ``cited`` is what marker n -> chunks[n] (0-based) would give."""
    ids = list(result.chunk_ids)
    markers = [c.marker for c in result.citations.citations]
    return bool(markers) and cited == tuple(dict.fromkeys(ids[m] for m in markers
                                                          if m < len(ids)))


def _compare_result(label: str, want: _Turn, got: _Turn, why: str) -> dict:
    expected = _expected(want.result)
    values = {name: _field(got.result, name, label) for name in FIELDS}
    answer, verdict, draft = expected["answer"], want.result.guardrail, want.result.draft
    if values["answer"] != answer:
        if not verdict.passed and draft is not None and values["answer"] == draft.strip():
            hint = ("the guardrail refuses this draft: show check_citations(draft, "
                    "parse_citations(draft, chunks)).answer")
            if verdict.reason.startswith("invalid marker [0]"):
                hint = (f"[0] names no chunk: markers are 1-based, valid markers are 1 <= n "
                        f"<= len(chunks); {hint}")
            elif verdict.reason.startswith("invalid marker"):
                hint = f"the draft cites a chunk that was not retrieved; {hint}"
            _fail(label, f"answer {answer!r} ({verdict.reason})", _short(values["answer"]),
                  "an answer the shown chunks do not back must not reach the user", hint)
        if isinstance(values["answer"], str) and values["answer"].strip() == answer:
            _fail(label, f"answer {answer!r}", _short(values["answer"]), why,
                  "show the draft stripped of the white space around it: "
                  "check_citations(draft, parse_citations(draft, chunks)).answer")
        _fail(label, f"answer {answer!r}", _short(values["answer"]), why,
              "the user sees check_citations(draft, parse_citations(draft, chunks)).answer, "
              "or refuse(NOTHING_RETRIEVED).answer when nothing was retrieved")
    for name, hint in (("query", "return the query you sent to retrieval"),
                       ("chunk_ids", "return the ids of the retrieved chunks, in rank order"),
                       ("cited_ids", "return parse_citations(draft, chunks).chunk_ids "
                                     "(() when nothing was retrieved)")):
        if values[name] != expected[name]:
            if name == "cited_ids" and _shifted(values[name], want.result):
                hint = "off by one: marker [n] is chunks[n - 1] (parse_citations does that)"
            _fail(label, f"return {name}={expected[name]!r}", f"{values[name]!r}", why, hint)
    return values


def _compare_memory(label: str, session: str, want: _Turn, got: _Turn, why: str) -> None:
    if got.memories == want.memories:
        return
    sid = next(s for s in sorted(set(want.memories) | set(got.memories), key=str)
               if want.memories.get(s) != got.memories.get(s))
    mine, expected = got.memories.get(sid) or [], want.memories.get(sid) or []
    saved = want.result.saved_answer
    got_saved = next((text for role, text, *_ in reversed(got.adds) if role == "assistant"),
                     None)
    if sid != session:
        hint = f"this turn wrote to session {sid}'s memory: {_OTHER}"
    elif got_saved is not None and got_saved != saved and saved == REFUSAL:
        hint = ("memory must hold what the user saw: save the refusal, not the draft the "
                "guardrail refused (write memory after the guardrail)")
    elif got_saved is not None and re.search(r"\[\d+\]", got_saved) and "(source" in saved:
        hint = ("save markers_to_ids(answer, chunks): [1] means this turn's first chunk, so "
                "memory keeps '(source: c1)' instead")
    elif not got.adds:
        hint = ("save the turn: memory.add('user', question), then memory.add('assistant', "
                "markers_to_ids(answer, chunks)), the refusal included")
    else:
        hint = ("add the question, then markers_to_ids(answer, chunks), once each, to this "
                "session's memory")
    n = next((i for i, (w, g) in enumerate(zip(expected, mine)) if w != g),
             min(len(expected), len(mine)))
    def message(messages: list[dict]) -> str:
        if n >= len(messages):
            return f"{len(messages)} messages"
        return f"message {n + 1} {messages[n]['role']}: {_short(messages[n]['content'], 80)}"
    _fail(label, f"leave session {sid}'s memory with {message(expected)}", message(mine),
          why, hint)


def _compare(label: str, question: str, session: str, want: _Turn, got: _Turn, run: _Run,
             why: str) -> dict | None:
    """Compare one turn; the fields the learner returned (None for a turn that raised)."""
    _compare_error(label, want, got, why)
    _compare_routes(label, session, got, why)
    _compare_rewrite(label, question, session, want, got, run, why)
    _compare_search(label, question, want, got, why)
    _compare_answer_call(label, question, session, want, got, run, why)
    if want.error is not None:
        _compare_failed_memory(label, want, got, why)
        return None
    _compare_order(label, got)
    values = _compare_result(label, want, got, why)
    _compare_memory(label, session, want, got, why)
    return values


def _compare_kept(case: _Case, kept: list[tuple[int, str, object, dict]]) -> None:
    """Every turn's result, read again at the end of ``case``, still holds what it held
    when its ask returned."""
    for n, label, result, values in kept:
        for name in FIELDS:
            now = _field(result, name, label)
            if now != values[name]:
                _fail(f"{case.name}, turn {n}", f"still return {name}={values[name]!r} "
                      f"after the later turns", f"{_short(now)} when read again",
                      "the caller keeps each turn's result (a transcript, the sources "
                      "shown), and a later ask must not change it",
                      "return a new dict with new lists on every ask: never one result "
                      "object (or one list) updated turn after turn")


# -- the cases ------------------------------------------------------------------------------
_QUESTIONS = (PREPAID, COD, LONG_COD, "What about store credit?", "thanks!")
_REWRITES = ("cash-on-delivery refund", "prepaid refund", '"store credit"', "",
             "Sure, I can help with that!", "Here is the query: prepaid refund time")
_DRAFTS = ("Five working days [1].", "Store credit [2].", "Both apply [1][2].", "No idea.",
           "See [3].", "Credit [1], days [2].")


def _random_case(rng: random.Random, number: int) -> _Case:
    """Five turns over two sessions; the kit's run draws each model reply (or a timeout,
    one call in six) from small pools, and the draws become the script."""
    turns = tuple((rng.choice(("s1", "s2")), rng.choice(_QUESTIONS)) for _ in range(5))
    replies: list[str] = []
    fail_on: set[int] = set()

    def model(system: str, user: str) -> str:
        if rng.random() < 1 / 6:
            fail_on.add(len(replies) + len(fail_on) + 1)
            raise TimeoutError("model timed out")
        replies.append(rng.choice(_REWRITES if system == REWRITE_SYSTEM else _DRAFTS))
        return replies[-1]

    top_k = rng.choice((1, 2, 5))
    bot = Chatbot(_Retriever(), model, top_k=top_k,
                  memory_factory=lambda: SummaryMemory(fact_listing_summariser, budget=500))
    for sid, question in turns:
        try:
            bot.ask(sid, question)
        except TimeoutError:
            pass
    return _Case(f"random conversation {number} (seed {_SEED})", turns, tuple(replies),
                 "the same as kit.rag.Chatbot on a random conversation", frozenset(fail_on),
                 top_k, "complexity")


def _script_reply(case: _Case, call: int) -> object:
    """The reply the script gives to model call ``call`` (1-based): None for a failing call
    or past the script's end."""
    if call in case.fail_on:
        return None
    index = call - 1 - sum(1 for f in case.fail_on if f < call)
    return case.replies[index] if 0 <= index < len(case.replies) else None


def _build(cls: object, run: _Run) -> object:
    expect(callable(cls), f"check_chatbot_turn takes your class, got {cls!r:.80}")
    name = getattr(cls, "__name__", "your class")
    bot = call_learner(lambda: cls(retriever=run.retriever, llm=run.model,
                                   memory_factory=run.factory, top_k=run.case.top_k),
                       name=name, shown=f"{name}(retriever=..., llm=..., memory_factory=..., "
                                        f"top_k={run.case.top_k})")
    expect(callable(getattr(bot, "ask", None)),
           f"{name}(...) has no ask method: write ask(self, session_id, question)")
    return bot


def _replay(cls: object, case: _Case) -> int:
    """Run ``case`` through the kit's Chatbot, then the learner's class; compare each turn."""
    want_turns = _kit_turns(case)
    run = _Run(case)
    bot = _build(cls, run)
    kept = []
    for n, ((sid, question), want) in enumerate(zip(case.turns, want_turns), 1):
        before = len(run.model.calls)
        got = run.ask(bot.ask, sid, question, learner=True)
        first_rewrite = next((i for i, c in enumerate(got.calls) if c[0] == REWRITE_SYSTEM), None)
        if first_rewrite is not None:
            got.rewrite_reply = _script_reply(case, before + first_rewrite + 1)
        label = f"{case.name}, turn {n}: ask({sid!r}, {question!r})"
        values = _compare(label, question, sid, want, got, run, case.why)
        if values is not None:
            kept.append((n, label, got.result, values))
    _compare_kept(case, kept)
    return len(case.turns)


def _check_part(cls: object, part: str) -> int:
    """Replay the cases of rubric part ``part`` (the random conversations are the
    complexity part); return the turns that passed (all, or CheckFailed at the first
    that fails)."""
    if part == "complexity":
        rng = random.Random(_SEED)
        cases = [_random_case(rng, n) for n in range(1, _RANDOM_CONVERSATIONS + 1)]
    else:
        cases = [case for case in _CASES if case.part == part]
    return sum(_replay(cls, case) for case in cases)


def check_chatbot_turn_correctness(cls: object) -> int:
    """The lesson's "and for COD?" trace, two sessions, two chunks cited at once,
    ``top_k=1`` and a session memory that compacts (its context() then holds a summary),
    compared turn by turn with the kit's Chatbot. Returns the turns (11)."""
    return _check_part(cls, "correctness")


def check_chatbot_turn_failure_safety(cls: object) -> int:
    """A rewrite call that raises, a TimeoutError then a ConnectionError (the raw question
    is the fallback), answer calls that raise (the TimeoutError propagates, every memory
    as it was, memory written only after the turn's calls returned; the retry works) and
    a search that raises after the rewrite call (it propagates, every memory as it was).
    Returns the turns (11)."""
    return _check_part(cls, "failure safety")


def check_chatbot_turn_edge_cases(cls: object) -> int:
    """A junk and an empty rewrite (rejected: the raw question goes to retrieval), the
    guardrail's refusals (no citation, a marker past the chunks shown, a valid marker
    mixed with one, a marker [0]): the user and memory get the refusal; a draft with white
    space around it is shown and saved stripped. Returns the turns (9)."""
    return _check_part(cls, "edge cases")


def check_chatbot_turn_complexity(cls: object) -> int:
    """The model calls of each turn counted against the kit's Chatbot on 12 seeded random
    conversations (timeouts and refusals included): one rewrite call only when the
    session has history, one answer call only when something was retrieved, none
    otherwise; then the rest of the turn as in the other parts. Returns the turns (60)."""
    return _check_part(cls, "complexity")


def check_chatbot_turn(cls: object) -> None:
    """Check the learner's chatbot class (see the module docstring): the four parts above,
    in order (correctness, failure safety, edge cases, complexity); print one pass line
    or raise CheckFailed naming the case and the turn.

    Rejects: memory written before the model call returned, or a draft saved before the
    guardrail refused it; a failing rewrite call that fails the turn (a timeout or another
    error), and a junk or empty rewrite sent to retrieval; no rewrite on a follow-up; a
    rewrite call on a session's first turn; another session's memory; citations not
    checked against the chunks shown, a marker [0] let through; chunks numbered from [0]
    (off by one); markers saved instead of chunk ids; a draft not stripped; a model or
    search error swallowed instead of propagated; a model call when nothing was
    retrieved; one result object reused across asks.
    """
    passed("chatbot turn", judge(_all_parts, cls, MECHANISM, RULES))


def _all_parts(cls: object) -> int:
    """Every part, unjudged, in order: the turns passed."""
    return sum(part.raw(cls) for part in (
        check_chatbot_turn_correctness, check_chatbot_turn_failure_safety,
        check_chatbot_turn_edge_cases, check_chatbot_turn_complexity))


MECHANISM = "chatbot turn"           # its wrong answers in kit.mistakes
#: The rule of the spec each kind of failure breaks (stated when no registered mistake
#: reproduces the learner's outputs: :mod:`kit.checks.hints`).
RULES = (
    (r"after the later turns", "ask returns a new result on every call, which later asks "
                               "leave as it was"),
    (r"should raise|raised", "an error of the answer call or of the search propagates out of "
                             "ask, every memory as it was; a rewrite call that raises any "
                             "exception falls back to the raw question"),
    (r"send the rewrite call a user message", "the rewrite call's user message is "
                                              "build_rewrite_prompt(history, question), history "
                                              "= this session's memory.context() read before "
                                              "the turn (a summary and the newest turns once "
                                              "the memory compacts)"),
    (r"send the answer call a user message", "the answer call's user message is "
                                             "build_answer_prompt(history, chunks, question): "
                                             "this session's memory.context() read before the "
                                             "turn, the chunks numbered from [1], the user's "
                                             "own question"),
    (r"should leave session \S+ memory with", "after the turn's model calls returned and "
                                              "the guardrail decided, the session's memory "
                                              "gets the question and the answer the user got, "
                                              "with the ids its valid markers cite "
                                              "(markers_to_ids)"),
    (r"memor", "one memory per session (memory_factory()), written only after the turn's "
               "model calls returned and the guardrail decided: the question and the answer "
               "the user got"),
    (r"rewrite", "a rewrite call only when the session has history; a junk or empty rewrite "
                 "is rejected and the raw question goes to retrieval"),
    (r"search|send the query|retriev", "retriever.search(query, top_k) once per turn, with the "
                                       "rewritten query (or the raw question)"),
    (r"answer call|call the model", "one answer call llm(SYSTEM_PROMPT, build_answer_prompt("
                                    "history, chunks, question)) when something was "
                                    "retrieved, none otherwise"),
    (r"should answer|return answer", "the user gets check_citations(draft, "
                                     "parse_citations(draft, chunks)).answer: the draft, "
                                     "stripped, when its markers [n] are valid (1 <= n <= "
                                     "len(chunks)), the refusal otherwise"),
    (r"return (query|chunk_ids|cited_ids)", "the result holds the query sent to retrieval, "
                                            "the ids of the chunks shown and the ids the "
                                            "draft's valid markers cite"),
)
_judged = judged(MECHANISM, RULES)
check_chatbot_turn_correctness = _judged(check_chatbot_turn_correctness)
check_chatbot_turn_failure_safety = _judged(check_chatbot_turn_failure_safety)
check_chatbot_turn_edge_cases = _judged(check_chatbot_turn_edge_cases)
check_chatbot_turn_complexity = _judged(check_chatbot_turn_complexity)
