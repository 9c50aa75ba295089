"""Token counters: every counter takes a string and returns an int.

A *measure* in this kit is any callable ``str -> int``. The ones here carry a ``unit``
attribute ("tokens", "words" or "characters") so that traces and tables can label their
columns; a plain lambda works too and is labelled "tokens".

- :func:`approx_tokens`: characters / 4, the summary-memory lesson's rule of thumb (English prose).
- :func:`count_words`: whitespace-separated words (the summary-memory lesson's laptop trace).
- :func:`count_characters`: ``len(text)``.
- :func:`tiktoken_counter`: exact BPE counts with tiktoken (``cl100k_base`` by default,
  ``o200k_base`` too), offline (see :mod:`kit.offline`).
- :func:`count_chat_tokens`: what a chat request costs, with the per-message and
  reply-priming overhead documented in OpenAI's cookbook, "How to count tokens with
  tiktoken" (3 tokens a message, 1 more for a ``name``, 3 to prime the reply).
- :class:`CallCounter`: wraps a measure and counts how often it is called.

The tiktoken counters are exact on ordinary text. tiktoken's encoder is super-linear on
a very long unbroken run (a megabyte of one letter, of random letters or of white space
is one piece to merge, and ``o200k_base`` gives up on a megabyte of spaces), so a run of
more than :data:`MAX_RUN` characters without white space, or of white space, is cut
every ``MAX_RUN`` characters before counting, and each cut adds one token: the count of
such a text errs high, by about a token per cut, and takes linear time. (BPE gives no
proof that a cut never lowers a count by more than the token added; on the samples of
tests/test_tokens.py, hundreds of runs of letters, digits, CJK, emoji, punctuation and
white space cut every 40 characters, it never does.)
"""
from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Callable, Iterable, Mapping

from kit.offline import seed_cache

__all__ = [
    "DEFAULT_ENCODING", "ENCODINGS", "Measure", "approx_tokens", "cl100k_tokens", "count_words",
    "count_characters", "tiktoken_counter", "count_tokens", "resolve_encoding",
    "get_encoding", "count_chat_tokens", "CallCounter", "unit_of", "measure_name", "measured",
    "TOKENS_PER_MESSAGE", "TOKENS_PER_NAME", "TOKENS_PER_TOOL_CALL", "REPLY_PRIMING_TOKENS",
    "MAX_RUN",
]

Measure = Callable[[str], int]
DEFAULT_ENCODING = "cl100k_base"
ENCODINGS = ("cl100k_base", "o200k_base")
TOKENS_PER_MESSAGE = 3     # <|start|>{role}<|message|>{content}<|end|>
TOKENS_PER_NAME = 1
TOKENS_PER_TOOL_CALL = 3  # a call's framing beside its id, name and arguments (an estimate)
REPLY_PRIMING_TOKENS = 3   # <|start|>assistant<|message|>
MAX_RUN = 4096             # characters: a longer run is cut before tiktoken counts it


def _check_text(text: object) -> str:
    if not isinstance(text, str):
        raise TypeError(f"a measure takes a str, got {type(text).__name__}: {text!r:.60}")
    return text


def _with_unit(unit: str) -> Callable[[Measure], Measure]:
    def mark(fn: Measure) -> Measure:
        fn.unit = unit  # type: ignore[attr-defined]
        return fn
    return mark


@_with_unit("tokens")
def approx_tokens(text: str) -> int:
    """Approximate tokens as characters // 4, at least 1 for non-empty text (the summary-memory
    lesson's rule of thumb).

    Good to about 10-20 % on English prose; far off on code, CJK text and emoji, where
    one character is often one or more tokens. Returns 0 for "". Raises TypeError for a
    non-string.
    """
    text = _check_text(text)
    return max(1, len(text) // 4) if text else 0


@_with_unit("words")
def count_words(text: str) -> int:
    """Number of whitespace-separated words, ``len(text.split())``. Raises TypeError."""
    return len(_check_text(text).split())


@_with_unit("characters")
def count_characters(text: str) -> int:
    """Number of characters (Unicode code points), ``len(text)``. Raises TypeError."""
    return len(_check_text(text))


def unit_of(measure: Measure) -> str:
    """The unit a measure counts in ("tokens" when it does not say)."""
    return getattr(measure, "unit", "tokens")


def resolve_encoding(name: str | None = None) -> str:
    """Map an encoding or model name to ``cl100k_base`` or ``o200k_base``.

    Accepts an encoding name ("o200k_base") or a model name ("gpt-4o" -> o200k_base,
    "gpt-4" -> cl100k_base, via ``tiktoken.encoding_name_for_model``). Anything else,
    including models whose encoding is not shipped offline, falls back to
    ``cl100k_base`` with a ``UserWarning`` that names the value; never a KeyError.
    """
    if name is None or name in ENCODINGS:
        return name or DEFAULT_ENCODING
    import tiktoken
    try:
        found = tiktoken.encoding_name_for_model(name)
    except (AttributeError, KeyError, TypeError, ValueError):
        found = None
    if found in ENCODINGS:
        return found
    warnings.warn(f"unknown or unsupported model/encoding {name!r}; "
                  f"counting with {DEFAULT_ENCODING!r} instead", UserWarning, stacklevel=2)
    return DEFAULT_ENCODING


@functools.lru_cache(maxsize=None)
def _encoding(name: str):
    import tiktoken
    seed_cache(name)
    return tiktoken.get_encoding(name)


@functools.lru_cache(maxsize=4)
def _long_runs(limit: int) -> re.Pattern:
    """Runs of more than ``limit`` non-space or space characters, found from their start."""
    return re.compile(rf"(?<!\S)\S{{{limit + 1},}}|(?<!\s)\s{{{limit + 1},}}")


def _length(enc, text: str) -> int:
    """Tokens of ``text`` in ``enc``; runs longer than :data:`MAX_RUN` are cut every
    ``MAX_RUN`` characters and each cut adds one token (see the module docstring)."""
    limit = MAX_RUN
    if len(text) <= limit:
        return len(enc.encode(text, disallowed_special=()))
    total, done = 0, 0
    for run in _long_runs(limit).finditer(text):
        for cut in range(run.start() + limit, run.end(), limit):
            total += len(enc.encode(text[done:cut], disallowed_special=())) + 1
            done = cut
    return total + len(enc.encode(text[done:], disallowed_special=()))


def get_encoding(name: str | None = None):
    """The ``tiktoken.Encoding`` for an encoding or model name, loaded with no network.

    Raises :class:`kit.offline.OfflineEncodingError` when the encoding file is neither
    cached nor shipped by an installed package.
    """
    return _encoding(resolve_encoding(name))


def count_tokens(text: str, encoding: str | None = None) -> int:
    """Number of BPE tokens of ``text`` (default encoding ``cl100k_base``), exact on
    ordinary text.

    Special-token strings such as ``<|endoftext|>`` are counted as ordinary text,
    never raised on. A run of more than :data:`MAX_RUN` characters without white space
    (or of white space) is cut before counting, so such a text's count errs high, never
    low (see the module docstring). Raises TypeError for a non-string.
    """
    return _length(get_encoding(encoding), _check_text(text))


@_with_unit("tokens")
def cl100k_tokens(text: str) -> int:
    """Tokens of ``text`` in ``cl100k_base``, the default measure of every memory (the
    encoding is loaded on the first call, from the files installed with the package).
    Exact on ordinary text; errs high on a run longer than :data:`MAX_RUN` characters,
    as :func:`count_tokens`. Raises TypeError for a non-string."""
    return _length(_encoding(DEFAULT_ENCODING), _check_text(text))


def tiktoken_counter(encoding: str | None = None) -> Measure:
    """A measure ``str -> int`` counting tiktoken tokens in ``encoding`` (or model name),
    as :func:`count_tokens` does (exact on ordinary text, high on very long runs)."""
    name = resolve_encoding(encoding)
    enc = _encoding(name)

    def count(text: str) -> int:
        return _length(enc, _check_text(text))

    count.unit = "tokens"  # type: ignore[attr-defined]
    count.__name__ = f"tiktoken_{name}"
    return count


def count_chat_tokens(messages: Iterable[Mapping[str, str]], encoding: str | None = None,
                      measure: Measure | None = None) -> int:
    """Prompt tokens a chat request is billed for (OpenAI chat models, cookbook rule).

    ``messages``: ``[{"role": ..., "content": ..., "name"?: ...}, ...]``. Each message
    costs ``TOKENS_PER_MESSAGE`` (3) plus the tokens of its values, ``TOKENS_PER_NAME``
    (1) more if it has a name; the reply is primed with ``REPLY_PRIMING_TOKENS`` (3).
    An assistant message's ``"tool_calls"`` (``[{"id", "type", "function": {"name",
    "arguments"}}]``) cost, per call, its id, name and arguments plus
    ``TOKENS_PER_TOOL_CALL`` (3, an estimate: the providers do not publish the framing);
    a tool result's ``"tool_call_id"`` is counted as a value.
    Values are counted with tiktoken in ``encoding``, or with ``measure`` if given
    (any ``str -> int``, e.g. :func:`count_words` for hand-checkable examples).
    Raises TypeError for a message that is not a mapping with str ``role`` and
    ``content`` or has a non-str value; ValueError if ``measure`` returns a non-int.
    """
    count = measure if measure is not None else tiktoken_counter(encoding)
    total = REPLY_PRIMING_TOKENS
    for i, message in enumerate(messages):
        if (not isinstance(message, Mapping) or not isinstance(message.get("role"), str)
                or not isinstance(message.get("content"), str)):
            raise TypeError(f"message {i} needs str 'role' and 'content', got {message!r:.80}")
        for key, value in message.items():
            if key == "tool_calls":
                total += _calls_tokens(count, value, i)
                continue
            if not isinstance(value, str):
                raise TypeError(f"message {i} field {key!r} must be str, got {value!r:.40}")
            total += measured(count, value)
        total += TOKENS_PER_MESSAGE
        total += TOKENS_PER_NAME if "name" in message else 0
    return total


def _calls_tokens(count: Measure, calls: object, i: int) -> int:
    """Tokens of a chat message's ``tool_calls`` list (see :func:`count_chat_tokens`)."""
    if not isinstance(calls, list):
        raise TypeError(f"message {i} field 'tool_calls' must be a list, got {calls!r:.40}")
    total = 0
    for call in calls:
        function = call.get("function") if isinstance(call, Mapping) else None
        values = (call.get("id"), function.get("name"), function.get("arguments")) \
            if isinstance(function, Mapping) else (None,)
        if not all(isinstance(v, str) for v in values):
            raise TypeError(f"message {i} has a tool call without str id, name and "
                            f"arguments: {call!r:.60}")
        total += sum(measured(count, v) for v in values) + TOKENS_PER_TOOL_CALL
    return total


def inner_measure(measure: Measure) -> Measure:
    """The measure under the wrappers that return exactly what it returns: a
    :class:`CallCounter`'s ``measure``, or the ``wrapped`` measure of an object that
    declares one (:class:`kit.memory_eval.CachedMeasure`), however deeply nested."""
    while True:
        if isinstance(measure, CallCounter):
            measure = measure.measure
        elif callable(getattr(measure, "wrapped", None)):
            measure = measure.wrapped
        else:
            return measure


def measure_name(measure: Measure) -> str:
    """A name that tells measures of one unit apart (``"approx_tokens"``,
    ``"cl100k_tokens"``, ``"tiktoken_o200k_base"``): the function's ``__name__``, looking
    through a :class:`CallCounter`; "" for a lambda or an object without a name."""
    inner = getattr(measure, "measure", None)
    if isinstance(measure, CallCounter) and inner is not None:
        return measure_name(inner)
    name = getattr(measure, "__name__", "")
    return "" if name == "<lambda>" else name


def measured(measure: Measure, text: str) -> int:
    """``measure(text)``, checked: raises ValueError unless it is an int >= 0."""
    tokens = measure(text)
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        raise ValueError(f"measure must return an int >= 0, got {tokens!r} for {text!r:.40}")
    return tokens


class CallCounter:
    """Wrap a measure and count its calls: ``CallCounter(count_words)("a b") == 2``.

    ``calls`` is the number of calls so far; ``encoded``: the sizes they returned, added
    up (with a tokenizer: the tokens encoded, all of them work); ``unit`` is the wrapped
    measure's unit. Used to show that a memory measures each message once, not on every
    add: counting once encodes each token of the conversation once.
    """

    def __init__(self, measure: Measure) -> None:
        if not callable(measure):
            raise TypeError(f"CallCounter wraps a measure str -> int, got {measure!r:.60}")
        self.measure, self.calls, self.encoded = measure, 0, 0
        self.unit = unit_of(measure)

    def __call__(self, text: str) -> int:
        self.calls += 1
        size = self.measure(text)
        if isinstance(size, int):
            self.encoded += size
        return size

    def __repr__(self) -> str:
        return f"CallCounter({getattr(self.measure, '__name__', 'measure')}, calls={self.calls})"
