"""The lesson-01 checkers accept the right answers and reject the typical wrong ones."""
from itertools import accumulate

import pytest

from kit.checks import CheckFailed, call_learner, call_pure, show_call
from kit.checks.cost import (chat_cases, check_chat_request_tokens,
                             check_total_prompt_tokens, digit_start_chat, full_history_cases)
from kit.tokens import count_chat_tokens, count_words, tiktoken_counter


# -- exercise 1: total_prompt_tokens ------------------------------------------------

def total_right(message_sizes):
    total, context = 0, 0
    for size in message_sizes:
        context += size
        total += context
    return total


def total_plain_sum(message_sizes):
    return sum(message_sizes)


def total_without_current(message_sizes):      # off by one: history before the message
    total, context = 0, 0
    for size in message_sizes:
        total += context
        context += size
    return total


def total_mutating(message_sizes):             # prefix sums written into the input
    for i in range(1, len(message_sizes)):
        message_sizes[i] += message_sizes[i - 1]
    return sum(message_sizes)


def total_as_list(message_sizes):              # the per-call sizes, not their total
    return list(accumulate(message_sizes))


def total_whole_conversation(message_sizes):   # every call sends all n messages
    return len(message_sizes) * sum(message_sizes)


def total_float(message_sizes):
    return float(total_right(message_sizes))


def stub(*args):
    raise NotImplementedError("Exercise: write your answer here")


def test_total_right_answer_passes_with_one_line(passes):
    passes(check_total_prompt_tokens, total_right, "total_prompt_tokens")


def test_total_reference_cases_agree_with_full_history():
    for sizes, expected in full_history_cases():
        assert total_right(sizes) == expected
    # the sizes of the summary-memory lesson's laptop trace
    assert full_history_cases()[0] == ([7, 4, 8, 7], 7 + 11 + 19 + 26)


@pytest.mark.parametrize("wrong, hint", [
    (total_plain_sum, "plain sum"),
    (total_without_current, "off by one"),
    (total_mutating, "changed its input in place"),
    (total_as_list, "return one int"),
    (total_whole_conversation, "first k messages"),
    (total_float, "should return an int"),
    (stub, "not written yet"),
    (42, "should be a function"),
])
def test_total_wrong_answers_fail_with_hint(wrong, hint):
    with pytest.raises(CheckFailed, match=hint):
        check_total_prompt_tokens(wrong)


# -- exercise 2: chat_request_tokens ------------------------------------------------

def chat_right(messages, count):
    total = 3                                   # reply priming
    for message in messages:
        total += 3                              # per-message wrapper
        for key, value in message.items():
            total += count(value)
            if key == "name":
                total += 1
    return total


def chat_no_priming(messages, count):
    return chat_right(messages, count) - 3


def chat_no_role(messages, count):
    return chat_right(messages, count) - sum(count(m["role"]) for m in messages)


def chat_no_name_bonus(messages, count):
    return chat_right(messages, count) - sum("name" in m for m in messages)


def chat_ignores_names(messages, count):
    total = 3
    for message in messages:
        total += 3 + count(message["role"]) + count(message["content"])
    return total


def chat_mutating(messages, count):
    for message in messages:                    # "normalise" by dropping the name
        message.pop("name", None)
    return chat_right(messages, count)


def chat_four_per_message(messages, count):
    return chat_right(messages, count) + len(messages)


def chat_contents_only(messages, count):
    return sum(count(m["content"]) for m in messages)


def chat_ignores_counter(messages, count):     # hard-codes tiktoken
    return count_chat_tokens(messages)


def chat_role_and_content_joined(messages, count):  # one string: the seam changes the tokens
    return 3 + sum(3 + count(f"{m['role']} {m['content']}")
                   + (count(m["name"]) + 1 if "name" in m else 0) for m in messages)


def test_chat_right_answer_passes_with_one_line(passes):
    passes(check_chat_request_tokens, chat_right, "chat_request_tokens")


def test_chat_right_answer_matches_kit_count_chat_tokens():
    for messages in chat_cases():
        assert chat_right(messages, tiktoken_counter()) == count_chat_tokens(messages)
    assert chat_right([], count_words) == 3


def test_digit_start_chat_tells_joined_role_and_content_apart():
    """Counting f"{role} {content}" agrees with the word counter but not with tiktoken."""
    messages = digit_start_chat()
    count = tiktoken_counter()
    assert chat_right(messages, count) == count_chat_tokens(messages)
    assert chat_role_and_content_joined(messages, count) != count_chat_tokens(messages)
    for case in chat_cases():
        assert (chat_role_and_content_joined(case, count_words)
                == chat_right(case, count_words))
    with pytest.raises(CheckFailed, match=r"count=tiktoken_cl100k_base should be \d+ tokens"):
        check_chat_request_tokens(chat_role_and_content_joined)


@pytest.mark.parametrize("wrong, hint", [
    (chat_no_priming, "reply-priming"),
    (chat_no_role, "role is text"),
    (chat_no_name_bonus, "costs 1 more token"),
    (chat_ignores_names, "count the name's tokens"),
    (chat_mutating, "changed its input in place"),
    (chat_four_per_message, "3 tokens a message"),
    (chat_contents_only, "sum of the contents"),
    (chat_ignores_counter, "the `count` you were given"),
    (chat_role_and_content_joined, "count each value on its own"),
    (stub, "not written yet"),
])
def test_chat_wrong_answers_fail_with_hint(wrong, hint):
    with pytest.raises(CheckFailed, match=hint):
        check_chat_request_tokens(wrong)


def test_chat_non_int_result_fails():
    with pytest.raises(CheckFailed, match="should return an int"):
        check_chat_request_tokens(lambda messages, count: str(chat_right(messages, count)))


# -- hardening: a learner's own exception names the case -----------------------------

def total_first_size(message_sizes):           # message_sizes[0] on an empty list
    total = context = message_sizes[0]
    for size in message_sizes[1:]:
        context += size
        total += context
    return total


def chat_always_named(messages, count):        # m["name"] on a message without a name
    return sum(3 + count(m["role"]) + count(m["content"]) + count(m["name"]) + 1
               for m in messages) + 3


def test_total_learner_exception_names_the_call():
    with pytest.raises(CheckFailed, match=r"total_prompt_tokens\(\[\]\) raised IndexError: "
                                          r"list index out of range") as failure:
        check_total_prompt_tokens(total_first_size)
    assert isinstance(failure.value.__cause__, IndexError)


def test_chat_learner_exception_names_the_call():
    with pytest.raises(CheckFailed, match=r"chat_request_tokens\(5 messages \(2 with a name\), "
                                          r"count=count_words\) raised KeyError: 'name'"):
        check_chat_request_tokens(chat_always_named)


# -- kit.checks helpers ----------------------------------------------------------------

def test_call_pure_wraps_unexpected_exceptions_with_the_inputs():
    with pytest.raises(CheckFailed, match=r"pick\(\[\], 2\) raised IndexError: list index "
                                          r"out of range\. Hint: Run that call yourself") as failure:
        call_pure(lambda xs, i: xs[i], [], 2, name="pick")
    assert isinstance(failure.value.__cause__, IndexError)


def test_call_pure_lets_expected_exceptions_through():
    def strict(n):
        raise ValueError(f"bad n: {n}")

    with pytest.raises(ValueError, match="bad n: 0"):
        call_pure(strict, 0, name="strict", expected=(ValueError,))
    with pytest.raises(CheckFailed, match=r"strict\(0\) raised ValueError: bad n: 0\. Hint: "
                                          r"Say why\."):
        call_pure(strict, 0, name="strict", expected=(TimeoutError,), hint="Say why.")


def test_call_pure_keeps_stub_and_checker_failures():
    with pytest.raises(CheckFailed, match="not written yet"):
        call_pure(stub, 1, name="stub", expected=(Exception,))

    def calls_a_double(x):
        raise CheckFailed("the double's own hint")

    with pytest.raises(CheckFailed, match="^the double's own hint$"):
        call_pure(calls_a_double, 1, name="f")


def test_call_learner_passes_the_objects_themselves():
    given = [1, 2]
    assert call_learner(lambda xs: xs, given, name="ident") is given
    assert call_pure(lambda xs: xs, given, name="ident") is not given


def test_show_call_cuts_long_arguments():
    shown = show_call("f", (list(range(100)), "x"))
    assert shown.startswith("f([0, 1, 2") and shown.endswith("...)") and len(shown) < 130
    assert show_call("f", ()) == "f()" and show_call("g", ([], 0)) == "g([], 0)"
