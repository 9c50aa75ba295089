"""The fact-survival check of the production summary memory: a new running summary must
still hold the identifiers, numbers, amounts, dates and names of what it replaced.

The most reported failure of summary memory is a summary that keeps the gist and drops
the one-off details: the order id, the amount, the date, the name said once (the
summary-memory lesson's "plant a fact early, run 50 turns, check it is still there").
After a compaction the production memory checks the new summary against the facts of
the previous summary and of the folded turns (:func:`missing_facts`):

- every fact kept: the summary is used as it is;
- most kept (at least half): it is *repaired*: the line that stated each missing fact
  is appended (:func:`repair`), and the trace says which facts were put back;
- fewer than half kept, or, when the sources hold no fact at all, not one of their
  content words (:func:`off_topic`): the reply is not a summary of these turns (junk, a
  refusal, another conversation's summary) and is rejected; the fallback writes it.

A fact is a token of one of these shapes (:func:`facts_in`), compared as a whole token:
a number of ASCII digits (``1,299.50``, ``1299.5`` and ``1299.50`` are one fact; a list
marker such as ``2.`` at the start of a line is not one), an id (``ORD-1234``, ``#88``),
or a capitalised word that does not open a sentence, a clause after ``:`` or ``;``, or a
line after a ``[user]`` tag (``Zenbook``, ``Priya``, ``José``; months and weekdays
included; not ``It``, ``Thanks`` and the like, nor the words of a Title Case heading).
It is a heuristic: it errs towards keeping lines, never towards losing them. Every pattern
is linear in the text's length.

No pattern crosses a "\\n", and a word after one opens a line, so a text's facts are its
lines' facts together: they are worked out once per distinct line (a bounded LRU cache),
and a running summary's lines are not read again at every compaction.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from kit.textcache import text_cache

__all__ = ["facts_in", "missing_facts", "repair", "off_topic", "MOST"]

MOST = 0.5      # a summary keeping fewer than this share of the facts is rejected

_NUMBER = re.compile(r"[0-9]+(?:[.,][0-9]+)*")
_LIST_MARK = re.compile(r"^[ \t]*(?:\[(?:user|assistant)\] |[^\W\d_][\w ]{0,30}: )?"
                        r"[0-9]{1,2}[.)](?=\s|$)", re.M)      # "2." or "user: 2." opening a line
_ID = re.compile(r"(?<![\w-])(?:[A-Za-z]{1,5}-[0-9]+|#[0-9]+)(?![\w-])")
_WORD = re.compile(r"[^\W\d_][^\W\d_']*(?:'[^\W\d_]+)?(?:-[^\W\d_]+)*")
_NOT_NAMES = {
    "I", "I'm", "I'll", "I've", "I'd", "OK", "Ok", "It", "It's", "The", "This", "That", "These",
    "Those", "We", "You", "He", "She", "They", "My", "Our", "Your", "A", "An", "And", "But",
    "Or", "So", "Yes", "No", "Sure", "Thanks", "Thank", "Great", "Okay", "Hi", "Hello", "Hey",
    "Please", "Sorry", "Here", "There", "Well", "Also", "Then", "Now", "Noted", "Done", "Note"}
_SENTENCE_END = ".!?:;]\n"      # a word after these opens a sentence, a clause or a tag
_BETWEEN = " \t\"'([*-"       # skipped when looking back for the previous word's end
_STOP = {"about", "after", "again", "also", "because", "been", "before", "being", "could",
         "does", "doing", "from", "have", "having", "here", "into", "just", "like", "more",
         "much", "need", "only", "other", "over", "please", "should", "some", "such", "than",
         "that", "their", "them", "then", "there", "these", "they", "this", "those", "very",
         "want", "were", "what", "when", "where", "which", "while", "will", "with", "would",
         "your", "user", "assistant", "thanks", "thank", "okay", "sure"}


def _number(text: str) -> str:
    """A number normalised: no thousands commas, no trailing decimal zeros."""
    text = text.replace(",", "")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _names(text: str) -> Iterable[str]:
    """Capitalised words that open no sentence, clause or line, and are not part of a
    Title Case run of three or more words. One pass: the look back from each word crosses
    only the gap after the previous word."""
    run: list[str] = []                 # the current run of capitalised words
    end = 0                             # where the previous word ended
    for match in _WORD.finditer(text):
        word = match.group()
        i = match.start() - 1
        while i >= 0 and text[i] in _BETWEEN:
            i -= 1
        opens = i < 0 or text[i] in _SENTENCE_END
        if text[end:match.start()].strip(" "):         # a run is words apart by spaces only
            yield from (run if len(run) < 3 else ())
            run = []
        end = match.end()
        if not word[0].isupper():
            yield from (run if len(run) < 3 else ())
            run = []
            continue
        if opens:
            yield from (run if len(run) < 3 else ())
            run = [""]                   # an opener starts a run but is no name itself
            continue
        run.append("" if word in _NOT_NAMES else word)
    yield from (run if len(run) < 3 else ())


def facts_in(text: str) -> set[str]:
    """The facts of ``text`` as a set of normalised strings: numbers (see
    :func:`_number`), ids as written, names. Raises TypeError for a non-str."""
    return set(_of_lines(_line_facts, text))


@text_cache
def _line_facts(line: str) -> frozenset[str]:
    """:func:`facts_in` of one line (no "\\n"), once per distinct line."""
    marks = {m.end() for m in _LIST_MARK.finditer(line)}
    facts = {_number(m.group()) for m in _NUMBER.finditer(line) if m.end() + 1 not in marks}
    facts |= {m.group() for m in _ID.finditer(line)}
    facts |= set(_names(line))
    facts.discard("")
    return frozenset(facts)


@text_cache
def _line_kept(line: str) -> frozenset[str]:
    """:func:`_kept` of one line (no "\\n"), once per distinct line."""
    return _line_facts(line) | {m.group() for m in _WORD.finditer(line)}


def _of_lines(of_line: Callable[[str], frozenset[str]], text: str) -> frozenset[str]:
    """``of_line`` of each line of ``text`` (split at "\\n"), together. Raises TypeError
    for a non-str."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}: {text!r:.60}")
    if "\n" not in text:
        return of_line(text)
    return frozenset().union(*map(of_line, text.split("\n")))


def _kept(text: str) -> frozenset[str]:
    """What a summary holds, to look facts up in: its facts and its words (so a name
    that opens a sentence of the summary still counts as kept)."""
    return _of_lines(_line_kept, text)


def missing_facts(sources: Iterable[str], summary: str) -> tuple[list[str], int]:
    """``(missing, needed)``: the facts of ``sources`` (the previous summary and the
    folded turns' texts) that ``summary`` does not hold, sorted, and how many facts the
    sources have in all. Raises TypeError for a text that is not a str."""
    needed: set[str] = set()
    for text in sources:
        needed |= _of_lines(_line_facts, text)
    return sorted(needed - _kept(summary)), len(needed)


def _content_words(text: str) -> set[str]:
    return {w for w in (m.group().casefold() for m in _WORD.finditer(text))
            if len(w) >= 4 and w not in _STOP}


def off_topic(sources: Iterable[str], summary: str) -> bool:
    """True if the sources have at least three content words (four letters or more, not
    a stopword) and ``summary`` shares none of them: a reply about something else."""
    words: set[str] = set()
    for text in sources:
        words |= _content_words(text)
    return len(words) >= 3 and not words & _content_words(summary)


def repair(summary: str, sources: Iterable[str], missing: Iterable[str]) -> str:
    """``summary`` with, appended on lines of their own, the first line of ``sources``
    that states each fact of ``missing`` (each line once, in source order)."""
    wanted, lines = set(missing), []
    for text in sources:
        for line in text.splitlines():
            found = _line_facts(line) & wanted
            if found and line.strip():
                lines.append(line.strip())
                wanted -= found
    return "\n".join([summary.rstrip(), *lines]) if lines else summary
