"""Lesson tooling: execute the solution notebooks, generate the learner notebooks.

`solutions/NN_topic.ipynb` is the source of every lesson (executed, outputs
committed). `notebooks/NN_topic.ipynb` is generated from it for learners and
never edited by hand: everything in `notebooks/` may be overwritten or deleted.

Usage (from the repository root):

    python tools/lessons.py execute [NAMES...]  # run solutions/ in place
    python tools/lessons.py generate            # write notebooks/ from solutions/
    python tools/lessons.py check               # exit 1 if notebooks/ is stale

NAMES are lesson file names, with or without `.ipynb` (`01_tokens`).

Solution markers (nbgrader style). In a code cell the lines from
`### BEGIN SOLUTION` to `### END SOLUTION` (both inclusive, matched after
stripping whitespace) become one line
`raise NotImplementedError("Exercise: write your answer here")` at the
indentation of the BEGIN line. In a markdown cell they become
`_Write your answer here._`.

Cell tags used by the lessons:

- `nbval-skip`: not run by nbval (the first cell, which prints versions).
- `nbval-ignore-output`: run by nbval, output not compared (widget cells).
- `exercise`: a code cell whose answer sits between the solution markers.
- `check`: calls the learner's function through a checker from `kit.checks...`;
  prints one pass line, or raises AssertionError with a hint. In `notebooks/`
  it fails (NotImplementedError from the stub) until the learner answers.
- `raises-exception`: a cell meant to show an error; the error is its output.

Errors: a malformed marker block raises ValueError naming the cell and line;
`execute` exits 1 naming the notebook and cell on an unexpected error.
"""
from __future__ import annotations

import argparse
import copy
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"
LESSON_GLOB = "[0-9][0-9]_*.ipynb"

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
CODE_STUB = 'raise NotImplementedError("Exercise: write your answer here")'
MARKDOWN_STUB = "_Write your answer here._"
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
CELL_TIMEOUT = 300  # seconds per cell
CELL_METADATA_NOISE = ("execution", "ExecuteTime")  # timestamps, differ on every run

__all__ = [
    "lesson_paths", "read", "render", "replace_solutions", "learner_version",
    "run", "error_output", "execute", "expected_notebooks", "plan", "drift", "generate", "main",
]


class LessonError(Exception):
    """A lesson could not be executed or generated; the message names file and cell."""


def lesson_paths(folder: Path = SOLUTIONS) -> list[Path]:
    """The `NN_*.ipynb` lessons in `folder`, sorted by name (empty if none)."""
    return sorted(folder.glob(LESSON_GLOB))


def read(path: Path) -> nbformat.NotebookNode:
    """Read a notebook file as nbformat version 4 (FileNotFoundError if missing)."""
    return nbformat.reads(Path(path).read_text(encoding="utf-8"), as_version=4)


def render(nb: nbformat.NotebookNode) -> str:
    """The exact file text for `nb`: nbformat 4 JSON, sorted keys, trailing newline."""
    text = nbformat.writes(nb, version=4)
    return text if text.endswith("\n") else text + "\n"


def replace_solutions(source: str, stub: str) -> str:
    """Replace each BEGIN..END SOLUTION block of `source` by `stub`, indented like BEGIN.

    Raises ValueError (naming the 1-based line) on a nested BEGIN, an END without
    BEGIN, or a BEGIN without END.
    """
    kept, inside, indent = [], False, ""
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        marker = line.strip()
        if marker == BEGIN:
            if inside:
                raise ValueError(f"line {number}: {BEGIN!r} inside another solution block")
            inside, indent = True, line[: len(line) - len(line.lstrip())]
        elif marker == END:
            if not inside:
                raise ValueError(f"line {number}: {END!r} without {BEGIN!r}")
            inside = False
            kept.append(indent + stub + ("\n" if line.endswith("\n") else ""))
        elif not inside:
            kept.append(line)
    if inside:
        raise ValueError(f"{BEGIN!r} without {END!r}")
    return "".join(kept)


def learner_version(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of solution notebook `nb` for learners: answers stubbed, outputs cleared.

    Cell tags and the kernelspec are kept; widget state, `language_info.version`
    and per-cell timing metadata are dropped so the result does not depend on
    the machine that executed the solution. Raises ValueError naming the cell
    index on malformed solution markers.
    """
    learner = copy.deepcopy(nb)
    learner.metadata.pop("widgets", None)
    learner.metadata.get("language_info", {}).pop("version", None)
    for index, cell in enumerate(learner.cells):
        for key in CELL_METADATA_NOISE:
            cell.metadata.pop(key, None)
        stub = {"code": CODE_STUB, "markdown": MARKDOWN_STUB}.get(cell.cell_type)
        if stub is None:
            continue
        try:
            cell.source = replace_solutions(cell.source, stub)
        except ValueError as err:
            raise ValueError(f"cell {index}: {err}") from None
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return learner


def run(nb: nbformat.NotebookNode, cwd: Path, allow_errors: bool = False) -> nbformat.NotebookNode:
    """Execute `nb` in place in a fresh `python3` kernel started in `cwd`; return it.

    The kernel imports `kit` from this checkout (repo root first on PYTHONPATH).
    With allow_errors=False the first error in a cell not tagged
    `raises-exception` raises nbclient's CellExecutionError.
    """
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    client = NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name="python3", allow_errors=allow_errors,
        record_timing=False, resources={"metadata": {"path": str(cwd)}},
    )
    return client.execute(env=env)


def error_output(cell: nbformat.NotebookNode) -> nbformat.NotebookNode | None:
    """The first `error` output of a code cell, or None."""
    return next((out for out in cell.get("outputs", []) if out.output_type == "error"), None)


def execute(path: Path) -> None:
    """Execute solution `path` in place (cwd = its folder); execution counts become 1..N.

    Raises LessonError naming the notebook and cell if a cell not tagged
    `raises-exception` fails, or a tagged one raises nothing; the file is then
    left unchanged.
    """
    nb = read(path)
    try:
        run(nb, cwd=path.parent)
    except CellExecutionError as err:
        index = next(
            (i for i, cell in enumerate(nb.cells) if error_output(cell)
             and "raises-exception" not in cell.metadata.get("tags", [])), "?")
        raise LessonError(f"{path.relative_to(ROOT)}: cell {index} failed:\n{err}") from None
    for index, cell in enumerate(nb.cells):
        if "raises-exception" in cell.metadata.get("tags", []) and not error_output(cell):
            raise LessonError(f"{path.relative_to(ROOT)}: cell {index} is tagged "
                              "raises-exception but raised nothing")
    nb.metadata.pop("widgets", None)      # widget state holds random model ids
    path.write_text(render(nb), encoding="utf-8", newline="\n")


def expected_notebooks() -> dict[str, str]:
    """File name -> text that `generate` writes to notebooks/, one per solution."""
    expected = {}
    for path in lesson_paths(SOLUTIONS):
        try:
            expected[path.name] = render(learner_version(read(path)))
        except ValueError as err:
            raise LessonError(f"{path.relative_to(ROOT)}: {err}") from None
    return expected


def plan() -> list[tuple[str, str, str | None]]:
    """What `generate` would change: (action, file name, new text) tuples.

    action is "create" or "update" (with the text) or "delete" (a notebook
    without a solution, text None). Empty when notebooks/ is up to date.
    """
    expected = expected_notebooks()
    present = {path.name: path for path in NOTEBOOKS.glob("*.ipynb")}
    changes = [("delete", name, None) for name in sorted(present.keys() - expected.keys())]
    for name, text in expected.items():
        if name not in present:
            changes.append(("create", name, text))
        elif present[name].read_text(encoding="utf-8") != text:
            changes.append(("update", name, text))
    return changes


def drift() -> list[str]:
    """Differences between notebooks/ and `generate`'s output, one line per file."""
    return [f"{action}: notebooks/{name}" for action, name, _ in plan()]


def generate() -> list[str]:
    """Write notebooks/ from solutions/ (changed files only); return the changes made."""
    changes = plan()
    NOTEBOOKS.mkdir(exist_ok=True)
    for action, name, text in changes:
        if action == "delete":
            (NOTEBOOKS / name).unlink()
        else:
            (NOTEBOOKS / name).write_text(text, encoding="utf-8", newline="\n")
    return [f"{action}d notebooks/{name}" for action, name, _ in changes]  # created, ...


def solution_path(name: str) -> Path:
    """solutions/<name>.ipynb for a lesson name; raises LessonError if missing."""
    file_name = Path(name).name
    path = SOLUTIONS / (file_name if file_name.endswith(".ipynb") else file_name + ".ipynb")
    if not path.is_file():
        raise LessonError(f"no lesson {name!r}: {path.relative_to(ROOT)} does not exist")
    return path


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the process exit code (0 ok, 1 failure)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    execute_cmd = commands.add_parser("execute", help="run solutions/ notebooks in place")
    execute_cmd.add_argument("names", nargs="*", help="lesson names (default: all)")
    commands.add_parser("generate", help="write notebooks/ from solutions/")
    commands.add_parser("check", help="exit 1 if notebooks/ differs from solutions/")
    args = parser.parse_args(argv)
    try:
        if args.command == "execute":
            paths = [solution_path(n) for n in args.names] or lesson_paths(SOLUTIONS)
            for path in paths:
                print(f"executing {path.relative_to(ROOT)}", flush=True)
                execute(path)
        elif args.command == "generate":
            changes = generate()
            print("\n".join(changes) or "notebooks/ already up to date")
        else:
            problems = drift()
            if problems:
                print("notebooks/ is out of date; run `python tools/lessons.py generate`:",
                      *problems, sep="\n  ", file=sys.stderr)
                return 1
            print(f"OK: notebooks/ matches solutions/ ({len(lesson_paths(SOLUTIONS))} lessons)")
    except LessonError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
