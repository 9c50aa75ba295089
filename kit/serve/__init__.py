"""The chatbot as a service (lesson 10): an HTTP API with streamed replies, a chat page
with the context panel, and the stores several workers share.

- :mod:`kit.serve.stores`: the store interface (lease with a fencing token, fenced
  commit, snapshot, idempotency keys, the queue of waiting turns), on SQLite
  (:mod:`kit.serve.sqlite_store`, one machine) and Redis (:mod:`kit.serve.redis_store`,
  several);
- :mod:`kit.serve.service`: one turn without HTTP (:class:`ChatService`: lease, load,
  answer, commit, reply, compact, release);
- :mod:`kit.serve.app`: the Starlette app (``python -m kit serve``);
- :mod:`kit.serve.limits`: bounds on slow clients for uvicorn;
- :mod:`kit.serve.redis_server`: a real ``redis-server`` for tests and lessons.

Starlette, uvicorn and redis-py are the ``serve`` extra (``pip install -e '.[serve]'``);
importing this package needs none of them.
"""
from kit.serve.service import (ChatService, KeyConflict, SessionBusy, SlowModel, Turn,
                               check_session_id, demo_chatbot, service_memory)
from kit.serve.backends import open_store
from kit.serve.redis_store import RedisSessionStore
from kit.serve.sqlite_store import SQLiteSessionStore
from kit.serve.stores import (KeyRecord, Lease, LeaseLost, SessionStore, Snapshot, StoreBusy,
                              TurnRecord)

__all__ = ["ChatService", "Turn", "SessionBusy", "SlowModel", "check_session_id",
           "demo_chatbot", "service_memory", "SessionStore", "SQLiteSessionStore",
           "RedisSessionStore", "Lease", "LeaseLost", "Snapshot", "TurnRecord", "open_store",
           "KeyRecord", "StoreBusy", "KeyConflict"]
