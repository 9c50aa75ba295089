"""Models are plain callables; these stubs are deterministic and never touch the network.

Two shapes of model are used in the kit:

- a *prompt model* ``(prompt: str) -> str``, e.g. a summariser;
- a *chat model* ``(system: str, user: str) -> str``, e.g. the chatbot's generator.

The stubs accept either shape (``*args``), so one stub can play both.

- :class:`ScriptedLLM`: returns fixed replies in order; clear error when they run out.
- :func:`fact_listing_summariser`: the stub of the summary-memory lesson, which keeps every
  fact it is given.
- :func:`gist_summariser`: a careless summariser that keeps the gist and drops numbers
  and ids, to show what a generic "summarise this" loses (``max_words`` keeps it short).
- :func:`prompt_following_summariser`: keeps facts only if the prompt asks for them.
- :func:`lossy_summariser`: keeps every fact on an update, loses one number on every
  re-summarise (a summary of a summary drifts).
- :class:`FailingLLM`: raises (TimeoutError by default) on chosen calls.
- :class:`CountingLLM`: counts calls and prompt/reply sizes of any model.

The summarisers read the prompt layout of :func:`kit.prompts.build_summary_prompt` with
:func:`kit.prompts.parse_summary_turns`: a "Current summary:" section (``(none)`` when
empty) and a "New turns:" section with one ``role: content`` line per turn.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from kit.prompts import SUMMARY_HEADER, parse_summary_prompt, parse_summary_turns
from kit.tokens import Measure, cl100k_tokens

__all__ = [
    "PromptModel", "ChatModel", "ScriptExhaustedError", "ScriptedLLM",
    "fact_listing_summariser", "gist_summariser", "FailingLLM", "check_call_numbers", "CountingLLM",
    "prompt_following_summariser", "KEEP_WORDS", "lossy_summariser",
    "NOTHING_LEFT",
]

PromptModel = Callable[[str], str]
ChatModel = Callable[[str, str], str]



def _last_text(args: tuple) -> str:
    if not args or not all(isinstance(a, str) for a in args):
        raise TypeError(f"a model takes (prompt) or (system, user) strings, got {args!r:.80}")
    return args[-1]


class ScriptExhaustedError(RuntimeError):
    """A :class:`ScriptedLLM` was called more times than it has replies."""


class ScriptedLLM:
    """Replies from a fixed script, one per call: ``ScriptedLLM(["a", "b"])``.

    ``prompts`` records what each answered call received (the last argument);
    ``calls`` counts every call. Raises
    :class:`ScriptExhaustedError` naming the call number when the script runs out.
    """

    def __init__(self, replies: Iterable[str]) -> None:
        if isinstance(replies, (str, bytes)):
            raise TypeError(f"replies must be a list of strings, not one string: {replies!r:.60}")
        self.replies = list(replies)
        if not all(isinstance(r, str) for r in self.replies):
            raise TypeError(f"replies must be strings, got {self.replies!r:.80}")
        self.prompts: list[str] = []
        self.calls = 0

    def __call__(self, *args: str) -> str:
        prompt = _last_text(args)
        self.calls += 1
        call = self.calls
        if call > len(self.replies):
            raise ScriptExhaustedError(
                f"the script has {len(self.replies)} replies but call {call} asked for "
                f"another; the prompt began {prompt[:60]!r}")
        self.prompts.append(prompt)
        return self.replies[call - 1]


def fact_listing_summariser(prompt: str) -> str:
    """The summary-memory lesson's stub: the previous summary and new turns, joined by "; ".

    Keeps every fact verbatim (a perfect, if wordy, summariser).
    """
    summary, contents = parse_summary_prompt(prompt)
    return "; ".join(([summary] if summary else []) + contents)


def gist_summariser(prompt: str, words_per_turn: int = 4, max_words: int | None = None) -> str:
    """A careless summariser: the first few words of each turn, numbers and ids dropped.

    Any word containing a digit is removed, then each turn is cut to
    ``words_per_turn`` words, and the gists are appended to the previous summary with
    "; ". What a generic "summarise this" prompt tends to do. ``max_words``: None (the
    default) lets the summary grow with every fold; an int >= 1 keeps only its first
    ``max_words`` words (whitespace collapsed), the way a model told "in a sentence or
    two" stays short. Raises ValueError naming a bad ``words_per_turn`` or
    ``max_words``, and as :func:`parse_summary_prompt` does.
    """
    if isinstance(words_per_turn, bool) or not isinstance(words_per_turn, int) or words_per_turn < 1:
        raise ValueError(f"words_per_turn must be an int >= 1, got {words_per_turn!r}")
    _check_max_words(max_words)
    summary, contents = parse_summary_prompt(prompt)
    gists = []
    for text in contents:
        words = [w for w in text.split() if not any(ch.isdigit() for ch in w)]
        gists.append(" ".join(words[:words_per_turn]))
    text = "; ".join(([summary] if summary else []) + [g for g in gists if g])
    if max_words is not None and len(text.split()) > max_words:
        cut = " ".join(text.split()[:max_words])
        text = cut.rstrip(";,") or cut            # no dangling "; " at the end
    return text


def _check_max_words(max_words: object) -> None:
    if max_words is not None and (isinstance(max_words, bool) or not isinstance(max_words, int)
                                  or max_words < 1):
        raise ValueError(f"max_words must be an int >= 1 or None, got {max_words!r}")


KEEP_WORDS = ("allergic", "allergy", "must", "never", "under", "budget", "order", "id")


def _holds_fact(text: str) -> bool:
    """A digit or a :data:`KEEP_WORDS` word (a whole word, any case): what the stubs
    treat as a fact."""
    return (any(ch.isdigit() for ch in text)
            or any(word in text.lower().split() for word in KEEP_WORDS))


def prompt_following_summariser(prompt: str, max_words: int | None = None) -> str:
    """A stub that obeys its instructions like a real model would, deterministically.

    If the instructions (the text before "Current summary:") ask to keep numbers or
    ids, it keeps the previous summary and every turn that holds a digit or a
    constraint word (:data:`KEEP_WORDS`) and drops small talk; otherwise it behaves
    like :func:`gist_summariser`, with ``max_words`` (None: the gist grows with every
    fold; an int >= 1: at most that many words, for a prompt that asks for "a sentence
    or two"). ``max_words`` does not cut a fact-keeping summary. Shows that the prompt
    decides what survives. Raises as :func:`gist_summariser` does.
    """
    _check_max_words(max_words)
    instructions = prompt.split(SUMMARY_HEADER, 1)[0].lower()
    if "number" not in instructions and " id" not in instructions:
        return gist_summariser(prompt, max_words=max_words)
    summary, contents = parse_summary_prompt(prompt)
    kept = [text for text in contents if _holds_fact(text)]
    return "; ".join(([summary] if summary else []) + kept)


NOTHING_LEFT = "(nothing left)"


def lossy_summariser(prompt: str) -> str:
    """A summariser that drifts: every re-summarise forgets one number.

    With new turns in the prompt it is :func:`fact_listing_summariser` (nothing lost on
    an update). With none, a *re-summarise* (:func:`kit.memory.resummarise`, or the
    shorten step of a summary cap), it compresses the summary like a model told to
    shorten it, deterministically:

    1. it keeps the clauses (separated by "; " or a line break) that hold a digit or a
       constraint word (:data:`KEEP_WORDS`) and drops the others, small talk; the first
       clause stays if none holds one;
    2. it forgets the first word that holds a digit (an id, an amount, a date), and
       drops that clause if nothing else is left of it.

    So one pass loses one number, the oldest first; a fact stated twice lasts a pass
    longer. Pass after pass the summary drifts away from the source (the summary-memory
    lesson: "a summary of a summary of a summary drifts"), which only a rebuild from the
    raw transcript undoes (:func:`kit.memory.rebuild_summary`). Returns
    :data:`NOTHING_LEFT` when the last word would go. Raises as
    :func:`parse_summary_prompt` does.
    """
    summary, contents = parse_summary_prompt(prompt)
    if contents:
        return fact_listing_summariser(prompt)
    clauses = [c.strip() for line in summary.splitlines() for c in line.split("; ") if c.strip()]
    kept = [c for c in clauses if _holds_fact(c)] or clauses[:1]
    for i, clause in enumerate(kept):
        words = clause.split()
        digit = next((j for j, w in enumerate(words) if any(ch.isdigit() for ch in w)), None)
        if digit is not None:
            del words[digit]
            kept[i:i + 1] = [" ".join(words)] if words else []
            break
    return "; ".join(kept) or NOTHING_LEFT


def check_call_numbers(name: str, numbers: Iterable[int]) -> set[int]:
    """``numbers`` as a set of call numbers (ints >= 1, 1-based), for the stubs that fail
    on chosen calls. Raises TypeError for a single number or string instead of a
    collection, ValueError naming the numbers that are not ints >= 1."""
    if isinstance(numbers, (int, str, bytes)):
        raise TypeError(f"{name} must be a set of call numbers such as {{2}}, got {numbers!r}")
    numbers = set(numbers)
    wrong = [n for n in numbers if isinstance(n, bool) or not isinstance(n, int) or n < 1]
    if wrong:
        raise ValueError(f"{name} holds call numbers >= 1, got {sorted(map(repr, wrong))}")
    return numbers


class FailingLLM:
    """Wraps a model and raises on chosen calls (1-based): ``FailingLLM(m, fail_on={2})``.

    ``fail_on=None`` fails on every call. ``error`` is the exception raised (default
    ``TimeoutError("model timed out")``). ``calls`` counts every call, failed or not.
    Raises TypeError/ValueError for a ``fail_on`` that is not a set of ints >= 1 or an
    ``error`` that is not an exception instance.
    """

    def __init__(self, model: Callable[..., str] | None = None,
                 fail_on: Iterable[int] | None = None,
                 error: BaseException | None = None) -> None:
        if fail_on is not None:
            fail_on = check_call_numbers("fail_on", fail_on)
        if error is not None and not isinstance(error, BaseException):
            raise TypeError(f"error must be an exception instance, got {error!r:.60}")
        self.model, self.calls, self.fail_on = model, 0, fail_on
        self.error = error or TimeoutError("model timed out")

    def __call__(self, *args: str) -> str:
        self.calls += 1
        if self.fail_on is None or self.calls in self.fail_on:
            raise self.error.with_traceback(None)     # a fresh traceback on every call
        if self.model is None:
            raise RuntimeError(f"FailingLLM has no model to answer call {self.calls}")
        return self.model(*args)


class CountingLLM:
    """Wraps a model and counts ``calls``, ``prompt_tokens`` and ``reply_tokens``.

    Sizes are measured with ``measure`` (default :func:`kit.tokens.cl100k_tokens`) over
    every argument of the call (system + user for a chat model).
    """

    def __init__(self, model: Callable[..., str], measure: Measure = cl100k_tokens) -> None:
        self.model, self.measure = model, measure
        self.calls = self.prompt_tokens = self.reply_tokens = 0

    def __call__(self, *args: str) -> str:
        _last_text(args)
        self.calls += 1
        self.prompt_tokens += sum(self.measure(a) for a in args)
        reply = self.model(*args)
        self.reply_tokens += self.measure(reply)
        return reply
