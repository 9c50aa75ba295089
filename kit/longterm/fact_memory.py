"""Fact memories behind the learner protocol: ``add``, ``context``, ``messages``, ``size``.

:class:`FactMemory` (the temporal fact memory of lesson 12) runs every added turn
through the write path of :class:`~kit.longterm.facts.FactTable` and builds a context
of two budget parts, through the kit's allocator (:func:`kit.memory.budget.allocate`,
so :meth:`FactMemory.allocation` reports them like any other memory's parts):

- **facts** (priority 2): what the question needs: the facts valid *on a date* when the
  query names one ("Where did Maya live on 3 March, 2023?"), every fact with its
  interval when it asks for a history ("in order", "over time"), else the current
  facts; each one line, newest first, the section title paid once;
- **recent** (priority 1, contiguous): the newest turns verbatim, at most ``keep_recent``.

Two baselines share the frame and the extractor but not the write path (lesson 12 shows
what each gets wrong): :class:`AppendOnlyFacts` keeps a line for every fact ever said
(denials included), :class:`OverwriteFacts` keeps only the newest value per attribute
and forgets it when it is denied. Sizes are in the measure's unit (tokens by default):
each line and turn is measured once, and a context's size is the whole text measured
(``context_size``), the rule the evaluation calls "rendered".
"""
from __future__ import annotations

import re
from dataclasses import replace
from collections.abc import Callable

from kit.longterm.fact_rules import extract_by_rules, extract_with_model
from kit.longterm.fact_store import FactStore
from kit.longterm.facts import Candidate, Fact, FactTable
from kit.memory.budget import Allocation, Part, allocate
from kit.messages import Message, check_role
from kit.ranking import parse_session_date
from kit.store import check_session
from kit.tokens import Measure, cl100k_tokens
from kit.validation import check_budget, check_int

__all__ = ["FactMemory", "AppendOnlyFacts", "OverwriteFacts", "HISTORY_WORDS", "RESERVE",
           "query_mode"]

HISTORY_WORDS = re.compile(r"\b(?:in order|over time|history|so far|first to last)\b", re.I)
RESERVE = 16            # tokens kept free by default: lines measured apart may join into more


def query_mode(query: str | None) -> tuple[str, str]:
    """``("as_of", ISO date)`` when the query names a date, ``("history", "")`` when it
    asks for one (:data:`HISTORY_WORDS`), else ``("current", "")``."""
    if query:
        day = parse_session_date(query)
        if day is not None:
            return "as_of", day.isoformat()
        if HISTORY_WORDS.search(query):
            return "history", ""
    return "current", ""


class _FactFrame:
    """The protocol and the context of a fact memory; subclasses keep the facts."""

    name = "fact memory"
    titles = {"current": "Known facts (now):", "as_of": "Known facts on {day}:",
              "history": "Known facts, every value with its dates:"}

    def __init__(self, budget: int = 2000, measure: Measure = cl100k_tokens, *,
                 keep_recent: int = 6, extractor: Callable[[str], str] | None = None,
                 speakers: tuple[str, ...] = (), reserve: int = RESERVE) -> None:
        self.budget = check_budget(budget)
        self.reserve = check_int("reserve", reserve, 0)
        self.keep_recent = check_int("keep_recent", keep_recent, 0)
        if not callable(measure):
            raise TypeError(f"measure must be callable str -> int, got {measure!r:.60}")
        if extractor is not None and not callable(extractor):
            raise TypeError(f"extractor must be callable prompt -> reply or None, got "
                            f"{extractor!r:.60}")
        self.measure, self.extractor, self.speakers = measure, extractor, tuple(speakers)
        self.turns: list[Message] = []          # the newest keep_recent turns
        self.added = self.model_calls = self.extractor_fallbacks = 0
        self._sizes: dict[str, int] = {}

    # -- adding -------------------------------------------------------------------------
    def add(self, role: str, content: str, *, speaker: str | None = None,
            when: str | None = None) -> list[Candidate]:
        """Add one turn: keep it among the recent ones, extract its candidate facts and
        write them. ``when``: the turn's date as text ("8 May, 2023"; a fact's dates come
        from it). Returns the candidates. Raises TypeError/ValueError naming a bad role
        or a content that is not a str (nothing changes then)."""
        check_role(role)
        if not isinstance(content, str):
            raise TypeError(f"content must be a str, got {type(content).__name__}")
        day = parse_session_date(when) if when else None
        subject = speaker or ("user" if role == "user" else "assistant")
        number = self.added + 1
        iso = day.isoformat() if day else ""
        self._keep(Message(role, content, 0, number, speaker or "", when or ""))
        if self.extractor is not None:
            self.model_calls += 1
            candidates, by_model = extract_with_model(self.extractor, content, subject,
                                                      source=(number,), when=iso,
                                                      speakers=self.speakers,
                                                      known=self._known(subject))
            self.extractor_fallbacks += not by_model
        else:
            candidates = extract_by_rules(content, subject, source=(number,), when=iso,
                                          speakers=self.speakers, known=self._known(subject))
        self._take(candidates)
        self.added = number
        self._recent(Message(role, content, 0, number, speaker or "", when or ""))
        return candidates

    def _recent(self, message: Message) -> None:
        """Keep ``message`` among the newest ``keep_recent`` turns, rendered and measured."""
        text = f"{message.speaker}: {message.content}" if message.speaker else message.content
        self.turns = (self.turns + [replace(message, content=text, tokens=self._size(text))]
                      )[-self.keep_recent:] if self.keep_recent else []

    def _keep(self, message: Message) -> None:
        """Where a memory with a store writes the turn (nothing here)."""

    def _take(self, candidates: list[Candidate]) -> None:
        raise NotImplementedError

    def _known(self, subject: str) -> dict[str, str] | None:
        """The subject's current values the extractor may see (value -> attribute)."""
        return None

    def _lines(self, mode: str, day: str) -> list[str]:
        raise NotImplementedError

    # -- the context --------------------------------------------------------------------
    def _size(self, text: str) -> int:
        size = self._sizes.get(text)
        if size is None:
            size = self._sizes[text] = self.measure(text)
        return size

    def _plan(self, query: str | None) -> tuple[str, list[str], list[Message], Allocation]:
        mode, day = query_mode(query)
        title = self.titles[mode].format(day=day)
        lines = self._lines(mode, day)
        recent = self.turns[::-1]
        parts = [Part("facts", [self._size(line) for line in lines], 2,
                      overhead=self._size(title), why=f"{mode} facts"),
                 Part("recent", [m.tokens for m in recent], 1, contiguous=True,
                      why=f"keep_recent={self.keep_recent}")]
        allocation = allocate(max(0, self.budget - self.reserve), parts, getattr(
            self.measure, "unit", "tokens"))
        return title, lines, recent, allocation

    def allocation(self, query: str | None = None) -> Allocation:
        """The budget report of the context for ``query``: parts "facts" and "recent"."""
        return self._plan(query)[3]

    def context(self, query: str | None = None) -> str:
        """The facts the query needs (titled), then the recent turns, oldest first,
        within the budget (in the measure's unit)."""
        title, lines, recent, allocation = self._plan(query)
        facts = [lines[i] for i in sorted(allocation.given("facts"))]
        turns = [recent[i].content for i in sorted(allocation.given("recent"), reverse=True)]
        blocks = ([title + "\n" + "\n".join(facts)] if facts else []) + \
            (["\n".join(turns)] if turns else [])
        return "\n\n".join(blocks)

    def context_size(self, query: str | None = None) -> int:
        """The context's size, the whole text measured (one measure call)."""
        return self.measure(self.context(query))

    recount = context_size

    def messages(self, query: str | None = None) -> list[dict[str, str]]:
        """The context as one system message (an empty list when there is none)."""
        text = self.context(query)
        return [{"role": "system", "content": text}] if text else []

    @property
    def size(self) -> int:
        """The size of the context with no query (current facts and recent turns)."""
        return self.context_size()


def _interval(fact: Fact) -> str:
    start = fact.valid_from or "?"
    if fact.valid_to is None:
        return f"since {start}"
    return f"{start} to {fact.valid_to or '?'}, {fact.status}"


class FactMemory(_FactFrame):
    """The temporal fact memory (see the module docstring).

    ``budget``: tokens (int >= 0) for facts and recent turns together; ``measure``:
    ``str -> int``; ``keep_recent``: recent turns kept verbatim (int >= 0);
    ``extractor``: a model ``prompt -> JSON`` (:mod:`kit.longterm.fact_rules`; None:
    the rules); ``decider``: a model for the decisions (:class:`FactTable`; None: the
    rules); ``speakers``: names never taken as fact values; ``reserve``: units of the
    budget kept free (int >= 0, default :data:`RESERVE`: the facts and turns are measured
    one line at a time, and the joined text may take a few more tokens); ``store`` and
    ``session_id``: a :class:`~kit.longterm.fact_store.FactStore` to write every
    decision to, and its turns to the transcript (at construction the session's facts,
    message count and recent turns are loaded from it). Raises
    TypeError/ValueError naming a bad argument.
    """

    name = "temporal fact memory"

    def __init__(self, budget: int = 2000, measure: Measure = cl100k_tokens, *,
                 keep_recent: int = 6, extractor: Callable[[str], str] | None = None,
                 decider: Callable[[str], str] | None = None, speakers: tuple[str, ...] = (),
                 store: FactStore | None = None, session_id: str = "default",
                 reserve: int = RESERVE) -> None:
        super().__init__(budget, measure, keep_recent=keep_recent, extractor=extractor,
                         speakers=speakers, reserve=reserve)
        if store is not None and not isinstance(store, FactStore):
            raise TypeError(f"store must be a kit.longterm.fact_store.FactStore, got {store!r:.60}")
        check_session(session_id)
        writer = None if store is None else (lambda rows: store.save_facts(session_id, rows))
        self.table = FactTable(decider, writer=writer)
        self.store, self.session_id = store, session_id
        if store is not None:
            self.table.load(store.load_facts(session_id))
            self.added = store.last(session_id)
            first = max(1, self.added - self.keep_recent + 1)
            for message in store.turns(session_id, first) if self.keep_recent else ():
                self._recent(message)

    def _keep(self, message: Message) -> None:
        """With a store: the turn goes into the transcript first (the source of truth,
        numbered as the facts' provenance), then its facts are written, one transaction
        per decision. A fact write that fails leaves the turn stored and propagates."""
        if self.store is not None:
            self.store.append(self.session_id,
                              replace(message, tokens=self.measure(message.content)))

    @property
    def model_calls_total(self) -> int:
        return self.model_calls + self.table.model_calls

    def _take(self, candidates: list[Candidate]) -> None:
        for candidate in candidates:
            self.table.write(candidate)

    def _known(self, subject: str) -> dict[str, str]:
        """The write path retrieves what is stored before it reads a turn (mem0's
        design): a change that names only the old value ("We swapped Lisbon for Bergen")
        is read from the stored fact's attribute."""
        return {f.value: f.attribute for f in self.table.current() if f.subject == subject}

    def _lines(self, mode: str, day: str) -> list[str]:
        if mode == "as_of":
            facts = self.table.as_of(day)
        elif mode == "history":
            facts = list(self.table.facts.values())
        else:
            facts = self.table.current()
        if mode == "history":
            return [f"- {f.text} ({_interval(f)})" for f in reversed(facts)]
        return [f"- {f.text} (since {f.valid_from or '?'})" for f in reversed(facts)]


class AppendOnlyFacts(_FactFrame):
    """Every fact ever said, one line each with its date, denials as "no longer" lines:
    nothing is ever replaced, so old values stay beside new ones."""

    name = "append-only facts"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.said: list[Candidate] = []

    def _take(self, candidates: list[Candidate]) -> None:
        self.said += candidates

    def _lines(self, mode: str, day: str) -> list[str]:
        return [f"- {c.subject}'s {c.attribute}: {'no longer ' if c.negated else ''}{c.value}"
                f" (said {c.when or '?'})" for c in reversed(self.said)]


class OverwriteFacts(_FactFrame):
    """Only the newest value of each attribute, forgotten when it is denied: right
    about now, blind to the past, and a second allergy replaces the first."""

    name = "overwrite facts"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.latest: dict[tuple[str, str], Candidate] = {}

    def _take(self, candidates: list[Candidate]) -> None:
        for c in candidates:
            key = (c.subject, c.attribute)
            if not c.negated:
                self.latest[key] = c
            elif key in self.latest and self.latest[key].value.lower() == c.value.lower():
                del self.latest[key]

    def _lines(self, mode: str, day: str) -> list[str]:
        return [f"- {c.text} (said {c.when or '?'})" for c in reversed(self.latest.values())]
