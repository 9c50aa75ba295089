"""Recall memory: keep the raw transcript and go back to it.

A window forgets and a summary compresses. Recall memory, after the summary-memory lesson
and the context-handling post, keeps every turn and, for each question, brings back the
older turns that match it::

    context = [summary] + [older turns recalled by relevance] + [recent turns, verbatim]

all inside one token ``budget``, split by the allocator (:mod:`kit.memory.budget`):

- protected: the system prompt, the question (when passed as ``query``: counted, not
  shown), the ``reserve`` for the reply and the ``keep_recent`` newest turns;
- then the running summary (only with a ``summariser``);
- then the recalled turns, best match first, each as long as it fits (at most what the
  summary and the recent window leave);
- then the rest of the recent window (at most ``recent`` tokens of turns).

Every line keeps its speaker (``"Caroline: ..."``), and the relative times it resolves
(``"(yesterday = 7 May 2023)"``). Recalled turns are shown in time order, under their
session's day (``[8 May, 2023]``), and so are recent turns that have a date. Which older
turns come back is decided by :class:`kit.memory.recall_search.RecallSearch`: by default
lexical, BM25 over the turns that left the recent window
(:class:`kit.memory.turn_index.TurnIndex`, updated one turn at a time, each turn indexed
with its speaker and dates), with the question as the query (default: the newest user
message), expanded by pseudo-relevance feedback and fused by rank with its parts and,
when the ``semantic`` extra is installed, with a dense ranking by the packaged MiniLM
(``search=RecallSearch(embedder=None)``: BM25 alone); another embedder or a model that
splits the question are options. With ``fuse_recent``
the ranking is also fused with a query made of the recent turns. No network unless a
model given says so. How the budget is split and the context rendered is in
:mod:`kit.memory.recall_plan`.

The transcript lives in a :mod:`kit.store` when one is attached
(:func:`kit.persistence.attach_store`: turns that leave the window are read back from
it; :func:`kit.persistence.restore` rebuilds the index from it),
else in the memory itself. Measured on LoCoMo (Maharana et al., ACL 2024) by
:mod:`kit.memory_eval`.
"""
from __future__ import annotations

from collections.abc import Sequence

from kit.llm import PromptModel
from kit.memory.base import Memory
from kit.memory.budget import Allocation, Part
from kit.memory.compaction import Backoff, CallSlots, Compactor, check_timeout
from kit.memory.recall_plan import (RECALLED_TITLE, RECENT_TITLE, Candidates, RecallPlan,
                                    date_line, decide, render_context, render_messages)
from kit.memory.recall_search import RecallSearch
from kit.memory.turn_index import TurnIndex
from kit.messages import Message, indent_continuation, span, speaker_in_text
from kit.prompts import SUMMARY_PROMPT, SUMMARY_TITLE
from kit.ranking.column import Column
from kit.tokens import Measure, cl100k_tokens, measured
from kit.validation import check_budget, check_flag, check_int

__all__ = ["RecallMemory", "RecallPlan", "RECALLED_TITLE", "RECENT_TITLE"]


class RecallMemory(Memory):
    """Recent turns verbatim, plus older turns recalled from the transcript by relevance.

    ``budget``: int > 0, the whole context in the measure's unit (system prompt, summary,
    turns, their speaker labels and date lines, the question and the reserve: each
    piece measured once); ``keep_recent``: int >= 0, newest turns always shown (when >= 1, also the
    newest user message and every reply after it, as in a tool loop);
    ``recent``: int 0..budget, the most the recent window holds (default a tenth of the
    budget: turns beyond it leave the window but come back when they match, so a small
    window loses little); ``reserve``:
    int, 0 <= reserve < budget, kept free for the reply. Keyword-only options:

    - ``summariser``: a prompt model; when the window is full, the turns leaving it are
      folded into a running summary (as :class:`~kit.memory.summary.SummaryMemory`
      does, all but ``keep_recent`` at once, at most twice the budget per fold; compute
      first, then commit: a failure keeps every turn and raises
      :class:`~kit.memory.base.CompactionError`; the new summary must keep the facts of
      what it replaces, see :mod:`kit.memory.facts`).
      ``prompt``, ``fallback``, ``summary_cap`` (default a quarter of the budget) and
      ``timeout`` (seconds per model call) as in RobustSummaryMemory. None (default): no summary.
    - ``fuse_recent``: also rank by the recent turns' text and fuse the two rankings
      with RRF (the question stays the main signal; a follow-up like "and the other
      one?" needs the recent context).
    - ``search``: an empty :class:`~kit.memory.recall_search.RecallSearch`: how older
      turns are found (two-stage search, query split, a model's decomposition, a dense
      retriever, neighbour expansion; default: ``RecallSearch()``: the default
      rule-based parts, and the packaged embedding model when it is installed).
    - ``index``: an empty :class:`~kit.memory.turn_index.TurnIndex` for the default
      search (to change BM25's ``k1``/``b``, ``spread``, ``speaker_boost``,
      ``feedback``, or what is indexed with a turn); not with ``search``.

    A turn whose relative times resolve against its session date shows them at the end
    of its line ("Caroline: I went yesterday. (yesterday = 7 May 2023)"), counted.

    Raises TypeError/ValueError naming a bad argument. ``add`` takes ``speaker=`` and
    ``when=``; ``context(query)``, ``messages(query)``, ``allocation(query)``,
    ``recalled(query)`` and ``context_numbers(query)`` take the question (None: the
    newest user message).
    """

    name = "recall memory"

    def __init__(self, budget: int = 2000, measure: Measure = cl100k_tokens,
                 system: str | None = None, *, keep_recent: int = 2, recent: int | None = None,
                 reserve: int = 0, summariser: PromptModel | None = None,
                 prompt: str = SUMMARY_PROMPT, fallback: PromptModel | None = None,
                 summary_cap: int | None = None, timeout: float | None = None,
                 fuse_recent: bool = False, index: TurnIndex | None = None,
                 search: RecallSearch | None = None) -> None:
        self.budget = check_budget(budget)
        self.keep_recent = check_int("keep_recent", keep_recent, 0)
        self.recent = budget // 10 if recent is None else check_int("recent", recent, 0)
        if self.recent > budget:
            raise ValueError(f"recent must be <= budget ({budget}), got {recent}")
        if check_int("reserve", reserve, 0) >= budget:
            raise ValueError(f"reserve must be < budget ({budget}), got {reserve}")
        self.reserve = reserve
        for label, model in (("summariser", summariser), ("fallback", fallback)):
            if model is not None and not callable(model):
                raise TypeError(f"{label} must be callable str -> str or None, got {model!r:.60}")
        if not isinstance(prompt, str) or not prompt.strip():
            raise ValueError(f"prompt must be a non-empty str, got {prompt!r:.60}")
        if summary_cap is not None and check_int("summary_cap", summary_cap, 1) >= budget:
            raise ValueError(f"summary_cap must be < budget ({budget}), got {summary_cap}")
        check_flag("fuse_recent", fuse_recent)
        if search is not None and (not isinstance(search, RecallSearch) or len(search)
                                   or index is not None):
            raise ValueError(f"search must be an empty RecallSearch, and index not given "
                             f"with it; got search={search!r:.60}, index={index!r:.40}")
        if search is not None and search.owned:
            raise ValueError("search already belongs to another memory: give each memory "
                             "its own RecallSearch (search.like() makes an empty copy)")
        self.search = search if search is not None else RecallSearch(index)   # checks index
        self.search.owned = True
        self.timeout, self.slots = check_timeout(timeout), CallSlots()
        self.backoff = Backoff(64)         # skip a failing summariser, as RobustSummaryMemory
        self.summariser, self.fallback, self.prompt = summariser, fallback, prompt
        self.summary_cap = summary_cap if summary_cap is not None or summariser is None \
            else max(1, budget // 4)
        self.fuse_recent = fuse_recent
        self.summary, self.summary_tokens, self.compactions = "", 0, 0
        self.archive: dict[int, Message] = {}     # turns out of the window, without a store
        self._sizes: dict[str, int] = {}          # date line / title / separator -> size
        self._columns = _TurnColumns()            # index position -> line's size, day
        self._lines: dict[int, str] = {}          # message number -> its context line
        self._query_size: tuple[str, int] | None = None
        self._summary_size: tuple[str, int] | None = None
        self._plan_cache: tuple[tuple, RecallPlan] | None = None
        super().__init__(measure, system)
        if self.fixed_tokens + self.reserve >= self.budget:
            raise ValueError(f"the system prompt ({self.fixed_tokens} {self.unit}) and the "
                             f"reserve ({self.reserve}) leave no room in a budget of "
                             f"{self.budget} {self.unit}")

    def settings(self) -> dict:
        """``budget``, ``keep_recent`` and ``recent`` (the window): what a restore must
        match (see :meth:`~kit.memory.base.Memory.settings`)."""
        return {"budget": self.budget, "keep_recent": self.keep_recent, "recent": self.recent}

    # -- sizes: every piece measured once --------------------------------------------
    def _size_of(self, text: str) -> int:
        """Size of a label, date line or title, measured once per distinct text."""
        size = self._sizes.get(text)
        if size is None:
            size = self._sizes[text] = measured(self.measure, text)
        return size

    @property
    def index(self) -> TurnIndex:
        """The BM25 index of the turns (the search's)."""
        return self.search.index

    @property
    def model_calls(self) -> int:
        """Calls of the search's decomposition model (the summariser is counted apart)."""
        return self.search.model_calls

    def line(self, message: Message) -> str:
        """The message's context line: ``"Caroline: text"``, then its resolved relative
        times if any (``" (yesterday = 7 May 2023)"``)."""
        line = self._lines.get(message.number)
        if line is None:
            line = self._lines[message.number] = _line(self.search, message)
        return line

    def line_tokens(self, message: Message) -> int:
        """Size of the message's context line as sent: ``"Caroline: text"``, its note of
        resolved times and its line break, measured as one text, once per message (a
        tokenizer merges a line's last punctuation with its line break, so the pieces
        measured apart would count more than is sent). Kept by index position with the
        turn's day (a message not indexed yet is measured)."""
        position = self.search.index.bm25.position(message.number)
        if position is not None and position < len(self._columns.costs):
            return self._columns.costs.values[position]
        return measured(self.measure, f"{self.line(message)}\n")

    @property
    def window_tokens(self) -> int:
        """Size of the recent window's lines (labels included, date lines not), in unit."""
        return sum(self.line_tokens(m) for m in self.turns)

    @property
    def size(self) -> int:
        """What is always in the context: system prompt + summary + recent turns (texts
        only, as for every memory), in ``unit``; recalled turns come on top, up to the
        budget (see :meth:`allocation`)."""
        return self.fixed_tokens + self.summary_tokens + self.turn_tokens

    # -- add: index the turn, slide the window -----------------------------------------
    def _after_append(self) -> dict:
        message = self.turns[-1]
        self.search.add(message)
        self._plan_cache = None
        self._sync_columns()
        count, size, limit = 0, self.window_tokens, len(self.turns) - self.keep_recent
        if self.keep_recent:                 # the live question stays with its replies
            limit = min(limit, _newest_user(self.turns))
        while size > self.recent and count < limit:
            size -= self.line_tokens(self.turns[count])
            count += 1
        if not count:
            return {}
        if self.summariser is None:
            return self._leave(self.turns[:count], f"over the recent window ({self.recent} "
                                                   f"{self.unit})")
        if not self.backoff.allows(self.added) and self.fallback is None:
            return {"note": f"over the recent window, but compaction waits: {self.backoff}"}
        old = self._fold_span()
        update = self.backoff.run(self.added, lambda use_model: self.compactor.compute(
            self.summary, speaker_in_text(old), (), use_model))          # may raise
        self.summary, self.summary_tokens = update.text, update.tokens
        self.compactions += 1
        fields = self._leave(old, f"over the recent window ({self.recent} {self.unit})")
        note = f"{fields['note']}; folded into the summary" + (f"; {update.note}"
                                                               if update.note else "")
        return {**fields, "action": "compacted", "note": note, "summariser": update.by,
                "trigger": f"recent window over {self.recent} {self.unit}"}

    def _protected(self) -> int:
        """How many of the newest turns the context always shows: ``keep_recent``, and
        when it is >= 1, also back to the newest user message (a tool loop's question)."""
        if not self.keep_recent:
            return 0
        return max(self.keep_recent, len(self.turns) - _newest_user(self.turns))

    def _fold_span(self) -> list[Message]:
        """The turns to fold: all but ``keep_recent``, oldest first, at most twice the
        budget with the summary (at least one turn; a reply goes with its question), so
        the prompt stays bounded even after a long summariser outage."""
        limit = len(self.turns) - self.keep_recent
        if self.keep_recent:
            limit = min(limit, _newest_user(self.turns))
        room, total, split = 2 * self.budget - self.summary_tokens, 0, limit
        for i, message in enumerate(self.turns[:limit]):
            total += message.tokens
            if total > room and i > 0:
                split = i
                break
        while split < limit and self.turns[split].role == "assistant":
            split += 1
        return self.turns[:split]

    def _leave(self, old: Sequence[Message], why: str) -> dict:
        """Move ``old`` (the oldest turns) out of the window into the transcript."""
        moved = self._evict(len(old))
        if self.link is None:
            self.archive.update((m.number, m) for m in old)
        return {"action": "evicted", "moved": moved,
                "note": f"{why}: turn{'s' if len(moved) > 1 else ''} {span(moved)} left the "
                        f"window; kept in the transcript, recalled when relevant"}

    @property
    def compactor(self) -> Compactor:
        """The model calls of one fold, with this memory's current settings."""
        return Compactor(self.summariser, self.measure, self.prompt, self.fallback,
                         self.timeout, False, self.summary_cap, True, self.slots)

    # -- the transcript --------------------------------------------------------------
    def fetch(self, numbers: Sequence[int]) -> list[Message]:
        """The messages with these numbers (oldest first), from the store when one is
        attached (plus any not yet written), else from the memory's own archive."""
        wanted = set(numbers)
        if self.link is None:
            found = [self.archive[n] for n in wanted if n in self.archive]
        else:
            found = self.link.store.pick(self.link.session_id, wanted)
            stored = {m.number for m in found}
            found += [m for m in self.link.unsaved if m.number in wanted and m.number not in stored]
        window = {m.number: m for m in self.turns}
        found += [window[n] for n in wanted if n in window]
        return sorted({m.number: m for m in found}.values(), key=lambda m: m.number)

    def restoring(self, store, session_id: str):
        """Called by :func:`kit.persistence.restore` before it commits: index the stored
        transcript (may raise; nothing changes); returns the commit step."""
        search = self.search.like()
        turns = list(store.turns(session_id))
        search.extend(turns)
        columns = _TurnColumns()
        for message in turns:
            columns.append(measured(self.measure, f"{_line(search, message)}\n"), message.when)

        def finish() -> None:
            search.owned, self.search.owned = True, False
            self.search, self.archive, self._plan_cache = search, {}, None
            self._columns, self._lines = columns, {}
        return finish

    # -- the context -------------------------------------------------------------------
    def default_query(self) -> str:
        """The newest user message's text ("" if there is none in the window)."""
        return next((m.content for m in reversed(self.turns) if m.role == "user"), "")

    def _sync_columns(self) -> None:
        """Give every indexed turn its line's size and day, in index order (after an add;
        and again if a measure failed halfway through one)."""
        missing = self.search.index.numbers[len(self._columns.costs):]
        for message in self.fetch(missing) if missing else ():
            self._columns.append(measured(self.measure, f"{self.line(message)}\n"),
                                 message.when)

    def _candidates(self, query: str) -> Candidates:
        """The turns older than the window, best match first, as arrays."""
        self._sync_columns()
        below = self.turns[0].number if self.turns else self.added + 1
        recent = " ".join(m.content for m in self.turns) if self.fuse_recent else ""
        positions = self.search.rank_positions(query, below, recent)
        return Candidates(self.search.index.bm25.key_array()[positions],
                          self._columns.costs.array()[positions],
                          self._columns.days.array()[positions], self._columns.lines,
                          self._older)

    def _older(self, numbers: Sequence[int]) -> list[Message]:
        """The messages with these numbers, all older than the window, in the order
        given (from the archive, or through :meth:`fetch` when a store is attached)."""
        if self.link is None:
            return [self.archive[n] for n in numbers]
        found = {m.number: m for m in self.fetch(numbers)}
        return [found[n] for n in numbers]

    def plan(self, query: str | None = None) -> RecallPlan:
        """Decide the context for ``query`` (None: the newest user message, not counted
        as a question: it is already a recent turn). Nothing changes."""
        key = (query, self.added, self.summary, len(self.turns), self.link is None)
        if self._plan_cache is not None and self._plan_cache[0] == key:
            return self._plan_cache[1]
        search = self.default_query() if query is None else query
        if not isinstance(search, str):
            raise TypeError(f"query must be a str or None, got {type(query).__name__}: {query!r:.60}")
        parts = [Part("system", (self._size_of(f"{self.system.line()}\n\n"),),
                      priority=5, minimum=1, why="never cut")] if self.system else []
        if query is not None:
            parts.append(Part("question", (self._measure_query(query),), priority=5,
                              minimum=1, why="counted here, sent after the context"))
        if self.reserve:
            parts.append(Part("reserve", (self.reserve,), priority=5, minimum=1,
                              why="kept free for the reply"))
        summary = self._summary_block()
        if summary:
            parts.append(Part("summary", (self._block_size(f"{summary}\n\n"),),
                              priority=3, why="the running summary"))
        plan = decide(self.budget, self.unit, parts, list(reversed(self.turns)),
                      self._candidates(search), keep_recent=self._protected(),
                      window=self.recent, line_cost=self.line_tokens, text_cost=self._size_of,
                      query=search)
        self._plan_cache = (key, plan)
        return plan

    def _measure_query(self, query: str) -> int:
        if self._query_size is None or self._query_size[0] != query:
            self._query_size = (query, measured(self.measure, query))
        return self._query_size[1]

    def _block_size(self, block: str) -> int:
        """Size of the summary block as shown (title, indented lines), measured once per
        summary."""
        if self._summary_size is None or self._summary_size[0] != block:
            self._summary_size = (block, measured(self.measure, block))
        return self._summary_size[1]

    def _summary_block(self) -> str:
        return f"{SUMMARY_TITLE}\n{indent_continuation(self.summary)}" if self.summary else ""

    def allocation(self, query: str | None = None) -> Allocation:
        """How the budget is split for ``query``; ``.table()`` shows what was cut and why."""
        return self.plan(query).allocation

    def recalled(self, query: str | None = None) -> list[Message]:
        """The older turns recalled for ``query``, oldest first."""
        return list(self.plan(query).recalled)

    def context_numbers(self, query: str | None = None) -> tuple[int, ...]:
        """Numbers of the messages whose lines are in ``context(query)``, oldest first."""
        return self.plan(query).numbers

    def context_size(self, query: str | None = None) -> int:
        """Size of ``context(query)`` as counted against the budget (its lines, date
        lines, titles and separators; not the question nor the reserve, which the
        budget also holds), from the sizes the plan already has: nothing is measured."""
        allocation = self.plan(query).allocation
        question = allocation.part("question").tokens if query is not None else 0
        return allocation.total - question - self.reserve

    def recount(self, query: str | None = None) -> int:
        """:meth:`context_size` measured again, piece by piece as the plan counts them,
        from the texts of the context and none of the stored sizes."""
        plan, measure = self.plan(query), self.measure
        total = measured(measure, f"{self.system.line()}\n\n") if self.system else 0
        if plan.summary:
            total += measured(measure, f"{self._summary_block()}\n\n")
        for title, block in ((RECALLED_TITLE, plan.recalled), (RECENT_TITLE, plan.recent)):
            if block:
                total += measured(measure, f"{title}\n") + measured(measure, "\n")
                days = {date_line(m.when) for m in block if m.when}
                total += sum(measured(measure, f"{day}\n") for day in days)
                total += sum(measured(measure, f"{_line(self.search, m)}\n") for m in block)
        return total

    def context(self, query: str | None = None) -> str:
        """The context as text: system prompt, summary, recalled turns (titled
        :data:`RECALLED_TITLE`), recent turns (:data:`RECENT_TITLE`), separated by blank
        lines; turns as ``"Caroline: ..."`` lines under ``[date]`` lines. The question
        itself is not included: send it after."""
        return render_context(self.plan(query), self.system, self._summary_block(), self.line)

    def messages(self, query: str | None = None) -> list[dict[str, str]]:
        """The context as chat messages: the system prompt, the summary and the recalled
        turns (with their dates) as system messages, then the recent turns."""
        return render_messages(self.plan(query), self.system, self._summary_block(), self.line)

    def __repr__(self) -> str:
        return (f"RecallMemory(budget={self.budget} {self.unit}, window={len(self.turns)} turns, "
                f"indexed={len(self.index)}, summary={self.summary_tokens} {self.unit})")


def _line(search: RecallSearch, message: Message) -> str:
    """``message``'s context line, with the note of resolved times ``search`` keeps."""
    note = search.note(message.number)
    return f"{message.line()} {note}" if note else message.line()


class _TurnColumns:
    """Per index position, as arrays: the turn's line cost and its day (an id per
    distinct date line, :func:`~kit.memory.recall_plan.date_line`; "" for no date)."""

    def __init__(self) -> None:
        self.costs, self.days = Column(), Column()
        self.lines: list[str] = []
        self._ids: dict[str, int] = {}

    def append(self, cost: int, when: str) -> None:
        line = date_line(when) if when else ""
        day = self._ids.get(line)
        if day is None:
            day = self._ids[line] = len(self.lines)
            self.lines.append(line)
        self.costs.append(cost)
        self.days.append(day)


def _newest_user(turns: Sequence[Message]) -> int:
    """The index of the newest user message (``len(turns)`` if there is none)."""
    for i in range(len(turns) - 1, -1, -1):
        if turns[i].role == "user":
            return i
    return len(turns)
