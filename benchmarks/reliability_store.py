"""Benchmark: acknowledged adds under SIGKILL, during compaction and with the file locked.

A child process adds messages to a store-backed summary memory (small budget, the
extractive summariser, so it compacts every few messages) and prints ``ack N`` after
each ``add`` returned, ``refused N`` after an add that raised :class:`StoreError`.
The parent kills it with SIGKILL, reopens the file, checks that every acknowledged
message is stored with its text, restores the session, and starts the next child,
which restores the session too and carries on. The kills rotate over three points:

- ``acks``: a random moment after a random number of acknowledged adds;
- ``compaction``: inside the summariser (the child tells the parent it entered it and
  waits for an answer; the message is written, not yet acknowledged);
- ``locked``: while another connection holds the file with ``BEGIN EXCLUSIVE``, after
  the child's adds were refused (``timeout`` 0.05 s).

``kills(n, seed)`` returns ``{"kills", "acknowledged", "lost", "restores_ok"}`` plus the
kills per point and the refused adds; :func:`main` prints them as a table. Bounded: each
round has a deadline (``ROUND_SECONDS``), 60 kills take about 30 s. Local files only.

Usage: python benchmarks/reliability_store.py [--kills 60] [--seed 0]
"""
from __future__ import annotations

import argparse
import inspect
import os
import queue
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from kit.extractive import make_extractive_summariser
from kit.memory import RobustSummaryMemory
from kit.persistence import restore
from kit.store import StoreError, TranscriptStore
from kit.tokens import count_words
from kit.trace import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))   # the sibling benchmark parts
from progress import progress  # noqa: E402  benchmarks/progress.py: tqdm on stderr

__all__ = ["kills", "main", "turn", "POINTS"]

POINTS = ("acks", "compaction", "locked")   # where a round's kill lands, in rotation
SESSION = "s"
LOCK_TIMEOUT = 0.05        # the child's store timeout (seconds) while the file is locked
ROUND_SECONDS = 30.0       # a round whose child stops answering for this long is an error
ROOT = Path(__file__).resolve().parents[1]


def turn(number: int) -> tuple[str, str]:
    """Message ``number``: (role, text), the same in the parent and the child."""
    role = "user" if number % 2 else "assistant"
    return role, (f"message {number}: order {88000 + number} costs {7 * number} rupees, "
                  f"delivery on day {number % 28 + 1}")


def make_memory(summariser) -> RobustSummaryMemory:
    """The memory under test: compacts every few messages (budget 60 words)."""
    return RobustSummaryMemory(summariser, budget=60, keep_recent=2, measure=count_words)


CHILD = '''
import sys
from kit.extractive import make_extractive_summariser
from kit.memory import CompactionError, RobustSummaryMemory
from kit.persistence import restore
from kit.store import StoreError, TranscriptStore
from kit.tokens import count_words
''' + inspect.getsource(turn) + inspect.getsource(make_memory) + '''
path, session, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
extract = make_extractive_summariser(cap=20, measure=count_words)


def summariser(prompt):
    print("compacting", flush=True)       # the parent may kill us here
    if not sys.stdin.readline():          # the parent is gone
        sys.exit(0)
    return extract(prompt)


store = TranscriptStore(path, timeout=timeout)
memory = restore(make_memory(summariser), store, session)
print("ready", memory.added, flush=True)
while True:
    number = memory.added + 1
    try:
        memory.add(*turn(number))
    except StoreError:
        print("refused", number, flush=True)
        continue
    except CompactionError:               # the message was kept (and written)
        pass
    print("ack", number, flush=True)
'''


class Child:
    """One child process and a thread that queues its output lines (None at the end)."""

    def __init__(self, path: str, timeout: float) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, path, SESSION, str(timeout)], cwd=ROOT,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.split())
        self.lines.put(None)

    def next(self, deadline: float) -> list[str]:
        try:
            words = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError(f"the child did not answer within {ROUND_SECONDS} s") from None
        if words is None:
            self.proc.wait()
            raise RuntimeError(f"the child stopped (exit {self.proc.returncode}): "
                               f"{self.proc.stderr.read()[-2000:]}")
        return words

    def answer(self) -> None:
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:                   # a broken pipe to a dead child
                pass


def _round(path: str, point: str, rng: random.Random, acked: dict[int, str]) -> dict:
    """Run one child until it is killed at ``point``; record acknowledged adds in
    ``acked`` (number -> text). Returns this round's counts."""
    child = Child(path, LOCK_TIMEOUT if point == "locked" else 5.0)
    deadline = time.monotonic() + ROUND_SECONDS
    wanted = rng.randint(1, 12) if point == "acks" else rng.randint(1, 5)
    compactions = acks = refused = while_locked = 0
    lock = None
    try:
        while True:
            words = child.next(deadline)
            if words[0] == "ready":              # restored; adds follow
                continue
            if words[0] == "compacting":
                compactions += 1
                if point == "compaction" and compactions == wanted:
                    break                     # kill inside the summariser
                child.answer()
                continue
            if words[0] == "ack":
                acks += 1
                acked[int(words[1])] = turn(int(words[1]))[1]
            else:                             # "refused"
                refused += 1
            if point == "acks" and acks == wanted:
                time.sleep(rng.random() * 0.005)          # a random moment of the next add
                break
            if point == "locked" and lock is not None:
                while_locked += words[0] == "refused"   # acks already on their way don't count
                if while_locked == 2:        # two adds refused while locked: kill now
                    break
            elif point == "locked" and acks == wanted:
                lock = sqlite3.connect(path, isolation_level=None, timeout=ROUND_SECONDS)
                lock.execute("BEGIN EXCLUSIVE")
        child.kill()
    finally:
        if child.proc.poll() is None:
            child.kill()
        if lock is not None:
            lock.rollback()
            lock.close()
    return {"refused": refused}


def _check(path: str, acked: dict[int, str]) -> tuple[set[int], bool]:
    """The acknowledged numbers whose text is not stored, and whether the session
    restores with every acknowledged message numbered."""
    with TranscriptStore(path) as store:
        stored = {m.number: m.content for m in store.turns(SESSION)}
        lost = {n for n, text in acked.items() if stored.get(n) != text}
        try:
            memory = restore(make_memory(make_extractive_summariser(20, count_words)),
                             store, SESSION)
        except (StoreError, ValueError):
            return lost, False
        return lost, memory.added >= max(acked, default=0)


def kills(n: int = 60, seed: int = 0, workdir: str | os.PathLike | None = None) -> dict:
    """Kill a store-backed memory's process ``n`` times (seeded), reopen after each kill.

    Returns ``{"kills": n, "acknowledged": acknowledged adds, "lost": acknowledged adds
    missing from the file after a kill, "restores_ok": kills after which the session
    restored with every acknowledged message, "in_compaction": kills inside the
    summariser, "while_locked": kills while another connection locked the file,
    "refused": adds refused (StoreError) while it was locked}``. Raises RuntimeError or
    TimeoutError if a child fails or stops answering (deadline ``ROUND_SECONDS``).
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an int >= 1, got {n!r}")
    rng, acked, lost = random.Random(seed), {}, set()
    result = {"kills": 0, "acknowledged": 0, "lost": 0, "restores_ok": 0,
              "in_compaction": 0, "while_locked": 0, "refused": 0}
    with tempfile.TemporaryDirectory(dir=workdir) as folder:
        path = str(Path(folder) / "chat.db")
        for i in progress(range(n), "kill rounds"):
            point = POINTS[i % len(POINTS)]
            result["refused"] += _round(path, point, rng, acked)["refused"]
            result["kills"] += 1
            result["in_compaction"] += point == "compaction"
            result["while_locked"] += point == "locked"
            gone, restored = _check(path, acked)
            lost |= gone
            result["restores_ok"] += restored
    result["acknowledged"], result["lost"] = len(acked), len(lost)
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.monotonic()
    result = kills(args.kills, args.seed)
    print(Table(["kills", "in compaction", "while locked", "acknowledged adds",
                 "refused adds (locked)", "acknowledged lost", "restores ok"],
                [[result["kills"], result["in_compaction"], result["while_locked"],
                  result["acknowledged"], result["refused"], result["lost"],
                  f"{result['restores_ok']}/{result['kills']}"]]))
    print(f"seed {args.seed}, {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main()
