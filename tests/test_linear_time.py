"""Linear-time parsing: every parser of a user-, document- or model-controlled string
scales linearly on adversarial input (issue 10, "super-linear parsers").

Each case times one function in a fresh interpreter on an adversarial input of about
30 kB and of about 300 kB (best of a few runs each, garbage collector paused) and asserts
time(300 kB) / time(30 kB) <= 30: linear code gives about 10, quadratic code about 100.
The fact extractor's cases, whose every sentence meets many patterns, use 10 kB and 100 kB
(``SIZES`` in the case): the same factor of 10 between the two, a third of the time.
It is a complexity property, not a speed target: the CPU time of the measuring process
(another process taking the core does not count), the best of 5 and of 3 runs (a busy
machine only adds time, so the minimum is the least disturbed run), and a bound three
times from each answer. The subprocess timeout is the deadline: super-linear code does
not finish within it (the cubic heading regex would take days on 30 kB). The same
inputs at 100 kB and 1 MB are timed by benchmarks/reliability_parsers.py.
"""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_RATIO = 30
DEADLINE_S = 120

# Runs after a case's setup, which defines make(n) -> input and call(input). CPU time of
# this process: another process taking the core does not count.
_TIMER = """
import gc, json, time

def best(x, runs):
    least = float("inf")
    for _ in range(runs):
        gc.collect()
        gc.disable()
        start = time.process_time()
        call(x)
        least = min(least, time.process_time() - start)
        gc.enable()
    return least

small, large = (make(n) for n in globals().get("SIZES", (30_000, 300_000)))
call(small)                 # warm up (imports, caches); the best of 3 absorbs the large's first
print(json.dumps([best(small, 5), best(large, 3)]))
"""


def scaling_ratio(setup: str, tmp_path: Path) -> float:
    """time(300 kB input) / time(30 kB input) of ``call(make(n))``, defined by ``setup``,
    measured in a subprocess; fails the test when it passes the deadline."""
    code = textwrap.dedent(setup) + _TIMER
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(tmp_path / "tiktoken-cache")}
    try:
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"not done within {DEADLINE_S} s: super-linear")
    assert done.returncode == 0, done.stderr[-2000:]
    small, large = json.loads(done.stdout.splitlines()[-1])
    return large / max(small, 1e-6)


CASES = {
    "real-model client: redacting a reply full of near-keys": """
        from kit.openai_compat import _key_pattern, _redact
        key = "sk-test-0123456789abcdef"
        pattern = _key_pattern(key)
        make = lambda n: ("sk-test-0123456789abcde Bearer " + "a" * 20 + " ") * (n // 52)
        call = lambda text: _redact(text, pattern)
    """,
    "recall: a query of many distinct words": """
        from kit.memory.turn_index import TurnIndex
        index = TurnIndex()
        index.add(1, "w1 w2 hello")
        make = lambda n: " ".join(f"w{i}" for i in range(n // 7))
        call = index.search
    """,
    "long-term: a profile with many distinct labels": """
        import json
        from kit.longterm.profile import Profile
        make = lambda n: json.dumps({"version": 1, "strengths": [
            {"label": f"label {i}", "turns": 1, "sessions": ["s1"]} for i in range(n // 60)],
            "weaknesses": [], "project_signals": [], "role_fit_signals": [],
            "recommended_focus": [], "sessions": ["s1"], "min_support": 1})
        call = Profile.from_json
    """,
    "prompts: a summary prompt with a many-line turn": """
        from kit.prompts import parse_summary_turns
        make = lambda n: "Current summary:\\n(none)\\nNew turns:\\nuser: a\\n" + "  x\\n" * (n // 4)
        call = parse_summary_turns
    """,
    "fact rules: one sentence of many values, clauses and capitalised words": """
        from kit.longterm.fact_rules import extract_by_rules
        SIZES = (10_000, 100_000)
        make = lambda n: "I moved, " + "The Lisbon Home not #1234 sesame, " * (n // 35)
        call = extract_by_rules
    """,
    "fact rules: one clause of change verbs, negations, pronouns and values": """
        from kit.longterm.fact_rules import extract_by_rules
        SIZES = (10_000, 100_000)
        unit = "cancelled it Lisbon old matcha not without sent the #1234 back sesame "
        make = lambda n: "I work and " + unit * (n // 72)
        call = extract_by_rules
    """,
    "fact rules: a sentence of many values, then many 'Not anymore.'": """
        from kit.longterm.fact_rules import extract_by_rules
        SIZES = (10_000, 100_000)
        make = lambda n: "I love " + "matcha " * (n // 14) + ". " + "Not anymore. " * (n // 26)
        call = extract_by_rules
    """,
    "fact rules: negations after agents and idioms, conditions, subjects and openers": """
        from kit.longterm.fact_rules import extract_by_rules
        SIZES = (10_000, 100_000)
        unit = "the dog wouldn't believe my friend said if I never could Lisbon: Really  , Ana "
        make = lambda n: "I live in my sister " + unit * (n // 80)
        call = extract_by_rules
    """,
    "fact rules: stored values left, from-to, deixis and denials of the sentence before": """
        from kit.longterm.fact_rules import extract_by_rules
        SIZES = (10_000, 100_000)
        unit = ("We left Lisbon for Oslo. I live here. From Lisbon to Bergen. Not happening. "
                "Cancel #1234? FLYING FROM LISBON next year Nugget ate How was your dog? ")
        make = lambda n: unit * (n // 146)
        call = lambda text: extract_by_rules(text, known={"Lisbon Old Town": "home city"})
    """,
    "fact rules: a stored value of many words (a long name said in an earlier turn)": """
        from kit.longterm.fact_rules import extract_by_rules
        SIZES = (10_000, 100_000)
        make = lambda n: "Aa " * (n // 3)
        call = lambda value: extract_by_rules("We left it.", known={value: "home city"})
    """,
    "fact rules: invitations ('if you're in ... my door') among hypothetical words": """
        from kit.longterm.fact_rules import extract_by_rules
        SIZES = (10_000, 100_000)
        unit = "if you in " * 7 + "my door "
        make = lambda n: "I left Oslo and live in Bergen " + unit * (n // 78)
        call = extract_by_rules
    """,
    "facts: capitalised words after runs of spaces": """
        from kit.memory.facts import facts_in
        make = lambda n: ("a" + " " * 50 + "Zed") * (n // 54)
        call = facts_in
    """,
    "facts: a digit run with separators": """
        from kit.memory.facts import missing_facts
        make = lambda n: "1," * (n // 2)
        call = lambda text: missing_facts([text], text[:1000])
    """,
    "rewrite: a code fence of spaces": """
        from kit.rag.rewrite import clean_query
        make = lambda n: "```" + " " * n + "x"
        call = clean_query
    """,
    "rewrite: a run of quotes": """
        from kit.rag.rewrite import clean_query
        make = lambda n: '"' * n
        call = clean_query
    """,
    "extractive: an amount pattern on a digit run": """
        from kit.extractive import fact_kinds
        make = lambda n: "7" * n
        call = fact_kinds
    """,
    "extractive: a whitespace run inside a line": """
        from kit.extractive import split_sentences
        make = lambda n: "a" + " " * n + "b"
        call = split_sentences
    """,
    "extractive: abbreviations that join sentences": """
        from kit.extractive import split_sentences
        make = lambda n: "Dr. A " * (n // 6)
        call = split_sentences
    """,
    "documents: a heading line of spaces": """
        from kit.rag.documents import chunk_markdown
        make = lambda n: "# a" + " " * n + "b\\nbody"
        call = lambda text: chunk_markdown(text, "a.md")
    """,
    "judge: a punctuation run": """
        from kit.rag.judge import split_sentences
        make = lambda n: "!" * n + "x"
        call = split_sentences
    """,
    "judge: a judge prompt with a many-line chunk": """
        from kit.rag.documents import Chunk
        from kit.rag.judge import build_judge_prompt, parse_judge_prompt
        chunk = lambda n: Chunk("c", "h\\n" + "x\\n" * (n // 2), "s")
        make = lambda n: build_judge_prompt("q", "a", [chunk(n)])
        call = parse_judge_prompt
    """,
    "judge: overlap judge, many cited sentences over a long chunk": """
        from kit.rag.documents import Chunk
        from kit.rag.judge import JUDGE_SYSTEM, build_judge_prompt, overlap_judge
        def make(n):
            chunk = Chunk("c", " ".join(f"w{i}" for i in range(n // 14)), "s")
            return build_judge_prompt("q", "Claim w1 [1]. " * (n // 28), [chunk])
        call = lambda prompt: overlap_judge(JUDGE_SYSTEM, prompt)
    """,
    "structured: a cap over many open points": """
        from kit.structured import StructuredSummary, cap_structured
        make = lambda n: StructuredSummary("a b", ("p",) * (n // 4))
        call = lambda s: cap_structured(s, 20)
    """,
    "structured: a cap inside one long sentence": """
        from kit.structured import StructuredSummary, cap_structured
        make = lambda n: StructuredSummary("ab " * (n // 3))
        call = lambda s: cap_structured(s, len(s.summary) // 2)
    """,
    "structured: the stub on many open questions": """
        from kit.memory import build_summary_prompt
        from kit.messages import make_message
        from kit.structured import structured_stub
        from kit.tokens import count_words
        def make(n):
            text = " ".join(f"q{i}?" for i in range(n // 8))
            return build_summary_prompt("", [make_message("user", text, count_words, 1)])
        call = structured_stub
    """,
    "hierarchical: an entry opening with whitespace": """
        from kit.hierarchical.prompts import build_batch_prompt
        from kit.hierarchical.stubs import first_sentence_summariser
        make = lambda n: build_batch_prompt([("m1", " " * n + "x")])
        call = first_sentence_summariser
    """,
    "hierarchical: a batch prompt with a many-line entry": """
        from kit.hierarchical.prompts import build_batch_prompt, parse_batch_prompt
        make = lambda n: build_batch_prompt([("m1", "a\\n" + "x\\n" * (n // 2))])
        call = parse_batch_prompt
    """,
    "stub models: an answer prompt with a many-line chunk": """
        from kit.rag.stub_models import context_chunks
        make = lambda n: "Context:\\n[1] a\\n" + "  x\\n" * (n // 4) + "\\n\\nQuestion: q"
        call = context_chunks
    """,
    "tokens: cl100k on a run of letters": """
        import random
        from kit.tokens import cl100k_tokens
        letters = random.Random(0).choices("abcdefghijklmnopqrstuvwxyz", k=1_000_000)
        make = lambda n: "".join(letters[:n])
        call = cl100k_tokens
    """,
    "tokens: o200k on a run of whitespace": """
        from kit.tokens import tiktoken_counter
        make = lambda n: " " * n
        call = tiktoken_counter("o200k_base")
    """,
    "dates: relative time in runs of last, ago, digits and a couple of": """
        from datetime import date
        from kit.ranking.dates import resolve_times
        unit = "last a couple of 99 days ago last week of this past the day before "
        make = lambda n: unit * (n // len(unit))
        call = lambda text: resolve_times(text, date(2023, 5, 25))
    """,
    "recall search: a question with a long run of spaces, split into its parts": """
        from kit.memory import split_query
        from kit.ranking.bm25 import recall_tokenize
        make = lambda n: "Where did Ann" + " " * n + "and Bob, hike?"
        call = lambda text: split_query(text, recall_tokenize, {"Ann", "Bob"})
    """,
    "recall search: a model's reply of many preamble lines": """
        from kit.memory.recall_search import parse_parts
        make = lambda n: "**1.** - a:\\n" * (n // 12)       # no line is a part: all are read
        call = parse_parts
    """,
    "recall plan: picking among candidates of which none can fit": """
        import numpy as np
        from kit.memory.recall_plan import Candidates, pick
        def make(n):
            costs = np.array([100, 3] * (n // 20), dtype=np.int64)
            return Candidates(np.arange(len(costs)), costs, np.arange(len(costs)) % 50,
                              ["[1 May, 2023]"] * 50, list)
        call = lambda candidates: pick(candidates, 40, 0, lambda day: 1000)
    """,
    "recall plan: a session date with a long run of spaces": """
        from kit.memory.recall_plan import date_line
        make = lambda n: "1:56 pm" + " " * n + "on 8 May, 2023"
        call = date_line.__wrapped__
    """,
}


@pytest.mark.parametrize("setup", CASES.values(), ids=CASES.keys())
def test_parser_scales_linearly(setup, tmp_path):
    ratio = scaling_ratio(setup, tmp_path)
    assert ratio <= MAX_RATIO, f"time(300 kB) / time(30 kB) = {ratio:.1f}, more than {MAX_RATIO}"


def test_the_measure_tells_quadratic_from_linear(tmp_path):
    """The harness itself: a quadratic loop over a three-hundredth of the input scales past
    the bound, a single pass over the whole input within it."""
    quadratic = scaling_ratio("""
        make = lambda n: "x" * n
        def call(text):
            m = len(text) // 300
            return sum(1 for i in range(m) for j in range(i))
    """, tmp_path)
    linear = scaling_ratio("""
        make = lambda n: "x y " * (n // 4)
        call = lambda text: sum(1 for word in text.split())
    """, tmp_path)
    assert quadratic > MAX_RATIO >= linear, (quadratic, linear)
