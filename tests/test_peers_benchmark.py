"""benchmarks/peers.py without the peers: it says they were not found and prints the kit's
rows, whose figures (all but time) are what the kit's memories give when replayed here."""
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUDGET, MESSAGES = 2000, 200
PEER_PACKAGES = ("langchain_classic", "llama_index", "semantic_kernel")


def kit_memories():
    """(row name, make(measure, summariser) -> memory, summarises): the benchmark's kit
    rows, built here from kit's classes as its docstring says."""
    from kit.floor import FloorMemory
    from kit.memory import RecallMemory, RobustSummaryMemory, SummaryMemory, TokenWindow

    floor = ("floor (count once, running total)",
             lambda m, s: FloorMemory(m, budget=BUDGET, count="rendered"), False)
    return [floor,
            ("kit TokenWindow", lambda m, s: TokenWindow(BUDGET, m, count="rendered"), False),
            ("kit SummaryMemory, keep_recent 12",
             lambda m, s: SummaryMemory(s, BUDGET, 12, m, count="rendered"), True),
            ("kit RobustSummaryMemory, target 1,500",
             lambda m, s: RobustSummaryMemory(s, BUDGET, 12, m, count="rendered", target=1500),
             True),
            ("kit RecallMemory", lambda m, s: RecallMemory(BUDGET, m), False)]


def replay(make, summarises, turns, conversation_tokens):
    """The row's figures after the time: tokens encoded / conversation, loads over
    budget, summariser calls, facts kept."""
    from kit.conversations import facts_in
    from kit.extractive import extract_summary
    from kit.prompts import parse_summary_turns
    from kit.tokens import tiktoken_counter

    count, encoded, calls = tiktoken_counter(), [], []

    def measure(text):
        encoded.append(count(text))
        return encoded[-1]

    def summariser(prompt):
        calls.append(prompt)
        return extract_summary(*parse_summary_turns(prompt))

    memory = make(measure, summariser)
    over, last = 0, ""
    for role, text in turns:
        memory.add(role, text)
        if role == "user":
            last = memory.context()
            over += count(last) > BUDGET
    return [f"{sum(encoded) / conversation_tokens:.2f}", str(over),
            str(len(calls)) if summarises else "-", f"{sum(facts_in(last).values())}/3"]


def test_peers_benchmark_without_the_peers_prints_the_kit_rows():
    if any(importlib.util.find_spec(name) is not None for name in PEER_PACKAGES):
        pytest.skip("a peer library is installed; this test runs without the peers extra")
    from kit.conversations import shopping_chat
    from kit.tokens import tiktoken_counter

    done = subprocess.run([sys.executable, "benchmarks/peers.py", "--messages", str(MESSAGES),
                           "--repeat", "1"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.rstrip("\n").split("\n")
    assert lines[0] == "peers found: none"
    assert lines[1] == ("peers not found: LangChain (langchain-classic, langchain-core); "
                        "LlamaIndex (llama-index-core); Semantic Kernel (semantic-kernel); "
                        'to run them: pip install -e ".[peers]"')
    at = next(i for i, line in enumerate(lines) if line.startswith("shopping_chat("))
    assert re.fullmatch(r"shopping_chat\(200\), budget 2,000 cl100k tokens, context loaded at "
                        r"each of the 100 user turns", lines[at])
    assert re.split(r"\s{2,}", lines[at + 1]) == [
        "memory", "wall (ms)", "wall (x floor)", "timed runs", "tokens encoded / conversation",
        "loads over budget (of 100)", "summariser calls", "facts kept"]
    memories = kit_memories()
    rows = [re.split(r"\s{2,}", line) for line in lines[at + 3:at + 3 + len(memories)]]
    assert [row[0] for row in rows] == [name for name, _, _ in memories]
    assert lines[at + 3 + len(memories)].startswith("conversation: ")   # no peer rows
    assert rows[0][2:5] == ["1.00", "1", "1.00"]      # the floor: itself, each message once
    for row in rows:                                  # time in ms, and as a ratio to the floor's
        ms, ratio, floor_ms = (float(x.replace(",", "")) for x in (row[1], row[2], rows[0][1]))
        rounding = ratio * (0.05 / ms + 0.05 / floor_ms) + 0.005    # ms to 0.1, ratio to 0.01
        assert ms > 0 and row[3] == "1" and abs(ratio - ms / floor_ms) <= rounding

    turns = shopping_chat(MESSAGES)
    count = tiktoken_counter()
    tokens = sum(count(text) for _, text in turns)
    expected = [replay(make, summarises, turns, tokens) for _, make, summarises in memories]
    assert [row[4:] for row in rows] == expected
    assert all(row[5] == "0" for row in rows[1:])     # the kit's memories stay within budget
    assert [row[7] for row in rows[2:4]] == ["3/3", "3/3"]    # the summaries keep the facts
    per_message = sum(count(f"{role}: {text}\n") for role, text in turns) / MESSAGES
    assert lines[at + 3 + len(memories)] == (f"conversation: {tokens:,} tokens in 200 messages, "
                                             f"{per_message:.1f} tokens per rendered message")
    assert lines[-1] == "network: no connection attempted"


@pytest.mark.parametrize("args, message", [
    (["--messages", "1"], "--messages must each be >= 2, got '1'"),
    (["--messages", "2k"], "--messages takes numbers like 2000,10000, got '2k'"),
    (["--budget", "10"], "--budget must be >= 100 tokens, got 10"),
    (["--repeat", "0"], "--repeat and --peer-repeat must be >= 1, got 0, 1"),
])
def test_peers_benchmark_refuses_bad_arguments(args, message):
    done = subprocess.run([sys.executable, "benchmarks/peers.py", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == "" and message in done.stderr, done.stderr
