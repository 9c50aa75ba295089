"""How recall memory finds the older turns a question needs: the search, part by part.

:class:`RecallSearch` ranks the turns older than the recent window for a question.
Its first ranking is the direct one: BM25 over the turns
(:class:`kit.memory.turn_index.TurnIndex`: speaker, session date and resolved relative
times indexed, pseudo-relevance feedback, spread, speaker boost). Each further part
adds a ranking, and all are fused by reciprocal rank fusion (:func:`kit.ranking.rrf`,
``k_rrf = 60``); each part can be turned off, and the memory-policy benchmark's
ablation measures what each one adds:

- **two-stage search** (``sessions``): rank the sessions first, by a digest of each
  (its extractive summary, :mod:`kit.extractive`; its speakers; its date and the dates
  its turns resolve to), then rank the turns of the ``sessions`` best ones by their
  direct score. A turn that shares no word with the question but sits in the session
  the question is about can come in.
- **query split** (``split``): a multi-hop question ("What did Melanie paint and
  where did she go camping?") asks for several things, often said in different
  sessions. Each content part is searched alone (:func:`split_query`: its clauses, or
  else each content word with the people it names), and the parts' rankings together
  weigh as much as the whole question's.
- **a model's parts** (``decompose``, optional): a prompt model splits the question
  instead (:data:`kit.prompts.DECOMPOSE_PROMPT`, one sub-question per line); if it
  fails or says nothing usable, the rule-based split is used and :attr:`last` says so.
- **dense retrieval** (``embedder``; on by default when the ``semantic`` extra is
  installed): ``embed(texts) -> vectors`` (:mod:`kit.ranking.dense`; by default the
  packaged MiniLM, loaded once per process, each distinct text embedded once;
  ``embedder=None`` turns it off); cosine similarity ranks the turns too, fused with
  weight ``dense_weight``. Turns are embedded in batches, at the first search after
  they were added.
- **neighbour expansion** (``neighbours``): a recalled turn brings its partner, right
  after it in the ranking: the reply when the turn asks a question (ends with "?"),
  else the turn it answers (the one before), if another speaker said it in the same
  session. The budget decides whether both go in.

With every part off it ranks exactly as the direct search. Deterministic.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from kit.extractive import DEFAULT_CAP, extract_summary
from kit.llm import PromptModel
from kit.memory.compaction import Backoff
from kit.memory.turn_index import TurnIndex
from kit.messages import Message
from kit.prompts import DECOMPOSE_PROMPT, QUESTION_HEADER
from kit.ranking.bm25 import BM25Index
from kit.ranking.fusion import check_k_rrf, rrf_positions
from kit.tokens import approx_tokens
from kit.validation import check_flag, check_int, check_weight

if TYPE_CHECKING:                 # numpy is imported when a search first needs it
    import numpy as np

__all__ = ["RecallSearch", "split_query", "parse_parts", "dense_text", "MAX_PARTS"]

MAX_PARTS = 4                       # sub-questions searched, at most
# No \s* around the separator: re.split would retry it at every space of a long run
# (quadratic); the clauses are stripped after the split instead.
_CLAUSE = re.compile(r"[,;]|\b(?:and|or|but|as\s+well\s+as)\b", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*\u2022]\s*)?(?:\*{0,2}\d{1,3}[.)]\*{0,2})?")


def dense_text(label: str, content: str) -> str:
    """The text a turn is embedded as: ``"Caroline: I went yesterday."`` (its speaker,
    else its role, then its text), so that a benchmark can embed a conversation's turns
    ahead, in batches, and the memories find them in the embedder's cache."""
    return f"{label}: {content}"


def split_query(question: str, tokenize, names: Iterable[str] = ()) -> list[str]:
    """The content parts of ``question``: its clauses (split at commas, semicolons,
    "and", "or", "but", "as well as") that hold a content word; when fewer than two,
    each content word (``tokenize``'s terms, the ``names`` left out) with the names the
    question mentions. At most :data:`MAX_PARTS`; [] when there are not two parts.

    ``split_query("What did Melanie paint and where did she camp?", recall_tokenize)``
    gives ``["What did Melanie paint", "where did she camp?"]``.
    """
    clauses = [c.strip() for c in _CLAUSE.split(question)]
    clauses = [c for c in clauses if c and tokenize(c)]
    if len(clauses) >= 2:
        return clauses[:MAX_PARTS]
    lowered = {n.lower() for n in names if n}
    words = re.findall(r"\w+", question)
    named = [w for w in dict.fromkeys(words) if w.lower() in lowered]
    content = [t for t in dict.fromkeys(tokenize(question))
               if not any(t in tokenize(n) for n in named)]
    if len(content) < 2:
        return []
    return [" ".join(named + [t]) for t in content[:MAX_PARTS]]


def parse_parts(reply: str) -> list[str]:
    """A model's sub-questions: its non-empty lines, bullets and numbering removed
    (``-``, ``*``, ``1.``, ``**1.**``), a preamble line ending in ":" left out, at most
    :data:`MAX_PARTS`. Linear in the reply's length."""
    parts = []
    for line in reply.splitlines():
        text = _BULLET.sub("", line, count=1).strip()
        if text and not text.endswith(":") and any(c.isalnum() for c in text):
            parts.append(text)
            if len(parts) == MAX_PARTS:
                break
    return parts


class RecallSearch:
    """The ranking of recall memory: direct BM25, fused with the parts of the module
    docstring.

    ``index``: an empty :class:`~kit.memory.turn_index.TurnIndex` (default one with its
    defaults); ``sessions``: int >= 0, how many best sessions the two-stage search
    opens (0, the default: off); ``split`` (default on), ``neighbours`` (default off):
    bools; ``decompose``: a prompt model or None; ``embedder``: ``list[str] -> vectors``,
    or ``"semantic"`` (the packaged MiniLM, :func:`kit.ranking.dense.semantic_embedder`;
    :class:`~kit.ranking.onnx_embedder.ModelUnavailable` without the ``semantic``
    extra), ``"auto"`` (the default: that model when installed, else none: BM25 and
    its parts alone, silently) or None (no dense ranking);
    ``dense_weight``: the weight (>= 0) of the dense ranking in the fusion, the
    question's BM25 ranking weighing 1 (1.0: plain RRF, the rule stated before any
    measurement; the cross-validation between the two shared LoCoMo conversations in
    docs/embeddings.md keeps it); ``k_rrf``: RRF's constant. Raises TypeError /
    ValueError naming a bad value.

    The defaults, from the ablation and the cross-validation of :mod:`kit.ablation` on
    the two shared LoCoMo conversations: the query split is on (it gained 0 to 1.7
    points and most folds choose it); the two-stage search and neighbour expansion are
    off unless asked for: they lost (they spend the budget on turns near a hit, while a
    multi-hop question's evidence is spread over sessions).

    ``add(message)`` indexes a turn; ``rank(query, below)`` returns message numbers
    best first; :attr:`last` holds the rankings of the last search (by part) and the
    models that failed in it, for a lesson's trace; ``model_calls`` counts calls of
    ``decompose``, :attr:`failures` the failed calls of each model. A search belongs to
    one memory (``owned``).
    """

    def __init__(self, index=None, *, sessions: int = 0, split: bool = True,
                 neighbours: bool = False, decompose: PromptModel | None = None,
                 embedder="auto", dense_weight: float = 1.0, k_rrf: float = 60) -> None:
        if index is None:
            index = TurnIndex()
        if not isinstance(index, TurnIndex) or len(index) or index.owned:
            raise ValueError(f"index must be an empty TurnIndex of no other search, got "
                             f"{index!r:.60}")
        check_flag("split", split), check_flag("neighbours", neighbours)
        if isinstance(embedder, str):           # "semantic" / "auto": the packaged model
            from kit.ranking.dense import resolve_embedder
            embedder = resolve_embedder(embedder)
        for name, model in (("decompose", decompose), ("embedder", embedder)):
            if model is not None and not callable(model):
                raise TypeError(f"{name} must be callable or None, got {model!r:.60}")
        self.index, self.sessions = index, check_int("sessions", sessions, 0)
        index.owned = True
        self.split, self.neighbours, self.decompose = split, neighbours, decompose
        self.embedder, self.k_rrf = embedder, check_k_rrf(k_rrf)
        self.dense_weight = check_weight("dense_weight", dense_weight)
        if embedder is not None:
            from kit.ranking.dense import DenseIndex     # numpy: only with an embedder
            self.dense = DenseIndex(embedder)
        else:
            self.dense = None
        self.asks: list[bool] = []                  # position -> the turn ends with "?"
        self.labels: list[str] = []                 # position -> speaker, else role
        self._session_positions: list[list[int]] = []   # session -> positions
        self._session_whens: list[str] = []         # session -> its date text
        self.session_of: list[int] = []             # position -> session number
        self._session_keys: dict[str, int] = {}     # session date text -> session number
        self._session_turns: list[list[tuple[str, str]]] = []   # session -> (role, line)
        self._digests: BM25Index | None = None      # rebuilt when a session grew
        self.model_calls = 0
        self.failures = {"decompose": 0, "embedder": 0}   # calls that failed, by model
        self._unembedded: list[tuple[int, str]] = []  # turns to embed once the embedder answers
        self._backoff = Backoff(64)                 # skip a failing embedder, as a summariser
        self.owned = False                          # set by the memory that uses it
        self.last: dict[str, list] = {}
        self._roles = hashlib.blake2b(digest_size=16)   # the turns' roles, for a shared key

    def like(self) -> "RecallSearch":
        """A new, empty search with the same settings."""
        return RecallSearch(self.index.like(), sessions=self.sessions, split=self.split,
                            neighbours=self.neighbours, decompose=self.decompose,
                            embedder=self.embedder, dense_weight=self.dense_weight,
                            k_rrf=self.k_rrf)

    def __len__(self) -> int:
        return len(self.index)

    @property
    def tokenized(self) -> int:
        return self.index.tokenized

    # -- indexing --------------------------------------------------------------------
    def add(self, message: Message) -> None:
        """Index one turn (its number, text, speaker and session date). Raises
        ValueError, indexing nothing, for a number not above the last one. With an
        embedder the turn is indexed by BM25 now and embedded at the next search, with
        every turn added since, in one embedder call (a turn is embedded once; a
        conversation fed turn by turn costs one call per search that follows new
        turns, not one per turn)."""
        self.extend([message])

    def extend(self, messages: Iterable[Message]) -> None:
        """:meth:`add` each message (a restored memory's whole transcript: embedded in one
        call at the first search)."""
        messages = list(messages)
        for message in messages:
            if not isinstance(message, Message):
                raise TypeError(f"messages must be kit.messages.Message, got {message!r:.60}")
        numbers = [m.number for m in messages]
        if numbers:
            self.index.check_number(numbers[0])
            if any(b <= a for a, b in zip(numbers, numbers[1:])):
                raise ValueError(f"turn numbers must be increasing ints; got {numbers!r:.80}")
        for message in messages:
            self._index(message)
        if self.dense is not None and messages:
            self._unembedded += [(m.number, dense_text(m.label, m.content)) for m in messages]

    def _embed_pending(self) -> None:
        """Embed the turns not embedded yet, in one call; on a failure keep them for the
        next search and count it. After failures in a row the embedder is skipped for
        the next 1, 3, 7, ... turns (at most 64), as a failing summariser is."""
        if not self._backoff.allows(len(self.index)):
            return
        try:
            self.dense.extend(self._unembedded)
        except Exception as exc:             # a failing model must not stop recall
            self._embedder_failed(exc)
        else:
            self._unembedded = []
            self._backoff.answered()

    def _embedder_failed(self, exc: Exception) -> None:
        self.failures["embedder"] += 1
        self._backoff.failed(len(self.index))
        self.last["embedder failed"] = [type(exc).__name__]

    def _index(self, message: Message) -> None:
        line = f"{message.label}: {message.content}"
        if self.index.shared is not None:       # what the index's digest does not hold
            self._roles.update(repr((message.number, message.role)).encode())
        self.index.add(message.number, message.content, message.speaker, message.when)
        self.asks.append(message.content.rstrip().endswith("?"))
        self.labels.append(message.label)
        session = self._session_keys.setdefault(message.when, len(self._session_keys))
        if session == len(self._session_turns):
            self._session_turns.append([])
            self._session_positions.append([])
            self._session_whens.append(message.when)
        self._session_turns[session].append((message.role, line))
        self._session_positions[session].append(len(self.session_of))
        self.session_of.append(session)
        self._digests = None

    def note(self, number: int) -> str:
        """The resolved relative times of turn ``number`` as shown on its line
        ("(yesterday = 7 May 2023)"), or ""."""
        return self.index.notes.get(number, "")

    # -- the session stage -----------------------------------------------------------
    def digest(self, session: int) -> str:
        """A session's digest: its date, its speakers, its extractive summary (at most a
        quarter of its size or the extractive summariser's default cap, whichever is
        larger; approximate tokens) and the dates its turns resolve to."""
        turns, positions = self._session_turns[session], self._session_positions[session]
        speakers = dict.fromkeys(self.labels[p] for p in positions)
        size = sum(approx_tokens(line) for _, line in turns)
        summary = extract_summary("", turns, max(DEFAULT_CAP, size // 4), approx_tokens)
        notes = [self.note(self.index.numbers[p]) for p in positions]
        return "\n".join([self._session_whens[session], " ".join(speakers), summary,
                          *filter(None, notes)])

    def _session_ranking(self, query: str, below: int | None, direct) -> np.ndarray:
        """Positions of the turns of the ``sessions`` best sessions for ``query``
        (sessions by their digests' BM25), session by session, each session's turns by
        direct score."""
        if self._digests is None:
            self._digests = BM25Index(self.index.k1, self.index.b, self.index.tokenizer)
            for session in range(len(self._session_turns)):
                self._digests.add(session, self.digest(session))
        best = [s for s, _ in self._digests.ranked(self._digests.scores(
            self._digests.weights(query)))][:self.sessions]
        cut = self.index.bm25.cut(below)
        ranking = []
        for session in best:
            positions = [p for p in self._session_positions[session] if p < cut]
            positions.sort(key=lambda p: (-direct[p], p))
            ranking += positions
        import numpy as np
        return np.array(ranking, dtype=np.int64)

    # -- the parts of a question -------------------------------------------------------
    def parts(self, query: str) -> list[str]:
        """The sub-questions searched besides the whole one: the model's (with
        ``decompose``; on a failure, the rule's) or :func:`split_query`'s."""
        if self.decompose is not None:
            self.model_calls += 1
            try:
                reply = self.decompose(f"{DECOMPOSE_PROMPT}\n\n{QUESTION_HEADER}{query}")
                if not isinstance(reply, str):
                    raise TypeError(f"the model returned {type(reply).__name__}, not str")
                found = parse_parts(reply)
                if not found:
                    raise ValueError("the model's reply holds no sub-question")
            except Exception as exc:            # a failing model must not stop recall
                self.failures["decompose"] += 1
                self.last["decompose failed"] = [type(exc).__name__]
                found = []
            if found:
                return found if len(found) > 1 else []
        if not self.split:
            return []
        return split_query(query, self.index.tokenizer, set(self.index.speakers))

    # -- the ranking -------------------------------------------------------------------
    def rank(self, query: str, below: int | None = None, recent: str = "") -> list[int]:
        """Numbers of the turns below ``below`` (all when None), best first, for
        ``query``; ``recent``: the recent turns' text, fused as one more ranking when
        given. [] for a blank query and no ``recent``. Raises TypeError for a query or
        ``recent`` that is not a str, or a ``below`` that is not an int or None. A failing
        embedder or decomposition model is skipped (:attr:`last` and :attr:`failures`
        say so)."""
        positions = self.rank_positions(query, below, recent)
        return self.index.bm25.key_array()[positions].tolist()

    def rank_positions(self, query: str, below: int | None = None, recent: str = ""):
        """:meth:`rank` as an int array of index positions (``self.index.numbers[p]`` is
        the turn's number), computed in array operations: no Python work per turn. With
        an index that shares its scores (:class:`~kit.memory.turn_index.SharedScores`)
        and no model, the fused ranking is shared too."""
        for name, value in (("query", query), ("recent", recent)):
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a str, got {type(value).__name__}: {value!r:.60}")
        if below is not None and (isinstance(below, bool) or not isinstance(below, int)):
            raise TypeError(f"below must be an int or None, got {below!r:.60}")
        key = (self.index.shared_key("fused", self._roles.digest(), query, below, recent,
                                     self.sessions, self.split, self.neighbours, self.k_rrf)
               if self.decompose is None and self.dense is None else None)
        found = self.index.shared.get(key) if key is not None else None
        if found is not None:                   # another search of the same turns did it
            fused, last = found
            self.last = {name: list(value) for name, value in last.items()}
            return fused
        fused = self._rank_positions(query, below, recent)
        if key is not None:
            fused.flags.writeable = False
            self.index.shared.put(key, (fused, {k: tuple(v) for k, v in self.last.items()}),
                                  fused.nbytes + 8 * sum(map(len, self.last.values())))
        return fused

    def _rank_positions(self, query: str, below: int | None, recent: str):
        import numpy as np
        self.last = {}
        bm25 = self.index.bm25
        keys = bm25.key_array()
        rankings, weights = [], []
        if query.strip():
            direct = self.index.score_array(query)
            rankings.append(self.index.ranking(query, below))
            weights.append(1.0)
            self.last["direct"] = keys[rankings[0]].tolist()
            if self.sessions and len(self._session_turns) > 1:
                rankings.append(self._session_ranking(query, below, direct))
                weights.append(1.0)
                self.last["sessions"] = keys[rankings[-1]].tolist()
            parts = [p for p in self.parts(query) if p.strip()]
            for part in parts:
                rankings.append(self.index.ranking(part, below))
                weights.append(1.0 / len(parts))
            if parts:
                self.last["parts"] = [len(parts)]
            if self.dense is not None and self._backoff.allows(len(self.index)):
                if self._unembedded:
                    self._embed_pending()       # the new turns, in one call
                try:
                    found = (self._dense_positions(query, below)
                             if not self._unembedded else None)   # None: it failed just now
                except Exception as exc:        # the embedder is down: BM25 alone
                    self._embedder_failed(exc)
                else:
                    if found is not None:
                        rankings.append(found)
                        weights.append(self.dense_weight)
                        self.last["dense"] = keys[found].tolist()
        if recent.strip():
            rankings.append(self.index.ranking(recent, below))
            weights.append(1.0)
        if not rankings:
            return np.zeros(0, dtype=np.int64)
        fused = rankings[0] if len(rankings) == 1 else rrf_positions(rankings, self.k_rrf,
                                                                     weights)
        if not self.neighbours:
            return fused
        numbers = self._with_partners(keys[fused].tolist(), below)
        return np.array([bm25.position(n) for n in numbers], dtype=np.int64)

    def _dense_positions(self, query: str, below: int | None):
        """The dense ranking as BM25 index positions. With every turn embedded the two
        indexes hold the same turns in the same order (the dense one only turns of the
        BM25 one, both by increasing number), so a position is the same in both; else
        each is mapped by its number."""
        import numpy as np
        positions, _ = self.dense.ranked_positions(query, below)
        if len(self.dense) == len(self.index):
            return positions
        bm25 = self.index.bm25
        return np.array([bm25.position(self.dense.keys[p]) for p in positions.tolist()],
                        dtype=np.int64)

    def partner(self, number: int) -> int | None:
        """The turn that answers turn ``number`` (it asks) or that it answers (the one
        before), said by another speaker in the same session; None if there is none."""
        position = self.index.bm25.position(number)
        if position is None:
            return None
        other = position + 1 if self.asks[position] else position - 1
        if not 0 <= other < len(self.asks) or self.session_of[other] != self.session_of[position]:
            return None
        if self.labels[other] == self.labels[position]:
            return None
        return self.index.numbers[other]

    def _with_partners(self, ranking: Sequence[int], below: int | None) -> list[int]:
        seen, out = set(), []
        for number in ranking:
            for n in (number, self.partner(number)):
                if n is not None and n not in seen and (below is None or n < below):
                    seen.add(n)
                    out.append(n)
        return out

    def __repr__(self) -> str:
        return (f"RecallSearch({len(self)} turns, sessions={self.sessions}, split={self.split}, "
                f"neighbours={self.neighbours}, decompose={self.decompose is not None}, "
                f"dense={self.dense is not None})")
