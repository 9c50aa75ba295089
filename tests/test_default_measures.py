"""Every default measure in the kit counts with the tokenizer (cl100k_base).

Characters / 4 counts 13 cl100k tokens of Chinese as 3 and 28 tokens of emoji as 5: a
map-reduce batch or a summary cap sized by it overflows the real window. It stays in the
kit as a measure a lesson names to show exactly that, never as a default.
"""
import importlib
import inspect
import pkgutil

import pytest

import kit
from kit.extractive import extractive_summariser, make_extractive_summariser
from kit.hierarchical import hierarchical_summary
from kit.llm import CountingLLM
from kit.messages import make_message
from kit.prompts import build_summary_prompt
from kit.tokens import approx_tokens, cl100k_tokens, count_words

CHINESE = "我们明天下午三点在北京见面吧"          # 13 cl100k tokens, 3 by characters / 4
EMOJI = "🎉🎉🎉 party time 👩‍👩‍👧‍👦"                 # 28 cl100k tokens, 5 by characters / 4
# Named measures that are the lesson's own unit, not a default: lesson 03's explorer
# counts the laptop example in words, as the lesson does.
LESSON_UNITS = {("kit.widgets", "explore_summary"), ("kit.widgets", "summary_explorer")}


def test_the_samples_are_what_the_defaults_are_about():
    assert (cl100k_tokens(CHINESE), approx_tokens(CHINESE)) == (13, 3)
    assert (cl100k_tokens(EMOJI), approx_tokens(EMOJI)) == (28, 5)


def _defaults():
    """(module, callable, parameter, default) for every parameter named like a measure
    with a default, over every public function and method of kit."""
    for info in pkgutil.walk_packages(kit.__path__, "kit."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != info.name:
                continue
            functions = [obj] if inspect.isfunction(obj) else (
                [obj.__init__, *[v for v in vars(obj).values() if inspect.isfunction(v)]]
                if inspect.isclass(obj) else [])
            for function in functions:
                for parameter in inspect.signature(function).parameters.values():
                    if "measure" in parameter.name and parameter.default is not inspect._empty:
                        yield info.name, name, parameter.name, parameter.default


def test_no_default_measure_is_characters_over_four():
    found = list(_defaults())
    assert len(found) > 10                       # the scan reaches the kit's measures
    wrong = [(m, n, p) for m, n, p, default in found
             if default not in (cl100k_tokens, None) and (m, n) not in LESSON_UNITS]
    assert not wrong, f"defaults that do not count with the tokenizer: {wrong}"
    assert {(m, n) for m, n, _, d in found if d is count_words} == LESSON_UNITS


@pytest.mark.parametrize("text", [CHINESE, EMOJI])
def test_counting_llm_counts_prompts_in_cl100k_tokens(text):
    model = CountingLLM(lambda prompt: text)
    model(text)
    assert (model.prompt_tokens, model.reply_tokens) == (cl100k_tokens(text),) * 2


@pytest.mark.parametrize("text", [CHINESE, EMOJI])
def test_a_map_reduce_prompt_never_passes_its_window_in_real_tokens(text):
    items = [(f"m{i}", text) for i in range(12)]
    window = 120
    prompts = []

    def summarise(prompt: str) -> str:
        prompts.append(prompt)
        return "ok."

    hierarchical_summary(items, summarise, window=window, batch_size=10)
    assert len(prompts) > 2                       # the window, not batch_size, split them
    assert max(cl100k_tokens(p) for p in prompts) <= window


@pytest.mark.parametrize("text", [CHINESE, EMOJI])
def test_the_extractive_summary_cap_is_in_cl100k_tokens(text):
    turns = [make_message("user", f"{text} {i}.", cl100k_tokens, i) for i in range(1, 41)]
    prompt = build_summary_prompt("", turns)
    for summarise, cap in [(make_extractive_summariser(30), 30), (extractive_summariser, 120)]:
        assert cl100k_tokens(summarise(prompt)) <= cap


def test_a_summary_in_a_language_without_spaces_is_cut_to_its_cap():
    """A Chinese sentence is one "word": truncation cuts inside it, by characters, instead
    of keeping it whole over the cap."""
    from kit.memory.compaction import TRUNCATION_MARK, truncate_to_cap
    sentence = CHINESE * 6 + "。"
    cut = truncate_to_cap(sentence, 20, cl100k_tokens)
    assert cut.endswith(TRUNCATION_MARK) and sentence.startswith(cut[:-len(TRUNCATION_MARK)])
    assert 15 <= cl100k_tokens(cut) <= 20                 # the longest prefix that fits
    assert truncate_to_cap("短", 1, cl100k_tokens) == "短"   # one character: nothing to cut


def test_a_memory_of_chinese_turns_stays_within_its_budget():
    from kit.memory import RobustSummaryMemory
    from kit.prompts import parse_summary_prompt

    def never_shortens(prompt):
        summary, turns = parse_summary_prompt(prompt)
        return "".join([summary, *turns])

    memory = RobustSummaryMemory(never_shortens, 300, 2, fact_check=False)
    for i in range(30):
        memory.add("user" if i % 2 == 0 else "assistant", f"{CHINESE}{i}。" * 3)
        if memory.compactions:
            assert memory.size <= 300, (i, memory.size)


def test_a_word_of_which_not_one_character_fits_is_left_whole():
    from kit.memory.compaction import truncate_to_cap
    assert truncate_to_cap("ab", 1, len) == "ab"           # "a …" would be longer
    assert truncate_to_cap("中文", 1, cl100k_tokens) == "中文"
