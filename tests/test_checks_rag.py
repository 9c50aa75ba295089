"""The lesson-07 checkers accept the right answers and reject the typical wrong ones."""
from __future__ import annotations

import random
import re

import pytest

from kit.checks import rag as checks
from kit.checks.rag import check_citation_markers, check_standalone_query
from kit.rag.rewrite import REWRITE_SYSTEM, build_rewrite_prompt, clean_query, rewrite_query

# -- citation_markers(answer, n_chunks) --------------------------------------------------
RUN = re.compile(r"(?<![\w)])\[(\d+(?:\s*,\s*\d+)*)\](?!\()")


def citation_markers(answer, n_chunks):
    valid, invalid = [], []
    for match in RUN.finditer(answer):
        for number in match.group(1).split(","):
            n = int(number)
            found = valid if 1 <= n <= n_chunks else invalid
            if n not in found:
                found.append(n)
    return valid, invalid


def parse_with(pattern=RUN, in_range=lambda n, size: 1 <= n <= size, dedupe=True,
               sort=False, shift=0):
    """A citation_markers with one thing changed."""
    def parse(answer, n_chunks):
        valid, invalid = [], []
        for match in pattern.finditer(answer):
            for number in re.findall(r"\d+", match.group(1)):
                n = int(number)
                found = valid if in_range(n, n_chunks) else invalid
                if not dedupe or n not in found:
                    found.append(n + shift if found is valid else n)
        return (sorted(valid), sorted(invalid)) if sort else (valid, invalid)
    return parse


single_only = parse_with(re.compile(r"(?<![\w)])\[(\d+)\](?!\()"))           # misses [1, 2]
one_digit = parse_with(re.compile(r"(?<![\w)])\[(\d(?:\s*,\s*\d)*)\](?!\()"))  # misses [10]
no_glue_rule = parse_with(re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\](?!\()"))      # counts a[0]
counts_links = parse_with(re.compile(r"(?<![\w)])\[(\d+(?:\s*,\s*\d+)*)\]"))  # counts [1](url)
zero_based_range = parse_with(in_range=lambda n, size: 0 <= n < size)        # [0] ok, [n] not
accepts_zero = parse_with(in_range=lambda n, size: n <= size)
accepts_past_end = parse_with(in_range=lambda n, size: n >= 1)
no_dedupe = parse_with(dedupe=False)
sorts = parse_with(sort=True)
chunk_indexes = parse_with(shift=-1)                                          # n - 1
loose_group = parse_with(re.compile(r"(?<![\w)])\[([\d,\s]+)\](?!\()"))     # reads [2,], [1 2]


def only_valid(answer, n_chunks):
    return citation_markers(answer, n_chunks)[0]


def as_strings(answer, n_chunks):
    valid, invalid = citation_markers(answer, n_chunks)
    return [str(n) for n in valid], [str(n) for n in invalid]


def invalid_not_deduped(answer, n_chunks):
    valid, invalid = [], []
    for match in RUN.finditer(answer):
        for number in match.group(1).split(","):
            n = int(number)
            if not 1 <= n <= n_chunks:
                invalid.append(n)
            elif n not in valid:
                valid.append(n)
    return valid, invalid


def citations_stub(answer, n_chunks):
    raise NotImplementedError("Exercise: write your answer here")


def test_citation_markers_right_answer_passes(passes):
    passes(check_citation_markers, citation_markers, "citation_markers")


def test_a_tuple_of_tuples_passes_too(passes):
    passes(check_citation_markers, lambda a, n: tuple(map(tuple, citation_markers(a, n))),
           "citation_markers")


@pytest.mark.parametrize("wrong, hint", [
    (single_only, "[1, 2] holds two markers"),
    (one_digit, "[10] is valid"),
    (no_glue_rule, "indexing"),
    (counts_links, "Markdown link"),
    (zero_based_range, "1 <= n <= n_chunks"),
    (accepts_zero, "[0] names no chunk"),
    (accepts_past_end, "past the last chunk"),
    (no_dedupe, "each number once"),
    (sorts, "first-seen order"),
    (chunk_indexes, "0-based"),
    (loose_group, "[1,] is not a marker: a group is whole numbers"),
    (invalid_not_deduped, "each number once"),
    (only_valid, "tuple (valid, invalid)"),
    (as_strings, "as ints"),
    (citations_stub, "not written yet"),
])
def test_citation_markers_wrong_answers_fail(wrong, hint, rejects):
    rejects(check_citation_markers, wrong, hint)


def test_citation_cases_name_the_rule_in_the_failure():
    failure = pytest.raises(checks.CheckFailed, check_citation_markers, single_only)
    assert "Both apply [1, 2]" in str(failure.value) and "valid=[1, 2]" in str(failure.value)


def test_the_exercise_does_not_shadow_the_kits_parse_citations():
    import kit.rag
    assert "citation_markers" not in kit.rag.__all__ and not hasattr(kit.rag, "citation_markers")
    assert "citation_markers" in str(pytest.raises(checks.CheckFailed, check_citation_markers,
                                                   single_only).value)


def test_random_answers_cover_every_kind_of_bracket():
    rng = random.Random(7)
    text = " ".join(checks._random_answer(rng) for _ in range(200))
    for piece in ("a[", "f(x)[", "](https://", "[x]", "][", ", "):
        assert piece in text, piece


# -- standalone_query(llm, history, question) --------------------------------------------
def standalone_query(llm, history, question):
    if not history.strip():
        return question
    try:
        reply = llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question))
    except Exception:
        return question
    query, _ = clean_query(reply)
    return query if query is not None else question


def using_kit(llm, history, question):
    return rewrite_query(llm, history, question).query


def rewrites_first_turn(llm, history, question):          # calls the model with no history
    try:
        reply = llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question))
    except Exception:
        return question
    query, _ = clean_query(reply)
    return query or question


def blank_history_counts(llm, history, question):         # `if not history` misses "  \n"
    if not history:
        return question
    try:
        reply = llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question))
    except Exception:
        return question
    query, _ = clean_query(reply)
    return query if query is not None else question


def no_try(llm, history, question):                       # a timeout fails the turn
    if not history.strip():
        return question
    query, _ = clean_query(llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question)))
    return query if query is not None else question


def catches_timeout_only(llm, history, question):
    if not history.strip():
        return question
    try:
        reply = llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question))
    except TimeoutError:
        return question
    query, _ = clean_query(reply)
    return query if query is not None else question


def returns_reply(llm, history, question):                # no check: chatty text comes back
    if not history.strip():
        return question
    try:
        return llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question)).strip() or question
    except Exception:
        return question


def returns_empty(llm, history, question):                # "" goes to the retriever
    if not history.strip():
        return question
    try:
        reply = llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question))
    except Exception:
        return question
    if isinstance(reply, str) and not reply.strip():
        return ""
    query, _ = clean_query(reply)
    return query if query is not None else question


def raw_when_clean(llm, history, question):               # checks, but returns the raw reply
    if not history.strip():
        return question
    try:
        reply = llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question))
    except Exception:
        return question
    query, _ = clean_query(reply)
    return reply if query is not None else question


def no_history_in_prompt(llm, history, question):         # the model cannot resolve "COD"
    if not history.strip():
        return question
    try:
        reply = llm(REWRITE_SYSTEM, question)
    except Exception:
        return question
    query, _ = clean_query(reply)
    return query if query is not None else question


def retries(llm, history, question):                      # a second call on a bad reply
    if not history.strip():
        return question
    for _ in range(2):
        try:
            query, _ = clean_query(llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question)))
        except Exception:
            continue
        if query is not None:
            return query
    return question


def one_argument(llm, history, question):                 # calls a chat model like a prompt model
    if not history.strip():
        return question
    try:
        reply = llm(build_rewrite_prompt(history, question))
    except Exception:
        return question
    query, _ = clean_query(reply)
    return query if query is not None else question


def returns_rewrite(llm, history, question):
    return rewrite_query(llm, history, question)


def rewrite_stub(llm, history, question):
    raise NotImplementedError("Exercise: write your answer here")


@pytest.mark.parametrize("right", [standalone_query, using_kit])
def test_standalone_query_right_answers_pass(right, passes):
    passes(check_standalone_query, right, "standalone_query")


@pytest.mark.parametrize("wrong, hints", [
    (rewrites_first_turn, ["no history", "called the model", "without a model call"]),
    (blank_history_counts, ["blank history", "history.strip()"]),
    (no_try, ["raised TimeoutError", "except Exception"]),
    (catches_timeout_only, ["raised ConnectionError", "except Exception"]),
    (returns_reply, ["'Sure, I can help with that!'", "clean_query(reply)"]),
    (returns_empty, ["empty query retrieves nothing"]),
    (raw_when_clean, ["cleaned query", "not the raw reply"]),
    (no_history_in_prompt, ["build_rewrite_prompt(history, question)", "needs the history"]),
    (retries, ["2 times", "no retries"]),
    (one_argument, ["chat model", "two strings"]),
    (returns_rewrite, ["as a str"]),
    (rewrite_stub, ["not written yet"]),
])
def test_standalone_query_wrong_answers_fail(wrong, hints, rejects):
    rejects(check_standalone_query, wrong, *hints)


def test_rewrite_cases_agree_with_kit():
    for history, action, _ in checks._REWRITE_CASES:
        model = checks._Model(error=action) if isinstance(action, BaseException) \
            else checks._Model(reply=action)
        want = checks._expected_query(action) if history.strip() else checks.QUESTION
        assert rewrite_query(model, history, checks.QUESTION).query == want, (history, action)
