"""Several worker processes of the service, each on its own port: what the tests, the
benchmark and lesson 10 run behind their client-side load balancer.

``python -m kit serve --workers 4`` shares one port between four processes and lets the
kernel pick which one accepts a connection; a test that must send one request to
worker A and the next to worker B needs to choose. :func:`start_workers` starts ``n``
processes of ``python -m kit serve --workers 1``, each on a free port of 127.0.0.1,
waits until each answers ``/health``, and stops them on exit::

    with start_workers(4, "sqlite:/tmp/chat.db") as workers:
        workers.urls        # ['http://127.0.0.1:41233', ...], one per process
        workers.kill(0)     # SIGKILL worker 0 (a crash mid-turn)
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

__all__ = ["Workers", "start_workers", "free_port"]


def free_port() -> int:
    """A TCP port of 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Workers:
    """Running worker processes: ``urls[i]`` is worker ``i``'s base URL,
    ``processes[i]`` its :class:`subprocess.Popen`."""

    urls: list[str]
    processes: list[subprocess.Popen] = field(repr=False)

    def kill(self, i: int) -> None:
        """SIGKILL worker ``i`` (no cleanup runs: its lease is left to expire)."""
        self.processes[i].send_signal(signal.SIGKILL)
        self.processes[i].wait()

    def log(self, i: int) -> str:
        """The end of what worker ``i`` wrote to stderr (its errors)."""
        return _tail(self.processes[i])

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log = getattr(process, "log", None)
            if log is not None:
                log.close()


def _tail(process: subprocess.Popen) -> str:
    """The end of what the worker wrote to stderr (a temporary file, not a pipe: a full
    pipe would stop the worker)."""
    log = getattr(process, "log", None)
    if log is None:
        return ""
    log.seek(0)
    return log.read().decode(errors="replace")[-2000:]


def _wait_healthy(url: str, process: subprocess.Popen, timeout: float) -> None:
    import httpx
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if process.poll() is not None:
            raise RuntimeError(f"the worker at {url} exited with {process.returncode}: "
                               f"{_tail(process)}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the worker at {url} did not answer /health in {timeout} s")
        time.sleep(0.05)


@contextmanager
def start_workers(n: int, store: str, *options: str, startup: float = 30.0
                  ) -> Iterator[Workers]:
    """Start ``n`` worker processes sharing ``store`` (a ``--store`` spec); ``options``:
    more ``python -m kit serve`` arguments (``"--model-delay", "0.5"``). Yields
    :class:`Workers`; stops every process on exit. Raises RuntimeError if one does not
    come up within ``startup`` seconds (its stderr in the message)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an int >= 1, got {n!r}")
    processes, urls = [], []
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    try:
        for _ in range(n):
            port, log = free_port(), tempfile.TemporaryFile()
            process = subprocess.Popen(
                [sys.executable, "-m", "kit", "serve", "--store", store, "--port", str(port),
                 "--workers", "1", *options], env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=log)
            process.log = log
            processes.append(process)
            urls.append(f"http://127.0.0.1:{port}")
        for url, process in zip(urls, processes):
            _wait_healthy(url, process, startup)
        yield Workers(urls, processes)
    finally:
        Workers(urls, processes).stop()
