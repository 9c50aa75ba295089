"""Extractive summaries: keep the sentences that carry facts, drop the small talk.

A rule-based summariser that never paraphrases. It splits the text into sentences,
keeps those that carry a fact (a name, a number, an id, an amount, a date or a
stated constraint) and caps the result at ``cap`` units of a measure. It is
deterministic and needs no model, so it serves twice:

- as the *fallback* when the model summariser fails (as the FEMentor write-up advises, keep
  a rule-based fallback so one failed compaction does not stop the conversation);
- as the *reference* summariser: what a fact-preserving summary must at least keep (the
  test of the summary-memory lesson: "plant a fact early, run 50 turns, check it is still
  there").

As a prompt model for :class:`kit.memory.SummaryMemory` it reads the current summary
and the new turns with their speakers from the prompt
(:func:`kit.llm.parse_summary_turns`) and ignores the instructions: it keeps facts
whatever the prompt asks.

Output: one sentence per line, tagged with who said it, ``[user] ...`` or
``[assistant] ...`` (a tag, not ``user:``, so a summary line can never pass for a
verbatim turn). Kept sentences stay in conversation order.

The cap rule, in order:

1. Only fact-bearing sentences are candidates; a sentence said again counts once, at
   its newest mention (same text after case folding and whitespace collapse).
2. Candidates are taken by priority and each is kept if the summary still fits
   ``cap`` with it, else skipped. Priority: the kind of fact first, a constraint, then
   an id or an amount, then any other fact (:func:`fact_score`); then the speaker: the
   user's sentences and the current summary's untagged ones (a model wrote them, from
   both speakers) before the assistant's (often an echo or a suggestion); then the
   newer before the older. A sentence of the current summary keeps its ``[user]`` /
   ``[assistant]`` tag, so it ranks as when it was first kept. So when the facts alone
   overflow the cap, the assistant's names and dates go first, and an order id stated
   once at the start outlives a name said a minute ago.
3. If no sentence carries a fact, the newest sentence is kept instead, so a non-empty
   input never gives an empty summary.
4. If not even one candidate fits, the top one is cut to its first words that fit
   (at least its tag and one word: the only case in which the result can exceed
   ``cap``).

Each sentence's work is done once: its split and fact kinds are cached by text (a
bounded LRU cache), and with the kit's counters a candidate is tried by adding its
line's size to a running total of the kept lines' sizes, each line measured once (see
``_join_rule``), not by measuring the whole kept set again for every candidate.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from kit.llm import PromptModel
from kit.prompts import parse_summary_turns
from kit.tokens import (Measure, approx_tokens, cl100k_tokens, count_characters, count_tokens,
                        count_words, inner_measure, measure_name, measured, unit_of)
from kit.textcache import ENTRIES, LONGEST, text_cache
from kit.validation import check_int

__all__ = ["FACT_KINDS", "CONSTRAINT_WORDS", "split_sentences", "fact_kinds",
           "fact_score", "is_fact_bearing", "fact_sentences", "extract_summary",
           "make_extractive_summariser", "extractive_summariser", "DEFAULT_CAP"]

DEFAULT_CAP = 120      # in units of the measure (tokens with the default cl100k_tokens)
FACT_KINDS = ("amount", "date", "id", "number", "name", "constraint")

CONSTRAINT_WORDS = (
    "allergic", "allergy", "allergies", "intolerant", "vegan", "vegetarian", "must",
    "mustn't", "never", "only", "under", "below", "above", "without", "avoid", "deadline",
    "budget", "limit", "maximum", "minimum", "required", "at most", "at least",
    "no more than", "no less than", "not more than", "up to",
)

_CURRENCY = r"(?:Rs\.?|INR|USD|EUR|GBP|\$|€|£|₹)"
_UNITS = r"(?:dollars?|rupees?|euros?|pounds?|kg|g|mg|lb|lbs|km|m|cm|mm|l|ml|GB|TB|MB|%|percent|hours?|days?|weeks?|months?|years?)"
_NUM = r"\d[\d,]*(?:\.\d+)?"
_MONTHS = ("january february march april june july august september october november "
           "december jan feb mar apr jun jul aug sep sept oct nov dec").split()
_DAYS = ("monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday "
         "tonight").split()

# An amount: a currency then a number, or a number then a currency or a unit. The
# second form is tried only from the first digit of a run of digits and commas (every
# later digit of the run gives the same answer, and trying each one made the pattern
# quadratic on a long digit run); the commas before that digit are captured and kept.
_AMOUNT_TAIL = rf"{_NUM}\s?(?:{_CURRENCY}|{_UNITS})(?!\w)"
_AMOUNT = re.compile(rf"{_CURRENCY}\s?{_NUM}|(?<![\d,])(,*){_AMOUNT_TAIL}")
_AMOUNT_RESUMED = re.compile(rf"(,*){_AMOUNT_TAIL}")  # where a match ended inside a run
_RUN_CHARS = frozenset("0123456789,")
_PATTERNS = [  # (kind, regex); after the amounts, matched in this order, each masked for the next
    ("date", r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b"
             r"|\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b"
             rf"|\b(?:{'|'.join(_MONTHS + _DAYS)})\b"
             r"|\bmay\s\d{1,2}\b|\b\d{1,2}\s?may\b"),     # "may" alone is a verb
    ("id", r"\b[A-Za-z]{1,5}-\d+\b|#\d+\b|\b\d{4,}\b"),
    ("number", r"\d"),
]


def _mask_amounts(text: str) -> tuple[bool, str]:
    """(any amount found, ``text`` with each amount replaced by one space), in one
    left-to-right pass: the same matches as the plain amount regex, in linear time."""
    parts, done = [], 0
    while True:
        match = None
        if 0 < done < len(text) and text[done - 1] in _RUN_CHARS and text[done] in _RUN_CHARS:
            match = _AMOUNT_RESUMED.match(text, done)   # "$5.5,3kg": "3kg" after "$5.5"
        match = match or _AMOUNT.search(text, done)
        if match is None:
            break
        parts += [text[done:match.start() + len(match.group(1) or "")], " "]
        done = match.end()
    return bool(parts), "".join(parts) + text[done:]


def _masker(pattern: re.Pattern):
    def mask(text: str) -> tuple[bool, str]:
        masked, found = pattern.subn(" ", text)
        return found > 0, masked
    return mask


_MASKS = [("amount", _mask_amounts)] + [
    (kind, _masker(re.compile(rx, re.IGNORECASE if kind == "date" else 0)))
    for kind, rx in _PATTERNS]
_CONSTRAINT = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in CONSTRAINT_WORDS) + r")\b",
                         re.IGNORECASE)
_NOT_NAMES = {"I", "I'm", "I'll", "I've", "I'd", "OK", "Ok"}
_ABBREVIATIONS = ("Mr.", "Mrs.", "Ms.", "Dr.", "St.", "No.", "Rs.", "vs.", "e.g.", "i.e.")
_SPLIT = re.compile(r"(?<=[.!?])(?:;\s*|\s+)(?=[\"'(\[]?[A-Z0-9])"
                    r"|(?<!\s)\s+(?=\[(?:user|assistant)\] )")  # a speaker tag starts one
# (from the start of a run of white space only: trying every space of a long run was
# quadratic, and a later start in the run gives the same split)
_TAG = re.compile(r"^\[(user|assistant)\] ")


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences: at line breaks, and after . ! ? followed by a
    space and a capital letter or digit (not after Mr., Dr., Rs., e.g. and the like).
    A "; " right after . ! ? splits too and is dropped: stub models and many real ones
    join whole sentences with it ("Budget Rs 500.; Noted: order 7."). A speaker tag
    (``[user]``, ``[assistant]``) after a space starts a new sentence, so a summary
    joined into one line (as :class:`kit.structured.StructuredSummary` stores it)
    splits as it was written.

    Returns stripped, non-empty sentences in order. Raises TypeError for a non-str.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}: {text!r:.60}")
    out: list[str] = []
    for line in text.splitlines():
        out += _line_sentences(line)
    return out


@text_cache
def _line_sentences(line: str) -> tuple[str, ...]:
    """The sentences of one line (see :func:`split_sentences`), worked out once per
    distinct line: a running summary's lines come back at every compaction."""
    sentences: list[list[str]] = []        # the pieces of each sentence
    for piece in _SPLIT.split(line.strip()):
        if sentences and sentences[-1][-1].endswith(_ABBREVIATIONS):
            sentences[-1].append(piece)    # "Dr. Rao" is one sentence
        else:
            sentences.append([piece])
    return tuple(s for s in (" ".join(pieces).strip() for pieces in sentences) if s)


def fact_kinds(sentence: str) -> tuple[str, ...]:
    """The kinds of fact in ``sentence``, in :data:`FACT_KINDS` order.

    - amount: a currency and a number (Rs 60000, $12.50) or a number and a unit (1.5 kg);
    - date: 2024-05-01, 5/1, 10:30, 5pm, a month or weekday, today/tomorrow/yesterday;
    - id: A-1234, #123 or a number of 4+ digits (88412) that is not an amount or date;
    - number: any other digit;
    - name: a capitalised word that does not start the sentence or a clause after a
      colon ("Zenbook"; not "I"). A name that opens the sentence is missed;
    - constraint: a word or phrase of :data:`CONSTRAINT_WORDS` ("allergic", "at most").

    Raises TypeError for a non-str.
    """
    return _kinds(_checked(sentence))


def _checked(sentence: object) -> str:
    if not isinstance(sentence, str):
        raise TypeError(f"sentence must be a str, got {type(sentence).__name__}: {sentence!r:.60}")
    return sentence


@text_cache
def _kinds(sentence: str) -> tuple[str, ...]:
    """:func:`fact_kinds` of a str, worked out once per distinct sentence."""
    found, rest = set(), sentence
    for kind, mask in _MASKS:        # mask each match so "Rs 60000" is not also an id
        hit, rest = mask(rest)
        if hit:
            found.add(kind)
    for clause in rest.split(":"):     # a capital after "Noted:" starts a clause too
        words = re.findall(r"[A-Za-z][\w'-]*", clause)
        if any(w[0].isupper() and w not in _NOT_NAMES for w in words[1:]):
            found.add("name")
    if _CONSTRAINT.search(sentence):
        found.add("constraint")
    return tuple(kind for kind in FACT_KINDS if kind in found)


def fact_score(sentence: str) -> int:
    """Priority of a sentence by the kinds of fact it carries (see :func:`fact_kinds`):
    3 for a stated constraint, 2 for an id or an amount, 1 for another kind of fact (a
    date, a number, a name), 0 for small talk.

    Constraints, ids and amounts rank first because they are said once, must be quoted
    exactly and matter most later (the allergy, the order id, the budget); a name or a
    number alone is often an echo or a suggestion.
    """
    return _score(_checked(sentence))


def _score(sentence: str) -> int:
    """:func:`fact_score` of a str, from its cached kinds."""
    kinds = _kinds(sentence)
    if "constraint" in kinds:
        return 3
    return 2 if "id" in kinds or "amount" in kinds else 1 if kinds else 0


def is_fact_bearing(sentence: str) -> bool:
    """True if ``sentence`` carries at least one kind of fact (see :func:`fact_kinds`)."""
    return fact_score(sentence) > 0


def fact_sentences(text: str) -> list[str]:
    """The fact-bearing sentences of ``text``, in order (small talk dropped)."""
    return [s for s in split_sentences(text) if is_fact_bearing(s)]


def _key(sentence: str) -> str:
    return " ".join(sentence.casefold().split())


def _tagged(role: str, text: str) -> str:
    """A summary line: the sentence under its speaker's tag (untagged: as it was)."""
    return f"[{role}] {text}" if role else text


def _render(items: list[tuple[str, str]]) -> str:
    return "\n".join(_tagged(role, text) for role, text in items)


# -- sizes: each line measured once ---------------------------------------------------
# A summary is its kept lines joined by line breaks. For the kit's own counters the size
# of such a join follows from its lines' sizes, so a candidate is tried by adding its
# line to a running total, not by measuring the whole kept set again ("parts"):
# - "words" (count_words): the lines' words; a line break is no word and splits none;
# - "characters" (count_characters, len): the lines' characters, one more per break;
# - "quarters" (approx_tokens): characters // 4 of that total. Its floor does not add
#   up over lines, so the lines' lengths are added, not their sizes (no call at all);
# - "lines" (cl100k_tokens, count_tokens, tiktoken_counter() in cl100k_base): each line
#   with its line break, the last line without. A line ends in a visible character (it
#   is stripped), and then cl100k's pre-tokenizer ends a piece at the break: punctuation
#   takes the break along (".\n"), after a letter or digit the break is a piece alone;
#   the next line's pieces start after it as they do in the line alone (no pattern
#   looks behind), and BPE merges within a piece. kit.tokens cuts a long run at the same
#   places in a line alone as in the join. So the join's tokens are the parts' sum.
# Any other measure may count a join as it likes (o200k_base's punctuation takes a
# break and a "/" after it along): it measures the whole trial for every candidate.
def _join_rule(measure: Measure) -> str | None:
    """How the size of lines joined by line breaks follows from the lines (see above):
    "words", "characters", "quarters" or "lines"; None when it may not."""
    inner = inner_measure(measure)
    if inner is approx_tokens:
        return "quarters"
    if inner is count_characters or inner is len:
        return "characters"
    if inner is count_words:
        return "words"
    if (inner is cl100k_tokens or inner is count_tokens
            or measure_name(inner) == "tiktoken_cl100k_base"):
        return "lines"
    return None


class _Sizes:
    """Sizes of summary lines in one measure, each distinct text measured once.

    ``cache``: text -> size in ``measure``, filled as texts are measured (a summariser
    keeps one across its calls; a new dict if None).
    """

    def __init__(self, measure: Measure, cache: dict[str, int] | None = None) -> None:
        self.measure, self.rule = measure, _join_rule(measure)
        self.cache = {} if cache is None else cache

    def _measured(self, text: str) -> int:
        size = self.cache.get(text)
        if size is None:
            size = measured(self.measure, text)
            if len(text) <= LONGEST:               # a long text is measured each time
                self.cache[text] = size
        return size

    def part(self, line: str, last: bool) -> int:
        """The line's share of a join's size, with its line break unless ``last``."""
        if self.rule == "quarters":
            return len(line) + (not last)
        if self.rule == "characters":
            return self._measured(line) + (not last)
        if self.rule == "words":
            return self._measured(line)
        return self._measured(line if last else line + "\n")

    def of_parts(self, total: int) -> int:
        """The size of a join whose parts add up to ``total`` (> 0)."""
        return max(1, total // 4) if self.rule == "quarters" else total


def _fill(lines: list[str], ranked: list[int], cap: int, sizes: _Sizes) -> list[int]:
    """The indices of ``lines`` kept, ascending: each of ``ranked`` in turn is kept if
    the kept lines joined by line breaks still fit ``cap`` with it (rule 2)."""
    if sizes.rule is None:                 # the join measured whole for every candidate
        kept: list[int] = []
        for i in ranked:
            trial = kept.copy()
            bisect.insort(trial, i)
            if measured(sizes.measure, "\n".join(lines[j] for j in trial)) <= cap:
                kept = trial
        return kept
    part, keep = sizes.part, [False] * len(lines)
    last, total = -1, 0                    # the last kept line; the others' parts
    for i in ranked:
        if last < 0:
            grow, size = 0, part(lines[i], True)
        elif i > last:                     # the candidate would be the last line
            grow = part(lines[last], False)
            size = total + grow + part(lines[i], True)
        else:
            grow = part(lines[i], False)
            size = total + grow + part(lines[last], True)
        if sizes.of_parts(size) <= cap:
            total, keep[i], last = total + grow, True, max(last, i)
    return [i for i, kept_i in enumerate(keep) if kept_i]


def _fit_words(role: str, text: str, cap: int, measure: Measure) -> str:
    """The tagged longest prefix of ``text`` (whole words, at least one) that fits ``cap``."""
    words = text.split()
    keep = 1
    while keep < len(words) and measured(measure, _render([(role, " ".join(words[:keep + 1]))])) <= cap:
        keep += 1
    return _render([(role, " ".join(words[:keep]))])


def extract_summary(summary: str, turns: Sequence[tuple[str, str]], cap: int = DEFAULT_CAP,
                    measure: Measure = cl100k_tokens) -> str:
    """The new running summary: facts of ``summary`` then of ``turns``, within ``cap``.

    ``summary``: the current summary ("" for none; sentences tagged ``[user]`` or
    ``[assistant]`` keep their speaker, untagged ones rank with the user's);
    ``turns``: ``(role, content)`` pairs, oldest first; ``cap``: int >= 1, in units of
    ``measure`` (tokens by default). A pure function: state in, state out. The rule
    for what is kept is in the module docstring. Each sentence's fact kinds are worked
    out once (cached by text), and for the kit's counters each line is measured once
    (at most twice in cl100k_base: with its line break and without), the summary's size
    a running total of its lines'. Returns "" only when there is no sentence at all.
    Raises TypeError / ValueError naming a bad ``cap``, ``measure``, summary or turn.
    """
    check_int("cap", cap, 1)
    if not callable(measure):
        raise TypeError(f"measure must be callable str -> int, got {measure!r:.60}")
    return _extract(summary, turns, cap, _Sizes(measure))


def _extract(summary: str, turns: Sequence[tuple[str, str]], cap: int, sizes: _Sizes) -> str:
    """:func:`extract_summary` with ``cap`` checked, measuring with ``sizes``."""
    if not isinstance(summary, str):
        raise TypeError(f"summary must be a str ('' for none), got {summary!r:.60}")
    said: list[tuple[str, str]] = []            # (role, sentence), oldest first
    for sentence in split_sentences(summary):    # a tag starts a line or a sentence
        tag = _TAG.match(sentence)
        said.append((tag.group(1), sentence[tag.end():]) if tag else ("", sentence))
    for turn in turns:
        if (not isinstance(turn, tuple) or len(turn) != 2
                or not all(isinstance(x, str) for x in turn)):
            raise TypeError(f"each turn must be a (role, content) pair of str, got {turn!r:.60}")
        said += [(turn[0], s) for s in split_sentences(turn[1])]
    if not said:
        return ""
    newest = {_key(text): i for i, (_, text) in enumerate(said)}    # repeats count once
    score = {i: _score(said[i][1]) for i in sorted(newest.values())}
    facts = [i for i in score if score[i] > 0]
    candidates = facts or [len(said) - 1]                 # nothing factual: the newest
    ranked = sorted(candidates, reverse=True,             # rule 2's priority, highest first
                    key=lambda i: (score[i], said[i][0] != "assistant", i))
    lines = [_tagged(role, text) for role, text in said]
    kept = _fill(lines, ranked, cap, sizes)
    if not kept:                                          # not even one fits: cut the top one
        return _fit_words(*said[ranked[0]], cap, sizes.measure)
    return "\n".join(lines[j] for j in kept)


def make_extractive_summariser(cap: int = DEFAULT_CAP, measure: Measure = cl100k_tokens
                               ) -> PromptModel:
    """A prompt model ``str -> str`` for :class:`kit.memory.SummaryMemory`.

    It reads the current summary and the new turns from the prompt and returns
    :func:`extract_summary` of them, at most ``cap`` (int >= 1) units of ``measure``.
    It keeps the sizes of the lines it measured (up to 16,384 texts, then it starts
    afresh), so a line of the running summary is measured once, not again at every
    compaction. Raises TypeError /
    ValueError naming a bad ``cap`` or ``measure`` when built, and TypeError /
    ValueError for a prompt that is not a summary prompt when called.
    """
    check_int("cap", cap, 1)
    if not callable(measure):
        raise TypeError(f"measure must be callable str -> int, got {measure!r:.60}")
    sizes: dict[str, int] = {}             # the lines measured so far, by text

    def summarise(prompt: str) -> str:
        summary, turns = parse_summary_turns(prompt)
        if len(sizes) > ENTRIES:
            sizes.clear()
        return _extract(summary, turns, cap, _Sizes(measure, sizes))

    summarise.__name__ = f"extractive_summariser_cap{cap}"
    summarise.__doc__ = f"Extractive summary of at most {cap} {unit_of(measure)}."
    summarise.cap, summarise.measure = cap, measure      # type: ignore[attr-defined]
    return summarise


extractive_summariser: PromptModel = make_extractive_summariser()
extractive_summariser.__doc__ = (f"The extractive summariser with the default cap "
                                 f"({DEFAULT_CAP} tokens, cl100k_base).")
