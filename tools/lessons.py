"""Lesson tooling: execute the solution notebooks, generate the learner notebooks.

`solutions/NN_topic.ipynb` is the source of every lesson (executed, outputs
committed). `notebooks/NN_topic.ipynb` is generated from it for learners and
never edited by hand. A learner works in `work/`, an untracked copy of
`notebooks/` that `make lab` creates and nothing overwrites: the tests never
read it, so answers saved there never break `make test`.

Usage (from the repository root):

    python tools/lessons.py execute [NAMES...]  # run solutions/ in place
    python tools/lessons.py generate [--force]  # write notebooks/ from solutions/
    python tools/lessons.py check               # exit 1 if notebooks/ is stale
    python tools/lessons.py workspace [--dest DIR]       # copy missing lessons to work/
    python tools/lessons.py reset NAMES [--dest DIR]     # a fresh copy of these lessons

NAMES are lesson names: the file name with or without `.ipynb` (`01_tokens_and_cost`)
or its number (`01`).

`generate` refuses to overwrite or delete a file in `notebooks/` that holds a
learner's work (outputs, execution counts, or an exercise cell without its
stub) unless given `--force`. `reset` keeps a copy it replaces, if it had
changes, as `work/backups/NN_topic-1.ipynb` (then `-2`, ...).

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
  it fails (NotImplementedError from the stub) until the learner answers, so
  the generator also tags it `raises-exception` there: Run All goes on past an
  unanswered exercise. In `solutions/` a check cell must pass.
- `raises-exception`: a cell meant to show an error; the error is its output.

Errors: a malformed marker block raises ValueError naming the cell and line;
`execute` exits 1 naming the notebook and cell on an unexpected error.
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"
WORK = ROOT / "work"            # the learner's copies (untracked; see `workspace`)
DRILLS = "drills"               # solutions/drills/, notebooks/drills/: the interview drills
MANIFEST_NAME = ".generated.json"   # in notebooks/: digests of what `generate` wrote
LESSON_GLOB = "[0-9][0-9]_*.ipynb"

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
CODE_STUB = 'raise NotImplementedError("Exercise: write your answer here")'
MARKDOWN_STUB = "_Write your answer here._"
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
CELL_TIMEOUT = 300  # seconds per cell
CELL_METADATA_NOISE = ("execution", "ExecuteTime")  # timestamps, differ on every run
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"  # needs saved widget state to show
SOLUTION_NOTE = ("*Your copy of this lesson: the worked solution, with every answer and output, "
                 "is `solutions/{name}` (open it from the file browser on the left). "
                 "To start this lesson over, close it and run `make reset LESSON={number}` in a terminal "
                 "at the repository root (your copy is kept in `work/backups/`).*")

__all__ = [
    "lesson_paths", "read", "render", "replace_solutions", "learner_version",
    "run", "error_output", "coalesce_streams", "static_widget_outputs", "execute", "expected_notebooks", "digest",
    "manifest", "manifest_text", "all_paths", "drill_starter", "plan", "drift", "holds_learner_work", "generate", "kernel_language_info", "workspace", "quiet_lab", "NO_NEWS",
    "backup_path", "reset",
    "main",
]


class LessonError(Exception):
    """A lesson could not be executed or generated; the message names file and cell."""


def lesson_paths(folder: Path = SOLUTIONS) -> list[Path]:
    """The `NN_*.ipynb` lessons in `folder`, sorted by name (empty if none)."""
    return sorted(folder.glob(LESSON_GLOB))


def all_paths(folder: Path) -> list[Path]:
    """The lessons of `folder`, then the drills of `folder/drills/` (both `NN_*.ipynb`)."""
    return lesson_paths(folder) + lesson_paths(folder / DRILLS)


def drill_starter(nb: nbformat.NotebookNode, name: str) -> str:
    """The plain `.py` starter of learner drill notebook `nb` (file name `name`): its
    exercise cells, one after the other, under a header saying how to check it."""
    drill = name.split("_", 1)[1].removesuffix(".ipynb").replace("_", "-")
    cells = [cell.source.strip("\n") for cell in nb.cells if "exercise" in cell.metadata.get("tags", [])]
    header = (f'"""Starter for the drill {drill}: write your answer, then check it with\n\n'
              f"    .venv/bin/python -m kit drill {drill} <this file>\n\n"
              f"(from the repository root; `python -m kit drill ...` with the environment "
              f"active).\nThe spec, hints and follow-ups are in the notebook "
              f'notebooks/drills/{name} (your copy: work/drills/{name})."""\n')
    return header + "\n" + "\n\n\n".join(cells) + "\n"


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


def learner_version(nb: nbformat.NotebookNode, name: str | None = None) -> nbformat.NotebookNode:
    """A copy of solution notebook `nb` for learners: answers stubbed, outputs cleared.

    Cell tags and the kernelspec are kept; check cells are also tagged
    `raises-exception` (Run All goes on past an unanswered exercise); widget
    state, `language_info.version` and per-cell timing metadata are dropped so
    the result does not depend on the machine that executed the solution. With
    `name` (the lesson's file name), a note under the first cell says where the
    worked solution is and how to reset the copy. Raises ValueError naming the
    cell index on malformed solution markers.
    """
    learner = copy.deepcopy(nb)
    learner.metadata.pop("widgets", None)
    learner.metadata.get("language_info", {}).pop("version", None)
    if name is not None and learner.cells and learner.cells[0].cell_type == "markdown":
        note = SOLUTION_NOTE.format(name=name, number=name.split("_", 1)[0]).replace(
            "this lesson", "this drill" if name.startswith(DRILLS + "/") else "this lesson")
        if note not in learner.cells[0].source:
            learner.cells[0].source = learner.cells[0].source.rstrip("\n") + "\n\n" + note
    for index, cell in enumerate(learner.cells):
        for key in CELL_METADATA_NOISE:
            cell.metadata.pop(key, None)
        tags = cell.metadata.get("tags", [])
        if "check" in tags and "raises-exception" not in tags:
            cell.metadata["tags"] = [*tags, "raises-exception"]
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


KERNEL_STARTS = 3    # tries to start a kernel before its notebook fails
KERNEL_STARTUP = 30  # seconds a try waits for the kernel's first answer (about 1 s when idle)


def kernel_started(start):
    """``start(timeout)``, called again while the kernel it starts fails to answer, up to
    KERNEL_STARTS times, each try waiting at most KERNEL_STARTUP seconds. A kernel can die
    before it answers (jupyter_client picks the kernel's ports, then the kernel binds them:
    another process can take one in between) or, rarely, start and never answer; either
    way jupyter_client shuts it down and raises, and a new one is started. Used for
    nbclient here and for nbval's kernel in conftest.py; only the start is retried, never a
    cell: what a notebook computes decides its tests."""
    for attempt in range(1, KERNEL_STARTS + 1):
        try:
            return start(KERNEL_STARTUP)
        except RuntimeError as error:
            failed_start = "before replying" in str(error) or "didn't respond" in str(error)
            if not failed_start or attempt == KERNEL_STARTS:
                raise
    raise AssertionError("unreachable")


def quiet_ipython_dir(folder: Path) -> Path:
    """Make ``folder`` an IPython directory whose kernels keep their history in memory, and
    return it: a kernel given it (``IPYTHONDIR``) reads none of the user's IPython startup
    files or configuration, and kernels side by side share no history database."""
    profile = Path(folder) / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    (profile / "ipython_config.py").write_text("c.HistoryManager.hist_file = ':memory:'\n")
    return Path(folder)


def run(nb: nbformat.NotebookNode, cwd: Path, allow_errors: bool = False) -> nbformat.NotebookNode:
    """Execute `nb` in place in a fresh `python3` kernel started in `cwd`; return it.
    A kernel that fails to answer is started again (:func:`kernel_started`); it reads
    no IPython configuration of the user's (:func:`quiet_ipython_dir`, unless
    IPYTHONDIR is set and not empty).

    The kernel imports `kit` from this checkout (repo root first on PYTHONPATH).
    With allow_errors=False the first error in a cell not tagged
    `raises-exception` raises nbclient's CellExecutionError.
    """
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory(prefix="kit-ipython-") as folder:
        if not env.get("IPYTHONDIR"):     # unset, or "" (which IPython takes as ".")
            env["IPYTHONDIR"] = str(quiet_ipython_dir(Path(folder)))
        return kernel_started(lambda startup: NotebookClient(
            nb, timeout=CELL_TIMEOUT, startup_timeout=startup, kernel_name="python3",
            allow_errors=allow_errors, record_timing=False,
            resources={"metadata": {"path": str(cwd)}},
        ).execute(env=env))


def error_output(cell: nbformat.NotebookNode) -> nbformat.NotebookNode | None:
    """The first `error` output of a code cell, or None."""
    return next((out for out in cell.get("outputs", []) if out.output_type == "error"), None)


def coalesce_streams(nb: nbformat.NotebookNode) -> None:
    """Merge each run of adjacent stdout (or stderr) outputs of a cell into one, in
    place: the kernel may send one printed line in two messages, and the saved file
    should not depend on that timing."""
    for cell in nb.cells:
        merged = []
        for out in cell.get("outputs", []):
            if (out.output_type == "stream" and merged and merged[-1].output_type == "stream"
                    and merged[-1].name == out.name):
                merged[-1].text += out.text
            else:
                merged.append(out)
        if "outputs" in cell:
            cell.outputs = merged


def static_widget_outputs(nb: nbformat.NotebookNode) -> None:
    """Drop the live-widget view from every output of `nb`, in place.

    A widget view shows only with the widget state, which is not saved (it holds
    random model ids), so a saved view would show as `VBox(children=...)` text.
    What the widget offered beside it (the kit's explorer adds an `image/png` of
    its current plot) is kept: the saved notebook shows that picture until re-run.
    """
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            out.get("data", {}).pop(WIDGET_VIEW, None)


def execute(path: Path) -> None:
    """Execute solution `path` in place (cwd = its folder); execution counts become 1..N.

    Widget outputs are saved as their static picture (:func:`static_widget_outputs`).
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
    static_widget_outputs(nb)
    coalesce_streams(nb)
    path.write_text(render(nb), encoding="utf-8", newline="\n")


def expected_notebooks() -> dict[str, str]:
    """Path in notebooks/ (``01_x.ipynb``, ``drills/01_y.ipynb``) -> the text `generate`
    writes there: one learner notebook per solution, and a ``.py`` starter per drill."""
    expected = {}
    for path in all_paths(SOLUTIONS):
        rel = path.relative_to(SOLUTIONS).as_posix()
        try:
            learner = learner_version(read(path), rel)
        except ValueError as err:
            raise LessonError(f"{path.relative_to(ROOT)}: {err}") from None
        expected[rel] = render(learner)
        if rel.startswith(DRILLS + "/"):
            expected[rel.removesuffix(".ipynb") + ".py"] = drill_starter(learner, path.name)
    return expected


def digest(text: str) -> str:
    """The sha256 of `text` (UTF-8), as hex: how the manifest names a generated file."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def manifest() -> dict[str, str]:
    """notebooks/.generated.json: file name -> digest of the text `generate` last wrote
    ({} if there is none or it cannot be read)."""
    try:
        recorded = json.loads((NOTEBOOKS / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return recorded if isinstance(recorded, dict) else {}


def manifest_text(expected: dict[str, str]) -> str:
    """The manifest `generate` writes for the texts `expected` (name -> text)."""
    return json.dumps({name: digest(text) for name, text in sorted(expected.items())},
                      indent=1) + "\n"


def plan() -> list[tuple[str, str, str | None]]:
    """What `generate` would change: (action, file name, new text) tuples.

    action is "create" or "update" (with the text) or "delete" (a `NN_*` lesson
    without a solution, text None; other files in notebooks/ are never touched).
    Empty when notebooks/ is up to date.
    """
    expected = expected_notebooks()
    present = {path.relative_to(NOTEBOOKS).as_posix(): path for path in
               all_paths(NOTEBOOKS) + sorted((NOTEBOOKS / DRILLS).glob("[0-9][0-9]_*.py"))}
    changes = [("delete", name, None) for name in sorted(present.keys() - expected.keys())]
    for name, text in expected.items():
        if name not in present:
            changes.append(("create", name, text))
        elif present[name].read_text(encoding="utf-8") != text:
            changes.append(("update", name, text))
    return changes


def drift() -> list[str]:
    """Differences between notebooks/ and `generate`'s output, one line per file (the
    manifest included)."""
    problems = [f"{action}: notebooks/{name}" for action, name, _ in plan()]
    path = NOTEBOOKS / MANIFEST_NAME
    if not path.is_file() or path.read_text(encoding="utf-8") != manifest_text(
            expected_notebooks()):
        problems.append(f"update: notebooks/{MANIFEST_NAME}")
    return problems


def holds_learner_work(path: Path, recorded: dict[str, str] | None = None) -> bool:
    """True if notebook file `path` may hold a learner's work, so nothing may overwrite
    or delete it unasked.

    With a manifest entry for it (`recorded`, default :func:`manifest`): any change
    from the text `generate` wrote. Without one: a code cell has outputs or an
    execution count, or an exercise cell lost its stub. A file that is not a readable
    notebook counts as work too (never delete what cannot be read).
    """
    recorded = manifest() if recorded is None else recorded
    key = path.relative_to(NOTEBOOKS).as_posix() if NOTEBOOKS in path.parents else path.name
    try:
        text = path.read_text(encoding="utf-8")
        if key in recorded:
            return digest(text) != recorded[key]
        if path.suffix == ".py":
            return True                         # a starter not in the manifest: keep it
        nb = nbformat.reads(text, as_version=4)
    except Exception:
        return True
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if cell.get("outputs") or cell.get("execution_count") is not None:
            return True
        if "exercise" in cell.metadata.get("tags", []) and CODE_STUB not in cell.source:
            return True
    return False


def generate(force: bool = False) -> list[str]:
    """Write notebooks/ from solutions/ (changed files only) and the manifest; return
    the changes made.

    Raises LessonError, writing nothing, if a file it would update or delete may hold a
    learner's work (:func:`holds_learner_work`), unless `force`.
    """
    changes = plan()
    recorded = manifest()
    kept = [name for action, name, _ in changes if action != "create"
            and holds_learner_work(NOTEBOOKS / name, recorded)]
    if kept and not force:
        raise LessonError(
            "notebooks/ " + ", ".join(kept) + (" was" if len(kept) == 1 else " were") +
            " changed since it was generated (answers, notes or outputs?): nothing written. "
            "Learners work in work/ (`make lab` copies the lessons there). To keep a copy, "
            "move it out first, e.g. `mv notebooks/" + kept[0] + " work/mine-" + kept[0] +
            "`. To overwrite anyway: `make notebooks FORCE=1` "
            "(or `python tools/lessons.py generate --force`).")
    NOTEBOOKS.mkdir(exist_ok=True)
    for action, name, text in changes:
        if action == "delete":
            (NOTEBOOKS / name).unlink()
        else:
            (NOTEBOOKS / name).parent.mkdir(parents=True, exist_ok=True)
            (NOTEBOOKS / name).write_text(text, encoding="utf-8", newline="\n")
    wanted, path = manifest_text(expected_notebooks()), NOTEBOOKS / MANIFEST_NAME
    if not path.is_file() or path.read_text(encoding="utf-8") != wanted:
        path.write_text(wanted, encoding="utf-8", newline="\n")
    return [f"{action}d notebooks/{name}" for action, name, _ in changes]  # created, ...


def lesson_path(name: str, folder: Path = SOLUTIONS) -> Path:
    """The lesson of `folder` that `name` names: its number ("03"), its stem
    ("03_summary_memory") or its file name (a leading folder is ignored). Raises
    LessonError naming `name` and the lessons there when none (or several) match."""
    if str(name).replace("\\", "/").startswith(DRILLS + "/"):
        folder, name = folder / DRILLS, str(name).split("/", 1)[1]     # "drills/02"
    stem = Path(name).name.removesuffix(".ipynb")
    lessons = lesson_paths(folder)
    number = stem.zfill(2) if stem.isdigit() and len(stem) <= 2 else None   # "3" is "03"
    found = [p for p in lessons if stem == p.stem or p.stem.split("_", 1)[0] in (stem, number)]
    if len(found) != 1:
        names = ", ".join(p.stem for p in lessons) or "none"
        raise LessonError(f"no single lesson {name!r} in {folder.name}/ (lessons: {names})")
    return found[0]


def solution_path(name: str) -> Path:
    """solutions/<name>.ipynb for a lesson name or number; raises LessonError if missing."""
    return lesson_path(name, SOLUTIONS)


def kernel_language_info() -> dict:
    """The `language_info` the python3 kernel of this interpreter reports (with
    `version`), as JupyterLab writes it into a notebook when it opens one."""
    from ipykernel.ipkernel import IPythonKernel
    return copy.deepcopy(IPythonKernel.language_info)


def working_text(source: Path) -> str:
    """The text of the learner's copy of notebook `source`: the same notebook with this
    interpreter's language_info, so that opening it in JupyterLab leaves it unmodified."""
    nb = read(source)
    nb.metadata["language_info"] = kernel_language_info()
    return render(nb)


def learner_folder(dest: Path | str | None) -> Path:
    """`dest` (default work/) checked to be a place for the learner's copies: not blank,
    not solutions/ or notebooks/ (or inside them), not an existing file. Raises
    LessonError naming it."""
    if dest is None:
        return WORK
    if not str(dest).strip():
        raise LessonError("--dest is blank: name the folder for your copies (default work/)")
    folder = Path(dest)
    resolved = folder.resolve()
    for kept in (SOLUTIONS, NOTEBOOKS):
        if resolved == kept.resolve() or kept.resolve() in resolved.parents:
            raise LessonError(f"--dest {dest} is inside {kept.name}/, which the tests check; "
                              f"your copies go elsewhere (default work/)")
    if folder.exists() and not folder.is_dir():
        raise LessonError(f"--dest {dest} is a file, not a folder")
    return folder


#: JupyterLab's "get notified about official Jupyter news?" pop-up would cover the first
#: lesson: the lab of this environment does not ask, and fetches no news (no network).
NO_NEWS = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false",
                                                           "checkForUpdates": False}}


def quiet_lab(prefix: Path | None = None) -> Path | None:
    """Write ``NO_NEWS`` into ``<prefix>/share/jupyter/lab/settings/overrides.json`` (the
    defaults of the JupyterLab installed in that environment, default ``sys.prefix``: the
    .venv or conda env the kit was installed in), keeping any other setting there; the
    user's own settings are not touched. Returns the file, or None when the environment
    is read-only (the lab then asks, as it would anyway)."""
    path = Path(prefix or sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    try:
        settings = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        if not isinstance(settings, dict):
            settings = {}
        for plugin, values in NO_NEWS.items():
            settings[plugin] = {**settings.get(plugin, {}), **values}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    except (OSError, ValueError):
        return None
    return path


def workspace(dest: Path | None = None) -> list[str]:
    """Copy each lesson of notebooks/ that `dest` (default work/) lacks; return the
    names created. Never changes a file (or link) that exists: the learner's work stays.
    Raises LessonError for a bad `dest` (:func:`learner_folder`)."""
    dest = learner_folder(dest)
    sources = all_paths(NOTEBOOKS) + sorted((NOTEBOOKS / DRILLS).glob("[0-9][0-9]_*.py"))
    texts = {}
    for path in sources:
        rel = path.relative_to(NOTEBOOKS).as_posix()
        if not ((dest / rel).exists() or (dest / rel).is_symlink()):
            texts[rel] = working_text(path) if path.suffix == ".ipynb" else \
                path.read_text(encoding="utf-8")
    for rel, text in texts.items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text(text, encoding="utf-8", newline="\n")
    return list(texts)


def backup_path(target: Path) -> Path:
    """A new file in `<target's folder>/backups/` for a copy of `target`:
    `NN_topic-1.ipynb`, then `-2`, ...; never one that exists."""
    folder = target.parent / "backups"
    n = 1
    while (folder / f"{target.stem}-{n}{target.suffix}").exists():
        n += 1
    return folder / f"{target.stem}-{n}{target.suffix}"


def reset(names: list[str], dest: Path | None = None) -> list[str]:
    """Replace the learner's copies of lessons `names` (names or numbers) in `dest`
    (default work/) by fresh ones from notebooks/. A copy with any change is first
    kept in `<dest>/backups/` under a new name (`NN_topic-1.ipynb`, `-2`, ...: a later
    reset never overwrites an earlier backup); an untouched copy is just replaced (a
    link is replaced by a file, its target left alone). Returns what was done, a line
    per lesson. Raises LessonError, changing nothing, on an empty list, an unknown
    name, a bad `dest` or a copy that is a folder."""
    if not names:
        raise LessonError("name the lesson to reset, e.g. `make reset LESSON=03`")
    dest = learner_folder(dest)
    sources = list(dict.fromkeys(lesson_path(name, NOTEBOOKS) for name in names))
    fresh = {source: working_text(source) for source in sources}   # all read first
    where = {source: source.relative_to(NOTEBOOKS).as_posix() for source in sources}
    for source in sources:
        if (dest / where[source]).is_dir():
            raise LessonError(f"{dest.name}/{where[source]} is a folder, not your notebook; "
                              f"move it away first")
    done = []
    for source in sources:
        target, text = dest / where[source], fresh[source]
        if target.is_file() and target.read_bytes() != text.encode("utf-8"):
            kept = backup_path(target)
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(target, kept)
            done.append(f"reset {dest.name}/{where[source]} (your previous copy is "
                        f"{kept.parent.relative_to(dest.parent).as_posix()}/{kept.name})")
        elif target.exists() or target.is_symlink():
            done.append(f"reset {dest.name}/{where[source]} (it had no changes)")
        else:
            done.append(f"created {dest.name}/{where[source]}")
        if target.is_symlink():
            target.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="\n")
    return done


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the process exit code (0 ok, 1 failure)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    execute_cmd = commands.add_parser("execute", help="run solutions/ notebooks in place")
    execute_cmd.add_argument("names", nargs="*", help="lesson names (default: all)")
    generate_cmd = commands.add_parser("generate", help="write notebooks/ from solutions/")
    generate_cmd.add_argument("--force", action="store_true",
                              help="overwrite notebooks that hold a learner's work")
    commands.add_parser("check", help="exit 1 if notebooks/ differs from solutions/")
    workspace_cmd = commands.add_parser("workspace", help="copy missing lessons to work/")
    reset_cmd = commands.add_parser("reset", help="replace the learner's copy of lessons")
    reset_cmd.add_argument("names", nargs="*", help="lesson names or numbers, e.g. 03")
    for command in (workspace_cmd, reset_cmd):
        command.add_argument("--dest", default=None,
                             help="the learner's folder (default: work/)")
    args = parser.parse_args(argv)
    try:
        if args.command == "execute":
            paths = [solution_path(n) for n in args.names] or all_paths(SOLUTIONS)
            for path in paths:
                print(f"executing {path.relative_to(ROOT)}", flush=True)
                execute(path)
        elif args.command == "generate":
            changes = generate(force=args.force)
            print("\n".join(changes) or "notebooks/ already up to date")
        elif args.command == "workspace":
            quiet_lab()                       # no news pop-up over the first lesson
            created = workspace(args.dest)
            folder = learner_folder(args.dest).name
            print(f"{folder}/: copied {', '.join(created)}" if created
                  else f"{folder}/: every lesson is there; your copies are unchanged")
        elif args.command == "reset":
            print("\n".join(reset(args.names, args.dest)))
        else:
            problems = drift()
            if problems:
                print("notebooks/ is out of date; run `python tools/lessons.py generate`"
                      " (learners: your answers belong in work/, see README):",
                      *problems, sep="\n  ", file=sys.stderr)
                return 1
            print(f"OK: notebooks/ matches solutions/ ({len(lesson_paths(SOLUTIONS))} lessons)")
    except (LessonError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
