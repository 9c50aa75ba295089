"""Query rewrite: turn a follow-up ("and for COD?") into a standalone search query.

Retrieval sees only the text it is given, so a follow-up that leans on the conversation
finds nothing. With history, one model call rewrites the final question as a standalone
query ("cash-on-delivery refund"), the "multi-query and memory" step of the end-to-end
chatbot lesson.

The model's reply is checked before it reaches the retriever (:func:`clean_query`):

- surrounding whitespace and quotes are stripped; a markdown code fence, bold or
  backticks, a bullet or heading mark are removed;
- a chatty label in front of the query is removed when the query can be cut out
  safely: ``Sure! Here is the query: X``, ``Here's the rewritten query: X``,
  ``Query: X``, ``Standalone search query:\\nX``;
- a labelled query followed by an explanation is cut out: after the label, the
  query is the first line when a blank line or a line such as ``Explanation: ...``
  follows it (``Rewritten query: X\\n\\nExplanation: the user asks ...``);
- rejected: a non-str or empty reply, a reply still chatty after that (it starts
  with "Sure", "Here", "I ", "Sorry"...), a label followed only by an explanation, a
  reply on more than one line (after cleaning), and a reply longer than
  ``max_words`` words.

Every step takes time linear in the length of the reply: no pattern here can backtrack
over a long run of spaces, newlines or quotes.

A rejected reply, or a model call that raises any Exception, falls back to the raw
question: a failed helper call must not fail the turn. :func:`rewrite_query` returns a
:class:`Rewrite` whose ``reason`` tells the trace what happened.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from kit.messages import indent_continuation

__all__ = ["Rewrite", "REWRITE_SYSTEM", "MAX_QUERY_WORDS", "build_rewrite_prompt",
           "clean_query", "rewrite_query"]

REWRITE_SYSTEM = (
    "Rewrite the final user question as a standalone search query that can be understood "
    "without the conversation. Reply with the query only: one line, no quotes, no "
    "explanation."
)
MAX_QUERY_WORDS = 24

_FENCE_INFO = re.compile(r"[\w-]*\s*")      # the info string after ``` and the white space
_OPENER = r"(?:sure|okay|ok|certainly|of course|absolutely|great)\b[!.,]?\s*"
_HERE = r"here(?:'s|’s| is| you go)?\b[^:\n]{0,40}"
_LABEL = r"(?:[\w-]+\s+){0,3}(?:query|question|search)"
_PREAMBLE = re.compile(rf"^(?:{_OPENER})?(?:{_HERE}|{_LABEL}(?:\s+is)?)\s*:\s*", re.IGNORECASE)
_CHATTY = re.compile(r"^(?:sure|okay|ok|certainly|of course|absolutely|here|i|i'm|i’m|"
                     r"sorry|as an ai|unfortunately|the (?:standalone |rewritten )?query)\b",
                     re.IGNORECASE)
_EXPLANATION = re.compile(r"(?:explanation|reason|reasoning|rationale|note|notes|why|"
                          r"justification)\b[^:\n]{0,40}:", re.IGNORECASE)
_QUOTES = "\"'`“”‘’«»"


@dataclass(frozen=True)
class Rewrite:
    """The query sent to retrieval: ``query`` (str), ``used_rewrite`` (True if it is the
    model's rewrite, False if it is the raw question), ``reason`` (why, in words)."""

    query: str
    used_rewrite: bool
    reason: str


def build_rewrite_prompt(history: str, question: str) -> str:
    """The user message of the rewrite call (str): ``"Conversation so far:\n<history>"``,
    a blank line, then ``"Final user question:\n<question>"``; both arguments are str.

    Continuation lines of the question are indented, so it cannot fake a header.
    """
    return (f"Conversation so far:\n{history.strip()}\n\n"
            f"Final user question:\n{indent_continuation(question.strip())}")


def _unfence(text: str) -> str:
    """The body of a markdown code fence around all of ``text`` (stripped), else ``text``:
    after the opening ```, an info string and white space are skipped, and one line
    break before the closing ``` is dropped."""
    if len(text) < 6 or not (text.startswith("```") and text.endswith("```")):
        return text
    inner = text[3:-3]
    body = inner[_FENCE_INFO.match(inner).end():]
    return (body[:-1] if body.endswith("\n") else body).strip()


def _strip_marks(text: str) -> str:
    text = _unfence(text.strip())
    text = re.sub(r"^(?:[-*>#]+\s+)", "", text)          # bullet, quote or heading mark
    return text.replace("**", "").replace("__", "").strip()


def _strip_quotes(text: str) -> str:
    start, end = 0, len(text)                          # text[start:end], peeled in place
    while end - start >= 2 and text[start] in _QUOTES and text[end - 1] in _QUOTES:
        start, end = start + 1, end - 1
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
    return text[start:end].strip(_QUOTES + " \t").strip()


def _labelled_line(text: str) -> tuple[str, bool]:
    """The query after a label: ``text`` itself, or its first line when a blank line or
    an explanation line follows it (then True: the rest was ignored)."""
    first, newline, rest = text.partition("\n")
    if not newline:
        return text, False
    second = rest.partition("\n")[0].strip()
    if not second or _EXPLANATION.match(second):
        return first.strip(), True
    return text, False


def clean_query(reply: object, max_words: int = MAX_QUERY_WORDS) -> tuple[str | None, str]:
    """Check a rewrite reply: ``(query, note)`` if usable, ``(None, reason)`` if not.

    ``note`` is "" for a clean reply or says what was removed ("removed the preamble
    'Sure! Here is the query:'"). ``max_words``: longest accepted query, in words
    (whitespace-separated). Raises ValueError for a ``max_words`` that is not an int >= 1.
    """
    if isinstance(max_words, bool) or not isinstance(max_words, int) or max_words < 1:
        raise ValueError(f"max_words must be an int >= 1, got {max_words!r}")
    if not isinstance(reply, str):
        return None, f"reply is not a str ({type(reply).__name__})"
    text = _strip_marks(reply)
    notes = []
    preamble, ignored = _PREAMBLE.match(text), False
    if preamble:
        notes.append(f"removed the preamble {preamble.group(0).strip()!r}")
        text, ignored = _labelled_line(_strip_marks(text[preamble.end():]))
    query = _strip_quotes(text)
    if preamble and _EXPLANATION.match(query):
        return None, f"only an explanation after the label: {query[:40]!r}"
    if ignored:
        notes.append("ignored the text after the labelled query")
    if not query:
        return None, "empty reply"
    if "\n" in query or "\r" in query:
        return None, f"{len(query.splitlines())} lines, expected one"
    if _CHATTY.match(query):
        return None, f"chatty reply, no query could be cut out safely: {query[:40]!r}"
    words = len(query.split())
    if words > max_words:
        return None, f"{words} words, more than max_words={max_words}"
    if not notes and query != reply.strip():
        notes.append("stripped quotes or markup")
    return query, "; ".join(notes)


def rewrite_query(llm: Callable[[str, str], str], history: str, question: str,
                  max_words: int = MAX_QUERY_WORDS) -> Rewrite:
    """The standalone query for ``question`` given the conversation ``history``.

    ``llm``: a chat model ``(system, user) -> str``; ``history``: the memory's context as
    text ("" or blank on the first turn: no model call, the raw question is used);
    ``max_words``: see :func:`clean_query`. Never raises for a model failure: any
    Exception from ``llm`` or a rejected reply gives the raw question with the reason.
    Raises TypeError for a non-str history or question, ValueError for a bad max_words.
    """
    if not isinstance(history, str):
        raise TypeError(f"history must be a str, got {type(history).__name__}: {history!r:.60}")
    if not isinstance(question, str):
        raise TypeError(f"question must be a str, got {type(question).__name__}: {question!r:.60}")
    clean_query("", max_words)                          # validate max_words before any call
    if not history.strip():
        return Rewrite(question, False, "first turn: no history, raw question")
    try:
        reply = llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question))
    except Exception as exc:                            # noqa: BLE001 - any failure degrades
        return Rewrite(question, False, f"rewrite call failed ({type(exc).__name__}: {exc}); "
                                        f"raw question")
    query, note = clean_query(reply, max_words)
    if query is None:
        return Rewrite(question, False, f"rewrite rejected ({note}); raw question")
    return Rewrite(query, True, f"rewritten ({note})" if note else "rewritten")
