"""Chat messages: a role, a text, and a size measured once.

A :class:`Message` is immutable. Its ``tokens`` field is filled when it is created
(by :func:`make_message`), in the unit of the measure that was used, and never
recomputed: memories keep running totals of these numbers.

A message may also say who spoke (``speaker``, e.g. "Caroline") and when (``when``,
the session's date as text, e.g. "1:56 pm on 8 May, 2023"): long conversations between
two people (LoCoMo, :mod:`kit.locomo`) need both. A speaker replaces the role in the
transcript line (``"Caroline: Hi!"``); the date is shown by memories that group lines
by session (:mod:`kit.memory.recall`). Both default to "", and a message without them
prints, compares and renders exactly as before.

Agents (lesson 11, :mod:`kit.agent`) add two things, in the shape of the providers' chat
formats: an assistant message may carry tool calls (``calls``: :class:`ToolCall` items,
each an ``id``, a tool ``name`` and its ``arguments`` as JSON text), and a ``tool`` message
carries the ``call_id`` of the call it answers and the result as its content. Only the
agent context managers take them: the memories of lessons 02-10 keep user and assistant
turns (:data:`TURN_ROLES`) and refuse a tool message with a ValueError that says so.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter

from kit.tokens import Measure, measured

__all__ = ["Message", "ToolCall", "ROLES", "TURN_ROLES", "AGENT_ROLES", "make_message", "check_role", "check_label", "check_text", "render",
           "speaker_in_text", "check_calls", "check_call_id", "tool_size",
           "as_chat", "span", "indent_continuation", "number_runs"]

ROLES = ("system", "user", "assistant", "tool")
TURN_ROLES = ("user", "assistant")           # what the memories of lessons 02-10 keep
AGENT_ROLES = ("user", "assistant", "tool")  # what an agent context takes (kit.agent)


@dataclass(frozen=True)
class ToolCall:
    """One tool call an assistant message asks for: ``id`` (one line, unique in a run),
    the tool's ``name`` and its ``arguments`` (JSON text, "" for none)."""

    id: str
    name: str
    arguments: str = ""

    def line(self) -> str:
        """The call as a transcript line: ``"-> call c7: search({...})"``."""
        return f"-> call {self.id}: {self.name}({self.arguments})"

    def chat(self) -> dict:
        """The call as an OpenAI-style ``tool_calls`` item."""
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": self.arguments}}


@dataclass(frozen=True, repr=False)
class Message:
    """One chat message.

    ``number``: 1-based position in the conversation (0 for a system message);
    ``tokens``: size of ``content`` in the unit of the measure that built it (the
    speaker and the date are not counted), or its size under the memory's counting
    rule (:mod:`kit.sizing`: label and overhead included); ``speaker``: who said it ("" if only the
    role is known); ``when``: the session date as text ("" if unknown); ``calls``: the
    tool calls of an assistant message (:class:`ToolCall`, () for none); ``call_id``: the
    call a ``tool`` message answers ("" for other roles).
    """

    role: str
    content: str
    tokens: int
    number: int = 0
    speaker: str = ""
    when: str = ""
    calls: tuple = ()
    call_id: str = ""

    @property
    def label(self) -> str:
        """Who the line is from: the speaker if known, else the role (``"tool (c7)"`` for
        a tool result)."""
        if self.call_id:
            return f"tool ({self.call_id})"
        return self.speaker or self.role

    def line(self) -> str:
        """The message as a transcript line, ``"role: content"`` (``"Caroline: content"``
        when the speaker is known).

        Further lines of a multi-line content are indented by two spaces, so no text
        a user typed can pass for a ``role:`` line or a prompt header. Built once, when
        the message is made (it is immutable), as a context is rendered at every turn.
        """
        return self._line

    def __post_init__(self) -> None:
        line = f"{self.label}: {indent_continuation(self.content)}"
        if self.calls:                                  # one indented line per call
            line += "".join(f"\n  {call.line()}" for call in self.calls)
        object.__setattr__(self, "_line", line)

    def chat(self) -> dict:
        """The message as an OpenAI-style chat dict ``{"role", "content"}``; a known
        speaker is kept as a ``"Caroline: "`` prefix of the content. With tool calls,
        ``"tool_calls"`` (see :meth:`ToolCall.chat`); a tool result has its
        ``"tool_call_id"``."""
        content = f"{self.speaker}: {self.content}" if self.speaker else self.content
        chat = {"role": self.role, "content": content}
        if self.calls:
            chat["tool_calls"] = [call.chat() for call in self.calls]
        if self.call_id:
            chat["tool_call_id"] = self.call_id
        return chat

    def __repr__(self) -> str:
        extra = "".join(f", {name}={value!r}" for name, value in
                        (("speaker", self.speaker), ("when", self.when), ("calls", self.calls),
                         ("call_id", self.call_id)) if value)
        return (f"Message(role={self.role!r}, content={self.content!r}, tokens={self.tokens!r}, "
                f"number={self.number!r}{extra})")


def indent_continuation(text: str) -> str:
    """``text`` with every line after the first indented by two spaces.

    Lines are split as ``str.splitlines`` does (``\r``, ``\u2028`` and the like end a
    line too) and joined with ``\n``.
    """
    return "\n  ".join(text.splitlines()) if text else text


def check_role(role: object, allowed: tuple[str, ...] = TURN_ROLES) -> str:
    """Return ``role`` if it is one of ``allowed``; else raise ValueError naming it (and,
    for a ``tool`` message where only turns are allowed, saying where those go)."""
    if role not in allowed:
        where = ("; this memory keeps user and assistant turns only: tool calls and "
                 "results go in an agent context (kit.agent.AgentContext, lesson 11)"
                 if role == "tool" else "")
        raise ValueError(f"role must be one of {', '.join(allowed)}; got {role!r}{where}")
    return role  # type: ignore[return-value]


def check_text(name: str, value: str) -> str:
    """Return ``value`` if it can be written as UTF-8; else raise ValueError naming it and
    the position of the first lone surrogate (a half of a UTF-16 pair, e.g. from a
    badly decoded file): no file, database or API could store or send such text."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{name} is not valid Unicode text ({value[exc.start]!r} at position "
                         f"{exc.start} is a lone surrogate), got {value!r:.60}") from None
    return value


def check_label(name: str, value: object) -> str:
    """Return ``value`` ("" for None) if it is a one-line str; else raise naming it.

    Used for a message's ``speaker`` and ``when``: a newline there could forge a
    transcript line. A speaker must also not contain ":" (it ends the label).
    """
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str or None, got {type(value).__name__}: {value!r:.60}")
    if len(value.splitlines()) > 1 or value != value.strip() or (name == "speaker" and ":" in value):
        raise ValueError(f"{name} must be one line without surrounding spaces"
                         f"{' or a colon' if name == 'speaker' else ''}, got {value!r:.60}")
    return check_text(name, value)


def make_message(role: str, content: str, measure: Measure, number: int = 0,
                 allowed: tuple[str, ...] = TURN_ROLES, *, speaker: str | None = None,
                 when: str | None = None,
                 size: Callable[[str, str, str], int] | None = None,
                 calls: Sequence = (), call_id: str | None = None) -> Message:
    """Validate and measure a message (one call to ``measure``, on ``content`` only).

    ``size``: ``(role, content, speaker) -> int`` to use instead of ``measure`` (a
    memory's counting rule, :class:`kit.sizing.SizeRule`), called once. A message with
    tool ``calls`` or a ``call_id`` is sized by :func:`tool_size` (content, then each
    call's name and arguments, measured once each), or by ``size(message)`` (e.g.
    :meth:`kit.sizing.SizeRule.of`) called with the message sized 0.

    ``calls`` (assistant only): :class:`ToolCall` items or dicts ``{"id", "name",
    "arguments"}``; ``call_id`` (required for, and only for, role ``tool``): a one-line
    str. ValueError for a call or call id that breaks these rules.

    Raises ValueError for a role not in ``allowed``, TypeError for non-string content,
    ValueError for text that is not valid Unicode (:func:`check_text`),
    TypeError/ValueError for a ``speaker`` or ``when`` that is not a one-line str (see
    :func:`check_label`), and TypeError/ValueError if the measure returns something
    other than an int >= 0.
    """
    if role not in allowed:
        check_role(role, allowed)                       # raises, naming the role
    if not isinstance(content, str):
        raise TypeError(f"{role} content must be str, got {type(content).__name__}: {content!r:.60}")
    if not content.isascii():                           # ASCII is always valid UTF-8
        check_text(f"{role} content", content)
    if speaker is not None or when is not None:
        speaker, when = check_label("speaker", speaker), check_label("when", when)
    if calls or call_id is not None or role == "tool":
        message = Message(role, content, 0, number, speaker or "", when or "",
                          check_calls(role, calls), check_call_id(role, call_id))
        tokens = tool_size(message, measure) if size is None else size(message)
        return Message(role, content, tokens, number, speaker or "", when or "",
                       message.calls, message.call_id)
    tokens = measured(measure, content) if size is None else size(role, content, speaker or "")
    return Message(role, content, tokens, number, speaker or "", when or "")


def check_call_id(role: str, call_id: object) -> str:
    """``call_id`` for a ``tool`` message (a non-empty one-line str), "" for another role
    with none; else ValueError naming it."""
    if role != "tool":
        if call_id:
            raise ValueError(f"only a tool message has a call_id; a {role} message got "
                             f"{call_id!r:.60}")
        return ""
    if not isinstance(call_id, str) or not call_id:
        raise ValueError(f"a tool message needs the call_id of the call it answers, got "
                         f"{call_id!r:.60}")
    return check_label("call_id", call_id)


def check_calls(role: str, calls: object) -> tuple:
    """``calls`` as a tuple of :class:`ToolCall` (each id a one-line str, unique, a name,
    arguments a str); only an assistant message may have any. Raises TypeError/ValueError
    naming the bad call."""
    if not calls:
        return ()
    if role != "assistant":
        raise ValueError(f"only an assistant message may carry tool calls; a {role} message "
                         f"got {calls!r:.60}")
    if isinstance(calls, (str, bytes, dict)) or not isinstance(calls, Sequence):
        raise TypeError(f"calls must be a list of tool calls, got {type(calls).__name__}: "
                        f"{calls!r:.60}")
    made = []
    for call in calls:
        if isinstance(call, dict):
            call = ToolCall(call.get("id"), call.get("name"), call.get("arguments", ""))
        if not isinstance(call, ToolCall) or not all(
                isinstance(v, str) for v in (call.id, call.name, call.arguments)):
            raise TypeError(f"a tool call needs str id, name and arguments, got {call!r:.80}")
        if not call.id or not call.name:
            raise ValueError(f"a tool call needs an id and a name, got {call!r:.80}")
        check_label("call id", call.id)
        check_label("tool name", call.name)
        made.append(call)
    ids = [call.id for call in made]
    if len(set(ids)) != len(ids):
        raise ValueError(f"tool call ids must be unique within a message, got {ids}")
    return tuple(made)


def tool_size(message: Message, measure: Measure) -> int:
    """The ``text`` size of a message with tool calls: its content, then each call's name
    and arguments (what the model reads), one measure call each; a tool result's call id
    is not counted (nor is a turn's label). In the measure's unit."""
    return measured(measure, message.content) + sum(
        measured(measure, call.name) + measured(measure, call.arguments)
        for call in message.calls)


def speaker_in_text(messages: Sequence[Message]) -> list[Message]:
    """The messages with each known speaker moved into the text (``"Caroline: Hi"``, role
    kept, speaker and date cleared); messages without a speaker come back as they are.

    For prompts whose turns must stay ``role: content`` lines (the summary prompt of
    :func:`kit.prompts.build_summary_prompt`, which the stub summarisers read):
    the summary then keeps who said what. Sizes are not re-measured. A new list; items
    that are not messages pass through unchanged (the prompt builder rejects them).
    """
    return [Message(m.role, f"{m.speaker}: {m.content}", m.tokens, m.number)
            if isinstance(m, Message) and m.speaker else m for m in messages]


_LINE = attrgetter("_line")      # Message.line() without the call, for rendering


def render(messages: list[Message]) -> str:
    """Messages as transcript lines, one ``"role: content"`` (or ``"speaker: content"``)
    per line."""
    return "\n".join(map(_LINE, messages))


def as_chat(messages: list[Message]) -> list[dict[str, str]]:
    """Messages as a list of chat dicts (a new list; the messages are not changed)."""
    return [m.chat() for m in messages]


def span(numbers: Sequence[int]) -> str:
    """Message numbers as a short range: (1, 2, 3) -> "1-3", (4,) -> "4", () -> ""."""
    if not numbers:
        return ""
    if list(numbers) == list(range(numbers[0], numbers[-1] + 1)):
        return str(numbers[0]) if len(numbers) == 1 else f"{numbers[0]}-{numbers[-1]}"
    return ", ".join(map(str, numbers))


def number_runs(numbers: list[int]) -> list[list[int]]:
    """Message numbers as inclusive runs, in the order given: [3, 4, 5, 9] -> [[3, 5], [9, 9]]."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return runs
