"""The gold set: evaluation questions over the help centre, each labelled with the chunk
that answers it, and scripted multi-turn conversations.

The shipped set (:func:`load_eval_set`) is ``kit/data/helpcentre_eval.json``, over the
corpus of :func:`kit.rag.documents.load_corpus`::

    {"questions": [{"id": "q01", "question": "...", "gold_chunk_id": "refunds-03",
                    "reference": "a short correct answer",
                    "also_correct": ["faq-01"]}, ...],
     "conversations": [{"id": "cod-refund", "steps": [
         {"question": "How long do prepaid refunds take?",
          "standalone_query": "How long do prepaid refunds take?",
          "gold_chunk_id": "refunds-03"},
         {"question": "and for COD?",
          "standalone_query": "refund time for cash-on-delivery orders",
          "gold_chunk_id": "refunds-04"}]}, ...]}

``gold_chunk_id`` is the one chunk that answers best; ``also_correct`` lists
near-duplicates that answer correctly too (a FAQ entry), never the archived policy:
retrieving any of them is a hit (:func:`kit.rag.evaluate.evaluate`). In a conversation
each step's ``standalone_query`` is what a good query rewrite produces from the
history; the first step's is the question itself.

Source: the end-to-end chatbot lesson (the evaluation harness: "recall of the gold chunk",
and its follow-up "add scripted conversations to the eval set").
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kit.rag.documents import Chunk, load_corpus, shipped_file

__all__ = ["GoldQuestion", "ConversationStep", "GoldConversation", "EvalSet", "load_eval_set"]


@dataclass(frozen=True)
class GoldQuestion:
    """One single-turn evaluation case: the question, the id of the chunk that answers it,
    a short reference answer, and near-duplicate chunk ids that answer it too."""

    id: str
    question: str
    gold_chunk_id: str
    reference: str
    also_correct: tuple[str, ...] = ()


@dataclass(frozen=True)
class ConversationStep:
    """One turn of a scripted conversation: what the user types, the standalone query a
    good rewrite gives (the question itself on the first turn), the gold chunk id."""

    question: str
    standalone_query: str
    gold_chunk_id: str


@dataclass(frozen=True)
class GoldConversation:
    """A scripted multi-turn conversation: ``id`` and its steps in order."""

    id: str
    steps: tuple[ConversationStep, ...]


@dataclass(frozen=True)
class EvalSet:
    """The gold set: single-turn ``questions`` and multi-turn ``conversations``."""

    questions: tuple[GoldQuestion, ...]
    conversations: tuple[GoldConversation, ...]

    def gold_ids(self) -> set[str]:
        """Every chunk id the set refers to (gold and also-correct)."""
        ids = {q.gold_chunk_id for q in self.questions}
        ids |= {i for q in self.questions for i in q.also_correct}
        return ids | {s.gold_chunk_id for c in self.conversations for s in c.steps}


def _fields(entry: object, where: str, names: tuple[str, ...]) -> dict:
    if not isinstance(entry, dict):
        raise ValueError(f"{where} must be an object, got {entry!r:.60}")
    for name in names:
        if not isinstance(entry.get(name), str) or not entry[name].strip():
            raise ValueError(f"{where} needs a non-empty str {name!r}, got {entry.get(name)!r}")
    return entry


def load_eval_set(path: str | os.PathLike | None = None,
                  corpus: Iterable[Chunk] | None = None) -> EvalSet:
    """The gold set (format in the module docstring); default: the shipped
    ``kit/data/helpcentre_eval.json``. Gold ids are checked against ``corpus`` if given,
    else against the shipped corpus when ``path`` is None. Raises ValueError naming the
    bad entry (a missing field, a conversation without steps, a repeated id, a gold id
    not in the corpus), FileNotFoundError for a missing file."""
    if path is None:
        data = json.loads(shipped_file("helpcentre_eval.json").read_text(encoding="utf-8"))
        corpus = load_corpus() if corpus is None else corpus
    else:
        if not Path(path).is_file():
            raise FileNotFoundError(f"no eval set at {str(path)!r}")
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"an eval set is a JSON object with 'questions' and 'conversations', "
                         f"got {data!r:.60}")
    questions, conversations, ids = [], [], set()
    for i, q in enumerate(data.get("questions", [])):
        where = f"question {i} ({q.get('id') if isinstance(q, dict) else q!r})"
        _fields(q, where, ("id", "question", "gold_chunk_id", "reference"))
        also = q.get("also_correct", [])
        if not isinstance(also, list) or not all(isinstance(a, str) for a in also):
            raise ValueError(f"{where}: also_correct must be a list of ids, got {also!r}")
        questions.append(GoldQuestion(q["id"], q["question"], q["gold_chunk_id"],
                                      q["reference"], tuple(also)))
    for i, c in enumerate(data.get("conversations", [])):
        where = f"conversation {i} ({c.get('id') if isinstance(c, dict) else c!r})"
        _fields(c, where, ("id",))
        if not isinstance(c.get("steps"), list) or not c["steps"]:
            raise ValueError(f"{where} needs a non-empty list 'steps', got {c.get('steps')!r}")
        steps = []
        for j, s in enumerate(c["steps"]):
            _fields(s, f"{where} step {j}", ("question", "standalone_query", "gold_chunk_id"))
            steps.append(ConversationStep(s["question"], s["standalone_query"], s["gold_chunk_id"]))
        conversations.append(GoldConversation(c["id"], tuple(steps)))
    for item in questions + conversations:
        if item.id in ids:
            raise ValueError(f"duplicate eval id {item.id!r}")
        ids.add(item.id)
    result = EvalSet(tuple(questions), tuple(conversations))
    if corpus is not None:
        known = {chunk.id for chunk in corpus}
        missing = sorted(result.gold_ids() - known)
        if missing:
            raise ValueError(f"gold chunk ids not in the corpus: {missing}")
    return result
