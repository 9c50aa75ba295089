"""kit: the small library behind the course on LLM conversation memory.

Modules: :mod:`kit.tokens` (counting), :mod:`kit.llm` (stub models),
:mod:`kit.memory` (full history, windows, summary memory), :mod:`kit.trace`
(trace tables), :mod:`kit.plots`, :mod:`kit.conversations` (sample chats and the
seed's worked examples), :mod:`kit.checks` (exercise checkers).

Importing kit never touches the network; tiktoken files are loaded lazily from
installed packages (:mod:`kit.offline`).
"""
__version__ = "0.1.0"
