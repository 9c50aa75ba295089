"""What counts against a budget: one rule, three modes, for every memory.

- ``"text"`` (the default): the texts of the messages and the summary, in the
  measure's unit, exactly as the laptop example of the sliding-window lesson counts.
- ``"rendered"``: everything the context string holds: each turn's ``role:`` or
  ``Caroline:`` label, the summary's title, the ``system:`` label, and one separator
  (``measure("\\n\\n")``) per message and per summary: the sum of the pieces' sizes.
  With a word or character measure it is exact or high. With a tokenizer it errs high on
  ordinary text (by about a token per message); BPE can merge a line break with the
  punctuation before it, so a message that ends in a run of punctuation (``"[~,"``) can
  cost a token more in the context than counted: leave a small margin under a hard limit.
- ``"billed"``: what a chat request is billed (the cookbook rule of
  :func:`kit.tokens.count_chat_tokens`): each message's role and content plus
  ``TOKENS_PER_MESSAGE``, the summary as one system message, and
  ``REPLY_PRIMING_TOKENS`` once. With the memory's ``messages()``, the memory's ``size``
  equals ``count_chat_tokens(memory.messages(), measure=memory.measure)``.

A :class:`SizeRule` measures each message once, when it is added: one call to the
measure on the content (``rendered`` adds its label, ``"Caroline: "``, measured once per
label, so a label's trailing space may count once more than it costs; ``billed`` measures
the content as sent, with its speaker prefix, and adds the role's size, measured once per
role).

Tool calls and results (agents, :mod:`kit.agent`) are counted by :meth:`SizeRule.of` as the
providers' chat formats send them: ``text`` counts a call's name and arguments beside the
content; ``rendered`` counts the transcript lines (``-> call c7: search({...})``, the
``tool (c7):`` label); ``billed`` adds, per call, its id, name and arguments plus
``TOKENS_PER_TOOL_CALL``, and a result's ``tool_call_id``: exactly
:func:`kit.tokens.count_chat_tokens` of the message's chat dict.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kit.messages import Message, indent_continuation, tool_size
from kit.prompts import SUMMARY_TITLE
from kit.tokens import (REPLY_PRIMING_TOKENS, TOKENS_PER_MESSAGE, TOKENS_PER_TOOL_CALL,
                        Measure, measured, unit_of)

__all__ = ["COUNTS", "SizeRule", "check_count"]

COUNTS = ("text", "rendered", "billed")


def check_count(count: object) -> str:
    """``count`` if it is one of :data:`COUNTS`; else ValueError naming it."""
    if not isinstance(count, str) or count not in COUNTS:
        raise ValueError(f"count must be one of {', '.join(map(repr, COUNTS))}, got {count!r:.60}")
    return count


@dataclass(frozen=True)
class SizeRule:
    """Sizes under one counting rule. ``measure``: ``str -> int``; ``count``: one of
    :data:`COUNTS`. Raises ValueError for another ``count``."""

    measure: Measure
    count: str = "text"
    _roles: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        check_count(self.count)

    @property
    def overhead(self) -> int:
        """Size every context has whatever it holds: the reply priming when billed, else 0."""
        return REPLY_PRIMING_TOKENS if self.count == "billed" else 0

    @property
    def separator(self) -> int:
        """Size of one separator between rendered parts (``rendered`` only, else 0)."""
        return self._role("\n\n") if self.count == "rendered" else 0

    def _role(self, text: str) -> int:
        size = self._roles.get(text)
        if size is None:
            size = self._roles[text] = measured(self.measure, text)
        return size

    def message(self, role: str, content: str, speaker: str = "") -> int:
        """Size of one message (``role`` "system", "user" or "assistant")."""
        if self.count == "text":
            return measured(self.measure, content)
        if self.count == "rendered":             # the label "Caroline: " measured once
            return (self._role(f"{speaker or role}: ")
                    + measured(self.measure, indent_continuation(content)) + self.separator)
        shown = f"{speaker}: {content}" if speaker else content
        return self._role(role) + measured(self.measure, shown) + TOKENS_PER_MESSAGE

    def of(self, message: Message) -> int:
        """Size of ``message`` under this rule, its tool calls or call id included (a
        message without them: as :meth:`message`). One measure call per piece."""
        if not message.calls and not message.call_id:
            return self.message(message.role, message.content, message.speaker)
        if self.count == "text":
            return tool_size(message, self.measure)
        if self.count == "rendered":
            return (self._role(f"{message.label}: ")
                    + measured(self.measure, indent_continuation(message.content))
                    + sum(measured(self.measure, f"\n  {call.line()}") for call in message.calls)
                    + self.separator)
        total = (self._role(message.role) + measured(self.measure, message.content)
                 + TOKENS_PER_MESSAGE)
        if message.call_id:
            total += measured(self.measure, message.call_id)
        return total + sum(measured(self.measure, call.id) + measured(self.measure, call.name)
                           + measured(self.measure, call.arguments) + TOKENS_PER_TOOL_CALL
                           for call in message.calls)

    def summary(self, text: str) -> int:
        """Size of a running summary ``text`` as this rule counts it (``rendered``: under
        its title; ``billed``: as one system message)."""
        if self.count == "text":
            return measured(self.measure, text)
        block = f"{SUMMARY_TITLE}\n{indent_continuation(text)}"
        if self.count == "rendered":
            return measured(self.measure, block) + self.separator
        return self._role("system") + measured(self.measure, block) + TOKENS_PER_MESSAGE

    def summary_measure(self) -> Measure:
        """:meth:`summary` as a ``str -> int`` measure with the measure's unit (the
        measure itself for ``text``), for code that sizes summaries with a measure."""
        if self.count == "text":
            return self.measure

        def size(text: str) -> int:
            return self.summary(text)
        size.unit = unit_of(self.measure)          # type: ignore[attr-defined]
        size.__name__ = f"{self.count}_summary"
        return size
