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


def test_hierarchical_benchmark_prints_its_table():
    done = subprocess.run([sys.executable, "benchmarks/hierarchical.py", "--sizes", "10", "1000",
                           "--window", "2000", "--batch-size", "20"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].split()[:3] == ["items", "strategy", "largest"]
    rows = [re.split(r"\s{2,}", line) for line in lines[2:-1]]
    assert [row[:2] for row in rows] == [["10", "single pass"], ["10", "map-reduce"],
                                         ["1,000", "single pass"], ["1,000", "map-reduce"]]
    assert rows[2][3:5] == ["0", "0"] and rows[2][-1] == "no (over window, not sent)"
    assert int(rows[2][2].replace(",", "")) > 2000          # the size it would have had
    assert all(row[-1] == "yes" for row in (rows[0], rows[1], rows[3]))
    assert int(rows[3][2].replace(",", "")) <= 2000 and int(rows[3][3]) >= 1000 // 20
    assert lines[-1] == "window 2,000 tokens, batch size 20"
