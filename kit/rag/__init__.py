"""Retrieval-augmented generation: chunks, retrievers, query rewrite, citations,
guardrail, the chatbot, metrics and evaluation (seed 004)."""
