"""Long-term memory for a mock interview: short-term context and a profile across sessions.

Source: the FEMentor write-up. Three lifecycles, three mechanisms:

- the current turns need fidelity: :func:`build_interview_context` keeps the newest
  turns verbatim within a character budget (default 2,200 characters);
- older turns need compression: they are folded into a
  :class:`~kit.structured.StructuredSummary` (capped at 900 characters, open points
  protected), by a model or, when it fails, by :func:`rule_based_summary`; built turn
  by turn with ``previous=``, only the newly overflowing turns are folded in;
- what carries across sessions needs stability: :func:`distil_profile` writes a
  :class:`Profile` after each session and :func:`merge_profiles` adds it to the old one,
  with stability computed from counted evidence.

Modules: :mod:`~kit.longterm.session` (the record), :mod:`~kit.longterm.context`
(the context builder), :mod:`~kit.longterm.overflow` (the folding prompt, its stub and
the rule-based fallback), :mod:`~kit.longterm.profile` (profile, evidence, merge, views),
:mod:`~kit.longterm.distil` (model or rules), :mod:`~kit.longterm.samples` (sample data).

Facts that change (lesson 12): :mod:`~kit.longterm.facts` (the write path: candidates,
similar facts, a checked add/update/retract/none decision, validity intervals and
provenance), :mod:`~kit.longterm.fact_rules` (the extractors),
:mod:`~kit.longterm.fact_store` (the ``facts`` table beside the transcript) and
:mod:`~kit.longterm.fact_memory` (the memory protocol and the baselines).

Forgetting and injection (lesson 12, sections 9 and 10): :mod:`~kit.longterm.forget`
(forget by fact, topic words or everything, bytes included; memories and profile rebuilt),
:mod:`~kit.longterm.forget_scan` (the completeness scan of raw files and contexts),
:mod:`~kit.longterm.forget_demo` (the planted chat of the lesson's table),
:mod:`~kit.longterm.injection` (the fence, the refusing decider, the write-time check, the
obeying stub) and :mod:`~kit.longterm.injection_bench` (the phrasings and both rates).
"""
from kit.longterm.context import DEFAULT_BUDGET_CHARS, InterviewContext, build_interview_context
from kit.longterm.overflow import (DEFAULT_SUMMARY_CAP_CHARS, FOLLOW_UP_BELOW,
                                   INTERVIEW_SUMMARY_PROMPT, build_overflow_prompt,
                                   interview_summary_stub, read_overflow_prompt,
                                   read_overflow_summary, rule_based_summary)
from kit.longterm.distil import (DISTIL_PROMPT, Distillation, build_distil_prompt,
                                 distil_profile, distil_stub, parse_distil_reply,
                                 rule_based_signals)
from kit.longterm.profile import (Evidence, Profile, count_evidence, merge_profiles,
                                  profile_markdown)
from kit.longterm.fact_memory import AppendOnlyFacts, FactMemory, OverwriteFacts
from kit.longterm.fact_store import FactStore
from kit.longterm.facts import Candidate, Decision, Fact, FactTable
from kit.longterm.samples import SAMPLE_ROLE, sample_sessions
from kit.longterm.session import (MAX_SCORE, InterviewSession, InterviewTurn, render_turn,
                                  turn_from_dict, turn_to_dict)

__all__ = [
    "InterviewTurn", "InterviewSession", "MAX_SCORE", "render_turn", "turn_to_dict",
    "turn_from_dict",
    "InterviewContext", "build_interview_context", "build_overflow_prompt",
    "read_overflow_prompt", "read_overflow_summary",
    "INTERVIEW_SUMMARY_PROMPT", "interview_summary_stub", "rule_based_summary",
    "DEFAULT_BUDGET_CHARS", "DEFAULT_SUMMARY_CAP_CHARS", "FOLLOW_UP_BELOW",
    "Evidence", "Profile", "count_evidence", "merge_profiles", "profile_markdown",
    "DISTIL_PROMPT", "Distillation", "build_distil_prompt", "parse_distil_reply",
    "distil_stub", "rule_based_signals", "distil_profile",
    "sample_sessions", "SAMPLE_ROLE",
    "Fact", "Candidate", "Decision", "FactTable", "FactStore", "FactMemory",
    "AppendOnlyFacts", "OverwriteFacts",
]
