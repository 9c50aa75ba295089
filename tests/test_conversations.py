"""Sample conversations and the replay helpers."""
import pytest

from kit.conversations import (PLANTED_FACTS, facts_in, prompt_costs, replay,
                               shopping_chat)
from kit.memory import FullHistory, SlidingWindow
from kit.tokens import count_words


def test_shopping_chat_is_deterministic_and_plants_facts():
    chat = shopping_chat(50, seed=3)
    assert chat == shopping_chat(50, seed=3) and chat != shopping_chat(50, seed=4)
    assert len(chat) == 50 and [r for r, _ in chat[:4]] == ["user", "assistant"] * 2
    assert all(facts_in(chat[0][1]).values())
    assert not any(any(facts_in(text).values()) for _, text in chat[2:])
    with pytest.raises(ValueError, match=">= 2, got 1"):
        shopping_chat(1)


def test_prompt_costs_full_history_is_sum_of_prefixes():
    chat = shopping_chat(20)
    sizes = [count_words(t) for _, t in chat]
    expected, total = [], 0
    for i in range(0, 20, 2):              # the model is called at each user message
        total += sum(sizes[: i + 1])
        expected.append(total)
    assert prompt_costs(FullHistory(count_words), chat) == expected


def test_full_history_cost_is_quadratic():
    small = prompt_costs(FullHistory(), shopping_chat(100))[-1]
    large = prompt_costs(FullHistory(), shopping_chat(200))[-1]
    assert 3.5 < large / small < 4.5


def test_window_forgets_planted_facts():
    memory = SlidingWindow(6)
    replay(memory, shopping_chat(40))
    assert facts_in(memory.context()) == {name: False for name in PLANTED_FACTS}


def test_shopping_chat_needs_an_int_seed():
    with pytest.raises(TypeError, match="seed must be an int"):
        shopping_chat(10, seed=None)


def test_shopping_chat_needs_an_int_length():
    with pytest.raises(TypeError, match="n_messages must be an int, got 2.0"):
        shopping_chat(2.0)
