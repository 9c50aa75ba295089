"""The autouse `no_network` guard from conftest.py: remote blocked, loopback allowed."""
import socket

import pytest

REMOTE = ("192.0.2.1", 80)  # TEST-NET-1: documentation address, never routed


def test_connect_to_remote_address_is_blocked():
    with socket.socket() as sock, pytest.raises(OSError, match="network access blocked in tests"):
        sock.connect(REMOTE)


def test_connect_ex_to_remote_address_is_blocked():
    with socket.socket() as sock, pytest.raises(OSError, match="192.0.2.1"):
        sock.connect_ex(REMOTE)


@pytest.mark.parametrize("address", [REMOTE, ("example.com", 443), ("2001:db8::1", 443)])
def test_create_connection_is_blocked_before_dns(address):
    with pytest.raises(OSError, match="network access blocked in tests"):
        socket.create_connection(address, timeout=1)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_loopback_is_allowed(host):
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        with socket.create_connection((host, port), timeout=5) as client:
            peer, _ = server.accept()
            with peer:
                client.sendall(b"ping")
                assert peer.recv(4) == b"ping"


def test_unix_socket_is_allowed(tmp_path):
    if not hasattr(socket, "AF_UNIX"):
        pytest.skip("no AF_UNIX sockets on this platform")
    path = str(tmp_path / "s.sock")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(path)
        server.listen()
        with socket.socket(socket.AF_UNIX) as client:
            assert client.connect_ex(path) == 0
