"""Starter for the drill chatbot-turn: write your answer, then check it with

    .venv/bin/python -m kit drill chatbot-turn <this file>

(from the repository root; `python -m kit drill ...` with the environment active).
The spec, hints and follow-ups are in the notebook notebooks/drills/04_chatbot_turn.ipynb (your copy: work/drills/04_chatbot_turn.ipynb)."""

from kit.rag import (NOTHING_RETRIEVED, REWRITE_SYSTEM, SYSTEM_PROMPT, build_answer_prompt,
                     build_rewrite_prompt, check_citations, clean_query, markers_to_ids,
                     parse_citations, refuse)


class RagChatbot:
    """A RAG chatbot with one memory per session: rewrite, retrieve, answer, guardrail, save.

    retriever: has .search(query, k) -> list of chunks (.id, .text, .source), best first.
    llm: a chat model llm(system, user) -> str; it may raise.
    memory_factory: () -> a new, empty memory with add(role, content) and context() -> str.
    top_k: chunks per search (int >= 1).
    """

    def __init__(self, retriever, llm, memory_factory, top_k=5):
        raise NotImplementedError("Exercise: write your answer here")

    def ask(self, session_id, question):
        """Answer one message; save the turn only after every call returned.

        Returns {"answer": str, "query": str, "chunk_ids": [...], "cited_ids": [...]}.
        An exception of the answer call propagates, with the memory as it was.
        """
        raise NotImplementedError("Exercise: write your answer here")
