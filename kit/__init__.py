"""kit: the small library behind the course on LLM conversation memory.

Modules, by concept: :mod:`kit.tokens` (counting), :mod:`kit.llm` (stub models),
:mod:`kit.memory` (full history, windows, summary memory, background compaction,
recall memory, the budget allocator), :mod:`kit.extractive` and :mod:`kit.structured`
(rule-based and structured summaries), :mod:`kit.store` (the SQLite transcript),
:mod:`kit.retention` (fact retention), :mod:`kit.hierarchical` (map-reduce
summarisation), :mod:`kit.longterm` (memory across sessions), :mod:`kit.rag` (the RAG
chatbot and its evaluation), :mod:`kit.locomo`, :mod:`kit.synthetic`,
:mod:`kit.memory_eval` and :mod:`kit.policy_bench` (measuring memory policies on long
conversations), :mod:`kit.openai_compat` (an optional real model), :mod:`kit.trace`
(trace tables), :mod:`kit.plots`, :mod:`kit.conversations` (sample chats and worked
examples), :mod:`kit.checks` (exercise checkers).

Importing kit never touches the network; tiktoken files are loaded lazily from
installed packages (:mod:`kit.offline`).
"""
__version__ = "0.1.0"
