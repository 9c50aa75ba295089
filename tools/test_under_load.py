"""Run the test suite while every core is kept busy by other processes, and report failures.

A test whose outcome depends on how busy the machine is fails here and passes on a quiet
machine: CI and learners' laptops are busy machines, so such a test is a defect. This
starts ``--burners`` CPU-bound processes per core (default 2), runs the suite ``--runs``
times (default 3) with this interpreter (``python -m pytest``, the command `make test`
runs, plus any extra pytest arguments after ``--``), stops the burners, and prints one row
per run: tests passed, failed and skipped, the failed tests' names, and the wall time
(for information; nothing is decided on it).

Usage: .venv/bin/python tools/test_under_load.py [--runs 3] [--burners 2] [-- PYTEST_ARGS]
Exit status: 0 when every run passed, 1 otherwise.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BURN = "while True:\n    pass\n"
SUMMARY = re.compile(r"(\d+) (passed|failed|skipped|error|errors)\b")


def counts(output: str) -> dict[str, int]:
    """passed / failed / skipped / errors from pytest's closing line."""
    found = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0}
    lines = [line for line in output.splitlines() if " in " in line and SUMMARY.search(line)]
    for number, word in SUMMARY.findall(lines[-1] if lines else ""):
        found["errors" if word.startswith("error") else word] += int(number)
    return found


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="test runs (default 3)")
    parser.add_argument("--burners", type=int, default=2,
                        help="CPU-bound processes per core (default 2)")
    args = parser.parse_args(own)
    if args.runs < 1 or args.burners < 0:
        parser.error(f"--runs must be >= 1 and --burners >= 0, got {args.runs}, {args.burners}")
    cores = os.cpu_count() or 1
    burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(cores * args.burners)]
    print(f"{len(burners)} CPU-bound processes on {cores} cores; {args.runs} test runs",
          file=sys.stderr)
    rows, failures = [], 0
    try:
        for run in range(1, args.runs + 1):
            start = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rf", *extra],
                                  cwd=ROOT, capture_output=True, text=True)
            seconds = time.monotonic() - start
            found = counts(done.stdout)
            failed = sorted(set(re.findall(r"^(?:FAILED|ERROR) (\S+)", done.stdout, re.M)))
            # a failure, an error, or no test run at all (pytest's exit code 5) fails the run
            bad = found["failed"] + found["errors"] + (done.returncode != 0)
            failures += bad > 0
            rows.append((run, found["passed"], found["failed"] + found["errors"],
                         found["skipped"], f"{seconds:.0f}", ", ".join(failed) or "-"))
            print(f"run {run}: {found}  ({seconds:.0f} s)", file=sys.stderr)
    finally:
        for burner in burners:
            burner.kill()
        for burner in burners:
            burner.wait()
    print("| run | passed | failed | skipped | wall (s) | failed tests |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(str(cell) for cell in row) + " |")
    print(f"{args.runs - failures} of {args.runs} runs passed with {len(burners)} "
          f"CPU-bound processes on {cores} cores")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
