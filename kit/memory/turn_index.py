"""Conversation turns in a BM25 index, for recall memory.

Recall memory (:mod:`kit.memory.recall`) searches the transcript for every question.
The index itself, incremental BM25 with Bo1 pseudo-relevance feedback, is shared with
RAG and lives below both (:class:`kit.ranking.bm25.BM25Index`). This module adds what
conversations need that documents do not, each part can be turned off:

- **who and when are indexed** (``index_speaker``, ``index_date``): a turn is indexed
  with its speaker's name and its session's month and year, as the LoCoMo baselines
  index "Speaker: text". Many questions name the person ("What did Caroline
  research?") or a month ("What did Melanie do in May 2023?").
- **relative time resolved** (``resolve_dates``): "yesterday" said in a session of
  8 May 2023 is indexed as May 2023 (:mod:`kit.ranking.dates`), so a question about
  May finds it; recall memory shows the resolved date on the turn's line.
- **pseudo-relevance feedback** (query expansion, ``feedback``): the question "What
  activities does Melanie do?" shares no word with "I signed up for a pottery class".
  The turns the question finds first usually talk about the same things, so their
  most informative words are added to the query (Bo1, Terrier's defaults: 3 turns,
  10 terms).
- **spread**: the turn that holds a fact is often the reply to the turn that names it
  ("Where did you camp?" / "At the beach!"). A hit lends ``spread = (before, after)``
  of its score to the turn before it and the turn after it.
- **speaker boost**: a question that names exactly one speaker is most often answered
  by that speaker's own turns, which say "I", not "Caroline"; their scores are
  multiplied by ``1 + speaker_boost``.

Deterministic: equal scores keep turn order.
"""
from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING

from kit.ranking.bm25 import KEPT_WORDS, BM25Index, light_stem, recall_stopwords, recall_tokenize
from kit.ranking.dates import annotate, parse_session_date, resolve_times
from kit.textcache import text_cache
from kit.validation import check_flag, check_int, check_weight

if TYPE_CHECKING:
    import numpy as np

__all__ = ["TurnIndex", "SharedScores", "light_stem", "recall_tokenize", "recall_stopwords",
           "KEPT_WORDS"]

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")


@text_cache
def _date_words(text: str, when: str, index_date: bool, resolve_dates: bool
                ) -> tuple[tuple[str, ...], str]:
    """The date words of a turn (its session's month and year, the months and years its
    relative times resolve to) and its note; a pure function of its arguments, so kept
    (:func:`kit.textcache.text_cache`: a benchmark feeds each turn to many memories)."""
    words, note = [], ""
    day = parse_session_date(when) if (index_date or resolve_dates) and when else None
    if day is not None and index_date:
        words += [_MONTHS[day.month - 1], str(day.year)]
    if day is not None and resolve_dates:
        refs = resolve_times(text, day)
        note = annotate([r for r in refs if not r.start == r.end == day])  # not "today"
        for ref in refs:
            words += ref.terms()
    return tuple(words), note


class SharedScores:
    """Score arrays (and rankings) shared by indexes (:class:`TurnIndex`) that hold the
    same turns with the same settings (a benchmark feeds one conversation to a memory per
    budget and per strategy: each question is then scored once, not once per memory).

    A value is found by the index's settings, a digest of everything it has indexed
    (BLAKE2b over each turn's number, text, speaker and session date) and a digest of
    what it was computed from (the query; for a search's fused ranking, also the search's
    settings, the roles of its turns and the window's start), so an index never gets
    another's values. Holds at most ``max_bytes`` of values (default 64 MiB; keys are of
    fixed size), the least recently used dropped first; safe to share between threads.
    """

    def __init__(self, max_bytes: int = 64 * 2 ** 20) -> None:
        self.max_bytes = check_int("max_bytes", max_bytes, 1)
        self._arrays: OrderedDict = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: tuple):
        """The value kept under ``key``, or None."""
        with self._lock:
            found = self._arrays.get(key)
            if found is None:
                self.misses += 1
                return None
            self.hits += 1
            self._arrays.move_to_end(key)
            return found[0]

    def put(self, key: tuple, value, nbytes: int | None = None) -> None:
        """Keep ``value`` (an array, or anything with its size in bytes given as
        ``nbytes``) under ``key``; the least recently used go past ``max_bytes``."""
        size = value.nbytes if nbytes is None else nbytes
        with self._lock:
            if key in self._arrays:
                return
            self._arrays[key] = (value, size)
            self._bytes += size
            while self._bytes > self.max_bytes and len(self._arrays) > 1:
                _, (_, dropped) = self._arrays.popitem(last=False)
                self._bytes -= dropped

    def __repr__(self) -> str:
        return (f"SharedScores({len(self._arrays)} arrays, {self._bytes:,} bytes, "
                f"{self.hits} hits, {self.misses} misses)")


class TurnIndex:
    """BM25 over turns, updated one turn at a time.

    ``k1`` (>= 0), ``b`` (0..1): BM25's term-frequency saturation and length
    normalisation (1.5 and 0.75, as in :class:`kit.rag.retrieval.BM25Retriever`);
    ``spread``: (before, after), the shares (>= 0) of a hit's score lent to its
    neighbours; ``speaker_boost`` (>= 0); ``tokenizer``: ``str -> list[str]``;
    ``feedback``: (turns, terms), ints >= 0 (``(0, 0)``: none); ``index_speaker``,
    ``index_date``, ``resolve_dates``: bools (see the module docstring); ``shared``: a
    :class:`SharedScores` to share score arrays with indexes of the same turns (None:
    each index scores for itself). Raises ValueError / TypeError naming a bad value.

    ``add(number, text, speaker, when)`` indexes one turn (numbers must increase;
    ``when``: its session date as text, e.g. ``"1:56 pm on 8 May, 2023"``);
    ``query_weights(query)`` is the weighted query after expansion;
    ``scores(query)`` returns ``{number: score > 0}``; ``search(query, below)``
    ranks. ``tokenized`` counts the texts tokenised (each turn once, each query once).
    """

    def __init__(self, k1: float = 1.5, b: float = 0.75,
                 spread: tuple[float, float] = (0.25, 0.6), speaker_boost: float = 0.3,
                 tokenizer=recall_tokenize, feedback: tuple[int, int] = (3, 10), *,
                 index_speaker: bool = True, index_date: bool = True,
                 resolve_dates: bool = True, shared: SharedScores | None = None) -> None:
        self.bm25 = BM25Index(k1, b, tokenizer)
        if shared is not None and not isinstance(shared, SharedScores):
            raise TypeError(f"shared must be a SharedScores or None, got {shared!r:.60}")
        self.shared = shared
        self._content = hashlib.blake2b(digest_size=16)   # what is indexed, for shared
        self._key: tuple | None = None                    # settings + digest, until an add
        if not isinstance(spread, tuple) or len(spread) != 2:
            raise ValueError(f"spread must be a pair (before, after), got {spread!r}")
        self.spread = (check_weight("spread[0]", spread[0]), check_weight("spread[1]", spread[1]))
        self.speaker_boost = check_weight("speaker_boost", speaker_boost)
        if (not isinstance(feedback, tuple) or len(feedback) != 2 or any(
                isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in feedback)):
            raise ValueError(f"feedback must be a pair of ints >= 0 (turns, terms), "
                             f"got {feedback!r}")
        self.feedback = feedback
        self.index_speaker = check_flag("index_speaker", index_speaker)
        self.index_date = check_flag("index_date", index_date)
        self.resolve_dates = check_flag("resolve_dates", resolve_dates)
        self.speakers: list[str] = []         # position -> speaker ("" if unknown)
        self.whens: list[str] = []            # position -> session date text ("" if unknown)
        self.notes: dict[int, str] = {}       # number -> resolved times, as shown on its line
        self.owned = False                    # set by the search that uses it
        self._by_speaker: dict[str, list[int]] = {}     # speaker -> positions
        self._scored: dict[str, np.ndarray] = {}        # query -> scores, until the next add
        self._ranked: dict[str, np.ndarray] = {}        # query -> positions best first, so too

    @property
    def k1(self) -> float:
        return self.bm25.k1

    @property
    def b(self) -> float:
        return self.bm25.b

    @property
    def tokenizer(self):
        return self.bm25.tokenizer

    @property
    def numbers(self) -> list[int]:
        """Position -> message number."""
        return self.bm25.keys

    @property
    def tokenized(self) -> int:
        """Texts tokenised so far (each turn once, each query once)."""
        return self.bm25.tokenized

    def like(self) -> "TurnIndex":
        """A new, empty index with the same settings."""
        return TurnIndex(self.k1, self.b, self.spread, self.speaker_boost, self.tokenizer,
                         self.feedback, index_speaker=self.index_speaker,
                         index_date=self.index_date, resolve_dates=self.resolve_dates,
                         shared=self.shared)

    def __len__(self) -> int:
        return len(self.bm25)

    def extra_terms(self, text: str, speaker: str, when: str) -> tuple[list[str], str]:
        """The words indexed with a turn besides its text, and its note: its speaker's
        name, its session's month and year, the months and years its relative times
        resolve to (each as the tokenizer spells it), as the options say; the note
        shows the resolved times (:func:`kit.ranking.dates.annotate`, "" if none)."""
        words = [speaker] if self.index_speaker and speaker else []
        dates, note = _date_words(text, when, self.index_date, self.resolve_dates)
        return [t for w in (*words, *dates) for t in self.tokenizer(w)], note

    def check_number(self, number: object) -> int:
        """``number`` if it is an int above every number indexed; else ValueError."""
        if isinstance(number, bool) or not isinstance(number, int) or (
                self.numbers and number <= self.numbers[-1]):
            raise ValueError(f"turn numbers must be increasing ints; got {number!r} after "
                             f"{self.numbers[-1] if self.numbers else None}")
        return number

    def add(self, number: int, text: str, speaker: str = "", when: str = "") -> None:
        """Index one turn: ``number`` (an int greater than every number indexed so far),
        its ``text``, ``speaker`` and session date ``when``. Raises ValueError, indexing
        nothing, otherwise."""
        self.check_number(number)
        for name, value in (("text", text), ("speaker", speaker), ("when", when)):
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a str, got {type(value).__name__}: "
                                f"{value!r:.60}")
        extra, note = self.extra_terms(text, speaker, when)
        tokens = self.bm25.tokens(text) + extra
        self.bm25.add(number, tokens=tokens)
        if self.shared is not None:             # all a score can depend on, as given
            self._content.update(repr((number, text, speaker, when)).encode())
            self._key = None
        if note:
            self.notes[number] = note
        self._by_speaker.setdefault(speaker, []).append(len(self.speakers))
        self.speakers.append(speaker)
        self.whens.append(when)
        self._scored, self._ranked = {}, {}

    def extend(self, turns: Iterable[tuple]) -> None:
        """:meth:`add` each ``(number, text, speaker)`` or ``(number, text, speaker, when)``."""
        for turn in turns:
            self.add(*turn)

    def query_weights(self, query: str) -> dict[str, float]:
        """The query as ``{term: weight}``: its own terms (times repeated / the most
        repeated: 1 for a word said once) plus, with feedback, the Bo1 expansion terms
        (:meth:`kit.ranking.bm25.BM25Index.expand`). Tokenises ``query`` once."""
        return self.bm25.expand(self.bm25.weights(query), self.feedback)

    def score_array(self, query: str) -> np.ndarray:
        """Scores by position: BM25 of :meth:`query_weights`, spread to neighbours, the
        named speaker's turns boosted. A read-only array, kept until the next add (the
        same query asked again costs nothing)."""
        return self._kept(self._scored, query, (query,), self._score)

    def _score(self, query: str) -> np.ndarray:
        raw = self.bm25.scores(self.query_weights(query))
        before, after = self.spread
        scores = raw.copy()
        if before and len(raw) > 1:
            scores[:-1] += before * raw[1:]
        if after and len(raw) > 1:
            scores[1:] += after * raw[:-1]
        named = self._named_speaker(query)
        if named:
            scores[self._by_speaker[named]] *= 1 + self.speaker_boost
        return scores

    def ranking(self, query: str, below: int | None = None) -> np.ndarray:
        """Positions of the turns scoring > 0 on ``query``, best first (ties: older
        first), only those with numbers below ``below`` when given: the order over the
        whole index is kept with the scores (and shared like them), and the turns at or
        above ``below`` are filtered out of it, which keeps their order."""
        if below is not None and (isinstance(below, bool) or not isinstance(below, int)):
            raise TypeError(f"below must be an int or None, got {below!r:.60}")
        order = self._kept(self._ranked, query, (query, "ranking"),
                           lambda q: self.bm25.best(self.score_array(q)))
        cut = self.bm25.cut(below)
        return order if cut == len(self.bm25) else order[order < cut]

    def _kept(self, local: dict, query: str, parts: tuple, compute) -> np.ndarray:
        """``compute(query)`` for the index as it is now, made read-only and kept: in
        ``local`` (this index, until the next add; at most 64 queries) and in the
        shared scores when there are some. Raises TypeError for a query not a str."""
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}: {query!r:.60}")
        key = self.shared_key(*parts)
        found = self.shared.get(key) if key is not None else None
        if found is None:
            found = local.get(query)
        if found is None:
            found = compute(query)
            found.flags.writeable = False
            if len(local) >= 64:
                local.clear()
            local[query] = found
            if key is not None:
                self.shared.put(key, found)
        return found

    def shared_key(self, *parts) -> tuple | None:
        """The key of a value computed from this index as it is now and ``parts`` (None
        when nothing is shared): the settings (the tokenizer itself, not its id, which a
        later function may reuse), a digest of every turn as given (number, text, speaker,
        session date) and a digest of ``parts`` (a query may be long)."""
        if self.shared is None:
            return None
        if self._key is None:
            self._key = (self._settings(), self._content.digest())
        return (*self._key, hashlib.blake2b(repr(parts).encode(), digest_size=16).digest())

    def _settings(self) -> tuple:
        return (self.k1, self.b, self.spread, self.speaker_boost, self.feedback,
                self.index_speaker, self.index_date, self.resolve_dates, self.tokenizer)

    def scores(self, query: str) -> dict[int, float]:
        """``{message number: score}`` for every turn scoring > 0 on ``query``."""
        return dict(self.bm25.ranked(self.score_array(query)))

    def _named_speaker(self, query: str) -> str:
        """The one known speaker whose name is a word of ``query`` ("" if none or several)."""
        if not self.speaker_boost:
            return ""
        words = set(re.findall(r"\w+", query.lower()))
        named = {s for s in self._by_speaker if s and s.lower() in words}
        return named.pop() if len(named) == 1 else ""

    def search(self, query: str, below: int | None = None) -> list[tuple[int, float]]:
        """``[(number, score), ...]`` best first (ties: older first), only numbers below
        ``below`` when given (the turns older than the recent window)."""
        return self.bm25.ranked(self.score_array(query), below)

    def __repr__(self) -> str:
        return (f"TurnIndex({len(self)} turns, {len(self.bm25.postings)} terms, "
                f"spread={self.spread}, speaker_boost={self.speaker_boost}, "
                f"feedback={self.feedback})")
