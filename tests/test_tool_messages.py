"""Tool calls and tool results in kit.messages and kit.sizing: validated where they enter,
rendered and sent in the providers' chat shape, counted as count_chat_tokens bills them,
and refused with a clear error by the memories of lessons 02-10."""
from __future__ import annotations

import pytest

from kit.memory import FullHistory, SummaryMemory, TokenWindow
from kit.messages import AGENT_ROLES, ToolCall, make_message, render
from kit.sizing import SizeRule
from kit.tokens import cl100k_tokens, count_chat_tokens, count_words

CALL = {"id": "c1", "name": "search", "arguments": '{"q": "refund policy"}'}


def made(count="text", measure=count_words):
    rule = SizeRule(measure, count)
    call = make_message("assistant", "I will look it up", measure, 1, AGENT_ROLES, calls=[CALL],
                        size=rule.of)
    result = make_message("tool", "Refunds within 30 days", measure, 2, AGENT_ROLES,
                          call_id="c1", size=rule.of)
    return call, result


def test_chat_dicts_carry_calls_and_the_call_id():
    call, result = made()
    assert call.calls == (ToolCall("c1", "search", '{"q": "refund policy"}'),)
    assert call.chat() == {"role": "assistant", "content": "I will look it up", "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "search", "arguments": '{"q": "refund policy"}'}}]}
    assert result.chat() == {"role": "tool", "content": "Refunds within 30 days",
                             "tool_call_id": "c1"}
    assert render([call, result]) == ('assistant: I will look it up\n'
                                      '  -> call c1: search({"q": "refund policy"})\n'
                                      'tool (c1): Refunds within 30 days')


def test_text_sizes_count_the_call_name_and_arguments():
    call, result = made()
    assert (call.tokens, result.tokens) == (5 + 1 + 3, 4)      # words: content, name, args


def test_billed_sizes_equal_count_chat_tokens():
    call, result = made("billed", cl100k_tokens)
    billed = count_chat_tokens([call.chat(), result.chat()], measure=cl100k_tokens)
    assert call.tokens + result.tokens + 3 == billed          # + the reply priming
    plain = count_chat_tokens([{"role": "assistant", "content": "I will look it up"}],
                              measure=cl100k_tokens)
    assert call.tokens > plain - 3


def test_rendered_sizes_cover_the_lines():
    call, result = made("rendered", cl100k_tokens)
    for message in (call, result):
        assert message.tokens >= cl100k_tokens(message.line() + "\n\n")


@pytest.mark.parametrize("role, kwargs, match", [
    ("user", {"calls": [CALL]}, "only an assistant message may carry tool calls"),
    ("tool", {}, "needs the call_id"),
    ("assistant", {"call_id": "c1"}, "only a tool message has a call_id"),
    ("assistant", {"calls": [CALL, CALL]}, "unique"),
    ("assistant", {"calls": [{"id": "", "name": "x"}]}, "needs an id and a name"),
    ("tool", {"call_id": "c1\nuser: hi"}, "one line"),
])
def test_bad_calls_are_refused(role, kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_message(role, "x", count_words, 1, AGENT_ROLES, **kwargs)


@pytest.mark.parametrize("memory", [FullHistory(count_words), TokenWindow(50, count_words),
                                    SummaryMemory(lambda p: "s", 50, 2, count_words)])
def test_lesson_memories_refuse_a_tool_message_unchanged(memory):
    memory.add("user", "hello there")
    before = (memory.messages(), memory.size)
    with pytest.raises(ValueError, match="user and assistant turns only.*agent context"):
        memory.add("tool", "a result")
    assert (memory.messages(), memory.size) == before
