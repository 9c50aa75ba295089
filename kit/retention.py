"""Fact retention: plant facts early, replay a long chat, see which facts each memory kept.

The test of the summary-memory lesson ("plant a specific fact early, run 50 turns, check it
is still there"), run over several memories at once.
:func:`kit.conversations.shopping_chat` states an order id, an allergy and a budget in its
first exchange (:data:`kit.conversations.PLANTED_FACTS`) and never repeats them; each
strategy gets the same conversation and the same token budget, and a fact counts as kept if
its value appears verbatim in the memory's context at the end.

:data:`STRATEGIES` maps a name to a factory ``budget -> Memory``:

- the sliding window (6 messages: it counts messages, so it ignores the budget) and
  the token window forget the facts once the window slides;
- a careless summary (a "summarise in a sentence or two" prompt) keeps a short gist
  and drops the numbers;
- a preserving summary (a prompt that lists what to keep) keeps them;
- the extractive summary (:mod:`kit.extractive`, no model, capped at half the
  budget) keeps them by rule.

Careless and preserving summary use the same stub model, :func:`summary_stub`
(:func:`kit.llm.prompt_following_summariser`); only the prompt differs
(:data:`~kit.memory.CARELESS_PROMPT` vs :data:`~kit.memory.SUMMARY_PROMPT`), so the
table shows that the prompt decides what survives. Asked for "a sentence or two", the
stub answers as a real model would: a gist of at most :data:`CARELESS_WORDS` words,
numbers and ids dropped. So the careless summary stays short (its context and model
calls are those of a summary that fits) and loses the facts all the same.

The summarisers are the deterministic stubs of :mod:`kit.llm`; with a real model the
same harness measures the real prompt.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from kit.conversations import PLANTED_FACTS, Turn, facts_in, replay, shopping_chat
from kit.extractive import make_extractive_summariser
from kit.llm import CountingLLM, prompt_following_summariser
from kit.memory import (CARELESS_PROMPT, SUMMARY_PROMPT, Memory, SlidingWindow,
                        SummaryMemory, TokenWindow)
from kit.tokens import approx_tokens
from kit.trace import Table
from kit.validation import check_budget, check_int

__all__ = ["Strategy", "STRATEGIES", "DEFAULT_BUDGET", "KEEP_RECENT", "WINDOW_MESSAGES",
           "CARELESS_WORDS", "summary_stub", "RetentionRow", "retention", "retention_table"]

Strategy = Callable[[int], Memory]      # token budget -> a fresh, empty memory
DEFAULT_BUDGET = 200                    # tokens (approx_tokens)
KEEP_RECENT = 4                         # turns every summary memory keeps verbatim
WINDOW_MESSAGES = 6                     # the sliding window counts messages, not tokens
CARELESS_WORDS = 30                     # "a sentence or two", in words


def summary_stub(prompt: str) -> str:
    """The stub model of both summary strategies: ``prompt -> summary``.

    :func:`kit.llm.prompt_following_summariser` with ``max_words=CARELESS_WORDS``: under
    a prompt that lists what to keep it keeps every turn with a fact (and grows with
    them); under a careless prompt its gist stays within :data:`CARELESS_WORDS` words.
    Raises as :func:`kit.llm.prompt_following_summariser` does.
    """
    return prompt_following_summariser(prompt, max_words=CARELESS_WORDS)


STRATEGIES: dict[str, Strategy] = {      # sizes in approx_tokens, as the published tables
    f"sliding window ({WINDOW_MESSAGES} messages)":
        lambda budget: SlidingWindow(WINDOW_MESSAGES, approx_tokens),
    "token window": lambda budget: TokenWindow(budget, approx_tokens),
    "careless summary": lambda budget: SummaryMemory(
        summary_stub, budget, KEEP_RECENT, approx_tokens, CARELESS_PROMPT),
    "preserving summary": lambda budget: SummaryMemory(
        summary_stub, budget, KEEP_RECENT, approx_tokens, SUMMARY_PROMPT),
    "extractive summary": lambda budget: SummaryMemory(
        make_extractive_summariser(cap=max(1, budget // 2)), budget, KEEP_RECENT, approx_tokens),
}


@dataclass(frozen=True)
class RetentionRow:
    """One strategy after one replay.

    ``messages``: messages replayed; ``kept`` / ``lost``: names of the planted facts
    found / not found verbatim in the final context; ``context_tokens``: the memory's
    ``size`` at the end (in its unit, tokens by default); ``model_calls``: summariser
    calls (0 for a window); ``summariser_tokens``: tokens sent to the summariser in
    all (prompts, approx_tokens).
    """

    strategy: str
    messages: int
    kept: tuple[str, ...]
    lost: tuple[str, ...]
    context_tokens: int
    model_calls: int
    summariser_tokens: int

    @property
    def total(self) -> int:
        """Number of planted facts."""
        return len(self.kept) + len(self.lost)


def _run(name: str, factory: Strategy, turns: list[Turn], budget: int,
         facts: Mapping[str, str]) -> RetentionRow:
    memory = factory(budget)
    if not isinstance(memory, Memory):
        raise TypeError(f"strategy {name!r} must build a kit.memory.Memory, got {memory!r:.60}")
    counter = None
    if isinstance(memory, SummaryMemory):      # count the summariser's calls and tokens
        counter = memory.summariser = CountingLLM(memory.summariser)
    replay(memory, turns)
    found = facts_in(memory.context(), dict(facts))
    return RetentionRow(name, len(turns), tuple(f for f, ok in found.items() if ok),
                        tuple(f for f, ok in found.items() if not ok), memory.size,
                        counter.calls if counter else 0, counter.prompt_tokens if counter else 0)


def retention(strategies: Mapping[str, Strategy] = STRATEGIES,
              lengths: Iterable[int] = (50, 200), budget: int = DEFAULT_BUDGET,
              chat: Callable[[int], list[Turn]] = shopping_chat,
              facts: Mapping[str, str] = PLANTED_FACTS) -> list[RetentionRow]:
    """Replay ``chat(n)`` for each n in ``lengths`` into a fresh memory of each strategy.

    ``budget``: int > 0, tokens, passed to every factory; ``chat``: ``n -> turns``
    with ``facts`` planted early (default: the shopping chat and its planted facts).
    Returns one :class:`RetentionRow` per (strategy, length), strategies in the given
    order, each over its lengths. Raises TypeError / ValueError naming a bad budget,
    length (int >= 2) or strategy.
    """
    check_budget(budget)
    lengths = [check_int("length", n, 2) for n in lengths]
    if not strategies:
        raise ValueError(f"strategies must name at least one memory, got {strategies!r}")
    chats = {n: chat(n) for n in lengths}
    return [_run(name, factory, chats[n], budget, facts)
            for name, factory in strategies.items() for n in lengths]


def retention_table(rows: Iterable[RetentionRow], title: str = "") -> Table:
    """One line per row: strategy, messages, facts kept (k/total), lost, context
    tokens, model calls and summariser prompt tokens."""
    return Table(["strategy", "messages", "facts kept", "lost", "context (tokens)",
                  "model calls", "summariser prompts (tokens)"],
                 [[r.strategy, r.messages, f"{len(r.kept)}/{r.total}",
                   ", ".join(r.lost) or "-", r.context_tokens, r.model_calls,
                   r.summariser_tokens] for r in rows], title)
