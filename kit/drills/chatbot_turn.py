"""Drill 04: the RAG chatbot turn and its evaluation (45 min).

The candidate writes ``RagChatbot(retriever=, llm=, memory_factory=, top_k=)`` with
``ask(session_id, question)``, the interface of lesson 07's exercise 3 (the spec is in
:mod:`kit.checks.chatbot_turn`). The rubric runs the lesson's checker in its four parts,
each comparing the candidate's turns with the kit's :class:`~kit.rag.chatbot.Chatbot`:

- **correctness**: the "and for COD?" trace, two sessions, two chunks cited, ``top_k=1``;
- **failure safety**: a failing rewrite falls back to the raw question; a failing answer
  call propagates with every memory unchanged; memory is written only after the turn's
  calls returned;
- **edge cases**: a junk and an empty rewrite, the guardrail's refusals (no citation, a
  marker past the chunks shown);
- **complexity**: model calls counted per turn on 12 seeded random conversations: one
  rewrite call only with history, one answer call, none when nothing was retrieved.

Its evaluation (recall@k apart from groundedness) is not coded in the drill's time box:
the notebook asks it as follow-up questions, and a talking point below grades it.
"""
from __future__ import annotations

from kit.checks.chatbot_turn import (check_chatbot_turn_complexity,
                                     check_chatbot_turn_correctness,
                                     check_chatbot_turn_edge_cases,
                                     check_chatbot_turn_failure_safety)
from kit.drills import Drill

__all__ = ["DRILL"]

DRILL = Drill(
    name="chatbot-turn",
    title="The RAG chatbot turn and its evaluation",
    minutes=45,
    symbol="RagChatbot",
    notebook="04_chatbot_turn",
    rubric={"correctness": check_chatbot_turn_correctness,
            "failure safety": check_chatbot_turn_failure_safety,
            "edge cases": check_chatbot_turn_edge_cases,
            "complexity": check_chatbot_turn_complexity},
    talking_points=(
        "The order of a turn: history, rewrite, retrieve, answer, guardrail, and only then "
        "write memory (compute first, commit after).",
        "The rewrite is a helper call: if it fails or replies junk, fall back to the raw "
        "question; the answer call's failure propagates, so the caller can retry.",
        "One memory per session, made on its first ask; memory keeps chunk ids, not [n] "
        "markers, and the refusal the user saw, not the refused draft.",
        "Model calls per turn: 0 or 1 rewrite (only with history), 1 answer, 0 when nothing "
        "was retrieved.",
        "Evaluate retrieval and generation apart: recall@k asks whether the evidence was "
        "retrieved, groundedness whether the answer sticks to what was shown, over the "
        "answers given only (refusals counted apart).",
    ),
    mechanism="chatbot turn",
)
