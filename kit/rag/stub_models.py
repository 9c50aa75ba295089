"""A deterministic stub chat model for the RAG chatbot: rewrites from a table, answers by quoting.

:class:`kit.rag.chatbot.Chatbot` calls one chat model ``(system, user) -> str`` for two
jobs, told apart by the system prompt. :class:`QuotingModel` plays both, offline:

- **rewrite** (system prompt :data:`kit.rag.rewrite.REWRITE_SYSTEM`): replies
  ``standalone[question]`` when the table holds the final user question, else the
  question unchanged (a rewrite that changes nothing). The table of the shipped gold
  set maps every scripted step to its expected standalone query
  (:func:`standalone_table`), so the stub is the *perfect rewriter* an evaluation
  compares against.
- **answer** (system prompt :data:`kit.rag.chatbot.SYSTEM_PROMPT`): reads the numbered
  context of :func:`kit.rag.chatbot.build_answer_prompt`, quotes the first sentence of
  chunk [1] (after its first line, which is the heading in the shipped corpus; the
  first line itself for a one-line chunk) and cites it as ``[cite]``. With ``cite=1``
  it is a faithful extractive generator; with ``cite=2`` it quotes chunk [1] but names
  chunk [2], a miscitation a groundedness judge should catch while retrieval is
  unchanged.

Used by lesson 08 (evaluation) to move one metric while the other stays put.
Source: the end-to-end chatbot lesson (the chatbot's rewrite and cited answer; the
evaluation harness).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from kit.rag.chatbot import SYSTEM_PROMPT
from kit.rag.judge import split_sentences
from kit.rag.rewrite import REWRITE_SYSTEM

__all__ = ["QuotingModel", "standalone_table", "context_chunks", "first_sentence"]

_QUESTION = "\n\nQuestion: "
_CONTEXT = "Context:\n"
_FINAL = "Final user question:\n"
_NUMBERED = re.compile(r"\[(\d+)\] ")


def _dedent(text: str) -> str:
    """Undo :func:`kit.messages.indent_continuation`: drop two spaces from later lines."""
    first, *rest = text.split("\n")
    return "\n".join([first, *(line[2:] if line.startswith("  ") else line for line in rest)])


def context_chunks(user: str) -> list[str]:
    """The chunk texts of an answer prompt (:func:`kit.rag.chatbot.build_answer_prompt`),
    in their [1], [2]... order, continuation lines dedented. Raises ValueError for a
    prompt without a ``Context:`` block before ``Question:``."""
    if not isinstance(user, str):
        raise TypeError(f"user must be a str, got {type(user).__name__}: {user!r:.60}")
    head, found, _ = user.rpartition(_QUESTION)
    start = head.rfind("\n" + _CONTEXT)            # the last one: history comes before it
    start = start + 1 if start >= 0 else 0 if head.startswith(_CONTEXT) else -1
    if not found or start < 0:
        raise ValueError(f"not an answer prompt (needs 'Context:' then 'Question:'): {user[:60]!r}")
    chunks: list[list[str]] = []             # the lines of each chunk
    for line in head[start + len(_CONTEXT):].split("\n"):
        numbered = _NUMBERED.match(line)
        if numbered and numbered.group(1).lstrip("0") == str(len(chunks) + 1):
            chunks.append([line[numbered.end():]])
        elif chunks and line:                  # a continuation line (indented by two)
            chunks[-1].append(line)
    return [_dedent("\n".join(c)) for c in chunks]


def first_sentence(chunk_text: str) -> str:
    """The first sentence after the first line of ``chunk_text`` (the heading), or of the
    first line for a one-line chunk: "Refund times\\nRefunds take 5 days. Then..." ->
    "Refunds take 5 days."."""
    lines = [line for line in chunk_text.split("\n") if line.strip()]
    body = " ".join(lines[1:]) if len(lines) > 1 else "".join(lines)
    sentences = split_sentences(body)
    return sentences[0] if sentences else ""


def standalone_table(conversations: Iterable[object]) -> dict[str, str]:
    """question -> expected standalone query, over every step of scripted conversations
    (objects or dicts with ``steps``, each step with ``question`` and
    ``standalone_query``, as :class:`kit.rag.goldset.GoldConversation`). Raises
    ValueError if one question is given two different standalone queries."""
    table: dict[str, str] = {}
    for conversation in conversations:
        steps = conversation["steps"] if isinstance(conversation, Mapping) else conversation.steps
        for step in steps:
            get = step.get if isinstance(step, Mapping) else lambda name: getattr(step, name)
            question, query = get("question"), get("standalone_query")
            if table.get(question, query) != query:
                raise ValueError(f"question {question!r} has two standalone queries: "
                                 f"{table[question]!r} and {query!r}")
            table[question] = query
    return table


class QuotingModel:
    """A stub chat model ``(system, user) -> str`` for :class:`~kit.rag.chatbot.Chatbot`
    (see the module docstring for both replies).

    ``cite``: the marker number the answer carries (int >= 1); ``standalone``: question ->
    standalone query for rewrite calls (None: every rewrite returns the question).
    ``calls`` counts calls by kind: ``{"rewrite": n, "answer": m}``. Raises ValueError
    for a bad ``cite``, for an unknown system prompt, and for an answer prompt with no
    chunks; TypeError for non-str arguments.
    """

    def __init__(self, cite: int = 1, standalone: Mapping[str, str] | None = None) -> None:
        if isinstance(cite, bool) or not isinstance(cite, int) or cite < 1:
            raise ValueError(f"cite must be an int >= 1, got {cite!r}")
        self.cite, self.standalone = cite, dict(standalone or {})
        self.calls = {"rewrite": 0, "answer": 0}

    def __call__(self, system: str, user: str) -> str:
        if not isinstance(system, str) or not isinstance(user, str):
            raise TypeError(f"a chat model takes (system, user) strings, got "
                            f"({system!r:.40}, {user!r:.40})")
        if system == REWRITE_SYSTEM:
            self.calls["rewrite"] += 1
            question = _dedent(user.rpartition(_FINAL)[2]).strip()
            return self.standalone.get(question, question)
        if system == SYSTEM_PROMPT:
            chunks = context_chunks(user)
            if not chunks:
                raise ValueError("the answer prompt shows no chunks to quote")
            self.calls["answer"] += 1
            return f"{first_sentence(chunks[0])} [{self.cite}]"
        raise ValueError(f"unknown system prompt (neither the rewrite nor the answer "
                         f"prompt): {system[:60]!r}")

    def __repr__(self) -> str:
        return f"QuotingModel(cite={self.cite}, standalone={len(self.standalone)} questions)"
