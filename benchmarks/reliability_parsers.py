"""Benchmark: how every parser of user-, document- or model-controlled text scales.

Each parser is timed on an adversarial input of about 100 kB and of about 1 MB (the
shapes that made the old regexes quadratic or cubic: a code fence full of spaces, a
digit run, a heading line of spaces, a punctuation run, thousands of continuation
lines, a megabyte of letters or white space for tiktoken). A row prints both times
(CPU seconds, best of --repeat runs, garbage collector paused) and their ratio: about 10
means linear time, about 100 quadratic. A ratio within 20 is "ok": a complexity
property, not a speed target. :func:`ratios` returns the rows for the reliability
campaign.

Usage: python benchmarks/reliability_parsers.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

from kit.extractive import fact_kinds, split_sentences
from kit.hierarchical.prompts import build_batch_prompt, parse_batch_prompt
from kit.hierarchical.stubs import first_sentence_summariser
from kit.longterm.profile import Profile
from kit.memory.facts import facts_in, missing_facts
from kit.memory.turn_index import TurnIndex
from kit.messages import make_message
from kit.prompts import build_summary_prompt, parse_summary_turns
from kit.rag.documents import Chunk, chunk_markdown
from kit.rag.judge import JUDGE_SYSTEM, build_judge_prompt, overlap_judge, parse_judge_prompt
from kit.rag.judge import split_sentences as judge_sentences
from kit.rag.rewrite import clean_query
from kit.rag.stub_models import context_chunks
from kit.structured import StructuredSummary, cap_structured, structured_stub
from kit.tokens import cl100k_tokens, count_words, tiktoken_counter
from kit.trace import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))   # the sibling benchmark parts
from progress import progress  # noqa: E402  benchmarks/progress.py: tqdm on stderr

SIZES = (100_000, 1_000_000)     # characters of input, about
MAX_RATIO = 20
_LETTERS = "".join(random.Random(0).choices("abcdefghijklmnopqrstuvwxyz", k=SIZES[-1]))


def _overlap_prompt(n: int) -> str:
    chunk = Chunk("c", " ".join(f"w{i}" for i in range(n // 14)), "s")
    return build_judge_prompt("q", "Claim w1 [1]. " * (n // 28), [chunk])


def _stub_prompt(n: int) -> str:
    questions = " ".join(f"q{i}?" for i in range(n // 8))
    return build_summary_prompt("", [make_message("user", questions, count_words, 1)])


# parser -> (make: size in characters -> adversarial input, call: input -> anything)
_INDEX = TurnIndex()
_INDEX.add(1, "w1 w2 hello")


def _profile_json(n: int) -> str:
    """A profile of about ``n`` characters with as many distinct strength labels."""
    return json.dumps({"version": 1, "strengths": [
        {"label": f"label {i}", "turns": 1, "sessions": ["s1"]} for i in range(n // 60)],
        "weaknesses": [], "project_signals": [], "role_fit_signals": [],
        "recommended_focus": [], "sessions": ["s1"], "min_support": 1})


PARSERS: dict[str, tuple[Callable[[int], object], Callable[[object], object]]] = {
    "rewrite.clean_query (code fence of spaces)": (lambda n: "```" + " " * n + "x", clean_query),
    "rewrite.clean_query (run of quotes)": (lambda n: '"' * n, clean_query),
    "extractive.fact_kinds (digit run)": (lambda n: "7" * n, fact_kinds),
    "extractive.split_sentences (run of spaces)": (lambda n: "a" + " " * n + "b", split_sentences),
    "extractive.split_sentences (abbreviations)": (lambda n: "Dr. A " * (n // 6), split_sentences),
    "documents.chunk_markdown (heading of spaces)":
        (lambda n: "# a" + " " * n + "b\nbody", lambda text: chunk_markdown(text, "a.md")),
    "judge.split_sentences (punctuation run)": (lambda n: "!" * n + "x", judge_sentences),
    "judge.parse_judge_prompt (many-line chunk)":
        (lambda n: build_judge_prompt("q", "a", [Chunk("c", "h\n" + "x\n" * (n // 2), "s")]),
         parse_judge_prompt),
    "judge.overlap_judge (many cited sentences)":
        (_overlap_prompt, lambda prompt: overlap_judge(JUDGE_SYSTEM, prompt)),
    "structured.cap_structured (many open points)":
        (lambda n: StructuredSummary("a b", ("p",) * (n // 4)), lambda s: cap_structured(s, 20)),
    "structured.cap_structured (one long sentence)":
        (lambda n: StructuredSummary("ab " * (n // 3)),
         lambda s: cap_structured(s, len(s.summary) // 2)),
    "structured.structured_stub (many questions)": (_stub_prompt, structured_stub),
    "hierarchical.first_sentence_summariser (leading spaces)":
        (lambda n: build_batch_prompt([("m1", " " * n + "x")]), first_sentence_summariser),
    "hierarchical.parse_batch_prompt (many-line entry)":
        (lambda n: build_batch_prompt([("m1", "a\n" + "x\n" * (n // 2))]), parse_batch_prompt),
    "stub_models.context_chunks (many-line chunk)":
        (lambda n: "Context:\n[1] a\n" + "  x\n" * (n // 4) + "\n\nQuestion: q", context_chunks),
    "prompts.parse_summary_turns (many-line turn)":
        (lambda n: "Current summary:\n(none)\nNew turns:\nuser: a\n" + "  x\n" * (n // 4),
         parse_summary_turns),
    "memory.facts.facts_in (names after runs of spaces)":
        (lambda n: ("a" + " " * 50 + "Zed") * (n // 54), facts_in),
    "memory.facts.missing_facts (digit run with separators)":
        (lambda n: "1," * (n // 2), lambda text: missing_facts([text], text[:1000])),
    "memory.turn_index.search (many distinct words)":
        (lambda n: " ".join(f"w{i}" for i in range(n // 7)), _INDEX.search),
    "longterm.Profile.from_json (many distinct labels)": (_profile_json, Profile.from_json),
    "tokens.cl100k_tokens (run of letters)": (lambda n: _LETTERS[:n], cl100k_tokens),
    "tokens.tiktoken_counter o200k (run of spaces)":
        (lambda n: " " * n, tiktoken_counter("o200k_base")),
}


def best_seconds(call: Callable[[object], object], value: object, repeat: int) -> float:
    """Least CPU seconds of ``repeat`` calls ``call(value)``, garbage collector paused."""
    least = float("inf")
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            call(value)
            least = min(least, time.process_time() - start)
        finally:
            gc.enable()
    return least


def ratios(repeat: int = 3) -> list[dict]:
    """One row per parser: ``{"parser", "t_100k_s", "t_1m_s", "ratio", "ok"}``, times in
    CPU seconds (best of ``repeat``, an int >= 1), ``ratio`` = t_1m_s / t_100k_s and
    ``ok`` = ratio <= :data:`MAX_RATIO`. Takes about 15 s with ``repeat=3``."""
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"repeat must be an int >= 1, got {repeat!r}")
    rows = []
    for name, (make, call) in progress(list(PARSERS.items()), "parsers"):
        small, large = make(SIZES[0]), make(SIZES[1])
        call(small), call(large)                              # warm up
        t_small = best_seconds(call, small, repeat + 2)       # the short one is noisier
        t_large = best_seconds(call, large, repeat)
        ratio = t_large / max(t_small, 1e-6)
        rows.append({"parser": name, "t_100k_s": t_small, "t_1m_s": t_large,
                     "ratio": ratio, "ok": ratio <= MAX_RATIO})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per input; the best is shown")
    args = parser.parse_args()
    rows = ratios(args.repeat)
    print(Table(["parser (adversarial input)", "100 kB (s)", "1 MB (s)", "ratio",
                 f"within {MAX_RATIO}"],
                [[r["parser"], f"{r['t_100k_s']:.4f}", f"{r['t_1m_s']:.4f}", f"{r['ratio']:.1f}",
                  "yes" if r["ok"] else "NO"] for r in rows]))
    print(f"{sum(r['ok'] for r in rows)} of {len(rows)} parsers scale linearly "
          f"(time at 1 MB / time at 100 kB <= {MAX_RATIO})")


if __name__ == "__main__":
    main()
