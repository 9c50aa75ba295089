"""Conversation memories with one small interface: ``add``, ``context``, ``messages``,
``size`` and ``trace``.

- :class:`FullHistory`: every message (lesson 01).
- :class:`SlidingWindow`, :class:`TokenWindow`: the newest messages (lesson 02).
- :class:`SummaryMemory`: a running summary plus recent turns (lesson 03), with a
  fallback, a timeout, a structured summary, a summary cap and more triggers;
  its compaction steps are in :mod:`kit.memory.compaction`, its triggers in
  :mod:`kit.memory.triggers`, rebuilding from the transcript in :mod:`kit.memory.rebuild`.
"""
from kit.memory.base import BudgetedMemory, CompactionError, FullHistory, Memory, TraceEvent
from kit.memory.compaction import Compactor, SummariserFailed, SummaryUpdate
from kit.memory.prompts import SHORTEN_PROMPT, STRUCTURED_SHORTEN_PROMPT
from kit.memory.rebuild import fold_spans, rebuild_summary, resummarise
from kit.memory.summary import (CARELESS_PROMPT, SUMMARY_PROMPT, SummaryMemory,
                                build_summary_prompt, split_for_compaction)
from kit.memory.triggers import Firing, OverBudget, TooManyTurns, TooOld
from kit.memory.window import SlidingWindow, TokenWindow

__all__ = ["Memory", "BudgetedMemory", "TraceEvent", "CompactionError", "FullHistory", "SlidingWindow",
           "TokenWindow", "SummaryMemory", "SUMMARY_PROMPT", "CARELESS_PROMPT",
           "build_summary_prompt", "split_for_compaction", "SummaryUpdate", "SummariserFailed",
           "Compactor", "SHORTEN_PROMPT", "STRUCTURED_SHORTEN_PROMPT", "fold_spans",
           "rebuild_summary", "resummarise", "Firing", "OverBudget", "TooManyTurns", "TooOld"]
