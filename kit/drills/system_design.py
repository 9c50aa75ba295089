"""Drill 07: system design, written. Serve the chatbot with memory to many users, in 30 min.

The candidate writes a design as text, ``DESIGN`` (a str). There is nothing to run, so
the rubric is a **coarse self-check**: each category looks for the required ideas by
keywords (case-insensitive) and names what is missing, with a hint. It cannot tell a
good design from a list of buzzwords; the talking points are the real rubric, graded by
the candidate (or an interviewer).

The ideas, by category (each needs every one of its keyword groups; a group is a set of
alternatives):

- **correctness**: a per-session lock across servers, with a lease and fencing; the
  transcript persisted before compaction; recall from the transcript; the budget with the
  summary counted;
- **failure safety**: failure handling with retries and back-off; compaction in the
  background, after the reply;
- **edge cases**: privacy: deleting a user's data everywhere it went (transcript,
  summary, index);
- **complexity**: the metrics: latency p95, recall@k and groundedness measured apart.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kit.checks import CheckFailed, expect
from kit.drills import Drill

__all__ = ["DRILL", "Idea", "IDEAS", "missing_ideas", "check_correctness",
           "check_failure_safety", "check_edge_cases", "check_complexity"]


@dataclass(frozen=True)
class Idea:
    """One required idea: ``name``; ``groups``: each a tuple of alternative keywords (regex
    fragments, matched case-insensitively), all groups needed; ``hint``: what to write
    about."""

    category: str
    name: str
    groups: tuple[tuple[str, ...], ...]
    hint: str

    def missing(self, text: str) -> list[tuple[str, ...]]:
        """The keyword groups of which ``text`` holds no alternative."""
        return [group for group in self.groups
                if not any(re.search(word, text, re.IGNORECASE) for word in group)]


IDEAS = (
    Idea("correctness", "a per-session lock across servers, with a lease and fencing",
         (("lock",), ("lease", "ttl", "expir"), ("fenc",)),
         "two servers handling one session at once double-compact or lose a turn: take a "
         "per-session lock in the shared store with a lease (it expires if the holder "
         "dies) and a fencing token the store checks on every write"),
    Idea("correctness", "the transcript persisted before compaction",
         (("transcript", "raw messages", "event log"),
          ("persist", "append", "durabl", "write", "sav", "store"), ("before",)),
         "append every message to a durable transcript before any compaction, so a summary "
         "never holds the only copy of a turn (and it can be rebuilt)"),
    Idea("correctness", "recall from the transcript",
         (("recall", "retriev", "search", "look up", "lookup"), ("transcript",)),
         "a detail the summary dropped can still be found: retrieve old turns from the "
         "transcript (an index over it) and add them to the context"),
    Idea("correctness", "the budget with the summary counted",
         (("budget",), ("summar",), ("count", "includ", "measur")),
         "the context budget counts everything sent: system prompt, summary, recalled turns, "
         "verbatim turns and the question"),
    Idea("failure safety", "failure handling with retries and back-off",
         (("retr(y|ies)",), ("back-?off", "back off"),
          ("timeout", "fail", "error", "outage")),
         "a model or store call fails: retry with exponential back-off and jitter, time it "
         "out, fall back (keep the turns verbatim, an extractive summary), never lose a turn"),
    Idea("failure safety", "compaction in the background, after the reply",
         (("background", "async", "worker", "queue", "off the request path"),
          ("compact", "summaris", "summariz"), ("after",)),
         "compaction is a model call: run it in the background after the reply is sent, so "
         "no user waits for it"),
    Idea("edge cases", "privacy and deletion",
         (("delet", "eras", "forget", "purge"), ("privacy", "pii", "gdpr", "personal"),
          ("summar",)),
         "a user asks to be forgotten: delete the transcript, the summary, the index "
         "entries and the caches, and say how backups expire; keep PII out of logs"),
    Idea("complexity", "the metrics: latency p95, recall@k and groundedness apart",
         (("p95", "p99", "percentile"), ("recall@k", "recall at k", r"recall@\d"),
          ("grounded",)),
         "measure latency as a percentile (p95), and retrieval (recall@k) apart from the "
         "answer (groundedness), so a regression points at the part that broke"),
)

_STUB = "NotImplementedError"


def missing_ideas(text: str, category: str | None = None) -> list[Idea]:
    """The ideas (of ``category``, or all) that ``text`` does not mention."""
    return [idea for idea in IDEAS if (category is None or idea.category == category)
            and idea.missing(text)]


def _check(design: object, category: str) -> int:
    expect(isinstance(design, str),
           f"DESIGN should be your design as a str (a triple-quoted string), got "
           f"{type(design).__name__}: {design!r:.60}")
    expect(design.strip() and _STUB not in design,
           "DESIGN is not written yet: replace the placeholder with your design, as text "
           "(a few paragraphs).")
    ideas = [idea for idea in IDEAS if idea.category == category]
    missing = [idea for idea in ideas if idea.missing(design)]
    if missing:
        parts = []
        for idea in missing:
            words = " and ".join("/".join(g) for g in idea.missing(design))
            parts.append(f"{idea.name} (no {words}). Hint: {idea.hint}")
        raise CheckFailed(f"DESIGN does not mention {len(missing)} of the {len(ideas)} "
                          f"{category} ideas: " + "; ".join(parts) + ". (A coarse keyword "
                          "check: the talking points are the real rubric.)")
    return len(ideas)


def check_correctness(design: object) -> int:
    """The session lock (lease, fencing), the transcript persisted first, recall from it,
    the budget with the summary counted."""
    return _check(design, "correctness")


def check_failure_safety(design: object) -> int:
    """Retries with back-off on failures; compaction in the background after the reply."""
    return _check(design, "failure safety")


def check_edge_cases(design: object) -> int:
    """Privacy: deletion of a user's data, the summary included."""
    return _check(design, "edge cases")


def check_complexity(design: object) -> int:
    """The metrics: latency p95, recall@k and groundedness."""
    return _check(design, "complexity")


DRILL = Drill(
    name="system-design",
    title="System design: serve the chatbot to many users",
    minutes=30,
    symbol="DESIGN",
    notebook="07_system_design",
    rubric={"correctness": check_correctness, "failure safety": check_failure_safety,
            "edge cases": check_edge_cases, "complexity": check_complexity},
    talking_points=(
        "Per-session lock across servers: a lease that expires, a fencing token checked "
        "on every write, so a paused server cannot overwrite a newer state",
        "The transcript is the source of truth: appended before the reply is stored and "
        "before any compaction; summaries are derived and can be rebuilt",
        "Compaction runs in the background after the reply, under the session lock, and "
        "commits only if nothing changed (compute first, then commit)",
        "Recall from the transcript brings back what the summary dropped; the budget "
        "counts the summary, the recalled turns and the question",
        "Failures: timeouts, retries with jittered back-off, a fallback that keeps turns "
        "verbatim; a failed compaction loses nothing and is retried later",
        "Metrics: latency p50/p95 per stage, recall@k and groundedness apart, summary "
        "fact survival, cost per conversation",
        "Privacy: deletion reaches transcript, summary, index, caches and backups; PII "
        "kept out of logs; retention limits",
    ),
)
