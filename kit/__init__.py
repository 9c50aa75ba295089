"""kit: the small library behind the course on LLM conversation memory.

Modules, by concept: :mod:`kit.tokens` (counting), :mod:`kit.llm` (stub models),
:mod:`kit.memory` (full history, windows, summary memory, background compaction,
recall memory, the budget allocator), :mod:`kit.extractive` and :mod:`kit.structured`
(rule-based and structured summaries), :mod:`kit.store` (the SQLite transcript),
:mod:`kit.retention` (fact retention), :mod:`kit.hierarchical` (map-reduce
summarisation), :mod:`kit.longterm` (memory across sessions), :mod:`kit.rag` (the RAG
chatbot and its evaluation), :mod:`kit.agent` (context for an agent's tool loop: clearing,
compaction, the prompt cache and its bill), :mod:`kit.locomo`, :mod:`kit.synthetic`,
:mod:`kit.memory_eval` and :mod:`kit.policy_bench` (measuring memory policies on long
conversations), :mod:`kit.openai_compat` (an optional real model), :mod:`kit.trace`
(trace tables), :mod:`kit.plots`, :mod:`kit.conversations` (sample chats and worked
examples), :mod:`kit.checks` (exercise checkers).

Importing kit never touches the network; tiktoken files are loaded lazily from
installed packages (:mod:`kit.offline`).

Sources: docstrings and tests cite the five documents behind the course by short name.

- the summary-memory lesson: the lesson "Add summarization-based memory to reduce context
  size" of the course "Live Coding Interview Prep";
- the context-handling post: the blog post "I almost gave up on my AI assistant — here's
  how I fixed context handling";
- the FEMentor write-up: FEMentor's write-up on the memory of its mock-interview tutor
  (recent turns, earlier summaries, context that survives LLM failures, long-term memory
  after the session);
- the batched-summarization request: the feature request "Batched Summarization for
  Long-Term Memory";
- the end-to-end chatbot lesson: the lesson "Build an end-to-end chatbot with memory, RAG,
  and evaluation pipeline" of the course "Live Coding Interview Prep".
"""
__version__ = "0.1.0"
