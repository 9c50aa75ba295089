"""Packaging rules: pyproject.toml is the one dependency list.

environment.yml may only bring Python (>= 3.10) and pip from conda and install
this repository through pip; .ci/run only calls `make test`; pyproject.toml
has no `==` pins.
"""
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ALLOWED_PIP = re.compile(r"^(-e\s+)?\.(\[[a-z0-9_,\s-]+\])?$")  # ".", "-e .[lab,dev]"
PYTHON_SPEC = re.compile(r"^python\s*>=\s*3\.(\d+)")


def parse_environment(text: str) -> dict:
    """Parse the small YAML subset environment.yml uses; ValueError on anything else.

    Supported: `key: value`, `key:` followed by `- item` lines, and one nested
    `- pip:` list. Returns e.g. {"name": "...", "channels": [...],
    "dependencies": ["python>=3.10", "pip", {"pip": ["-e .[lab,dev]"]}]}.
    """
    data, current, nested = {}, None, None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(" #")[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        indent, body = len(line) - len(line.lstrip()), line.strip()
        top = re.fullmatch(r"([A-Za-z_][\w-]*):\s*(.*)", body)
        if indent == 0 and top:
            key, value = top.groups()
            data[key] = value.strip("'\"") if value else []
            current, nested = (None, None) if value else (data[key], None)
        elif body.startswith("- ") and current is not None:
            item = body[2:].strip().strip("'\"")
            if nested is not None and indent > nested[0]:
                nested[1].append(item)
            elif item.endswith(":"):
                nested = (indent, [])
                current.append({item[:-1]: nested[1]})
            else:
                nested = None
                current.append(item)
        else:
            raise ValueError(f"environment.yml line {number}: cannot parse {raw!r}")
    return data


@pytest.fixture(scope="module")
def environment():
    return parse_environment((ROOT / "environment.yml").read_text(encoding="utf-8"))


def test_parser_reads_nested_pip_list_and_rejects_the_unknown():
    text = "name: x\ndependencies:\n  - python>=3.11  # comment\n  - pip:\n      - -e .[dev]\n  - pip\n"
    assert parse_environment(text) == {
        "name": "x", "dependencies": ["python>=3.11", {"pip": ["-e .[dev]"]}, "pip"]}
    with pytest.raises(ValueError, match="line 2"):
        parse_environment("name: x\n  stray: value\n")


def test_conda_brings_only_python_and_pip(environment):
    conda = [dep for dep in environment["dependencies"] if isinstance(dep, str)]
    names = [re.split(r"[\s=<>!~]", dep, maxsplit=1)[0] for dep in conda]
    assert sorted(names) == ["pip", "python"], f"conda dependencies {conda}: declare packages in pyproject.toml"


def test_pip_installs_only_this_repository(environment):
    sections = [dep["pip"] for dep in environment["dependencies"] if isinstance(dep, dict)]
    assert len(sections) == 1, "expected one `- pip:` section"
    assert sections[0], "the pip section is empty"
    for entry in sections[0]:
        assert ALLOWED_PIP.match(entry), f"pip entry {entry!r}: declare packages in pyproject.toml"


def test_python_is_at_least_3_10(environment):
    python = [d for d in environment["dependencies"] if isinstance(d, str) and d.startswith("python")]
    found = PYTHON_SPEC.match(python[0]) if python else None
    assert found and int(found.group(1)) >= 10, f"python entry {python} must ask for >=3.10"


def test_ci_only_runs_make_test():
    script = ROOT / ".ci" / "run"
    assert os.access(script, os.X_OK), ".ci/run is not executable"
    commands = [
        line.strip() for line in script.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.strip().startswith("#")
        and line.strip() != "set -euo pipefail" and not line.strip().startswith("cd ")
    ]
    assert commands == ["make test"], f".ci/run runs {commands}, expected only `make test`"


def load_toml(path: Path) -> dict:
    """pyproject.toml as a dict via tomllib (3.11+) or tomli; skip if neither exists."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        tomllib = pytest.importorskip("tomli", reason="Python 3.10 needs tomli to read TOML")
    with path.open("rb") as file:
        return tomllib.load(file)


def test_pyproject_has_no_exact_pins():
    pyproject = load_toml(ROOT / "pyproject.toml")
    requirements = list(pyproject.get("build-system", {}).get("requires", []))
    requirements += pyproject["project"].get("dependencies", [])
    for extra in pyproject["project"].get("optional-dependencies", {}).values():
        requirements += extra
    pinned = [req for req in requirements if "==" in req]
    assert not pinned, f"exact pins in pyproject.toml: {pinned}; use >= lower bounds"
