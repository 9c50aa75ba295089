"""LLM-as-a-judge for groundedness: is an answer supported by the chunks it was shown?

A judge is any model ``(system, user) -> str`` (a stub, or a real model through
:mod:`kit.openai_compat`). :func:`judge` shows it the question, the numbered chunks and
the answer, and asks for one strict verdict::

    {"grounded": true, "reason": "every claim is in [1]"}

:func:`parse_verdict` reads that reply as 1.0 (grounded) or 0.0 (not grounded), and as
``None`` when the reply is not a verdict. ``None`` means *unjudged*: a harness leaves the
case out of the groundedness mean and counts it apart. It never guesses a score from
prose such as "mostly grounded".

Stubs, both deterministic and offline:

- :func:`overlap_judge`: a word-overlap rule that reads the judge prompt (see its
  docstring for the exact rule);
- :class:`FlakyJudge`: wraps a judge and, on chosen calls, replies with prose that is no
  verdict or raises, to show how a harness copes with a broken judge.

Source: the end-to-end chatbot lesson (evaluation harness: "judge returns None for an
unparseable verdict").
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from kit.llm import check_call_numbers
from kit.rag.citations import find_markers
from kit.rag.documents import Chunk
from kit.structured import decode_json

__all__ = ["JUDGE_SYSTEM", "Verdict", "build_judge_prompt", "parse_judge_prompt",
           "parse_verdict", "judge", "content_words", "split_sentences", "overlap_judge",
           "FlakyJudge", "JUDGE_STOPWORDS", "NO_CONTEXT"]

JUDGE_SYSTEM = (
    "You check answers of a support assistant. The answer may use only the numbered "
    "context, and cites it as [n]. Decide whether every claim in the answer is supported "
    "by the context chunks it cites. Reply with one JSON object and nothing else: "
    '{"grounded": true or false, "reason": "<one sentence>"}')

QUESTION, CONTEXT, ANSWER = "Question:", "Context:", "Answer:"
MARKERS = re.compile(r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]")  # [1], [1, 2]: removed from sentences


@dataclass(frozen=True)
class Verdict:
    """A parsed verdict: ``groundedness`` 1.0 (grounded) or 0.0 (not), the judge's
    ``reason`` ("" if it gave none) and its ``raw`` reply."""

    groundedness: float
    reason: str
    raw: str


def _indent(text: str, pad: str) -> str:
    return "\n".join(pad + line for line in (text.splitlines() or [""]))


def build_judge_prompt(question: str, answer: str, chunks: Sequence[Chunk]) -> str:
    """The user part of the judge call: the question, the chunks numbered [1], [2]... in
    the order the chatbot showed them, and the answer.

    Headers stand at column 0 and every line of user, chunk or answer text is indented
    (chunk continuation lines by four spaces), so no text can pass for a header.
    Raises TypeError for a non-str question or answer or a chunk without a str
    ``text`` (such as :class:`Chunk`).
    """
    for name, value in (("question", question), ("answer", answer)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}: {value!r:.60}")
    for chunk in chunks:
        if not isinstance(getattr(chunk, "text", None), str):
            raise TypeError(f"chunks must have a str .text (kit.rag.Chunk), got "
                            f"{type(chunk).__name__}: {chunk!r:.60}")
    context = []
    for n, chunk in enumerate(chunks, 1):
        first, *rest = chunk.text.splitlines() or [""]
        context.append("\n".join([f"  [{n}] {first}", *("    " + line for line in rest)]))
    return "\n".join([QUESTION, _indent(question, "  "), CONTEXT, *(context or ["  (none)"]),
                      ANSWER, _indent(answer, "  ")])


def parse_judge_prompt(prompt: str) -> tuple[str, list[str], str]:
    """Split a prompt of :func:`build_judge_prompt` into (question, chunk texts, answer).

    Raises ValueError if the three header lines are missing or out of order.
    """
    lines = prompt.split("\n")
    try:
        q, c, a = (lines.index(h) for h in (QUESTION, CONTEXT, ANSWER))
    except ValueError:
        q = c = a = -1
    if not 0 <= q < c < a:
        raise ValueError(f"not a judge prompt (needs the lines {QUESTION!r}, {CONTEXT!r}, "
                         f"{ANSWER!r} in order): {prompt[:60]!r}")

    def dedent(block: list[str]) -> str:
        return "\n".join(line[2:] for line in block)

    chunks: list[list[str]] = []                # the lines of each chunk
    for line in lines[c + 1:a]:
        start = re.match(r"  \[\d+\] ", line)
        if start:
            chunks.append([line[start.end():]])
        elif chunks and line.startswith("    "):
            chunks[-1].append(line[4:])
    return dedent(lines[q + 1:c]), ["\n".join(chunk) for chunk in chunks], dedent(lines[a + 1:])


def _read(text: object) -> dict | None:
    """The verdict object of a reply, or None. See :func:`parse_verdict` for the rule."""
    if not isinstance(text, str):
        return None
    body = text.strip()
    fenced = re.fullmatch(r"```(?:json)?[ \t]*\n(.*)\n[ \t]*```", body, re.DOTALL)
    if fenced:
        body = fenced.group(1).strip()
    try:
        data = decode_json(body, "the verdict")
    except ValueError:          # not JSON, a key given twice, or nested too deep
        return None
    if not isinstance(data, dict) or not isinstance(data.get("grounded"), bool):
        return None
    return data


def parse_verdict(text: object) -> float | None:
    """1.0 for a grounded verdict, 0.0 for an ungrounded one, None if ``text`` is none.

    A verdict is a reply that is, after stripping white space and one optional markdown
    code fence (```` ```json ... ``` ````), exactly one JSON object whose key
    ``"grounded"`` holds a JSON boolean. Anything else is None (unjudged): prose
    ("VERDICT: yes", "mostly grounded"), JSON with text around it, ``"grounded": "yes"``
    or ``1``, a key given twice, JSON nested too deep to read, a non-str reply. Other keys (such as ``"reason"``) are
    allowed and ignored here.
    """
    data = _read(text)
    return None if data is None else float(data["grounded"])


NO_CONTEXT = "no context was retrieved, so nothing supports the answer"


def judge(question: str, answer: str, chunks: Sequence[Chunk],
          model: Callable[[str, str], str]) -> Verdict | None:
    """Ask ``model`` (a chat model ``(system, user) -> str``) whether ``answer`` is
    supported by ``chunks``; return a :class:`Verdict`, or None when unjudged.

    With no context (no chunk, or only chunks of blank text) the verdict is
    ``Verdict(0.0, NO_CONTEXT, "")``, decided before any model call: nothing was
    retrieved, so nothing can support the answer, whatever a lenient judge would say.
    Unjudged means the model raised an ``Exception`` (timeout, HTTP error...) or its
    reply is not a verdict (:func:`parse_verdict`). A ``KeyboardInterrupt`` still
    propagates. At most one model call. Raises TypeError for bad arguments (before any
    call).
    """
    prompt = build_judge_prompt(question, answer, chunks)
    if not any(chunk.text.strip() for chunk in chunks):
        return Verdict(0.0, NO_CONTEXT, "")
    try:
        reply = model(JUDGE_SYSTEM, prompt)
    except Exception:
        return None
    data = _read(reply)
    if data is None:
        return None
    reason = data.get("reason")
    return Verdict(float(data["grounded"]), reason if isinstance(reason, str) else "", reply)


# --- the deterministic stub judge ------------------------------------------------------

JUDGE_STOPWORDS = frozenset(
    "the and for are but not you your our with this that these those from into onto was "
    "were will would can could should has have had its it's they them their there then "
    "than what when where which who how why all any each also only just very about after "
    "before over under per via yes does did done been being is be to of in on at by or an "
    "as if so do no we us my me".split())


def content_words(text: str) -> set[str]:
    """Lower-cased words of ``text`` that carry content: runs of letters and digits,
    citation markers removed, without :data:`JUDGE_STOPWORDS` and words shorter than three
    characters, except that any word with a digit counts ("5", "30")."""
    words = re.findall(r"[a-z0-9]+", MARKERS.sub(" ", text.lower()))
    return {w for w in words
            if any(ch.isdigit() for ch in w) or (len(w) >= 3 and w not in JUDGE_STOPWORDS)}


# From the first mark of a run only: trying every mark of a long run ("!!!...!x") was
# quadratic, and a later start in the run ends where the first one does, or fails.
_SENTENCE_END = re.compile(r"(?<![.!?])[.!?]+(?:\s*\[\s*\d+(?:\s*,\s*\d+)*\s*\])*(?=\s|$)")


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``: each ends at ``.``, ``!`` or ``?`` followed by white space
    or the end, together with any citation markers right after it ("... days. [1]" is
    one sentence); "5.5" does not end one."""
    sentences, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        sentences.append(text[start:end.end()].strip())
        start = end.end()
    sentences.append(text[start:].strip())
    return [s for s in sentences if s]


_NOWHERE: frozenset[int] = frozenset()


def overlap_judge(*args: str, min_overlap: float = 0.5) -> str:
    """A deterministic stub judge: a JSON verdict from word overlap, no model.

    Reads the layout of :func:`build_judge_prompt` (the last argument; the system
    prompt is ignored). The rule, in order:

    1. a marker [n] with no chunk n shown -> not grounded;
    2. no sentence carries a marker -> not grounded (nothing is backed by a source);
    3. each sentence with markers must share at least ``min_overlap`` (a fraction, by
       count of :func:`content_words`) of its content words with the chunks it cites,
       taken together; the first that does not -> not grounded;
    4. otherwise grounded.

    Sentences without a marker are not checked: a real judge reads them too, this stub
    does not. Raises ValueError for a prompt of another layout or a ``min_overlap``
    outside [0, 1].
    """
    if not 0 <= min_overlap <= 1:
        raise ValueError(f"min_overlap must be between 0 and 1, got {min_overlap!r}")
    if not args or not isinstance(args[-1], str):
        raise TypeError(f"a judge model takes (system, user) strings, got {args!r:.80}")
    _, chunks, answer = parse_judge_prompt(args[-1])

    def verdict(grounded: bool, reason: str) -> str:
        return json.dumps({"grounded": grounded, "reason": reason})

    bad = [n for n in find_markers(answer) if not 1 <= n <= len(chunks)]
    if bad:
        return verdict(False, f"cites [{bad[0]}] but {len(chunks)} chunks were shown")
    cited = [s for s in split_sentences(answer) if find_markers(s)]
    if not cited:
        return verdict(False, "no sentence cites a chunk")
    where: dict[str, set[int]] = {}              # content word -> the chunks holding it
    for n, text in enumerate(chunks, 1):
        for word in content_words(text):
            where.setdefault(word, set()).add(n)
    for i, sentence in enumerate(cited, 1):
        words = content_words(sentence)
        numbers = sorted(set(find_markers(sentence)))
        shown = set(numbers)
        shared = sum(1 for word in words if not where.get(word, _NOWHERE).isdisjoint(shown))
        if words and shared < min_overlap * len(words):
            cites = "".join(f"[{n}]" for n in numbers)
            return verdict(False, f"cited sentence {i} shares {shared} of {len(words)} "
                                  f"content words with {cites}")
    return verdict(True, f"each of {len(cited)} cited sentences shares at least "
                         f"{min_overlap:.0%} of its content words with its chunks")


class FlakyJudge:
    """Wraps a judge model and fails on chosen calls (1-based), to test a harness.

    ``FlakyJudge(overlap_judge, unparseable_on={2}, raise_on={3})``: call 2 replies
    ``text`` (prose that is no verdict, so it parses to None), call 3 raises ``error``
    (default ``TimeoutError("judge timed out")``); other calls go to ``model``.
    ``calls`` counts every call. Raises TypeError/ValueError for call numbers that are
    not ints >= 1, and ValueError for a call number in both sets.
    """

    def __init__(self, model: Callable[..., str], unparseable_on: Iterable[int] = (),
                 raise_on: Iterable[int] = (), error: BaseException | None = None,
                 text: str = "The answer looks mostly grounded to me.") -> None:
        sets = [check_call_numbers("unparseable_on", unparseable_on),
                check_call_numbers("raise_on", raise_on)]
        if sets[0] & sets[1]:
            raise ValueError(f"calls {sorted(sets[0] & sets[1])} are in both unparseable_on and raise_on")
        if error is not None and not isinstance(error, BaseException):
            raise TypeError(f"error must be an exception instance, got {error!r:.60}")
        self.model, self.text, self.calls = model, text, 0
        self.unparseable_on, self.raise_on = sets
        self.error = error or TimeoutError("judge timed out")

    def __call__(self, *args: str) -> str:
        self.calls += 1
        if self.calls in self.raise_on:
            raise self.error.with_traceback(None)
        if self.calls in self.unparseable_on:
            return self.text
        return self.model(*args)
