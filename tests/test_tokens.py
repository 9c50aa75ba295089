"""Unit tests of kit/tokens.py: the measures, exact tiktoken counts and chat overhead.

Exact counts are checked twice: against literal values and against tiktoken's own
``encode`` on the same Encoding, so a wrong wrapper (e.g. forgetting
``disallowed_special=()``) or a wrong encoding shows up.
"""
import pytest

from kit.tokens import (ENCODINGS, CallCounter, approx_tokens, count_characters,
                        count_chat_tokens, count_tokens, count_words, get_encoding,
                        resolve_encoding, tiktoken_counter, unit_of)


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    """Seed encodings into a throwaway cache, never the user's."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken-cache"))


# --- cheap measures -----------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("", 0), ("a", 1), ("abc", 1), ("abcd", 1), ("abcdefg", 1), ("abcdefgh", 2),
    ("x" * 41, 10),
])
def test_approx_tokens_is_chars_div_4_at_least_1(text, expected):
    assert approx_tokens(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("", 0), ("   ", 0), ("one", 1), ("I need a laptop under Rs 60000", 7),
    ("  tabs\tand\nnewlines  count ", 4),
])
def test_count_words_splits_on_whitespace(text, expected):
    assert count_words(text) == expected


def test_count_characters_counts_code_points():
    assert count_characters("") == 0
    assert count_characters("héllo") == 5
    assert count_characters("🙂🚀") == 2


@pytest.mark.parametrize("measure", [approx_tokens, count_words, count_characters,
                                     count_tokens, "tiktoken_counter"])
@pytest.mark.parametrize("bad, type_name", [(None, "NoneType"), (42, "int"),
                                            (b"bytes", "bytes"), (["a"], "list")])
def test_measures_reject_non_str_naming_the_type(measure, bad, type_name):
    if measure == "tiktoken_counter":      # built here, inside the throwaway cache
        measure = tiktoken_counter("o200k_base")
    with pytest.raises(TypeError, match=type_name):
        measure(bad)


def test_units():
    assert (unit_of(approx_tokens), unit_of(count_words), unit_of(count_characters)) == (
        "tokens", "words", "characters")
    assert unit_of(lambda text: 0) == "tokens"
    assert unit_of(tiktoken_counter()) == "tokens"


# --- exact tiktoken counts ----------------------------------------------------------

@pytest.mark.parametrize("encoding", ENCODINGS)
def test_hello_world_is_two_tokens(encoding):
    assert count_tokens("hello world", encoding) == 2


def test_default_encoding_is_cl100k_base():
    text = "我需要一台笔记本电脑"
    assert count_tokens(text) == count_tokens(text, "cl100k_base")
    assert count_tokens(text) != count_tokens(text, "o200k_base")


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("text, expected", [
    ("The quick brown fox jumps over the lazy dog.", 10),
    ("Rs 57990", 4),
])
def test_exact_counts_match_tiktoken(encoding, text, expected):
    assert count_tokens(text, encoding) == expected
    assert count_tokens(text, encoding) == len(get_encoding(encoding).encode(text))


@pytest.mark.parametrize("encoding, exact", [("cl100k_base", 17), ("o200k_base", 11)])
def test_approx_is_far_off_on_cjk_and_emoji(encoding, exact):
    text = "我需要一台笔记本电脑🙂🚀"          # 12 characters
    assert approx_tokens(text) == 3
    assert count_tokens(text, encoding) == exact
    assert count_tokens(text, encoding) / approx_tokens(text) > 3.5


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_special_token_text_is_counted_as_ordinary_text(encoding):
    text = "<|endoftext|>"
    n = count_tokens(text, encoding)          # tiktoken's encode() would raise here
    assert n > 1
    assert n == len(get_encoding(encoding).encode(text, disallowed_special=()))
    assert tiktoken_counter(encoding)(f"a {text} b") > n


def test_tiktoken_counter_is_a_labelled_measure():
    measure = tiktoken_counter("gpt-4o")
    assert measure.__name__ == "tiktoken_o200k_base"
    assert measure("Try the Zenbook 14 at Rs 57990") == count_tokens(
        "Try the Zenbook 14 at Rs 57990", "o200k_base")


# --- encodings by name ----------------------------------------------------------------

@pytest.mark.parametrize("name, expected", [
    (None, "cl100k_base"), ("cl100k_base", "cl100k_base"), ("o200k_base", "o200k_base"),
    ("gpt-4o", "o200k_base"), ("gpt-4o-mini", "o200k_base"),
    ("gpt-4", "cl100k_base"), ("gpt-3.5-turbo", "cl100k_base"),
])
def test_resolve_encoding_known_names(name, expected, recwarn):
    assert resolve_encoding(name) == expected
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("name", ["nope", "", "gpt2", "text-davinci-003"])
def test_resolve_encoding_unknown_falls_back_with_a_warning(name):
    with pytest.warns(UserWarning, match=repr(name)):
        assert resolve_encoding(name) == "cl100k_base"


def test_get_encoding_accepts_a_model_name():
    assert get_encoding("gpt-4o").name == "o200k_base"
    assert get_encoding("gpt-4").name == "cl100k_base"


def test_resolve_encoding_non_str_falls_back_with_warning():
    # tiktoken's model lookup raises AttributeError for an int: still a warning, never a crash
    with pytest.warns(UserWarning, match="123"):
        assert resolve_encoding(123) == "cl100k_base"


# --- chat requests ----------------------------------------------------------------------

CONVERSATION = [
    {"role": "system", "content": "You are a helpful shop assistant."},
    {"role": "user", "content": "I need a laptop under Rs 60000", "name": "priya"},
    {"role": "assistant", "content": "For coding or gaming?"},
]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_count_chat_tokens_follows_the_cookbook_rule(encoding):
    enc = get_encoding(encoding)

    def n(text):
        return len(enc.encode(text))

    expected = 3 + sum(3 + n(m["role"]) + n(m["content"])
                       + (n(m["name"]) + 1 if "name" in m else 0) for m in CONVERSATION)
    assert count_chat_tokens(CONVERSATION, encoding) == expected


def test_count_chat_tokens_small_literal_values():
    assert count_chat_tokens([]) == 3                                          # priming only
    assert count_chat_tokens([{"role": "user", "content": "hello world"}]) == 3 + 3 + 1 + 2
    named = [{"role": "user", "content": "hello world", "name": "bob"}]
    assert count_chat_tokens(named) == 9 + count_tokens("bob") + 1


@pytest.mark.parametrize("message", [{"role": "user"}, {"content": "hi"},
                                     {"role": "user", "content": 5}, {"role": 1, "content": "x"}])
def test_count_chat_tokens_rejects_a_bad_message(message):
    with pytest.raises(TypeError, match="message 1"):
        count_chat_tokens([{"role": "user", "content": "ok"}, message])


@pytest.mark.parametrize("messages", [["hello"], [None],
                                      {"role": "user", "content": "hi"}])  # dict, not list
def test_count_chat_tokens_non_mapping_message_raises_typeerror(messages):
    # a str, None, or one dict passed instead of a list: a TypeError that names the message
    with pytest.raises(TypeError, match="message 0"):
        count_chat_tokens(messages)


# --- counting calls -----------------------------------------------------------------------

def test_call_counter_counts_and_keeps_unit():
    counter = CallCounter(count_words)
    assert (counter.calls, counter.unit) == (0, "words")
    assert counter("a b c") == 3
    assert counter("") == 0
    assert counter.calls == 2
    assert unit_of(counter) == "words"
    assert repr(counter) == "CallCounter(count_words, calls=2)"


def test_call_counter_of_a_lambda_is_in_tokens_and_counts_failed_calls():
    counter = CallCounter(lambda text: len(text))
    assert counter.unit == "tokens"
    counter("abc")
    with pytest.raises(TypeError):
        counter(None)
    assert counter.calls == 2


@pytest.mark.parametrize("message, error", [
    ({"role": "user", "content": "hi", "name": None}, "field 'name' must be str"),
    ({"role": "user", "content": "hi", "extra": 5}, "field 'extra' must be str"),
])
def test_count_chat_tokens_rejects_non_str_values(message, error):
    with pytest.raises(TypeError, match=error):
        count_chat_tokens([message], measure=count_words)


def test_count_chat_tokens_with_a_measure_and_a_bad_measure():
    chat = [{"role": "user", "content": "hello there", "name": "ann lee"}]
    assert count_chat_tokens(chat, measure=count_words) == 3 + 3 + 1 + 2 + 2 + 1
    with pytest.raises(ValueError, match="int >= 0, got -5"):
        count_chat_tokens(chat, measure=lambda text: -5)


def test_call_counter_needs_a_measure():
    with pytest.raises(TypeError, match="wraps a measure"):
        CallCounter(5)


# --- long unbroken runs (issue 10) -------------------------------------------------------

def _samples():
    """Texts with runs of letters, digits, CJK, emoji, punctuation and white space longer
    than the cut length of the test (40 characters), alone and around ordinary text."""
    import random
    rng = random.Random(7)
    alphabets = ["abcdefghijklmnopqrstuvwxyz", "ab", "aB3", "0123456789", "中文字日本語한국어",
                 "😀👍🏽\u200d", "!?.,;-()[]", " \t\n", "aé\u0301ñ", "x ", "<|endoftext|>"]
    texts = ["Hello there. " + "a" * 200 + " and more words.", " " * 300 + "x",
             "word " * 40 + "ab" * 150, "7" * 301, "\r\n" * 100]
    for _ in range(150):
        run = "".join(rng.choices(rng.choice(alphabets), k=rng.randint(40, 400)))
        texts.append(rng.choice(["", "Hi ", "order 123 "]) + run + rng.choice(["", " ok", "\n"]))
    return texts


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_long_unbroken_runs_are_counted_high_never_low(encoding, monkeypatch):
    import kit.tokens
    enc = get_encoding(encoding)
    counters = [tiktoken_counter(encoding), lambda t: count_tokens(t, encoding)]
    if encoding == "cl100k_base":
        counters.append(kit.tokens.cl100k_tokens)
    real_limit = kit.tokens.MAX_RUN
    monkeypatch.setattr(kit.tokens, "MAX_RUN", 40)     # many cuts on short samples
    for text in _samples():
        exact = len(enc.encode(text, disallowed_special=()))
        cuts = len(text) // 40
        for count in counters:
            assert exact <= count(text) <= exact + 3 * cuts, (text[:30], encoding)
    monkeypatch.setattr(kit.tokens, "MAX_RUN", real_limit)
    # a megabyte of white space: tiktoken's own encoder gives up on it under o200k_base
    # ("Max stack size exceeded"); 128 spaces make one token in both encodings
    spaces = 1_000_000
    for count in counters:
        assert -(-spaces // 128) <= count(" " * spaces) <= -(-spaces // 128) + spaces // real_limit


def test_inner_measure_looks_through_the_wrappers_that_return_what_they_wrap():
    from kit.memory_eval import CachedMeasure
    from kit.tokens import CallCounter, count_words, inner_measure
    assert inner_measure(count_words) is count_words
    assert inner_measure(CallCounter(CachedMeasure(CallCounter(count_words)))) is count_words
    lookalike = type("Lookalike", (), {"wrapped": None, "__call__": lambda self, t: 0})()
    assert inner_measure(lookalike) is lookalike          # no callable wrapped: itself
