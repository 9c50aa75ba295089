"""The speed work changes no context: every load of these runs gives the context it gave
before (text and message numbers), pinned as digests in ``tests/data/contexts.json``.

The runs: every memory-policy strategy at 1,000 and 2,000 tokens on a synthetic
conversation, every question; long chats with the context loaded at every user turn
(recall memory alone, with a running summary, the summary memory and the token
window); and, when LoCoMo is present, the whole memory-policy benchmark on the two
shared conversations (every strategy, every budget, every question).

These runs pin the BM25 path (``embedder=None``): recall memory without the embedding
model. The default with the packaged model (on when the ``semantic`` extra is installed)
is pinned apart, on the synthetic conversation and a live chat (``model``; skipped
without the extra).

A deliberate change of what a memory puts in its context regenerates the file:
``python tests/test_same_contexts.py --write`` (say why in the commit).
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from kit.conversations import shopping_chat
from kit.extractive import make_extractive_summariser
from kit.locomo import load_locomo_dir
from kit.memory import RecallMemory, RecallSearch, SharedScores, SummaryMemory, TokenWindow
from kit.memory_eval import CachedMeasure, render_turn
from kit.policy_bench import BUDGETS, strategy_factories
from kit.ranking.dense import semantic_available
from kit.synthetic import synthetic_conversation

GOLDEN = Path(__file__).parent / "data" / "contexts.json"


def _digest(memory, query=None) -> str:
    text = memory.context(query=query) if query is not None else memory.context()
    numbers = getattr(memory, "context_numbers", None)
    if callable(numbers):
        numbers = numbers(query) if query is not None else numbers()
    return hashlib.sha256(f"{text}\x00{numbers}".encode()).hexdigest()[:12]


def _questions_run(conversation, factory, measure) -> list[str]:
    """Feed the conversation as the evaluator does, then one digest per question (one
    in all for a memory whose context takes no query)."""
    import inspect
    memory = factory(measure)
    keywords = "speaker" in inspect.signature(memory.add).parameters
    for turn in conversation.turns:
        content, extra = render_turn(turn, keywords)
        memory.add(conversation.role_of(turn.speaker), content, **extra)
    if "query" not in inspect.signature(memory.context).parameters:
        return [_digest(memory)]
    return [_digest(memory, q.question) for q in conversation.questions]


BM25 = {"embedder": None}                # recall memory without the embedding model


def _policy_runs(conversations, budgets, search=BM25, names=None) -> dict[str, list[str]]:
    """As the benchmark runs them: one measure cache, and the recall strategies'
    indexes sharing their scores and rankings (:class:`kit.memory.SharedScores`)."""
    measure, runs, shared = CachedMeasure(), {}, SharedScores()
    for conversation in conversations:
        for budget in budgets:
            for name, factory in strategy_factories(budget, names, search=search,
                                                    shared=shared).items():
                runs[f"{conversation.name} {name} {budget}"] = _questions_run(
                    conversation, factory, measure)
    return runs


def _live(memory, turns, keywords=False) -> list[str]:
    """Add each turn; load the context after every user turn (no query: the newest
    user message is the question)."""
    out = []
    for turn in turns:
        role, content, extra = turn if keywords else (*turn, {})
        memory.add(role, content, **extra)
        if role == "user":
            out.append(_digest(memory))
    return out


def chat_runs() -> dict[str, list[str]]:
    """The runs without LoCoMo: a synthetic conversation's questions, and long chats
    loaded at every user turn."""
    runs = _policy_runs([synthetic_conversation(8, 20, seed=3)], (1000, 2000))
    measure = CachedMeasure()
    chat = shopping_chat(800)
    runs["shopping recall 600"] = _live(RecallMemory(600, measure, search=_bm25()), chat)
    runs["shopping hybrid 600"] = _live(RecallMemory(
        600, measure, summariser=make_extractive_summariser(150, measure), search=_bm25()),
        chat)
    runs["shopping summary 600"] = _live(SummaryMemory(
        make_extractive_summariser(150, measure), 600, 4, measure, count="rendered"), chat)
    runs["shopping window 600"] = _live(TokenWindow(600, measure, count="rendered"), chat)
    synthetic = synthetic_conversation(12, 24, seed=5)
    turns = [(synthetic.role_of(t.speaker), *render_turn(t, True)) for t in synthetic.turns]
    runs["synthetic live recall 800"] = _live(RecallMemory(800, measure, search=_bm25()),
                                              turns, True)
    runs["synthetic live hybrid 800"] = _live(RecallMemory(
        800, measure, summariser=make_extractive_summariser(200, measure), search=_bm25()),
        turns, True)
    runs["synthetic unshared recall 1000"] = _questions_run(     # scored alone: the same
        synthetic_conversation(8, 20, seed=3), strategy_factories(1000, search=BM25)["recall"],
        measure)
    return runs


def _bm25() -> RecallSearch:
    return RecallSearch(embedder=None)


def model_runs() -> dict[str, list[str]]:
    """Recall memory with its defaults, the packaged model on: the recall strategies on
    the synthetic conversation at 1,000 and 2,000 tokens, and recall memory loaded live
    at every user turn of a shorter one."""
    runs = _policy_runs([synthetic_conversation(8, 20, seed=3)], (1000, 2000), {},
                        ["recall", "recall + RRF", "hybrid"])
    synthetic = synthetic_conversation(6, 16, seed=5)
    turns = [(synthetic.role_of(t.speaker), *render_turn(t, True)) for t in synthetic.turns]
    runs["synthetic live recall 600"] = _live(RecallMemory(600, CachedMeasure()), turns, True)
    return runs


def locomo_runs() -> dict[str, list[str]]:
    """The whole memory-policy benchmark on the shared LoCoMo conversations."""
    return _policy_runs(load_locomo_dir(only=["26", "30"]), BUDGETS)


def _golden() -> dict[str, dict[str, list[str]]]:
    return json.loads(GOLDEN.read_text())


def _compare(found: dict[str, list[str]], expected: dict[str, list[str]]) -> None:
    assert list(found) == list(expected)
    for name, digests in expected.items():
        loads = found[name]
        assert len(loads) == len(digests), f"{name}: {len(loads)} loads, expected {len(digests)}"
        first = next((i for i, (a, b) in enumerate(zip(loads, digests)) if a != b), None)
        assert first is None, f"{name}: load {first + 1} of {len(digests)} differs"


def test_chat_contexts_unchanged():
    _compare(chat_runs(), _golden()["chat"])


@pytest.mark.skipif(not semantic_available(),
                    reason='needs the semantic extra: pip install -e ".[semantic]"')
def test_the_default_with_the_model_gives_its_pinned_contexts():
    _compare(model_runs(), _golden()["model"])


def test_locomo_benchmark_contexts_unchanged():
    try:
        runs = locomo_runs()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    _compare(runs, _golden()["locomo"])


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    GOLDEN.write_text(json.dumps({"chat": chat_runs(), "locomo": locomo_runs(),
                                  "model": model_runs()}, indent=0) + "\n")
    print(f"wrote {GOLDEN}")
