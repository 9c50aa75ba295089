"""The benchmark script runs and prints its table (figures are not asserted: no timed tests)."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_memory_add_benchmark_prints_its_table():
    done = subprocess.run([sys.executable, "benchmarks/memory_add.py", "--repeat", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].split()[:3] == ["memory", "messages", "us"]
    rows = lines[2:-1]
    assert len(rows) == 12
    # every message is measured once (summary memory also measures each new summary)
    calls = [float(line.split()[-2]) for line in rows]
    assert calls[:9] == [1.0] * 9 and all(1.0 <= c <= 1.05 for c in calls[9:])
    assert re.fullmatch(r"per-add time ratio 10000/100 turns: \d+\.\d\d", lines[-1])
