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
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter

from kit.tokens import Measure, measured

__all__ = ["Message", "ROLES", "TURN_ROLES", "make_message", "check_role", "check_label", "check_text", "render",
           "speaker_in_text",
           "as_chat", "span", "indent_continuation"]

ROLES = ("system", "user", "assistant")
TURN_ROLES = ("user", "assistant")


@dataclass(frozen=True, repr=False)
class Message:
    """One chat message.

    ``number``: 1-based position in the conversation (0 for a system message);
    ``tokens``: size of ``content`` in the unit of the measure that built it (the
    speaker and the date are not counted), or its size under the memory's counting
    rule (:mod:`kit.sizing`: label and overhead included); ``speaker``: who said it ("" if only the
    role is known); ``when``: the session date as text ("" if unknown).
    """

    role: str
    content: str
    tokens: int
    number: int = 0
    speaker: str = ""
    when: str = ""

    @property
    def label(self) -> str:
        """Who the line is from: the speaker if known, else the role."""
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
        object.__setattr__(self, "_line", f"{self.label}: {indent_continuation(self.content)}")

    def chat(self) -> dict[str, str]:
        """The message as an OpenAI-style chat dict ``{"role", "content"}``; a known
        speaker is kept as a ``"Caroline: "`` prefix of the content."""
        content = f"{self.speaker}: {self.content}" if self.speaker else self.content
        return {"role": self.role, "content": content}

    def __repr__(self) -> str:
        extra = "".join(f", {name}={value!r}" for name, value in
                        (("speaker", self.speaker), ("when", self.when)) if value)
        return (f"Message(role={self.role!r}, content={self.content!r}, tokens={self.tokens!r}, "
                f"number={self.number!r}{extra})")


def indent_continuation(text: str) -> str:
    """``text`` with every line after the first indented by two spaces.

    Lines are split as ``str.splitlines`` does (``\r``, ``\u2028`` and the like end a
    line too) and joined with ``\n``.
    """
    return "\n  ".join(text.splitlines()) if text else text


def check_role(role: object, allowed: tuple[str, ...] = TURN_ROLES) -> str:
    """Return ``role`` if it is one of ``allowed``; else raise ValueError naming it."""
    if role not in allowed:
        raise ValueError(f"role must be one of {', '.join(allowed)}; got {role!r}")
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
                 size: Callable[[str, str, str], int] | None = None) -> Message:
    """Validate and measure a message (one call to ``measure``, on ``content`` only).

    ``size``: ``(role, content, speaker) -> int`` to use instead of ``measure`` (a
    memory's counting rule, :class:`kit.sizing.SizeRule`), called once.

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
    tokens = measured(measure, content) if size is None else size(role, content, speaker or "")
    return Message(role, content, tokens, number, speaker or "", when or "")


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
