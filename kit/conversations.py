"""Sample conversations, the laptop trace, and helpers to replay them.

- :data:`LAPTOP_TURNS` and :func:`laptop_trace`: the worked example of the summary-memory
  lesson (budget 20 words, ``keep_recent=2``, word measure: sizes 7, 11, 19, 26 and one
  compaction at message 4).
- :func:`shopping_chat`: a deterministic synthetic conversation of any length with
  facts planted in its first turn (:data:`PLANTED_FACTS`).
- :func:`replay` and :func:`prompt_costs`: feed turns into a memory and read the
  sizes and the cumulative prompt tokens (the cost curve).
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from kit.llm import fact_listing_summariser
from kit.memory import Memory, SummaryMemory, TraceEvent
from kit.tokens import count_words
from kit.trace import Table, span

__all__ = ["Turn", "LAPTOP_TURNS", "laptop_memory", "laptop_trace", "PLANTED_FACTS",
           "shopping_chat", "replay", "prompt_costs", "facts_in"]

Turn = tuple[str, str]   # (role, content)

LAPTOP_TURNS: list[Turn] = [
    ("user", "I need a laptop under Rs 60000"),
    ("assistant", "For coding or gaming?"),
    ("user", "Coding, and it must weigh under 1.5 kg"),
    ("assistant", "Try the Zenbook 14 at Rs 57990"),
]


def laptop_memory() -> SummaryMemory:
    """The set-up of the summary-memory lesson after its four messages: budget 20 words,
    keep_recent=2, the fact-listing stub summariser."""
    memory = SummaryMemory(fact_listing_summariser, budget=20, keep_recent=2,
                           measure=count_words)
    replay(memory, LAPTOP_TURNS)
    return memory


def laptop_trace() -> Table:
    """The summary-memory lesson's table: after adding | turns | size (words) | compaction?"""
    memory = laptop_memory()
    rows = []
    for e in memory.trace:
        done = (f"yes: turns {span(e.moved)} folded into the summary" if e.compacted
                else f"no: {e.size_before} <= {memory.budget}")
        rows.append([f"message {e.message}", e.turns_before, e.size_before, done])
    return Table(["after adding", "turns", "size (words)", "compaction?"], rows,
                 f"Laptop trace: budget {memory.budget} words, "
                 f"keep_recent={memory.keep_recent}")


PLANTED_FACTS = {"order id": "88412", "allergy": "peanuts", "budget": "Rs 60000"}

_OPENING = ("Hi, my order id is 88412. I'm allergic to peanuts, and my budget is Rs 60000.",
            "Noted: order 88412, a peanut allergy and a budget of Rs 60000. How can I help?")
_TOPICS = ["a gift basket", "snack boxes", "a birthday cake", "party supplies", "a lunch hamper",
           "cookie tins", "a fruit crate", "chocolate bars", "trail mix", "granola packs"]
_ASKS = ["Do you have {t} in stock?", "What does {t} cost?", "Can {t} ship this week?",
         "Is {t} available in a larger size?", "Which colours does {t} come in?"]
_REPLIES = ["Yes, {t} is in stock in two sizes.", "{T} ships within three working days.",
            "We have {t} in red, blue and green.", "{T} comes gift-wrapped on request.",
            "A larger {t} is available for a small extra charge."]


def shopping_chat(n_messages: int, seed: int = 0) -> list[Turn]:
    """A deterministic shopping conversation of ``n_messages`` messages (user first).

    The first exchange states :data:`PLANTED_FACTS` (an order id, an allergy, a
    budget); later messages are small talk about products that never repeat them.
    Same ``seed``, same conversation. Raises ValueError if ``n_messages`` < 2,
    TypeError if ``n_messages`` or ``seed`` is not an int.
    """
    if isinstance(n_messages, bool) or not isinstance(n_messages, int):
        raise TypeError(f"n_messages must be an int, got {n_messages!r}")
    if n_messages < 2:
        raise ValueError(f"n_messages must be >= 2, got {n_messages!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int (same seed, same conversation), got {seed!r}")
    rng = random.Random(seed)
    turns: list[Turn] = [("user", _OPENING[0]), ("assistant", _OPENING[1])]
    while len(turns) < n_messages:
        topic = rng.choice(_TOPICS)
        turns.append(("user", rng.choice(_ASKS).format(t=topic)))
        reply = rng.choice(_REPLIES)
        turns.append(("assistant", reply.format(t=topic, T=topic[0].upper() + topic[1:])))
    return turns[:n_messages]


def replay(memory: Memory, turns: Iterable[Turn]) -> list[TraceEvent]:
    """Add every (role, content) turn to ``memory``; return the trace events of this replay."""
    return [memory.add(role, content) for role, content in turns]


def prompt_costs(memory: Memory, turns: Sequence[Turn]) -> list[int]:
    """Cumulative prompt size after each user message, in the memory's unit.

    The model is called once per user message with the whole context, so the bill is
    the running sum of the context size at each user message. Returns one number per
    user message.
    """
    total, costs = 0, []
    for role, content in turns:
        event = memory.add(role, content)
        if role == "user":
            total += event.size_after
            costs.append(total)
    return costs


def facts_in(text: str, facts: dict[str, str] = PLANTED_FACTS) -> dict[str, bool]:
    """Which planted facts appear verbatim in ``text``: ``{"order id": True, ...}``."""
    return {name: value in text for name, value in facts.items()}
