"""kit.rag re-exports every public name of its modules, each exactly once."""
import importlib

import pytest

import kit.rag

MODULES = ["documents", "goldset", "retrieval", "rewrite", "citations", "guardrail", "metrics",
           "chatbot", "cod", "judge", "stub_models", "evaluate", "multiturn"]


@pytest.mark.parametrize("name", MODULES)
def test_every_public_name_is_importable_from_kit_rag(name):
    module = importlib.import_module(f"kit.rag.{name}")
    assert module.__all__, name
    for public in module.__all__:
        assert public in kit.rag.__all__, f"kit.rag.{name}.{public} is not re-exported"
        assert getattr(kit.rag, public) is getattr(module, public), public


def test_the_package_lists_nothing_else_and_nothing_twice():
    names = [n for m in MODULES for n in importlib.import_module(f"kit.rag.{m}").__all__]
    assert len(names) == len(set(names))                   # no two modules share a name
    assert sorted(kit.rag.__all__) == sorted(names)


def test_evaluate_and_judge_are_the_functions():
    from kit.rag.evaluate import evaluate
    from kit.rag.judge import judge
    assert (kit.rag.evaluate, kit.rag.judge) == (evaluate, judge)


def test_every_module_of_the_package_is_listed():
    from pathlib import Path
    files = {p.stem for p in Path(kit.rag.__file__).parent.glob("*.py")} - {"__init__"}
    assert files == set(MODULES)
