"""Benchmark: the chat service under faults, with clients that retry with idempotency keys.

``--workers`` worker processes (``python -m kit serve``, each on its own port) share one
store; ``--sessions`` sessions have ``--clients`` clients each, every client sending
``--turns`` messages one after the other, each to a worker picked at random (seeded).
Each message has its own ``Idempotency-Key``; an attempt that fails (the connection
dropped, a stream cut before ``done``, a 503, a 409) is sent again with the same key, to
another worker, until it is answered. Meanwhile a chaos loop (seeded) SIGKILLs a worker
every ``--kill-every`` seconds and starts it again on its port, and SIGSTOPs another for
3x the lease (``--lease``) every ``--pause-every`` seconds, then SIGCONTs it.

Per store (SQLite, and Redis with its append-only file when a server is available), read
back from the store after the run:

- acknowledged: messages whose reply reached their client (a ``done`` event);
- lost: acknowledged messages the transcript does not hold; duplicated: messages the
  transcript holds more than once (a retry that ran a second turn);
- unacknowledged but stored: messages whose client gave up after the turn was saved;
- retried: attempts beyond the first, by what failed;
- stuck: sessions whose lease is still held ``2 x --lease`` seconds after the run;
- out of order: sessions whose turn log is not turns 1..T each based on the one before;
- p50, p95 (ms): from a message's first attempt to its ``done``, retries included.

The targets of the service: 0 lost, 0 duplicated, 0 stuck, 0 out of order. Exit status 1
if one is missed. Figures depend on the machine and its load; the counts should not.

Usage: python benchmarks/serve_faults.py [--stores sqlite,redis] [--workers 4]
       [--sessions 20] [--clients 3] [--turns 4] [--kill-every 2] [--pause-every 5]
       [--lease 1] [--wait 10] [--model-delay 0.05] [--seed 0]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack

import numpy as np

from kit.serve.backends import open_store
from kit.serve.redis_server import RedisUnavailable, running_redis
from kit.serve.workers import _wait_healthy, free_port
from kit.trace import Table
from serve_load import TurnFailed, post_turn   # benchmarks/serve_load.py: one turn over SSE

QUESTIONS = ["How long do refunds take?", "and for COD?", "Can I change my delivery address?",
             "What about returns of opened items?", "Do you ship abroad?",
             "When do my points expire?", "I forgot my password."]


class Fleet:
    """Worker processes on fixed ports, each one killed and started again at will."""

    def __init__(self, spec: str, n: int, options: list[str]) -> None:
        self.spec, self.options = spec, options
        self.ports = [free_port() for _ in range(n)]
        self.urls = [f"http://127.0.0.1:{p}" for p in self.ports]
        self.processes: list[subprocess.Popen | None] = [None] * n

    def start(self, i: int) -> None:
        self.processes[i] = subprocess.Popen(
            [sys.executable, "-m", "kit", "serve", "--store", self.spec, "--port",
             str(self.ports[i]), "--workers", "1", *self.options],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_healthy(self.urls[i], self.processes[i], 60)

    def signal(self, i: int, sig: int) -> None:
        process = self.processes[i]
        if process is not None and process.poll() is None:
            process.send_signal(sig)
            if sig == signal.SIGKILL:
                process.wait()

    def stop(self) -> None:
        for process in self.processes:
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.terminate()
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


async def send(http, url: str, session: str, text: str, key: str) -> int:
    """One attempt; the turn number of its ``done`` event. Raises TurnFailed (status,
    or a stream cut before ``done``) or httpx.HTTPError."""
    done = await post_turn(http, url, session, text, headers={"Idempotency-Key": key})
    return done["turn"]


def _why(failed: Exception) -> str:
    """A retry's reason, for the table: "status 503", "stream cut before done", or the
    connection error's type."""
    if not isinstance(failed, TurnFailed):
        return type(failed).__name__
    code = str(failed).split(" ", 1)[0]
    return f"status {code}" if code.isdigit() else "stream cut before done"


async def run_load(fleet: Fleet, args, rng: random.Random, paused: set) -> dict:
    import httpx
    acked: dict[str, list[str]] = {}
    latencies: list[float] = []
    retries: Counter = Counter()
    gave_up: list[str] = []

    async def client(session: str, c: int) -> None:
        async with httpx.AsyncClient(timeout=args.wait + 10) as http:
            for t in range(args.turns):
                text = f"{QUESTIONS[(c + t) % len(QUESTIONS)]} ({session}.{c}.{t})"
                key, began = f"{session}-{c}-{t}-{rng.getrandbits(48):x}", time.perf_counter()
                for attempt in range(100):
                    url = fleet.urls[rng.randrange(len(fleet.urls))]
                    try:
                        await send(http, url, session, text, key)
                    except (TurnFailed, httpx.HTTPError) as exc:
                        retries[_why(exc)] += 1
                        await asyncio.sleep(min(0.05 * (attempt + 1), 1.0))
                        continue
                    latencies.append(time.perf_counter() - began)
                    acked.setdefault(session, []).append(text)
                    break
                else:
                    gave_up.append(text)

    counts = {"kills": 0, "pauses": 0}

    async def chaos() -> None:
        last_kill = last_pause = time.perf_counter()
        while True:
            await asyncio.sleep(0.1)
            now = time.perf_counter()
            if now - last_kill >= args.kill_every:
                i = rng.randrange(len(fleet.urls))
                if i not in paused:
                    fleet.signal(i, signal.SIGKILL)
                    await asyncio.to_thread(fleet.start, i)
                    counts["kills"] += 1
                last_kill = time.perf_counter()
            if now - last_pause >= args.pause_every:
                i = rng.randrange(len(fleet.urls))
                paused.add(i)
                fleet.signal(i, signal.SIGSTOP)
                await asyncio.sleep(3 * args.lease)
                fleet.signal(i, signal.SIGCONT)
                paused.discard(i)
                counts["pauses"] += 1
                last_pause = time.perf_counter()

    chaos_task = asyncio.create_task(chaos())
    began = time.perf_counter()
    await asyncio.gather(*(client(f"s{s:02d}", c) for s in range(args.sessions)
                           for c in range(args.clients)))
    seconds = time.perf_counter() - began
    chaos_task.cancel()
    for i in list(paused):
        fleet.signal(i, signal.SIGCONT)
    return {"acked": acked, "latencies": latencies, "retries": retries, "gave_up": gave_up,
            "seconds": seconds, **counts}


def check(spec: str, result: dict, args) -> dict:
    time.sleep(2 * args.lease)                   # the killed workers' leases run out
    lost = duplicated = stored_unacked = stuck = disorder = 0
    with open_store(spec) as store:
        for s in range(args.sessions):
            session = f"s{s:02d}"
            stored = Counter(m.content for m in store.transcript(session) if m.role == "user")
            acked = set(result["acked"].get(session, []))
            lost += sum(1 for text in acked if stored[text] == 0)
            duplicated += sum(n - 1 for n in stored.values() if n > 1)
            stored_unacked += sum(1 for text in stored if text not in acked)
            stuck += store.holder(session) is not None
            log = store.turn_log(session)
            disorder += [(r.turn, r.based_on) for r in log] != \
                [(t, t - 1) for t in range(1, len(log) + 1)]
    return {"lost": lost, "duplicated": duplicated, "stored_unacked": stored_unacked,
            "stuck": stuck, "disorder": disorder}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", default="sqlite,redis")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--clients", type=int, default=3, help="clients per session (3)")
    parser.add_argument("--turns", type=int, default=4, help="messages per client (4)")
    parser.add_argument("--kill-every", type=float, default=2.0)
    parser.add_argument("--pause-every", type=float, default=5.0)
    parser.add_argument("--lease", type=float, default=1.0)
    parser.add_argument("--wait", type=float, default=10.0)
    parser.add_argument("--model-delay", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if min(args.workers, args.sessions, args.clients, args.turns) < 1 or args.workers < 2:
        parser.error("--workers must be >= 2; --sessions, --clients, --turns >= 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    print(f"Chat service under faults: {args.workers} workers, {args.sessions} sessions x "
          f"{args.clients} clients x {args.turns} messages, a worker killed every "
          f"{args.kill_every:g} s and one paused for {3 * args.lease:g} s every "
          f"{args.pause_every:g} s, lease {args.lease:g} s, wait {args.wait:g} s; "
          f"{os.cpu_count()} CPUs")
    rows, ok = [], True
    options = ["--lease", str(args.lease), "--wait", str(args.wait), "--model-delay",
               str(args.model_delay)]
    with tempfile.TemporaryDirectory(prefix="kit-serve-faults-") as folder, ExitStack() as stack:
        for kind in args.stores.split(","):
            if kind == "sqlite":
                spec = f"sqlite:{folder}/chat.db"
            else:
                try:
                    spec = stack.enter_context(running_redis()) + "#faults"
                except RedisUnavailable as exc:
                    rows.append([kind] + ["-"] * 10 + [f"skipped: {exc}"[:60]])
                    continue
            fleet = Fleet(spec, args.workers, options)
            try:
                for i in range(args.workers):
                    fleet.start(i)
                result = asyncio.run(run_load(fleet, args, random.Random(args.seed), set()))
            finally:
                fleet.stop()
            found = check(spec, result, args)
            acked = sum(len(v) for v in result["acked"].values())
            ok &= not (found["lost"] or found["duplicated"] or found["stuck"]
                       or found["disorder"])
            p = np.percentile(result["latencies"], [50, 95]) * 1e3
            retried = ", ".join(f"{n} {why}" for why, n in result["retries"].most_common(4))
            rows.append([kind, f"{acked}/{args.sessions * args.clients * args.turns}",
                         str(found["lost"]), str(found["duplicated"]),
                         str(found["stored_unacked"]), str(found["stuck"]),
                         str(found["disorder"]), str(result["kills"]), str(result["pauses"]),
                         f"{p[0]:,.0f}", f"{p[1]:,.0f}", retried or "0"])
    print()
    print(Table(["store", "acknowledged", "lost", "duplicated", "stored, not acknowledged",
                 "stuck", "out of order", "kills", "pauses", "p50 (ms)", "p95 (ms)",
                 "retried attempts"], rows, "Messages under worker kills and pauses"))
    print(f"targets (0 lost, 0 duplicated, 0 stuck, 0 out of order): "
          f"{'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
