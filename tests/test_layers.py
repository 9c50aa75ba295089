"""The layers of kit: every import (at the top, inside a function, under TYPE_CHECKING)
points down or stays in its layer, and the imports between modules form no cycle.

From the bottom (DECISIONS: the layers):
0. tokens, messages, trace types, argument validation, the prompts and their layout,
   ranking helpers;
1. models and data: llm stubs, extractive, structured, the real-model client, LoCoMo;
2. memory;
3. features: persistence and the store, hierarchical, long-term, RAG, agents, the sample
   conversations;
4. evaluation: memory_eval, memory_scores, policy_bench, retention, the floor;
5. on the side: checks, mistakes, drills, widgets, plots, the command line, the package.
"""
import ast
import functools
import shutil
from pathlib import Path

import pytest

KIT = Path(__file__).resolve().parents[1] / "kit"
LAYERS = {
    0: ["kit.tokens", "kit.offline", "kit.messages", "kit.trace", "kit.validation",
        "kit.prompts", "kit.fence", "kit.ranking", "kit.sizing", "kit.textcache"],
    1: ["kit.llm", "kit.extractive", "kit.structured", "kit.openai_compat", "kit.locomo",
        "kit.synthetic", "kit.synthetic_changes",
        *sorted(f"kit.{p.stem}" for p in KIT.glob("synthetic_changes_blind*.py"))],
    2: ["kit.memory"],
    3: ["kit.persistence", "kit.store", "kit.hierarchical", "kit.longterm", "kit.rag", "kit.agent",
        "kit.conversations"],
    4: ["kit.memory_eval", "kit.memory_scores", "kit.policy_bench", "kit.retention",
        "kit.floor", "kit.reliability", "kit.ablation", "kit.serve", "kit.change_eval"],
    5: ["kit.checks", "kit.mistakes", "kit.drills", "kit.widgets", "kit.plots", "kit.__main__",
        "kit"],
}


def layer_of(module: str) -> int | None:
    """The layer of a kit module: that of the longest listed prefix; None if unlisted."""
    best = None
    for layer, names in LAYERS.items():
        for name in names:
            inside = module.startswith(name + ".") and name != "kit"   # "kit": the package
            if (module == name or inside) and (
                    best is None or len(name) > len(best[1])):
                best = (layer, name)
    return best[0] if best else None


def module_name(path: Path, root: Path) -> str:
    parts = ["kit", *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str, root: Path) -> bool:
    """Whether kit module ``name`` (``kit.rag``, ``kit.tokens``) is a file or package."""
    relative = Path(*name.split(".")[1:])
    return (root / relative).with_suffix(".py").is_file() or (root / relative).is_dir()


@functools.lru_cache(maxsize=1024)
def parsed(text: str) -> ast.Module:
    """``ast.parse(text)``, once per text: the planted-edge tests parse copies of the whole
    kit in which one file differs."""
    return ast.parse(text)


def imports(path: Path, root: Path) -> set[str]:
    """Every kit module a file imports, wherever the statement is: ``import``, ``from ...
    import`` (``from kit import rag`` counts as ``kit.rag``), and ``importlib.import_module``
    or ``__import__`` called with a string."""
    found, parts = set(), module_name(path, root).split(".")
    if path.name != "__init__.py":
        parts = parts[:-1]                          # the package the module is in
    for node in ast.walk(parsed(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "kit"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:                          # a relative import: resolve it
                base = parts[: len(parts) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name.split(".")[0] != "kit":
                continue
            subs = [f"{name}.{a.name}" for a in node.names if is_module(f"{name}.{a.name}", root)]
            found |= set(subs) if subs and len(subs) == len(node.names) else {name, *subs}
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else \
                getattr(node.func, "id", "")
            text = node.args[0].value
            if called in ("import_module", "__import__") and isinstance(text, str) \
                    and text.split(".")[0] == "kit":
                found.add(text)
    return found


def graph(root: Path) -> dict[str, set[str]]:
    return {module_name(p, root): imports(p, root) for p in sorted(root.rglob("*.py"))}


def layer_problems(root: Path) -> list[str]:
    """Edges that run up the layers, modules in no layer, and import cycles."""
    edges, problems = graph(root), []
    for module, targets in edges.items():
        here = layer_of(module)
        if here is None:
            problems.append(f"{module} is in no layer: add it to LAYERS")
            continue
        for target in sorted(targets):
            there = layer_of(target)
            if there is not None and there > here:
                problems.append(f"{module} (layer {here}) imports {target} (layer {there})")
    problems += [f"import cycle: {' -> '.join(cycle)}" for cycle in cycles(edges)]
    return problems


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected part of the module graph (a package and its own
    modules do not count: `kit.memory` re-exports `kit.memory.window`)."""
    def real(a, b):
        return b in edges and not b.startswith(a + ".") and not a.startswith(b + ".")
    found, state = [], {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(edges.get(node, ())):
            if not real(node, nxt):
                continue
            if state.get(nxt) == "open":
                found.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"
    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    return found


def test_every_import_in_kit_points_down_the_layers():
    assert layer_problems(KIT) == []


@pytest.mark.parametrize("planted, expected", [
    ("def plan():\n    from kit.rag.retrieval import rrf\n",
     "kit.memory.window (layer 2) imports kit.rag.retrieval (layer 3)"),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kit.persistence import restore\n",
     "kit.memory.window (layer 2) imports kit.persistence (layer 3)"),
    ("from ..checks import CheckFailed\n",
     "kit.memory.window (layer 2) imports kit.checks (layer 5)"),
    ("from kit import rag\n", "kit.memory.window (layer 2) imports kit.rag (layer 3)"),
    ("import importlib\ndef late():\n    return importlib.import_module('kit.rag.chatbot')\n",
     "kit.memory.window (layer 2) imports kit.rag.chatbot (layer 3)"),
    ("def late():\n    return __import__('kit.persistence')\n",
     "kit.memory.window (layer 2) imports kit.persistence (layer 3)"),
])

def test_a_planted_back_edge_is_found(tmp_path, planted, expected):
    root = tmp_path / "kit"
    shutil.copytree(KIT, root, ignore=shutil.ignore_patterns("__pycache__", "data"))
    window = root / "memory" / "window.py"
    window.write_text(window.read_text(encoding="utf-8") + "\n" + planted, encoding="utf-8")
    assert expected in layer_problems(root)


def test_a_planted_cycle_and_an_unlisted_module_are_found(tmp_path):
    root = tmp_path / "kit"
    shutil.copytree(KIT, root, ignore=shutil.ignore_patterns("__pycache__", "data"))
    (root / "rag" / "citations.py").write_text(
        (root / "rag" / "citations.py").read_text(encoding="utf-8")
        + "\ndef late():\n    from kit.rag.guardrail import check\n", encoding="utf-8")
    (root / "stray.py").write_text("x = 1\n", encoding="utf-8")
    problems = layer_problems(root)
    assert "kit.stray is in no layer: add it to LAYERS" in problems
    assert any(p.startswith("import cycle: ") and "kit.rag.citations" in p
               and "kit.rag.guardrail" in p for p in problems), problems


def test_a_downward_from_kit_import_is_not_an_up_edge(tmp_path):
    root = tmp_path / "kit"
    shutil.copytree(KIT, root, ignore=shutil.ignore_patterns("__pycache__", "data"))
    window = root / "memory" / "window.py"
    window.write_text(window.read_text(encoding="utf-8") + "\nfrom kit import tokens\n",
                      encoding="utf-8")
    assert layer_problems(root) == []
