"""Conversation memories with one small interface: ``add``, ``context``, ``messages``,
``size`` and ``trace``.

- :class:`FullHistory`: every message (lesson 01).
- :class:`SlidingWindow`, :class:`TokenWindow`: the newest messages (lesson 02).
- :class:`SummaryMemory`: a running summary plus recent turns, the core lesson 03
  builds (:func:`compact`, :func:`split_for_compaction`), in one file.
- :class:`RobustSummaryMemory`: the core with lesson 04's production options (a
  fallback, a timeout, a structured summary, a summary cap, more triggers); its
  compaction steps are in :mod:`kit.memory.compaction`, its triggers in
  :mod:`kit.memory.triggers`, rebuilding from the transcript in :mod:`kit.memory.rebuild`.
- :class:`BackgroundSummaryMemory`: the same, compacting on a worker thread (lesson 04).
- :class:`DeferredSummaryMemory`: the same, compacting when told, after the reply has
  gone out (the service of lesson 10).
- :class:`RecallMemory`: recent turns plus older turns recalled from the transcript by
  BM25 (:mod:`kit.memory.turn_index`) and the parts of :class:`RecallSearch`
  (:mod:`kit.memory.recall_search`), optionally with a summary (lesson 09).

Windows and summary memories build their context from what they hold; recall memory's
parts compete for the budget through the allocator, :func:`allocate`
(:mod:`kit.memory.budget`), which reports what was cut and why (and reports any
memory's context as parts, :meth:`Memory.allocation`).
"""
from kit.memory.background import BackgroundSummaryMemory
from kit.memory.deferred import DeferredSummaryMemory
from kit.memory.base import BudgetedMemory, CompactionError, FullHistory, Memory, TraceEvent
from kit.memory.budget import Allocation, Part, PartResult, allocate
from kit.memory.compaction import Compactor, SummariserFailed, SummaryUpdate
from kit.memory.rebuild import fold_spans, rebuild_summary, resummarise
from kit.memory.recall import RecallMemory, RecallPlan
from kit.memory.recall_search import RecallSearch, split_query
from kit.memory.robust import RobustSummaryMemory
from kit.memory.summary import (CARELESS_PROMPT, SUMMARY_PROMPT, SummaryMemory,
                                build_summary_prompt, checked_summary, compact,
                                split_for_compaction)
from kit.memory.triggers import Firing, OverBudget, TooManyTurns, TooOld
from kit.memory.turn_index import SharedScores, TurnIndex, light_stem, recall_tokenize
from kit.memory.window import SlidingWindow, TokenWindow, fit_budget
from kit.prompts import SHORTEN_PROMPT, STRUCTURED_SHORTEN_PROMPT

__all__ = ["Memory", "BudgetedMemory", "TraceEvent", "CompactionError", "FullHistory", "SlidingWindow",
           "TokenWindow", "fit_budget", "SummaryMemory", "RobustSummaryMemory", "compact", "checked_summary",
           "SUMMARY_PROMPT", "CARELESS_PROMPT",
           "build_summary_prompt", "split_for_compaction", "SummaryUpdate", "SummariserFailed",
           "Compactor", "SHORTEN_PROMPT", "STRUCTURED_SHORTEN_PROMPT", "fold_spans",
           "rebuild_summary", "resummarise", "Firing", "OverBudget", "TooManyTurns", "TooOld",
           "BackgroundSummaryMemory", "DeferredSummaryMemory", "RecallMemory", "RecallPlan", "RecallSearch",
           "split_query", "TurnIndex", "SharedScores", "light_stem",
           "recall_tokenize", "allocate", "Part", "PartResult", "Allocation"]
