"""Checkers for lesson 01 (tokens and the cost of full history).

- :func:`check_total_prompt_tokens`: the exercise ``total_prompt_tokens(message_sizes)``,
  the tokens sent over a whole conversation when every call resends the full history.
- :func:`check_chat_request_tokens`: the exercise ``chat_request_tokens(messages, count)``,
  the prompt tokens one chat request is billed for (OpenAI cookbook overhead).

Each checker runs the learner's function on cases with known answers (never changing
the inputs it was given: see :func:`kit.checks.call_pure`), prints one pass line, or
raises :class:`kit.checks.CheckFailed` with a hint that names the likely mistake.
"""
from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate

from kit.checks import CheckFailed, call_pure, expect, passed
from kit.conversations import LAPTOP_TURNS, replay, shopping_chat
from kit.memory import FullHistory
from kit.tokens import (REPLY_PRIMING_TOKENS, TOKENS_PER_MESSAGE, TOKENS_PER_NAME,
                        count_chat_tokens, count_words, tiktoken_counter)

__all__ = ["check_total_prompt_tokens", "check_chat_request_tokens", "full_history_cases",
           "chat_cases", "digit_start_chat"]


# -- exercise 1: total_prompt_tokens ------------------------------------------------

def full_history_cases() -> list[tuple[list[int], int]]:
    """(message sizes, total tokens sent) pairs for ``total_prompt_tokens``.

    The two conversation cases come from :class:`kit.memory.FullHistory` with the word
    measure: the sizes are the trace's per-message sizes and the answer is the sum of
    the context sizes after each message (one model call per message).
    """
    cases = []
    for turns in (LAPTOP_TURNS, shopping_chat(12)):
        events = replay(FullHistory(count_words), turns)
        cases.append(([e.tokens for e in events], sum(e.size_after for e in events)))
    for sizes in ([], [5], [10] * 10, [0, 3, 0, 2]):
        cases.append((sizes, sum(accumulate(sizes))))   # sum of the prefix sums
    return cases


def _prompt_total_hint(sizes: list[int], expected: int, got: object) -> str:
    if got == sum(sizes):
        why = ("that is the plain sum of the message sizes; but every call resends the "
               "whole history, so message 1 is paid for on every call")
    elif got == expected - sum(sizes):
        why = ("off by one: each call's prompt includes the message just added, and there "
               "is one call per message, the last one included")
    elif got == len(sizes) * sum(sizes):
        why = "call k sends only the first k messages, not the whole conversation"
    else:
        why = "add up the context size at each call (a running total of the sizes)"
    return (f"total_prompt_tokens({sizes}) should be {expected} tokens, got {got!r}: {why}")


def check_total_prompt_tokens(total_prompt_tokens: Callable[[list[int]], int]) -> None:
    """Check ``total_prompt_tokens(message_sizes) -> int``.

    The exercise: ``message_sizes`` is a list of ints, the size in tokens of each
    message of a conversation in order; the model is called after every message with
    the full history so far. Return the total tokens sent over all calls (an int: the
    sum of the prefix sums), without changing the list.

    Raises CheckFailed for the stub, a changed input, a list or other non-int result,
    and a wrong total (with a hint for the plain sum and for an off-by-one).
    """
    name = "total_prompt_tokens"
    cases = full_history_cases()
    for sizes, expected in cases:
        got = call_pure(total_prompt_tokens, sizes, name=name)
        expect(not isinstance(got, (list, tuple)),
               f"{name}({sizes}) returned {type(got).__name__} {got!r:.80}: return one int, "
               f"the total over all calls (sum your per-call sizes)")
        expect(isinstance(got, int) and not isinstance(got, bool),
               f"{name}({sizes}) should return an int (tokens), got "
               f"{type(got).__name__}: {got!r:.80}")
        expect(got == expected, _prompt_total_hint(sizes, expected, got))
    passed(name, len(cases))


# -- exercise 2: chat_request_tokens ------------------------------------------------

def chat_cases() -> list[list[dict[str, str]]]:
    """Chat message lists used by :func:`check_chat_request_tokens`."""
    shop = [
        {"role": "system", "content": "You are a helpful shop assistant."},
        {"role": "user", "name": "asha", "content": "Hi, my order id is 88412."},
        {"role": "assistant", "content": "Noted. How can I help?"},
        {"role": "user", "name": "ravi", "content": "Do you have trail mix in stock?"},
        {"role": "assistant", "content": "Yes, in two sizes."},
    ]
    return [
        shop,
        [],
        [{"role": "user", "content": "hello there"}],
        [{"role": "user", "name": "bo", "content": ""}],
        [dict(m) for m in shop[:3]],
    ]


def digit_start_chat() -> list[dict[str, str]]:
    """A chat whose contents start with digits: checked with a tiktoken counter.

    cl100k_base splits numbers off without their leading space, so
    ``count("user 88412 ...")`` is one token more than ``count("user") +
    count("88412 ...")``: counting role and content as one string is caught here
    (with the word counter the two agree).
    """
    return [
        {"role": "system", "content": "You are a helpful shop assistant."},
        {"role": "user", "content": "88412 is my order id."},
        {"role": "assistant", "content": "Noted: order 88412."},
        {"role": "user", "name": "asha", "content": "2 bags of trail mix, please."},
    ]


def _describe(messages: list[dict[str, str]], count: Callable[[str], int]) -> str:
    named = sum("name" in m for m in messages)
    return (f"{len(messages)} messages ({named} with a name), "
            f"count={getattr(count, '__name__', 'count')}")


def _chat_hint(messages: list[dict[str, str]], expected: int, got: object,
               count: Callable[[str], int]) -> str:
    names = [m["name"] for m in messages if "name" in m]
    joined = sum(count(f"{m['role']} {m['content']}") - count(m["role"]) - count(m["content"])
                 for m in messages)
    mistakes = {
        expected + joined:
            "count each value on its own, count(role) + count(content), not one string "
            "such as f\"{role} {content}\": joining them changes the tokens where they meet "
            "(\" 88412\" splits into a space and the digits, \"88412\" does not)",
        expected - REPLY_PRIMING_TOKENS:
            f"missing the {REPLY_PRIMING_TOKENS} reply-priming tokens added once per request",
        expected - sum(count(m["role"]) for m in messages):
            "the role is text the model reads, so count its tokens too",
        expected - TOKENS_PER_NAME * len(names):
            f"a message with a name costs {TOKENS_PER_NAME} more token",
        expected - sum(count(n) + TOKENS_PER_NAME for n in names):
            f"count the name's tokens and {TOKENS_PER_NAME} more for having a name",
        expected + len(messages):
            f"the overhead is {TOKENS_PER_MESSAGE} tokens a message (4 was an older model)",
        sum(count(m["content"]) for m in messages):
            "that is the sum of the contents; add the per-message and reply overhead",
        count_chat_tokens(messages):
            "measure every value with the `count` you were given, not your own tokenizer",
    }
    why = mistakes.get(got, "") if messages and got != expected else ""
    rule = (f"{TOKENS_PER_MESSAGE} per message + tokens of every value (role, content, "
            f"name) + {TOKENS_PER_NAME} per name + {REPLY_PRIMING_TOKENS} reply priming")
    return (f"chat_request_tokens for {_describe(messages, count)} should be {expected} "
            f"tokens, got {got!r:.60}: {why or rule}")


def check_chat_request_tokens(chat_request_tokens: Callable) -> None:
    """Check ``chat_request_tokens(messages, count) -> int``.

    The exercise: ``messages`` is a list of chat dicts (``role``, ``content``, maybe
    ``name``) and ``count`` a counter ``str -> int``. Return the prompt tokens the
    request is billed for: 3 per message, plus ``count`` of every value (role, content
    and name), plus 1 per message with a name, plus 3 to prime the reply; never
    change ``messages``.

    Cases use :func:`kit.tokens.count_words` as the counter (fast, exact), then two
    with a tiktoken counter whose answer must equal :func:`kit.tokens.count_chat_tokens`
    (one of them, :func:`digit_start_chat`, has contents starting with a digit, where
    counting role and content as one string gives one token more).
    Raises CheckFailed for the stub, changed input, a non-int result or a wrong count
    (with a hint for missing reply priming, role, name, the sum of contents, or role
    and content counted as one string).
    """
    name = "chat_request_tokens"
    runs = [(messages, count_words, count_chat_tokens(messages, measure=count_words))
            for messages in chat_cases()]
    for messages in (chat_cases()[0], digit_start_chat()):
        runs.append((messages, tiktoken_counter(), count_chat_tokens(messages)))
    for messages, count, expected in runs:
        got = call_pure(chat_request_tokens, messages, count, name=name,
                        shown=f"{name}({_describe(messages, count)})")
        expect(isinstance(got, int) and not isinstance(got, bool),
               f"{name} should return an int (tokens), got {type(got).__name__}: {got!r:.80}")
        if got != expected:
            raise CheckFailed(_chat_hint(messages, expected, got, count))
    passed(name, len(runs))
