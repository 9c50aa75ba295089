"""An incremental BM25 index over conversation turns, for recall memory.

Recall memory (:mod:`kit.memory.recall`) searches the transcript for every question.
A conversation grows one turn at a time, with a search after almost every turn, so
the index must take one new turn cheaply. :class:`kit.rag.retrieval.BM25Retriever`
(bm25s) rebuilds its whole index on the first search after an add: fine for a help
centre indexed once, O(n) per turn here (about 4 s over a 419-turn LoCoMo
conversation with a search per turn, against 0.04 s for this index). So this module
keeps BM25 (Robertson and Zaragoza 2009; Lucene's idf, as bm25s uses) in posting
lists: adding a turn costs its own words, a search costs the postings of the query's
words, and every turn is tokenised once.

Three additions to plain BM25, each standard or close to it, each can be turned off:

- **pseudo-relevance feedback** (query expansion): the question "What activities does
  Melanie do?" shares no word with "I signed up for a pottery class" or "we went
  camping". The turns the question finds first usually talk about the same things, so
  their most informative words are added to the query, with a lower weight, and the
  index is searched again. The weights are Bo1 (Amati's Bose-Einstein model of
  divergence from randomness, the default query expansion of the Terrier engine, with
  its defaults: 3 feedback turns, 10 terms): a word scores high when it is frequent in
  the feedback turns and rare in the conversation. ``feedback=(0, 0)`` turns it off.

And two things conversations need that documents do not:

- **spread**: the turn that holds a fact is often the reply to the turn that names it
  ("Where did you camp?" / "At the beach!"). A hit lends ``spread = (before, after)``
  of its score to the turn before it and the turn after it.
- **speaker boost**: a question that names exactly one speaker ("What did Caroline
  research?") is most often answered by that speaker's own turns, which say "I", not
  "Caroline"; their scores are multiplied by ``1 + speaker_boost``.

The tokenizer (:func:`recall_tokenize`) lowercases, drops English function words
(bm25s's extended list, question words included, less a few particles) and folds
endings with :func:`light_stem`, so "painted", "painting" and "paints" meet.
Deterministic: equal scores keep turn order.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable

__all__ = ["TurnIndex", "light_stem", "recall_tokenize", "recall_stopwords", "KEPT_WORDS"]

_VOWELS = frozenset("aeiouy")
_STOPWORDS: frozenset[str] | None = None


# Words of STOPWORDS_EN_PLUS kept as search words: in conversation they carry meaning
# ("grew up", "moved out", "where do you work now?").
KEPT_WORDS = frozenset({"up", "down", "out", "off", "over", "now", "again"})


def recall_stopwords() -> frozenset[str]:
    """bm25s's extended English stopword list (``STOPWORDS_EN_PLUS``: "what", "did",
    "has", "her" ...) without :data:`KEPT_WORDS`: 172 words, loaded on first use."""
    global _STOPWORDS
    if _STOPWORDS is None:
        from bm25s.stopwords import STOPWORDS_EN_PLUS   # bm25s takes ~0.3 s to import
        _STOPWORDS = frozenset(STOPWORDS_EN_PLUS) - KEPT_WORDS
    return _STOPWORDS


def light_stem(word: str) -> str:
    """Fold common English endings, so that forms of a word meet.

    -ies/-ied -> y, -ing/-ed (a doubled last consonant undone), plural -s/-es, -ly,
    then a silent final e: "painted", "painting", "paints" -> "paint"; "camped" ->
    "camp"; "running" -> "run"; "stories" -> "story"; "making", "make" -> "mak".
    Words of 3 letters or fewer, or with digits, stay as they are. A light stemmer
    (not Porter's): it only has to make the same word meet itself.
    """
    w = word
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith(("ies", "ied")) and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("sses"):
        w = w[:-2]
    else:
        for suffix in ("ings", "ing", "edly", "ed"):
            if w.endswith(suffix):
                stem = w[:-len(suffix)]
                if len(stem) >= 3 and _VOWELS & set(stem):
                    if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
                        stem = stem[:-1]           # running -> run, but fall-ing -> fall
                    w = stem
                break
        else:
            if w.endswith("s") and not w.endswith(("ss", "us", "is")):
                w = w[:-1]
                if w.endswith("e") and w[:-1].endswith(("ch", "sh", "x", "ss", "zz")):
                    w = w[:-1]                     # boxes -> box, wishes -> wish
            elif w.endswith("ly") and len(w) > 5:
                w = w[:-2]
    if len(w) > 3 and w.endswith("e") and w[-2] not in _VOWELS:
        w = w[:-1]                                 # make / making -> mak
    return w


def recall_tokenize(text: str) -> list[str]:
    r"""BM25 tokens of ``text``: lowercased ``\w+`` runs, :func:`recall_stopwords`
    removed, each folded by :func:`light_stem`.
    ``recall_tokenize("What has Melanie painted?") == ["melanie", "paint"]``."""
    stop = recall_stopwords()
    return [light_stem(w) for w in re.findall(r"\w+", text.lower()) if w not in stop]


def _weight(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ValueError(f"{name} must be a number >= 0, got {value!r}")
    return float(value)


class TurnIndex:
    """BM25 over turns, updated one turn at a time.

    ``k1`` (>= 0), ``b`` (0..1): BM25's term-frequency saturation and length
    normalisation (1.5 and 0.75, as in :class:`kit.rag.retrieval.BM25Retriever`);
    ``spread``: (before, after), the shares (>= 0) of a hit's score lent to its
    neighbours; ``speaker_boost`` (>= 0): see the module docstring; ``tokenizer``:
    ``str -> list[str]``; ``feedback``: (turns, terms), ints >= 0, the pseudo-relevance
    feedback of the module docstring (``(0, 0)``: none). Raises ValueError naming a bad
    value.

    ``add(number, text, speaker)`` indexes one turn (numbers must increase);
    ``query_weights(query)`` is the weighted query after expansion;
    ``scores(query)`` returns ``{number: score > 0}``; ``search(query, below)``
    ranks. ``tokenized`` counts the texts tokenised (each turn once, each query once:
    expansion reads the terms kept at ``add``).
    """

    def __init__(self, k1: float = 1.5, b: float = 0.75,
                 spread: tuple[float, float] = (0.25, 0.6), speaker_boost: float = 0.3,
                 tokenizer=recall_tokenize, feedback: tuple[int, int] = (3, 10)) -> None:
        self.k1 = _weight("k1", k1)
        if not 0 <= _weight("b", b) <= 1:
            raise ValueError(f"b must be between 0 and 1, got {b!r}")
        self.b = float(b)
        if not isinstance(spread, tuple) or len(spread) != 2:
            raise ValueError(f"spread must be a pair (before, after), got {spread!r}")
        self.spread = (_weight("spread[0]", spread[0]), _weight("spread[1]", spread[1]))
        self.speaker_boost = _weight("speaker_boost", speaker_boost)
        if not callable(tokenizer):
            raise TypeError(f"tokenizer must be callable str -> list[str], got {tokenizer!r:.60}")
        self.tokenizer = tokenizer
        if (not isinstance(feedback, tuple) or len(feedback) != 2 or any(
                isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in feedback)):
            raise ValueError(f"feedback must be a pair of ints >= 0 (turns, terms), "
                             f"got {feedback!r}")
        self.feedback = feedback
        self.numbers: list[int] = []          # position -> message number
        self.speakers: list[str] = []         # position -> speaker ("" if unknown)
        self.lengths: list[int] = []          # position -> tokens in the turn
        self.postings: dict[str, list[tuple[int, int]]] = {}   # term -> [(position, tf)]
        self.terms: list[Counter] = []        # position -> {term: tf}, for feedback
        self.frequency: Counter = Counter()   # term -> occurrences in all turns
        self.total_length = 0
        self.tokenized = 0

    def like(self) -> "TurnIndex":
        """A new, empty index with the same settings."""
        return TurnIndex(self.k1, self.b, self.spread, self.speaker_boost, self.tokenizer,
                         self.feedback)

    def __len__(self) -> int:
        return len(self.numbers)

    def add(self, number: int, text: str, speaker: str = "") -> None:
        """Index one turn: ``number`` (an int greater than every number indexed so far),
        its ``text`` and ``speaker``. Raises ValueError, indexing nothing, otherwise."""
        if isinstance(number, bool) or not isinstance(number, int) or (
                self.numbers and number <= self.numbers[-1]):
            raise ValueError(f"turn numbers must be increasing ints; got {number!r} after "
                             f"{self.numbers[-1] if self.numbers else None}")
        tokens = self.tokenizer(text)
        self.tokenized += 1
        position, counts = len(self.numbers), Counter(tokens)
        for term, tf in counts.items():
            self.postings.setdefault(term, []).append((position, tf))
        self.terms.append(counts)
        self.frequency.update(counts)
        self.numbers.append(number)
        self.speakers.append(speaker)
        self.lengths.append(len(tokens))
        self.total_length += len(tokens)

    def extend(self, turns: Iterable[tuple[int, str, str]]) -> None:
        """:meth:`add` each ``(number, text, speaker)``."""
        for number, text, speaker in turns:
            self.add(number, text, speaker)

    def _bm25(self, weights: dict[str, float]) -> dict[int, float]:
        """``{position: sum over the query's terms of weight * BM25 term score}``."""
        n = len(self.numbers)
        if not n or not weights:
            return {}
        average = max(self.total_length / n, 1e-9)
        scores: dict[int, float] = {}
        for term, weight in weights.items():
            postings = self.postings.get(term)
            if not postings:
                continue
            idf = weight * math.log(1 + (n - len(postings) + 0.5) / (len(postings) + 0.5))
            for position, tf in postings:
                norm = self.k1 * (1 - self.b + self.b * self.lengths[position] / average)
                scores[position] = scores.get(position, 0.0) + idf * tf * (self.k1 + 1) / (tf + norm)
        return scores

    def query_weights(self, query: str) -> dict[str, float]:
        """The query as ``{term: weight}``: its own terms (times repeated / the most
        repeated: 1 for a word said once) plus, with feedback, the expansion terms.

        Bo1 feedback (Amati 2003; Terrier's parameter-free reweighting): take the
        ``feedback[0]`` best turns for the query alone; weigh each of their terms by
        ``tf * log2((1 + m) / m) + log2(1 + m)``, where ``tf`` counts it in those turns
        and ``m`` is its mean count per turn in the whole index; add the ``feedback[1]``
        best, each weighted by its Bo1 weight / the best one's (so at most 1). Tokenises
        ``query`` once; the turns' terms were kept when they were added.
        """
        self.tokenized += 1
        counts = Counter(self.tokenizer(query))
        most = max(counts.values(), default=1)             # once, not once per term
        weights = {t: tf / most for t, tf in counts.items()}
        turns, count = self.feedback
        first = self._bm25(weights) if weights and turns and count else {}
        top = sorted(first.items(), key=lambda item: (-item[1], item[0]))[:turns]
        if not top:
            return weights
        seen: Counter = Counter()
        for position, _ in top:
            seen.update(self.terms[position])
        n, bo1 = len(self.numbers), {}
        for term, tf in seen.items():
            mean = self.frequency[term] / n
            bo1[term] = tf * math.log2((1 + mean) / mean) + math.log2(1 + mean)
        best = sorted(bo1.items(), key=lambda item: (-item[1], item[0]))[:count]
        for term, weight in best:
            weights[term] = weights.get(term, 0.0) + weight / best[0][1]
        return weights

    def scores(self, query: str) -> dict[int, float]:
        """``{message number: score}`` for every turn scoring > 0 on ``query``: BM25 of
        :meth:`query_weights`, then spread to neighbours and the speaker boost."""
        raw = self._bm25(self.query_weights(query))
        before, after = self.spread
        spread: dict[int, float] = dict(raw)
        last = len(self.numbers) - 1
        for position, score in raw.items():
            if before and position > 0:
                spread[position - 1] = spread.get(position - 1, 0.0) + before * score
            if after and position < last:
                spread[position + 1] = spread.get(position + 1, 0.0) + after * score
        named = self._named_speaker(query)
        boost = 1 + self.speaker_boost
        return {self.numbers[p]: s * (boost if named and self.speakers[p] == named else 1)
                for p, s in spread.items() if s > 0}

    def _named_speaker(self, query: str) -> str:
        """The one known speaker whose name is a word of ``query`` ("" if none or several)."""
        if not self.speaker_boost:
            return ""
        words = set(re.findall(r"\w+", query.lower()))
        named = {s for s in set(self.speakers) if s and s.lower() in words}
        return named.pop() if len(named) == 1 else ""

    def search(self, query: str, below: int | None = None) -> list[tuple[int, float]]:
        """``[(number, score), ...]`` best first (ties: older first), only numbers below
        ``below`` when given (the turns older than the recent window)."""
        found = self.scores(query)
        ranked = sorted(found.items(), key=lambda item: (-item[1], item[0]))
        return [item for item in ranked if below is None or item[0] < below]

    def __repr__(self) -> str:
        return (f"TurnIndex({len(self.numbers)} turns, {len(self.postings)} terms, "
                f"spread={self.spread}, speaker_boost={self.speaker_boost}, "
                f"feedback={self.feedback})")
