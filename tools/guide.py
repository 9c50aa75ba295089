"""The instructor's guide: measured run times, and the common mistakes kept in sync.

`docs/instructor_guide.md` quotes two things that must not drift from the code: the
run time of each lesson (measured here, by running it) and the common mistakes
(generated here from the wrong-answer registry, `kit.mistakes.mistakes()`, between the
markers `<!-- mistakes:begin -->` and `<!-- mistakes:end -->`).

Usage (from the repository root):

    python tools/guide.py times [NAMES...]   # run each solution once, print the times
    python tools/guide.py mistakes           # print the common-mistakes block
    python tools/guide.py write [--guide P]  # put that block into the guide
    python tools/guide.py check [--guide P]  # exit 1 if the guide's block is stale

`times` executes each lesson of `solutions/` once in a fresh kernel (the same run as
`tools/lessons.py execute`, but the file is not written) and prints two Markdown
tables: the wall time of each lesson's Run All (kernel start included) and the time
of each section, the cells under one `## N.` heading summed (nbclient's cell timing:
from the kernel's execute_input to its reply). The times depend on the machine; the
guide says which one measured them.

`mistakes`, `write` and `check` are deterministic: mechanisms in lesson order, each
mechanism's mistakes in registration order. `--guide` (or the environment variable
`GUIDE`) names another guide file, e.g. a copy in a test.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import time
from datetime import datetime
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
sys.path.insert(0, str(TOOLS))
sys.path.insert(0, str(ROOT))

import lessons  # noqa: E402  (tools/lessons.py)

GUIDE = ROOT / "docs" / "instructor_guide.md"
BEGIN, END = "<!-- mistakes:begin -->", "<!-- mistakes:end -->"
FIX = "python tools/guide.py write"

# Where each mechanism of kit.mistakes is written by the learner: (lesson, exercise).
LESSON_OF = {
    "token window": ("02_sliding_window", "exercise 3, `class BudgetWindow`"),
    "summary memory": ("03_summary_memory", "exercise 3, the whole summary memory"),
    "code review": ("03_summary_memory", "drill 06 only: the invariants of lesson 03 and the "
                    "age trigger of lesson 04 (section 5), broken in a memory to review"),
    "map-reduce": ("05_hierarchical_summarisation", "exercises 2 and 3, the reduce loop "
                   "and map-reduce end to end"),
    "citations and guardrail": ("07_rag_chatbot", "sections 4 and 5 and exercise 1, the "
                                "citation markers and the guardrail"),
    "chatbot turn": ("07_rag_chatbot", "exercise 3, the whole turn"),
    "leave-one-out": ("09_memory_evaluation", "exercise 3, choosing a setting on the other "
                      "conversations and reporting it on the one left out"),
    "hybrid ranking": ("09_memory_evaluation", "exercise 4, the hybrid ranking: dense + "
                       "BM25 by reciprocal rank fusion"),
    "fencing rule": ("10_serving", "exercise 1, `may_commit`, the rule of a fenced write"),
    "lease store": ("10_serving", "exercise 2, the whole lease store with fencing tokens"),
    "agent context": ("11_agent_context", "exercise 2, the whole context manager for an agent "
                      "loop"),
    "as of": ("12_memory_that_changes", "exercise 1, `facts_as_of`, the facts valid on a date"),
    "fact memory": ("12_memory_that_changes", "exercise 2, the whole decide-and-write step "
                    "of a fact memory"),
    "forget": ("12_memory_that_changes", "exercise 3, `forget_words`, a forget that reaches "
               "every table and the file's bytes"),
    "fence": ("12_memory_that_changes", "exercise 4, `fence`, recalled text as quoted data "
              "that cannot close its fence"),
}
UNMAPPED = "no lesson named yet (add the mechanism to LESSON_OF in tools/guide.py)"
SECTION = re.compile(r"^##\s+(\d+)\s*[.·]\s*(.+?)\s*$")   # "## 3. One compaction", "## 1 · Four"
OTHER = re.compile(r"^##\s+(Exercises|Summary|Interview follow-ups)\b")

__all__ = ["mistakes_block", "guide_block", "write", "check", "sections", "time_lesson",
           "times_tables", "main"]


# ---------------------------------------------------------------- the common mistakes

def _drills_by_mechanism() -> dict[str, list]:
    from kit.drills import drills
    found: dict[str, list] = {}
    for drill in drills():
        if drill.mechanism:
            found.setdefault(drill.mechanism, []).append(drill)
    return found


def _order(mechanism: str) -> tuple:
    """Lesson order (then the order of LESSON_OF); mechanisms with no lesson last, by name."""
    if mechanism in LESSON_OF:
        return (0, LESSON_OF[mechanism][0], list(LESSON_OF).index(mechanism), "")
    return (1, "", 0, mechanism)


def mistakes_block() -> str:
    """The common mistakes as Markdown: one `###` heading per mechanism (lesson order),
    naming its lesson, exercise and drill, then one bullet per registered mistake,
    `**name**: what — why`. A mechanism missing from LESSON_OF comes last and says so."""
    from kit.mistakes import mistakes
    by_mechanism: dict[str, list] = {}
    for m in mistakes():
        by_mechanism.setdefault(m.mechanism, []).append(m)
    drills = _drills_by_mechanism()
    lines = []
    for mechanism in sorted(by_mechanism, key=_order):
        if mechanism in LESSON_OF:
            lesson, exercise = LESSON_OF[mechanism]
            where = f"lesson `{lesson}`, {exercise}"
        else:
            where = UNMAPPED
        for drill in drills.get(mechanism, []):
            where += (f"; drill `{drill.name}` ({drill.minutes} min, "
                      f"`notebooks/drills/{drill.notebook}.ipynb`)")
        found = by_mechanism[mechanism]
        lines += [f"### {mechanism} ({len(found)} named wrong answers)", "",
                  f"Where: {where}.", ""]
        lines += [f"- **{m.name}**: {m.what.rstrip('.')} — {m.why.rstrip('.')}" for m in found]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _block_span(text: str) -> tuple[int, int]:
    """Where the block's text starts and ends in guide `text`: between the only line that
    is exactly BEGIN and the only line that is exactly END after it (a marker quoted in
    prose, inside a line, does not count). ValueError naming what is wrong otherwise."""
    lines = text.splitlines(keepends=True)
    begins = [i for i, line in enumerate(lines) if line.strip() == BEGIN]
    ends = [i for i, line in enumerate(lines) if line.strip() == END]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise ValueError(f"the guide needs exactly one line {BEGIN} and one line {END} after "
                         f"it; it has {len(begins)} and {len(ends)}")
    start = sum(len(line) for line in lines[:begins[0] + 1]) - 1   # the newline after BEGIN
    end = sum(len(line) for line in lines[:ends[0]])
    return start, end


def guide_block(text: str) -> str:
    """The text between the marker lines of guide `text` (see :func:`_block_span`)."""
    start, end = _block_span(text)
    return text[start:end]


def _framed(block: str) -> str:
    return "\n" + block + "\n"         # from the newline after BEGIN to the line of END


def write(path: Path = GUIDE) -> bool:
    """Replace the guide's block by :func:`mistakes_block`; True if the file changed."""
    text = path.read_text(encoding="utf-8")
    old = guide_block(text)
    new = _framed(mistakes_block())
    if old == new:
        return False
    start, end = _block_span(text)
    path.write_text(text[:start] + new + text[end:], encoding="utf-8", newline="\n")
    return True


def check(path: Path = GUIDE) -> list[str]:
    """The differences between the guide's block and the registry (empty if in sync):
    the mistake lines missing from the guide, then the lines it has that are stale."""
    have = guide_block(path.read_text(encoding="utf-8")).strip("\n").splitlines()
    want = mistakes_block().strip("\n").splitlines()
    if have == want:
        return []
    problems = [f"missing: {line}" for line in want if line not in have]
    problems += [f"stale:   {line}" for line in have if line not in want]
    return problems or ["the lines are the same but in another order"]


# ---------------------------------------------------------------- measured run times

def sections(nb) -> list[tuple[str, list[int]]]:
    """The sections of notebook `nb`, in order: (title, code cell indices). A section
    starts at a `## N.` (or `## N ·`) heading, or at `## Exercises`, `## Summary`,
    `## Interview follow-ups`; the cells before the first are "setup"."""
    found: list[tuple[str, list[int]]] = [("setup", [])]
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                numbered, other = SECTION.match(line), OTHER.match(line)
                if numbered:
                    found.append((f"{numbered.group(1)}. {numbered.group(2)}", []))
                    break
                if other:
                    found.append((other.group(1), []))
                    break
        elif cell.cell_type == "code":
            found[-1][1].append(index)
    return [(title, cells) for title, cells in found if cells]


class _TimedClient(lessons.NotebookClient):
    """nbclient's client with its cell timing on, whatever `lessons.run` asks for."""

    def __init__(self, nb, **kwargs):
        kwargs["record_timing"] = True
        super().__init__(nb, **kwargs)


@contextlib.contextmanager
def _timed_runs():
    saved = lessons.NotebookClient
    lessons.NotebookClient = _TimedClient
    try:
        yield
    finally:
        lessons.NotebookClient = saved


def _cell_seconds(cell) -> float:
    timing = cell.metadata.get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return 0.0
    parse = lambda stamp: datetime.fromisoformat(stamp.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def time_lesson(path: Path) -> tuple[float, list[tuple[str, float]]]:
    """Run solution `path` once in a fresh kernel (the file is not written); return the
    wall time of the whole run and the seconds of each section (:func:`sections`)."""
    nb = lessons.read(path)
    started = time.perf_counter()
    with _timed_runs():
        lessons.run(nb, path.parent)
    wall = time.perf_counter() - started
    return wall, [(title, sum(_cell_seconds(nb.cells[i]) for i in cells))
                  for title, cells in sections(nb)]


def times_tables(results: dict[str, tuple[float, list[tuple[str, float]]]]) -> str:
    """The Markdown tables of :func:`time_lesson` results, keyed by lesson stem."""
    lines = ["| lesson | Run All, wall (s) | cells (s) | slowest section |",
             "|---|---:|---:|---|"]
    for stem, (wall, parts) in results.items():
        slowest = max(parts, key=lambda part: part[1])
        lines.append(f"| `{stem}` | {wall:.1f} | {sum(s for _, s in parts):.1f} | "
                     f"{slowest[0]} ({slowest[1]:.1f} s) |")
    lines += ["", "| lesson | section | cells (s) |", "|---|---|---:|"]
    for stem, (_, parts) in results.items():
        lines += [f"| `{stem}` | {title} | {seconds:.1f} |" for title, seconds in parts]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- command line

def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the exit code (0 ok, 1 stale or failed)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    times_cmd = commands.add_parser("times", help="run each solution once, print times")
    times_cmd.add_argument("names", nargs="*", help="lesson names or numbers (default: all)")
    commands.add_parser("mistakes", help="print the common-mistakes block")
    for name, text in (("write", "put the block into the guide"),
                       ("check", "exit 1 if the guide's block differs from the registry")):
        command = commands.add_parser(name, help=text)
        command.add_argument("--guide", default=os.environ.get("GUIDE") or str(GUIDE),
                             help="the guide file (default: docs/instructor_guide.md)")
    args = parser.parse_args(argv)
    try:
        if args.command == "times":
            paths = ([lessons.solution_path(n) for n in args.names]
                     or lessons.lesson_paths(lessons.SOLUTIONS))
            results = {}
            for path in paths:
                print(f"running {path.relative_to(ROOT)}", file=sys.stderr, flush=True)
                results[path.stem] = time_lesson(path)
            print(f"Measured {datetime.now():%Y-%m-%d} on {os.cpu_count()} CPU(s), "
                  f"Python {sys.version.split()[0]}\n")
            print(times_tables(results), end="")
        elif args.command == "mistakes":
            print(mistakes_block(), end="")
        elif args.command == "write":
            changed = write(Path(args.guide))
            print(f"{args.guide}: {'common mistakes updated' if changed else 'already in sync'}")
        else:
            problems = check(Path(args.guide))
            if problems:
                print(f"{args.guide}: the common mistakes differ from kit.mistakes; "
                      f"run `{FIX}`:", *problems, sep="\n  ", file=sys.stderr)
                return 1
            print(f"OK: {args.guide} lists every mistake of kit.mistakes")
    except (lessons.LessonError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
