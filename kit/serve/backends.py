"""Open a service store from its spec: ``"sqlite:PATH"`` or a Redis URL."""
from __future__ import annotations

from kit.serve.redis_store import RedisSessionStore
from kit.serve.sqlite_store import SQLiteSessionStore
from kit.serve.stores import SessionStore

__all__ = ["open_store"]


def open_store(spec: str, timeout: float = 5.0) -> SessionStore:
    """A store from its spec: ``"sqlite:PATH"`` (a file; ``"sqlite::memory:"`` for one
    process) or a ``redis://`` / ``rediss://`` / ``unix://`` URL (an optional
    ``#prefix`` at the end sets the key prefix). ``timeout``: seconds a SQLite store
    waits for another connection's write lock (its busy timeout), a Redis store for the
    server's answer (at least 1 s); the service gives it less than its ``wait``. Raises ValueError naming a spec of neither kind,
    StoreError if the store cannot be opened."""
    if not isinstance(spec, str):
        raise TypeError(f"store must be a str such as 'sqlite:chat.db', got {spec!r:.60}")
    if spec.startswith("sqlite:") and len(spec) > len("sqlite:"):
        return SQLiteSessionStore(spec[len("sqlite:"):], timeout=timeout)
    if spec.startswith(("redis://", "rediss://", "unix://")):
        url, _, prefix = spec.partition("#")
        return RedisSessionStore(url, prefix or "kit", timeout=max(timeout, 1.0))
    raise ValueError(f"store must be 'sqlite:PATH' or a redis:// URL, got {spec!r:.80}")

