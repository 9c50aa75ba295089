"""Conversation memories with one small interface: ``add``, ``context``, ``messages``,
``size`` and ``trace``.

- :class:`FullHistory`: every message (lesson 01).
- :class:`SlidingWindow`, :class:`TokenWindow`: the newest messages (lesson 02).
- :class:`SummaryMemory`: a running summary plus recent turns (lesson 03).
"""
from kit.memory.base import BudgetedMemory, CompactionError, FullHistory, Memory, TraceEvent
from kit.memory.compaction import SummaryUpdate
from kit.memory.summary import (CARELESS_PROMPT, SUMMARY_PROMPT, SummaryMemory,
                                build_summary_prompt, split_for_compaction)
from kit.memory.window import SlidingWindow, TokenWindow

__all__ = ["Memory", "BudgetedMemory", "TraceEvent", "CompactionError", "FullHistory", "SlidingWindow",
           "TokenWindow", "SummaryMemory", "SUMMARY_PROMPT", "CARELESS_PROMPT",
           "build_summary_prompt", "split_for_compaction", "SummaryUpdate"]
