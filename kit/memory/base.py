"""The common interface of every memory: add a message, build the context, size, trace.

Every memory keeps an optional system prompt (never evicted), a list of verbatim
``turns`` and a running total of their sizes. Sizes are in the unit of the memory's
``measure`` (tokens by default; words or characters if you pass such a measure), and
each message is measured exactly once, when it is added.

Subclasses implement :meth:`Memory._after_append`, which may evict or compact and
returns the :class:`TraceEvent` fields it decided.

The memories here decide what to keep when a message is added (eviction, compaction),
so their context is simply what they hold: the system prompt, any blocks (a summary),
then the turns. :meth:`Memory.allocation` reports the same context as budget parts
(:mod:`kit.memory.budget`; it says "over budget" when ``keep_recent`` wins).
:mod:`kit.memory.recall` is the memory whose parts really compete for the budget: its
context goes through the allocator.
"""
from __future__ import annotations

from kit.memory.budget import Allocation, Part, allocate
from kit.messages import Message, as_chat, make_message, render
from kit.sizing import SizeRule
from kit.tokens import Measure, cl100k_tokens, unit_of
from kit.trace import TraceEvent
from kit.validation import check_budget

__all__ = ["Memory", "FullHistory", "BudgetedMemory", "TraceEvent", "CompactionError"]


class CompactionError(Exception):
    """Compaction failed *after* the message was added (the summariser raised, returned
    a non-str or an empty summary, or its size could not be measured).

    Deliberately not a RuntimeError, ValueError or TypeError: those mean the add was
    refused and nothing changed, so a caller may retry them; retrying this one would
    add the message twice.

    The message is kept, the summary and the other turns are as they were, and the
    next compaction retries with the larger span. ``event`` is the "failed"
    :class:`TraceEvent`; the original error is ``__cause__``. Catch this, not the
    summariser's own exception types.
    """

    def __init__(self, message: str, event: "TraceEvent") -> None:
        super().__init__(message)
        self.event = event


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


class Memory:
    """Base class: full history with an optional system prompt.

    ``measure``: ``str -> int`` (default :func:`kit.tokens.cl100k_tokens`);
    ``system``: a system prompt kept at the top of every context, never evicted;
    ``count``: what counts against a budget (:mod:`kit.sizing`): ``"text"`` (the
    default: the texts only), ``"rendered"`` (labels, titles and separators too) or
    ``"billed"`` (a chat request's per-message and reply-priming tokens too).
    """

    name = "memory"
    link = None   # a kit.persistence.SessionLink once attach_store wired a store

    def __init__(self, measure: Measure = cl100k_tokens, system: str | None = None, *,
                 count: str = "text") -> None:
        if not callable(measure):
            raise TypeError(f"measure must be callable str -> int, got {measure!r}")
        if system is not None and (not isinstance(system, str) or not system.strip()):
            raise ValueError(f"system must be a non-empty str or None, got {system!r:.60}")
        self.measure, self.unit = measure, unit_of(measure)
        self.sizing = SizeRule(measure, count)
        self.count = count
        self.system = (make_message("system", system, measure, 0, ("system",),
                                    size=self._message_size) if system else None)
        self.fixed_tokens = (self.system.tokens if self.system else 0) + self.sizing.overhead
        self.turns: list[Message] = []
        self.turn_tokens = 0          # running total of the sizes of self.turns
        self.trace: list[TraceEvent] = []
        self.added = 0                # messages added so far (numbers them)
        self._adding = False          # guards against add() re-entered from a summariser

    def settings(self) -> dict:
        """The constructor settings a stored session depends on, by argument name (``{}``
        here; ``{"budget": 3000, "keep_recent": 6, ...}`` in subclasses): the ones that
        decided which turns are verbatim and what the saved summary looks like.
        :func:`kit.persistence.restore` refuses a memory whose settings differ from the saved
        ones; models, prompts, triggers and the system prompt may differ."""
        return {}

    # -- sizes -----------------------------------------------------------------
    @property
    def size(self) -> int:
        """Current context size in ``unit``: system + summary (if any) + turns.

        With ``count="text"`` (the default) it counts the texts only: role labels, the
        summary title and the per-message chat overhead (:func:`kit.tokens.count_chat_tokens`)
        come on top, so leave a margin under the model's real limit, or pass
        ``count="rendered"`` or ``"billed"`` (:mod:`kit.sizing`).
        """
        return self.fixed_tokens + self.turn_tokens

    def context_size(self, query: str | None = None) -> int | None:
        """Size of ``context(query)`` under this memory's counting rule (``count``, see
        :mod:`kit.sizing`), from the sizes it already holds: nothing is measured. Here
        :attr:`size` with ``count="rendered"`` or ``"billed"``; None with ``"text"``,
        which leaves the labels out, so the memory does not know what its context
        text costs (measure the text instead)."""
        return None if self.count == "text" else self.size

    def recount(self, query: str | None = None) -> int:
        """:meth:`context_size` measured again from the texts, with the memory's measure
        and counting rule and none of its stored sizes: a check that what it holds is
        right (the evaluator's check mode compares the two)."""
        rule = SizeRule(self.measure, self.count)
        total = rule.overhead
        if self.system:
            total += rule.message("system", self.system.content)
        summary = getattr(self, "summary", "")
        if summary:
            total += rule.summary(summary)
        return total + sum(rule.message(m.role, m.content, m.speaker) for m in self.turns)

    # -- the verbs -------------------------------------------------------------
    def add(self, role: str, content: str, *, speaker: str | None = None,
            when: str | None = None) -> TraceEvent:
        """Add a "user" or "assistant" message; return (and record) its trace event.

        ``speaker``: who said it (the context line then reads ``"Caroline: ..."``);
        ``when``: the session date as text. Both optional, one-line strs (see
        :func:`kit.messages.make_message`); neither counts in the message's size.

        Raises ValueError for another role or a message that can never fit, TypeError
        for non-string content: the message is refused and the memory unchanged. If
        compaction fails after the message was added, raises :class:`CompactionError`
        (the message stays, nothing else changes, the trace records a "failed" event).
        Raises RuntimeError, changing nothing, if called while an add is running: from
        inside a summariser or a measure, or from another thread (a memory is not
        thread-safe; give each conversation its own, with a lock around it).
        """
        if self._adding:
            raise RuntimeError("add() was called while another add() is running on this "
                               "memory (from the summariser or the measure, or from another "
                               "thread); the memory is unchanged")
        self._adding = True
        try:
            return self._add(role, content, speaker, when)
        finally:
            self._adding = False

    def _add(self, role: str, content: str, speaker: str | None = None,
             when: str | None = None) -> TraceEvent:
        message = make_message(role, content, self.measure, self.added + 1, speaker=speaker,
                               when=when, size=self._message_size)
        self._check_fits(message)
        self.added += 1
        self.turns.append(message)
        self.turn_tokens += message.tokens
        # Written ahead: the transcript has the message before any compaction runs.
        stored = self.link.message_added(message) if self.link else ""
        size_before, turns_before = self.size, len(self.turns)
        try:
            fields = self._after_append()
        except BaseException as exc:  # the message stays; nothing else moved
            event = self._record(message, size_before, turns_before, action="failed",
                                 note=_join(f"{type(exc).__name__}: {exc}", stored))
            if self.link:
                self.link.save()
            if not isinstance(exc, Exception):        # KeyboardInterrupt, SystemExit
                raise
            raise CompactionError(f"compaction after message {message.number} failed "
                                  f"({type(exc).__name__}: {exc}); the message was kept and "
                                  f"the summary and other turns are unchanged", event) from exc
        if stored:
            fields = {**fields, "note": _join(fields.get("note", ""), stored)}
        event = self._record(message, size_before, turns_before, **fields)
        if self.link:
            self.link.save()
        return event

    def _record(self, message: Message, size_before: int, turns_before: int,
                **fields) -> TraceEvent:
        event = TraceEvent(message.number, message.role, message.tokens, size_before,
                           self.size, turns_before, len(self.turns), self.unit, **fields)
        self.trace.append(event)
        return event

    @property
    def _message_size(self):
        """None for the ``text`` rule (the measure sizes the content), else the rule's."""
        return None if self.count == "text" else self.sizing.message

    def _check_fits(self, message: Message) -> None:
        """Raise before any change if ``message`` can never fit (budgeted memories)."""

    def _after_append(self) -> dict:
        return {}

    def _evict(self, count: int) -> tuple[int, ...]:
        """Drop the ``count`` oldest turns; return their numbers."""
        gone = self.turns[:count]
        del self.turns[:count]
        for message in gone:
            self.turn_tokens -= message.tokens
        return tuple(m.number for m in gone)

    def _blocks(self) -> list[str]:
        """Text blocks between the system prompt and the turns (a summary, say)."""
        return []

    def _block_tokens(self) -> list[int]:
        """The sizes of :meth:`_blocks`, in ``unit`` (a summary memory: its summary)."""
        return [0 for _ in self._blocks()]

    # -- the context as budget parts (a report; recall memory allocates with them) --
    def parts(self, query: str | None = None) -> list[Part]:
        """The parts of the context for :func:`kit.memory.budget.allocate`: "system" (the
        system prompt, if any), "summary" (the blocks, if any) and "recent" (the turns, newest
        first). All protected: this memory chose them when the messages were added.
        Sizes are the texts' sizes in ``unit``, as in :attr:`size`. ``query`` is ignored."""
        parts = [Part("system", (self.system.tokens,), priority=3, minimum=1,
                      why="never cut")] if self.system else []
        if self.sizing.overhead:
            parts.append(Part("overhead", (self.sizing.overhead,), priority=3, minimum=1,
                              why="the reply priming a chat request is billed"))
        blocks = self._blocks()
        if blocks:
            parts.append(Part("summary", tuple(self._block_tokens()), priority=2,
                              minimum=len(blocks), why="the running summary"))
        keep = getattr(self, "keep_recent", None)
        why = ("the verbatim turns this memory keeps" if keep is None else
               f"the verbatim turns: keep_recent={keep} and those not folded yet")
        parts.append(Part("recent", tuple(m.tokens for m in reversed(self.turns)), priority=1,
                          minimum=len(self.turns), contiguous=True, why=why))
        return parts

    def allocation(self, query: str | None = None) -> Allocation:
        """How the context fills the budget (``budget`` if the memory has one, else no
        limit): an :class:`~kit.memory.budget.Allocation`; ``.table()`` shows it.
        ``query`` is ignored by memories that do not retrieve."""
        return allocate(getattr(self, "budget", None), self.parts(query), self.unit)

    def context(self, query: str | None = None) -> str:
        """The context as text: ``system: ...``, other blocks, then one line per turn.

        Parts are separated by a blank line; turns are ``role: content`` lines (the
        speaker instead of the role when known). ``query`` (the question about to be
        asked) is ignored by memories that do not retrieve: the same text as ``context()``.
        """
        parts = [self.system.line()] if self.system else []
        parts += self._blocks()
        parts.append(render(self.turns))
        return "\n\n".join(p for p in parts if p)

    def messages(self, query: str | None = None) -> list[dict[str, str]]:
        """The context as an OpenAI-style chat message list (a new list each call).

        The system prompt, then each block as a system message, then the turns.
        ``query`` as in :meth:`context`.
        """
        head = [self.system.chat()] if self.system else []
        head += [{"role": "system", "content": block} for block in self._blocks()]
        return head + as_chat(self.turns)

    def __len__(self) -> int:
        return len(self.turns)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(turns={len(self.turns)}, size={self.size} {self.unit})"


class FullHistory(Memory):
    """Keeps every message: the context grows without bound (lesson 01)."""

    name = "full history"


class BudgetedMemory(Memory):
    """A memory with a ``budget`` (int > 0, in the measure's unit) that the system prompt
    counts against.

    Raises ValueError if the system prompt alone fills the budget. :meth:`add` raises
    ValueError, leaving the memory unchanged, for a message that alone is larger than
    what the system prompt leaves: it could never fit, so the caller must split or
    summarise it first.
    """

    def __init__(self, budget: int, measure: Measure = cl100k_tokens,
                 system: str | None = None, *, count: str = "text") -> None:
        self.budget = check_budget(budget)
        super().__init__(measure, system, count=count)
        if self.fixed_tokens >= self.budget:
            raise ValueError(f"the system prompt ({self.fixed_tokens} {self.unit}) leaves "
                             f"no room in a budget of {self.budget} {self.unit}")

    def settings(self) -> dict:
        """``{"budget": ...}``: see :meth:`Memory.settings`."""
        return {"budget": self.budget}

    def _check_fits(self, message: Message) -> None:
        room = self.budget - self.fixed_tokens
        if message.tokens > room:
            raise ValueError(f"message {message.number} has {message.tokens} {self.unit}, more "
                             f"than the {room} {self.unit} a budget of {self.budget} leaves for "
                             f"turns; split or summarise it before adding")
