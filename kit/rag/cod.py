"""A worked example: "How long do prepaid refunds take?", then "and for COD?".

The end-to-end chatbot lesson runs two turns over two chunks of ``refunds.md``
(:func:`kit.rag.documents.seed_chunks`):

=====  ====================================  ===========  ===========  ==========
turn   query sent to retrieval               retrieved    model calls  cites
=====  ====================================  ===========  ===========  ==========
1      the raw question (no history yet)     c1, c2       1 (answer)   [1] -> c1
2      "cash-on-delivery refund" (rewritten) c2           2            [1] -> c2
=====  ====================================  ===========  ===========  ==========

Without the rewrite, turn 2 searches "and for COD?", retrieves nothing and is refused.
:func:`cod_chatbot` builds that bot; :func:`cod_trace` prints both runs (it is
``python -m kit trace cod``).
"""
from __future__ import annotations

import time
from collections.abc import Callable

from kit.llm import ScriptedLLM, fact_listing_summariser
from kit.memory import SummaryMemory
from kit.rag.chatbot import TURN_METRIC, Chatbot, trace_table
from kit.rag.documents import seed_chunks
from kit.rag.retrieval import KeywordRetriever

__all__ = ["COD_QUESTIONS", "COD_REPLIES", "cod_chatbot", "cod_trace"]

COD_QUESTIONS = ("How long do prepaid refunds take?", "and for COD?")
COD_REPLIES = ("Prepaid refunds take 5 working days [1].",   # turn 1: answer
               "cash-on-delivery refund",                    # turn 2: rewrite
               "They are paid as store credit [1].")         # turn 2: answer


def cod_chatbot(rewrite: bool = True, clock: Callable[[], float] = time.perf_counter) -> Chatbot:
    """The bot of the end-to-end chatbot lesson: the two refund chunks, the keyword
    retriever (query words of 4+ characters), a scripted model replying :data:`COD_REPLIES`
    in order, and a summary memory per session (budget 500 tokens, fact-listing stub
    summariser).

    ``rewrite=False`` sends the raw questions to retrieval; the model then gets only
    turn 1's answer (turn 2 retrieves nothing, so makes no call). ``clock``: ``() ->
    seconds`` for the latency in ms. A further model call raises IndexError (the script
    is used up)."""
    replies = COD_REPLIES if rewrite else COD_REPLIES[:1]
    return Chatbot(KeywordRetriever(seed_chunks(), min_len=4), ScriptedLLM(replies),
                   memory_factory=lambda: SummaryMemory(fact_listing_summariser, budget=500),
                   clock=clock, rewrite=rewrite)


def cod_trace() -> str:
    """The example as text: the trace table with the rewrite, the answers the user saw,
    the latency count, then the same two turns without the rewrite. No timings (they
    vary by machine), so the text is the same on every run."""
    lines = []
    for rewrite in (True, False):
        bot = cod_chatbot(rewrite=rewrite)
        answers = [bot.ask("s1", q) for q in COD_QUESTIONS]
        title = ("COD trace: keyword retriever, scripted model, summary memory (budget 500)"
                 if rewrite else "Without the rewrite: the raw questions go to retrieval")
        lines += [str(trace_table(answers, title)), ""]
        lines += [f"turn {a.turn} answer: {a.answer}" for a in answers] + [""]
        if rewrite:
            count = bot.metrics.count(TURN_METRIC)
            lines += [f"latency: {count} turns recorded under {TURN_METRIC!r} "
                      f"(timings vary by machine, not printed)", ""]
    return "\n".join(lines).rstrip("\n")
