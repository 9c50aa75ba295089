"""Retrieval-augmented generation: chunks, retrievers, query rewrite, citations,
guardrail, the chatbot, metrics and evaluation (seed 004).

A plain re-export list; each name lives in the module named after its concept.
"""
from kit.rag.chatbot import (SYSTEM_PROMPT, Answer, Chatbot, build_answer_prompt,
                             cod_chatbot, cod_trace, default_memory, trace_row, trace_table)
from kit.rag.citations import Citation, CitationResult, number_chunks, parse_citations
from kit.rag.documents import Chunk
from kit.rag.guardrail import REFUSAL, GuardrailResult, check_citations
from kit.rag.metrics import LatencyReport, Metrics, percentile
from kit.rag.rewrite import Rewrite, clean_query, rewrite_query

__all__ = [
    # documents
    "Chunk",
    # rewrite
    "Rewrite", "rewrite_query", "clean_query",
    # citations
    "Citation", "CitationResult", "number_chunks", "parse_citations",
    # guardrail
    "REFUSAL", "GuardrailResult", "check_citations",
    # metrics
    "Metrics", "LatencyReport", "percentile",
    # chatbot
    "Chatbot", "Answer", "SYSTEM_PROMPT", "default_memory", "build_answer_prompt",
    "trace_row", "trace_table", "cod_chatbot", "cod_trace",
]
