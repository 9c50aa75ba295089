"""Find the oldest and the newest supported Python on this machine, for CI.

The supported versions are the `Programming Language :: Python :: 3.X` classifiers of
pyproject.toml (3.11 to 3.13). For each, in order, the first interpreter that runs and
reports that version: `python3.X` on PATH, then pyenv's versions (whose shims find a
version only when PYENV_VERSION names it), then /usr/local/bin and /usr/bin.

Usage: python3 tools/pythons.py            # the oldest and the newest found, one path a
                                           # line (one line if only one version is found)
       python3 tools/pythons.py --all      # every supported version found, one a line
Exits 1, saying which versions it looked for, when none is found. Runs on Python 3.7 or
newer.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def supported() -> list:
    """The supported "3.X" versions, oldest first, from pyproject.toml's classifiers."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as file:
        text = file.read()
    found = re.findall(r'"Programming Language :: Python :: (3\.\d+)"', text)
    return sorted(set(found), key=lambda v: int(v.split(".")[1]))


def version_of(path: str) -> str:
    """ "3.X" of the interpreter at ``path``, or "" if it does not run."""
    try:
        done = subprocess.run([path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def candidates(version: str) -> list:
    """Paths that may hold Python ``version``, in the order they are tried."""
    paths = [shutil.which(f"python{version}") or ""]
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    pyenv = sorted(glob.glob(os.path.join(root, "versions", f"{version}.*", "bin",
                                          f"python{version}")), reverse=True)
    paths += pyenv + [f"/usr/local/bin/python{version}", f"/usr/bin/python{version}"]
    return [path for path in paths if path and os.path.isfile(path)]


def find(version: str) -> str:
    """The first candidate that really is Python ``version``, or ""."""
    return next((p for p in candidates(version) if version_of(p) == version), "")


def main() -> int:
    versions = supported()
    found = [path for path in (find(v) for v in versions) if path]
    if not found:
        print(f"no supported Python found (looked for {', '.join(versions)})", file=sys.stderr)
        return 1
    if "--all" in sys.argv[1:]:
        print("\n".join(found))
    else:
        print("\n".join(dict.fromkeys([found[0], found[-1]])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
