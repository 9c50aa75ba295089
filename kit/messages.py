"""Chat messages: a role, a text, and a size measured once.

A :class:`Message` is immutable. Its ``tokens`` field is filled when it is created
(by :func:`make_message`), in the unit of the measure that was used, and never
recomputed: memories keep running totals of these numbers.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kit.tokens import Measure, measured

__all__ = ["Message", "ROLES", "TURN_ROLES", "make_message", "check_role", "render", "as_chat", "span", "indent_continuation"]

ROLES = ("system", "user", "assistant")
TURN_ROLES = ("user", "assistant")


@dataclass(frozen=True)
class Message:
    """One chat message.

    ``number``: 1-based position in the conversation (0 for a system message);
    ``tokens``: size of ``content`` in the unit of the measure that built it.
    """

    role: str
    content: str
    tokens: int
    number: int = 0

    def line(self) -> str:
        """The message as a transcript line, ``"role: content"``.

        Further lines of a multi-line content are indented by two spaces, so no text
        a user typed can pass for a ``role:`` line or a prompt header.
        """
        return f"{self.role}: {indent_continuation(self.content)}"

    def chat(self) -> dict[str, str]:
        """The message as an OpenAI-style chat dict ``{"role", "content"}``."""
        return {"role": self.role, "content": self.content}


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


def make_message(role: str, content: str, measure: Measure, number: int = 0,
                 allowed: tuple[str, ...] = TURN_ROLES) -> Message:
    """Validate and measure a message (one call to ``measure``).

    Raises ValueError for a role not in ``allowed``, TypeError for non-string content,
    and TypeError/ValueError if the measure returns something other than an int >= 0.
    """
    check_role(role, allowed)
    if not isinstance(content, str):
        raise TypeError(f"{role} content must be str, got {type(content).__name__}: {content!r:.60}")
    return Message(role, content, measured(measure, content), number)


def render(messages: list[Message]) -> str:
    """Messages as transcript lines, one ``"role: content"`` per line."""
    return "\n".join(m.line() for m in messages)


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
