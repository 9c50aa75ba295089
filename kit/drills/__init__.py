"""Live-coding drills: a blank-slate spec, a time box, a hidden suite and a scored rubric.

A drill is a mechanism the candidate writes from nothing (a class or a function with a
given name and signature), checked by the same harnesses as the lessons' whole-mechanism
exercises, but scored: one line per rubric category instead of a stop at the first
failure. The categories:

- **correctness**: the worked traces and the spec's cases;
- **failure safety**: injected model failures lose nothing and propagate;
- **edge cases**: empty input, a zero, a boundary, an item that can never fit;
- **complexity**: work counted by call counters (tokenizer calls, model calls), never
  by time.

Each drill is a module of this package with a :data:`DRILL` (see :class:`Drill`); the
notebooks are ``solutions/drills/NN_name.ipynb`` (model solutions) and
``notebooks/drills/`` (the learner versions, with a plain ``.py`` starter beside each).

    from kit.drills import start_drill, check_drill
    started = start_drill("summary-memory")
    ...                                     # write SummaryMemory
    check_drill("summary-memory", SummaryMemory, started)

From a terminal: ``python -m kit drill --list``, ``python -m kit drill NAME --spec`` (the
spec and its worked examples), ``python -m kit drill NAME --hint 1`` (then 2, then 3: the
hint ladder, one level at a time), ``python -m kit drill NAME FILE``. The rubric is
deterministic; the time taken is printed apart from it.
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import pkgutil
import re
import sys
import textwrap
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kit.checks import CheckFailed, safe_text

__all__ = ["CATEGORIES", "Drill", "Report", "drills", "get", "run", "candidate_report",
           "check_drill", "start_drill", "load_answer", "elapsed_text", "spec_text",
           "hint_text", "HINT_LEVELS"]

CATEGORIES = ("correctness", "failure safety", "edge cases", "complexity")
_WIDTH = 88


@dataclass(frozen=True)
class Drill:
    """One drill.

    ``name``: its id on the command line (``"summary-memory"``); ``title``; ``minutes``:
    the time box; ``symbol``: the name of the class or function the candidate writes;
    ``notebook``: the file stem in ``solutions/drills/`` (``"02_summary_memory"``);
    ``rubric``: category -> ``check(answer) -> int`` (cases passed; raises
    :class:`~kit.checks.CheckFailed` with a hint), one entry per category of
    :data:`CATEGORIES` that applies; ``talking_points``: what the candidate should say
    out loud, for self-grading; ``mechanism``: its name in :mod:`kit.mistakes`, if the
    registry has wrong answers for it.
    """

    name: str
    title: str
    minutes: int
    symbol: str
    notebook: str
    rubric: dict[str, Callable[[object], int]]
    talking_points: tuple[str, ...] = ()
    mechanism: str | None = None

    def __post_init__(self) -> None:
        unknown = set(self.rubric) - set(CATEGORIES)
        if unknown or not self.rubric:
            raise ValueError(f"drill {self.name!r}: rubric categories must be some of "
                             f"{CATEGORIES}, got {sorted(self.rubric)}")


@dataclass(frozen=True)
class Report:
    """The scored rubric of one check: ``rows`` are ``(category, passed, detail)`` in the
    order of :data:`CATEGORIES`; ``score`` counts the passed ones out of ``len(rows)``."""

    drill: Drill
    rows: tuple[tuple[str, bool, str], ...]
    elapsed: str = field(default="", compare=False)

    @property
    def score(self) -> tuple[int, int]:
        return sum(ok for _, ok, _ in self.rows), len(self.rows)

    @property
    def passed(self) -> bool:
        got, out_of = self.score
        return got == out_of

    def __repr__(self) -> str:
        got, out_of = self.score
        return f"Report({self.drill.name}: {got}/{out_of})"

    def text(self) -> str:
        """The rubric as plain text (deterministic: no time in it)."""
        lines = [f"Drill {self.drill.name}: {self.drill.title} ({self.drill.minutes} min)"]
        for category, ok, detail in self.rows:
            head = f"  {category:<15} {'PASS' if ok else 'FAIL'}  "
            lines += textwrap.wrap(detail, _WIDTH, initial_indent=head,
                                   subsequent_indent=" " * len(head)) or [head.rstrip()]
        got, out_of = self.score
        lines.append(f"score: {got}/{out_of}")
        if self.drill.talking_points:
            lines.append("Say it out loud (grade yourself):")
            lines += [f"  [ ] {point}" for point in self.drill.talking_points]
        return "\n".join(lines)


_PRISTINE: dict[str, dict[str, int]] = {}   # kit module -> {global name: id}, first seen


def _kit_globals() -> dict[str, dict[str, int]]:
    """The identity of every class, function and module that a loaded ``kit`` module holds
    as a global, and of each drill's rubric functions: what an answer must not replace to
    pass. (Data globals are left out: a module may fill a cache lazily.)"""
    seen = {name: {key: id(value) for key, value in vars(module).items()
                   if callable(value) or isinstance(value, types.ModuleType)}
            for name, module in list(sys.modules.items())
            if module is not None and (name == "kit" or name.startswith("kit."))}
    for drill in _DRILLS:
        seen[f"rubric of {drill.name}"] = {k: id(v) for k, v in drill.rubric.items()}
    return seen


def _tampered() -> str:
    """A kit global or rubric entry that changed since the drills were first loaded, or ""."""
    now = _kit_globals()
    for module, names in _PRISTINE.items():
        for key, ident in names.items():
            if now.get(module, {}).get(key, ident) != ident:
                return f"{module}.{key}" if not module.startswith("rubric") else f"the {module}"
    return ""


def _kit_made(answer: object) -> str:
    """The kit class or function the answer is (or inherits from), or "" (the registry of
    wrong answers, ``kit.mistakes``, does not count: it is there to be checked)."""
    kinds = answer.__mro__[:-1] if isinstance(answer, type) else (answer,)
    for kind in kinds:
        module = getattr(kind, "__module__", "") or ""
        if (module == "kit" or module.startswith("kit.")) and not module.startswith("kit.mistakes"):
            return f"{module}.{getattr(kind, '__qualname__', kind)}"
    return ""


def candidate_report(name: str, answer: object) -> Report:
    """:func:`run` for a candidate's answer: every category fails when the answer is the
    kit's own class or function, or builds on one (the drill is to write it)."""
    drill, made = get(name), _kit_made(answer)
    if made:
        return Report(drill, tuple((c, False, f"your {drill.symbol} is (or builds on) the "
                                              f"kit's own {made}: the drill is to write it")
                                   for c in CATEGORIES if c in drill.rubric))
    return run(name, answer)


_DRILLS: list[Drill] = []


def drills() -> list[Drill]:
    """Every drill (the ``DRILL`` of each module of this package), in notebook order."""
    if not _DRILLS:
        found = [getattr(importlib.import_module(f"{__name__}.{info.name}"), "DRILL", None)
                 for info in pkgutil.iter_modules(__path__)]
        _DRILLS.extend(sorted((d for d in found if isinstance(d, Drill)),
                              key=lambda d: d.notebook))
        _PRISTINE.update(_kit_globals())
    return list(_DRILLS)


def get(name: str) -> Drill:
    """The drill called ``name``; ValueError naming the known ones otherwise."""
    for drill in drills():
        if drill.name == name:
            return drill
    raise ValueError(f"no drill {name!r}; the drills: {', '.join(d.name for d in drills())}")


def run(name: str, answer: object) -> Report:
    """Run every rubric category of drill ``name`` on ``answer`` (the candidate's class or
    function); a category passes when its check returns, fails with the check's hint (or
    with "not written yet", or the error the candidate's code raised). Every category
    fails when a global of a ``kit`` module or a rubric entry changed since the drills were
    first loaded (an answer that patches its checker)."""
    drill = get(name)
    rows = []
    for category in CATEGORIES:
        check = drill.rubric.get(category)
        if check is None:
            continue
        try:
            cases = check(answer)
        except CheckFailed as failure:
            rows.append((category, False, safe_text(failure, 1000).replace("\n", " ")))
        except NotImplementedError:
            rows.append((category, False, f"{drill.symbol} is not written yet: replace the "
                                          f"`raise NotImplementedError` line with your answer"))
        except Exception as error:            # noqa: BLE001 (a crash is a failed category)
            rows.append((category, False, f"{drill.symbol} raised "
                                          f"{type(error).__name__}: {safe_text(error, 300)}"))
        else:
            rows.append((category, True, f"{cases} case{'s' * (cases != 1)}"
                                         if isinstance(cases, int) else ""))
    changed = _tampered()
    if changed:
        rows = [(category, False, f"{changed} was changed while your answer ran: a check "
                                  f"cannot be trusted after that") for category, _, _ in rows]
    return Report(drill, tuple(rows))


def elapsed_text(started: float | None, now: float | None = None) -> str:
    """``"time taken: 12 min 04 s"`` since ``started`` (seconds of ``time.time()``), or ""."""
    if started is None:
        return ""
    seconds = max(0, round((time.time() if now is None else now) - started))
    return f"time taken: {seconds // 60} min {seconds % 60:02d} s"


def start_drill(name: str) -> float:
    """Print the drill's time box and return the start time (``time.time()``), to pass
    to :func:`check_drill`."""
    drill = get(name)
    print(f"Drill {drill.name}: {drill.title}. Time box: {drill.minutes} min. Go.")
    return time.time()


def check_drill(name: str, answer: object, started: float | None = None) -> Report:
    """Print the scored rubric of ``answer`` (and the time taken since ``started``);
    return the report. Raises :class:`~kit.checks.CheckFailed` after printing when a
    category failed, so a notebook's check cell shows it failed."""
    report = candidate_report(name, answer)
    print(report.text())
    elapsed = elapsed_text(started)
    if elapsed:
        print(elapsed)
    if not report.passed:
        got, out_of = report.score
        raise CheckFailed(f"drill {name}: {got}/{out_of} rubric categories pass. "
                          f"Hint: start with the first FAIL line above.")
    return report


def load_answer(name: str, path: str | Path) -> object:
    """Import the file ``path`` and return what it defines under the drill's symbol.

    Raises FileNotFoundError for a missing file, ValueError for a file that is not ``.py``
    or does not define the symbol; an error inside the file propagates.
    """
    drill, path = get(name), Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no file {path}")
    if path.suffix != ".py":
        raise ValueError(f"{path} is not a .py file: check a notebook's answer with its check "
                         f"cell, or save the answer as a .py file")
    module_name = f"drill_answer_{drill.name.replace('-', '_')}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module          # dataclasses and pickling look it up there
    spec.loader.exec_module(module)
    if not hasattr(module, drill.symbol):
        raise ValueError(f"{path} defines no {drill.symbol}: the drill {drill.name} checks a "
                         f"{drill.symbol}")
    return getattr(module, drill.symbol)


HINT_LEVELS = (1, 2, 3)
_HINT = re.compile(r"<details><summary>Hint (\d+)\s*·?\s*([^<]*)</summary>(.*?)</details>",
                   re.DOTALL)


def _drill_cells(name: str) -> list[dict]:
    """The cells of drill ``name``'s learner notebook (``notebooks/drills/``, no answers),
    read as JSON. Raises FileNotFoundError when the repository's notebooks are not there
    (an installed copy of the kit without its repository)."""
    drill = get(name)
    path = Path(__file__).resolve().parents[2] / "notebooks" / "drills" / f"{drill.notebook}.ipynb"
    if not path.is_file():
        raise FileNotFoundError(f"no {path}: the drills' texts are in the course repository")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [{**c, "source": "".join(c["source"]) if isinstance(c["source"], list)
             else c["source"]} for c in cells]


def spec_text(name: str) -> str:
    """Drill ``name``'s spec as Markdown: the signature, the rules and the worked examples
    (the notebook's first cell), without its hints or answers."""
    first = next(c for c in _drill_cells(name) if c["cell_type"] == "markdown")
    return first["source"].strip()


def hint_text(name: str, level: int) -> str:
    """Hint ``level`` (1 nudge, 2 approach, 3 pseudo-code) of drill ``name``'s ladder, alone.
    Raises ValueError for a level the drill does not have."""
    found = {int(n): (label.strip(), body.strip()) for c in _drill_cells(name)
             if c["cell_type"] == "markdown" for n, label, body in _HINT.findall(c["source"])}
    if level not in found:
        raise ValueError(f"drill {name} has hints {sorted(found)}, not {level!r}")
    label, body = found[level]
    more = f" (next: --hint {level + 1})" if level + 1 in found else ""
    return f"Hint {level}{f' · {label}' if label else ''}{more}\n\n{body}"
