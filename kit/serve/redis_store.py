"""The service's store in Redis (:class:`RedisSessionStore`): the interface of
:mod:`kit.serve.stores`, every check-and-write one Lua script, each lease tied to the
server's run id."""
from __future__ import annotations

import json
import os
import re
import time
import threading
from collections.abc import Sequence
from dataclasses import asdict, replace

from kit.longterm.forget import FORGOTTEN, Forgotten, choose
from kit.messages import Message
from kit.serve.stores import (EVENTS_KEPT, KEY_TTL, KEYS_KEPT, QUEUE_TTL, KeyRecord, Lease,
                              LeaseLost, SessionStore, Snapshot, TurnRecord, _check_acquire, _check_commit,
                              _check_forget,
                              _check_key, _check_lease, _check_ticket, _key_json, check_span,
                              first_needed)
from kit.store import StoreError, check_session, parse_state
from kit.validation import check_int

__all__ = ["RedisSessionStore", "redact"]


# -- Redis ---------------------------------------------------------------------------
# Every key of a session shares the hash tag {session}, so a Redis Cluster keeps them in
# one slot and one script may touch them all. A lease's lock holds "RUN:TOKEN", RUN the
# server's run id (INFO server: new at every start of redis-server), so a lease handed
# out before a restart is refused after it, even if a server that kept nothing on disk
# hands the same token out again.
_RUN = """
local function run_id()
  return string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
end
local function held(lock, value)
  return redis.call('GET', lock) == value and string.sub(value, 1, 41) == run_id() .. ':'
end
"""
# KEYS: lock, fence, queue (a sorted set of tickets), queue expiries (a hash)
# ARGV: ttl (ms), ticket ('' = none), queue ttl (ms)
_ACQUIRE = _RUN + """
local queued = ARGV[2] ~= '' and ARGV[2] ~= '0'        -- '0': a first try, not queued
if ARGV[2] ~= '' then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local upper = '+inf'
  if queued then
    redis.call('ZADD', KEYS[3], ARGV[2], ARGV[2])       -- still waiting: say so
    redis.call('HSET', KEYS[4], ARGV[2], now + tonumber(ARGV[3]))
    upper = '(' .. ARGV[2]
  end
  for _, older in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', upper)) do
    if tonumber(redis.call('HGET', KEYS[4], older) or '0') > now then return false end
    redis.call('ZREM', KEYS[3], older)                  -- a dead waiter's ticket
    redis.call('HDEL', KEYS[4], older)
  end
end
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
if queued then
  redis.call('ZREM', KEYS[3], ARGV[2])
  redis.call('HDEL', KEYS[4], ARGV[2])
end
local token = redis.call('INCR', KEYS[2])
local run = run_id()
redis.call('SET', KEYS[1], run .. ':' .. token, 'PX', ARGV[1])
return {token, run}
"""
# KEYS: the ticket counter, queue, queue expiries; ARGV: queue ttl (ms)
_ENQUEUE = """
local ticket = redis.call('INCR', KEYS[1])
local t = redis.call('TIME')
redis.call('ZADD', KEYS[2], ticket, ticket)
redis.call('HSET', KEYS[3], ticket, tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
           + tonumber(ARGV[1]))
return ticket
"""
_RENEW = _RUN + """
if not held(KEYS[1], ARGV[1]) then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""
_RELEASE = _RUN + """
if not held(KEYS[1], ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
return 1
"""
# KEYS: lock, keys (a hash by key), key times (a sorted set)
# ARGV: the lease's lock value, key, digest, the pending record's json
_CLAIM = _RUN + """
if not held(KEYS[1], ARGV[1]) then return redis.error_reply('LEASELOST') end
local found = redis.call('HGET', KEYS[2], ARGV[2])
if found then
  local record = cjson.decode(found)
  if record['outcome'] ~= cjson.null or record['digest'] ~= ARGV[3] then return found end
end
local now = redis.call('TIME')
local record = cjson.decode(ARGV[4])
record['created_at'] = tonumber(now[1]) + tonumber(now[2]) / 1000000
redis.call('HSET', KEYS[2], ARGV[2], cjson.encode(record))
redis.call('ZADD', KEYS[3], record['created_at'], ARGV[2])
return false
"""
# KEYS: lock, messages, meta, state, events, turns, the set of sessions, keys, key times
# ARGV: lock value ('' = unfenced), session id, state, events kept, record ('' = none),
#       key ('' = none), key record json, keys kept, key ttl (seconds),
#       then pairs of (number, message json), then '--', then the event jsons
_COMMIT = _RUN + """
if ARGV[1] ~= '' and not held(KEYS[1], ARGV[1]) then
  return redis.error_reply('LEASELOST')
end
local i = 10
local last = tonumber(redis.call('HGET', KEYS[3], 'last') or '0')
if ARGV[1] ~= '' then                -- a fenced commit continues the numbering: check first
  local j, expected = i, last + 1
  while ARGV[j] ~= '--' do
    if tonumber(ARGV[j]) ~= expected then return redis.error_reply('NOTNEXT ' .. ARGV[j]) end
    expected, j = expected + 1, j + 2
  end
end
while ARGV[i] ~= '--' do
  local number = tonumber(ARGV[i])
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  if number > last then last = number end
  i = i + 2
end
redis.call('HSET', KEYS[3], 'last', last)
redis.call('SET', KEYS[4], ARGV[3])
for j = i + 1, #ARGV do redis.call('RPUSH', KEYS[5], ARGV[j]) end
redis.call('LTRIM', KEYS[5], -tonumber(ARGV[4]), -1)
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
if ARGV[5] ~= '' then
  local record = cjson.decode(ARGV[5])
  record['committed_at'] = now
  redis.call('HSET', KEYS[6], record['turn'], cjson.encode(record))
end
if ARGV[6] ~= '' then                -- the key and its outcome; old and surplus keys go
  local record = cjson.decode(ARGV[7])
  record['created_at'] = now
  redis.call('HSET', KEYS[8], ARGV[6], cjson.encode(record))
  redis.call('ZADD', KEYS[9], now, ARGV[6])
  local gone = redis.call('ZRANGEBYSCORE', KEYS[9], '-inf', '(' .. (now - tonumber(ARGV[9])))
  local surplus = redis.call('ZRANGE', KEYS[9], 0, -tonumber(ARGV[8]) - 1)
  for _, list in ipairs({gone, surplus}) do
    for _, k in ipairs(list) do
      redis.call('HDEL', KEYS[8], k)
      redis.call('ZREM', KEYS[9], k)
    end
  end
end
redis.call('SADD', KEYS[7], ARGV[2])
return 1
"""


# KEYS: lock, messages, meta, state, events, turns, keys, key times, the set of sessions
# ARGV: lock value ('' = unfenced), 'all' or 'some', the session id, the record's json,
#       the number n of idempotency keys, n pairs of (key, its record with the answer
#       redacted, or '' to delete a claim never committed), then pairs of (number,
#       redacted message json)
# The records of earlier forgets stay in the events; a forget that takes nothing writes
# nothing.
_FORGET = _RUN + """
if ARGV[1] ~= '' and not held(KEYS[1], ARGV[1]) then
  return redis.error_reply('LEASELOST')
end
local went = #ARGV > 5 + 2 * tonumber(ARGV[5]) or
  (ARGV[2] == 'all' and redis.call('EXISTS', KEYS[2]) == 1)
if not (went or ARGV[2] == 'all') then return 1 end
if ARGV[2] == 'all' then
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[6])
  redis.call('SREM', KEYS[9], ARGV[3])
end
local keys = tonumber(ARGV[5])
for i = 6, 5 + 2 * keys, 2 do
  if ARGV[i + 1] == '' then
    redis.call('HDEL', KEYS[7], ARGV[i])
    redis.call('ZREM', KEYS[8], ARGV[i])
  else
    redis.call('HSET', KEYS[7], ARGV[i], ARGV[i + 1])
  end
end
for i = 6 + 2 * keys, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
local records = {}
for _, event in ipairs(redis.call('LRANGE', KEYS[5], 0, -1)) do
  local ok, decoded = pcall(cjson.decode, event)
  if ok and type(decoded) == 'table' and decoded['kind'] == 'forgotten' then
    records[#records + 1] = event
  end
end
redis.call('DEL', KEYS[4], KEYS[5])
for _, event in ipairs(records) do redis.call('RPUSH', KEYS[5], event) end
if went then redis.call('RPUSH', KEYS[5], ARGV[4]) end
return 1
"""
_REWRITE_WAIT = 60.0       # seconds a forget waits for Redis to rewrite its files

_USER_PASSWORD = re.compile(r"(//[^:/@?#]*:)[^/?#]*@")   # to the last "@" of the host part
_QUERY_PASSWORD = re.compile(r"([?&]password=)[^&#]*", re.IGNORECASE)


def redact(url: str) -> str:
    """``url`` with its password, if any, replaced by ``***`` (in the user part and in a
    ``password=`` query parameter), for error messages and logs."""
    return _QUERY_PASSWORD.sub(r"\1***", _USER_PASSWORD.sub(r"\1***@", url, count=1))


def _message_json(message: Message) -> str:
    return json.dumps([message.role, message.content, message.tokens, message.number,
                       message.speaker, message.when])


class RedisSessionStore(SessionStore):
    """The service's store in Redis, for several workers on one or more machines.

    ``url``: a ``redis://`` or ``unix://`` URL (see redis-py's ``Redis.from_url``);
    ``prefix``: put before every key (tests give each run its own); ``timeout``: seconds
    a call waits for the server (> 0, default 10; the service gives it less than its
    ``wait``). Per session: the messages (a hash by number), the memory's state, the
    turn records (a hash by turn), the newest :data:`EVENTS_KEPT` trace events (a list),
    ``last`` (in a meta hash), the lease (a key holding ``RUN:TOKEN``, the server's run
    id and the token, expiring by Redis's clock: ``SET ... PX``), the fencing counter
    (``INCR``), the idempotency keys (a hash and a sorted set by time) and the queue of
    waiting turns (a sorted set of tickets and their expiry). Acquire, renew, release,
    claim, enqueue and commit are Lua scripts, so each check-and-write is one atomic
    step on the server. Raises StoreError naming
    the URL and the session if Redis cannot be reached or answers with an error.
    """

    kind = "redis"
    keys_kept, key_ttl, queue_ttl = KEYS_KEPT, KEY_TTL, QUEUE_TTL

    def __init__(self, url: str = "redis://127.0.0.1:6379/0", prefix: str = "kit",
                 timeout: float = 10.0) -> None:
        import redis                              # the [serve] extra; imported when used
        if not isinstance(url, str) or not url:
            raise ValueError(f"url must be a redis:// or unix:// URL, got {url!r:.60}")
        if not isinstance(prefix, str) or not prefix or "{" in prefix:
            raise ValueError(f"prefix must be a non-empty str without '{{', got {prefix!r}")
        self.url, self.prefix = redact(url), prefix   # what messages and repr show
        timeout = check_span("timeout", timeout)
        self._redis = redis.Redis.from_url(url, decode_responses=True, socket_timeout=timeout,
                                           socket_connect_timeout=timeout)
        self._errors = (redis.RedisError,)
        self._acquire = self._redis.register_script(_ACQUIRE)
        self._renew = self._redis.register_script(_RENEW)
        self._release = self._redis.register_script(_RELEASE)
        self._commit = self._redis.register_script(_COMMIT)
        self._claim = self._redis.register_script(_CLAIM)
        self._enqueue = self._redis.register_script(_ENQUEUE)
        self._forget = self._redis.register_script(_FORGET)
        self._closed = False
        self._lock = threading.Lock()

    def _key(self, session_id: str, name: str) -> str:
        return f"{self.prefix}:{{{session_id}}}:{name}"

    def _call(self, session_id: str | None, doing: str, fn, *args, **kwargs):
        if self._closed:
            raise ValueError(f"the Redis store {self.url!r} is closed")
        where = (f"the Redis store {self.url!r}" if session_id is None
                 else f"session {session_id!r} in {self.url!r}")
        try:
            return fn(*args, **kwargs)
        except self._errors as exc:
            if "LEASELOST" in str(exc):
                raise LeaseLost(f"{where}: the lease is no longer held (it expired or "
                                f"another worker took the session); nothing was written"
                                ) from None
            if "NOTNEXT" in str(exc):
                raise StoreError(f"{where}: the turn's messages do not follow the stored "
                                 f"ones; nothing was written") from None
            raise StoreError(f"{where}: {doing} failed: {type(exc).__name__}: "
                             f"{redact(str(exc))}") from exc

    def ping(self) -> bool:
        """True if the server answers (raises StoreError if it cannot be reached)."""
        return bool(self._call(None, "ping", self._redis.ping))

    def persistence(self) -> dict:
        """What the server keeps: ``{"aof": bool, "save": str, "run": str, "evicts":
        bool, "policy": str}`` (``appendonly`` on; the RDB ``save`` schedule, "" for
        none; the server's run id; whether a ``maxmemory`` with an eviction
        ``maxmemory-policy`` may drop keys, sessions and leases included). Read with ``CONFIG GET``, or ``INFO persistence`` where CONFIG is
        disabled (``save`` is then ``"?"``). Raises StoreError if Redis does not answer."""
        info = self._call(None, "reading INFO", self._redis.info)
        try:
            got = {}
            for name in ("appendonly", "save", "maxmemory-policy"):
                got.update(self._call(None, "CONFIG GET", self._redis.config_get, name))
            aof, save = got.get("appendonly") == "yes", got.get("save", "")
            policy = got.get("maxmemory-policy", "noeviction")
        except StoreError:
            aof, save = bool(info.get("aof_enabled")), "?"
            policy = str(info.get("maxmemory_policy", "noeviction"))
        evicts = policy != "noeviction" and int(info.get("maxmemory", 0) or 0) > 0
        return {"aof": aof, "save": save, "run": str(info.get("run_id", "")),
                "evicts": evicts, "policy": policy}

    @staticmethod
    def _value(lease: Lease) -> str:
        return f"{lease.run}:{lease.token}"

    def acquire(self, session_id: str, ttl: float, ticket: int | None = None
                ) -> Lease | None:
        ttl = _check_acquire(session_id, ttl, ticket)
        key = self._key
        got = self._call(session_id, "taking the lease", self._acquire,
                         keys=[key(session_id, "lock"), key(session_id, "fence"),
                               key(session_id, "queue"), key(session_id, "queued")],
                         args=[max(1, round(ttl * 1000)), "" if ticket is None else ticket,
                               round(self.queue_ttl * 1000)])
        return None if got is None else Lease(session_id, int(got[0]), ttl, str(got[1]))

    def enqueue(self, session_id: str) -> int:
        check_session(session_id)
        key = self._key
        return int(self._call(session_id, "queueing for the lease", self._enqueue,
                              keys=[key(session_id, "tickets"), key(session_id, "queue"),
                                    key(session_id, "queued")],
                              args=[round(self.queue_ttl * 1000)]))

    def dequeue(self, session_id: str, ticket: int) -> None:
        check_session(session_id)
        _check_ticket(ticket)
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.zrem(self._key(session_id, "queue"), ticket)
            pipe.hdel(self._key(session_id, "queued"), ticket)
            self._call(session_id, "leaving the queue", pipe.execute)

    def holder(self, session_id: str) -> int | None:
        check_session(session_id)
        value = self._call(session_id, "reading the lease", self._redis.get,
                           self._key(session_id, "lock"))
        return None if value is None else int(value.rpartition(":")[2])

    def renew(self, lease: Lease) -> None:
        _check_lease(lease)
        held = self._call(lease.session_id, "renewing the lease", self._renew,
                          keys=[self._key(lease.session_id, "lock")],
                          args=[self._value(lease), max(1, round(lease.ttl * 1000))])
        if not held:
            raise LeaseLost(f"session {lease.session_id!r} in {self.url!r}: lease "
                            f"{lease.token} is no longer held; not renewed")

    def release(self, lease: Lease) -> bool:
        _check_lease(lease)
        return bool(self._call(lease.session_id, "releasing the lease", self._release,
                               keys=[self._key(lease.session_id, "lock")],
                               args=[self._value(lease)]))

    @staticmethod
    def _record(key: str, text: str | None) -> KeyRecord | None:
        if text is None:
            return None
        data = json.loads(text)
        return KeyRecord(key, data["digest"], data.get("token"), data.get("turn"),
                         data.get("outcome"), data.get("created_at", 0.0))

    def key_record(self, session_id: str, key: str) -> KeyRecord | None:
        check_session(session_id)
        _check_key(key)
        return self._record(key, self._call(session_id, "reading an idempotency key",
                                            self._redis.hget, self._key(session_id, "keys"),
                                            key))

    def claim(self, lease: Lease, key: str, text_digest: str) -> KeyRecord | None:
        _check_lease(lease)
        _check_key(key)
        pending = json.dumps({"digest": text_digest, "token": lease.token, "turn": None,
                              "outcome": None})
        found = self._call(lease.session_id, "claiming an idempotency key", self._claim,
                           keys=[self._key(lease.session_id, "lock"),
                                 self._key(lease.session_id, "keys"),
                                 self._key(lease.session_id, "keytimes")],
                           args=[self._value(lease), key, text_digest, pending])
        return self._record(key, found)

    def load(self, session_id: str) -> Snapshot:
        check_session(session_id)
        key = self._key
        with self._redis.pipeline(transaction=True) as pipe:       # MULTI ... EXEC
            pipe.get(key(session_id, "state"))
            pipe.hget(key(session_id, "meta"), "last")
            pipe.hlen(key(session_id, "turns"))
            text, last, turns = self._call(session_id, "loading the session", pipe.execute)
        state = (None if text is None else
                 parse_state(text, f"session {session_id!r} in {self.url!r}"))
        last = int(last or 0)
        # Messages up to ``last`` never change once a fenced commit wrote them.
        numbers = list(range(first_needed(state, last), last + 1))
        rows: list = []
        for i in range(0, len(numbers), 1000):
            rows += self._call(session_id, "reading messages", self._redis.hmget,
                               key(session_id, "messages"), numbers[i:i + 1000])
        messages = tuple(Message(*json.loads(row)) for row in rows if row is not None)
        return Snapshot(session_id, state, messages, last, int(turns))

    def commit(self, session_id: str, lease: Lease | None, messages: Sequence[Message],
               state: dict, events: Sequence[dict] = (), record: TurnRecord | None = None,
               key: KeyRecord | None = None) -> None:
        state_json, event_json = _check_commit(session_id, lease, messages, state, events)
        _key_json(key)
        record_json = "" if record is None else json.dumps(asdict(record))
        key_json = "" if key is None else json.dumps(
            {"digest": key.digest, "token": key.token, "turn": key.turn,
             "outcome": key.outcome}, allow_nan=False)
        args: list = ["" if lease is None else self._value(lease), session_id, state_json,
                      EVENTS_KEPT, record_json, "" if key is None else key.key, key_json,
                      self.keys_kept, self.key_ttl]
        for m in messages:
            args += [m.number, _message_json(m)]
        args += ["--", *event_json]
        key = self._key
        self._call(session_id, "committing the turn", self._commit,
                   keys=[key(session_id, "lock"), key(session_id, "messages"),
                         key(session_id, "meta"), key(session_id, "state"),
                         key(session_id, "events"), key(session_id, "turns"),
                         f"{self.prefix}:sessions", key(session_id, "keys"),
                         key(session_id, "keytimes")], args=args)

    def forget(self, session_id: str, lease: Lease | None, words: Sequence[str] | None = None
               ) -> tuple[int, ...]:
        _check_forget(session_id, lease, words)             # checked before anything
        turns = self.transcript(session_id)   # stable under the lease: only it commits
        numbers, facts, by = choose(turns, [], words=words, everything=words is None)
        args: list = ["" if lease is None else self._value(lease),
                      "all" if words is None else "some", session_id,
                      json.dumps(Forgotten(session_id, numbers, facts, by).record())]
        went = bool(numbers) or (words is None and bool(turns))
        kept = self._call(session_id, "reading the idempotency keys", self._redis.hgetall,
                          self._key(session_id, "keys")) if went or words is None else {}
        args.append(len(kept))
        for name, text in kept.items():     # the keys stay (a retry is not run again)
            record = json.loads(text)
            if record.get("outcome") is not None:
                record["outcome"] = {**record["outcome"], "answer": FORGOTTEN}
                record["digest"] = FORGOTTEN           # a digest confirms a guessed text
            args += [name, json.dumps(record) if record.get("outcome") is not None else ""]
        for m in turns:
            if words is not None and m.number in numbers:
                args += [m.number, _message_json(replace(m, content=FORGOTTEN))]
        key = self._key
        self._call(session_id, "forgetting", self._forget,
                   keys=[key(session_id, n) for n in ("lock", "messages", "meta", "state",
                                                      "events", "turns", "keys", "keytimes")]
                   + [f"{self.prefix}:sessions"], args=args)
        self.rewrite(session_id)
        return numbers

    def rewrite(self, session_id: str | None = None, wait: float = _REWRITE_WAIT) -> None:
        """Make the server's files forget too: ``BGREWRITEAOF`` (the append-only file
        rewritten from the data as it is now; the old one, which holds every command
        ever sent, is replaced) and, when the server keeps RDB snapshots (a ``save``
        schedule, a snapshot written in this run, or a snapshot file on this machine),
        ``BGSAVE``; waits until both are done. Raises StoreError if one fails or takes
        longer than ``wait`` seconds."""
        r, where = self._redis, session_id
        info = self._call(where, "reading INFO", r.info, "persistence")
        snapshot = info.get("rdb_last_bgsave_time_sec", -1) != -1
        try:
            got = {}
            for name in ("save", "dir", "dbfilename"):
                got.update(self._call(where, "CONFIG GET", r.config_get, name))
            snapshot = snapshot or bool(got.get("save")) or os.path.exists(
                os.path.join(got.get("dir", ""), got.get("dbfilename", "dump.rdb")))
        except StoreError:                    # CONFIG disabled: INFO alone decides
            pass
        self._settle(where, wait)             # a rewrite already running holds old data
        if info.get("aof_enabled"):
            self._call(where, "BGREWRITEAOF", r.bgrewriteaof)
        if snapshot:
            self._settle(where, wait)
            self._call(where, "BGSAVE", r.bgsave)
        self._settle(where, wait)
        info = self._call(where, "reading INFO", r.info, "persistence")
        for name in ("aof_last_bgrewrite_status", "rdb_last_bgsave_status"):
            if info.get(name, "ok") != "ok":
                raise StoreError(f"{self.url!r}: {name} is {info.get(name)!r} after a "
                                 f"forget: the server's files may still hold the text")

    def _settle(self, where: str | None, wait: float) -> None:
        """Wait until no AOF rewrite or RDB save runs or is scheduled."""
        deadline = time.monotonic() + wait
        while True:
            info = self._call(where, "reading INFO", self._redis.info, "persistence")
            if not any(int(info.get(n, 0)) for n in (
                    "aof_rewrite_in_progress", "aof_rewrite_scheduled",
                    "rdb_bgsave_in_progress")):
                return
            if time.monotonic() > deadline:
                raise StoreError(f"{self.url!r}: the server did not finish rewriting its "
                                 f"files within {wait:g} s after a forget")
            time.sleep(0.01)

    def events(self, session_id: str, last: int = 20) -> list[dict]:
        check_session(session_id)
        last = min(check_int("last", last, 0), EVENTS_KEPT)
        if last == 0:
            return []
        rows = self._call(session_id, "reading the events", self._redis.lrange,
                          self._key(session_id, "events"), -last, -1)
        return [json.loads(row) for row in rows]

    def turn_log(self, session_id: str) -> list[TurnRecord]:
        check_session(session_id)
        rows = self._call(session_id, "reading the turn records", self._redis.hvals,
                          self._key(session_id, "turns"))
        return sorted((TurnRecord(**json.loads(row)) for row in rows), key=lambda r: r.turn)

    def transcript(self, session_id: str) -> list[Message]:
        check_session(session_id)
        rows = self._call(session_id, "reading the transcript", self._redis.hvals,
                          self._key(session_id, "messages"))
        return sorted((Message(*json.loads(row)) for row in rows), key=lambda m: m.number)

    def sessions(self) -> list[str]:
        """Ids of every session with a committed turn, sorted."""
        return sorted(self._call(None, "listing sessions", self._redis.smembers,
                                 f"{self.prefix}:sessions"))

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._redis.close()

    def __repr__(self) -> str:
        return f"RedisSessionStore({self.url!r}, prefix={self.prefix!r})"
