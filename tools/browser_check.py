"""Browser test of the learner lessons: what a learner sees in JupyterLab.

For each learner lesson `notebooks/NN_*.ipynb` this script opens the learner's
working copy in JupyterLab in headless Chromium, checks that the notebook is not
marked modified right after opening, runs Run > Run All Cells and, once every
code cell has run, asserts that

1. no cell shows an error box, except the `check` cells (JupyterLab draws
   tracebacks and text written to stderr alike, so both count);
2. every `check` cell shows the short hint box: it says "Check failed", is at
   most 20 lines and shows no "Traceback", "kit/checks" or "site-packages";
3. every cell whose counterpart in `solutions/` has an `image/png` output shows
   an <img> (the plot renders);
4. lesson 03: the `summary_explorer` cell shows sliders, and moving one redraws
   the explorer.

Cells are numbered from 0, as in the .ipynb file. It prints `PASS name` or
`FAIL name: reason; reason` per lesson, then `browser: N passed, M failed`, and
exits 0 if every lesson passed, 1 if not, 2 if Chromium or Playwright is missing
(or the screenshot folder cannot be made), 130 on Ctrl-C and 143 on SIGTERM (as from
a CI timeout); JupyterLab is stopped in every case.
Screenshots (one per lesson, plus the lesson-03 explorer after the slider moved)
go to build/browser/. All nine lessons take about two minutes.

Usage (from the repository root):

    .venv/bin/python tools/browser_check.py [NAMES...] [--screenshots DIR]

NAMES are lesson numbers or names (`03`, `03_summary_memory`); default: all. A
lesson named twice runs once.

Needs Debian's Chromium (`apt-get install -y chromium`; another binary via the
CHROMIUM environment variable) and the PyPI package playwright
(`.venv/bin/pip install playwright`; no `playwright install`: the script
launches that Chromium). JupyterLab runs on 127.0.0.1 from a temporary folder
(the working copy comes from `tools/lessons.py workspace`, settings are
fresh); no other host is contacted, and a page request to one is a failure.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import lessons  # tools/lessons.py, beside this file

ROOT = lessons.ROOT
NOTEBOOKS, SOLUTIONS = lessons.NOTEBOOKS, lessons.SOLUTIONS
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]  # no other host
START_TIMEOUT, OPEN_TIMEOUT, RUN_TIMEOUT, REDRAW_TIMEOUT = 90, 90, 300, 30  # seconds
POLL = 0.5                    # seconds between looks at the page
HINT_MAX_LINES = 20
HINT_FORBIDDEN = ("Traceback", "kit/checks", "site-packages")
EXPLORER_LESSON, EXPLORER_TAG = "03_summary_memory", "nbval-ignore-output"
LAB_SETTINGS = {  # no news or update checks: they would go to the internet
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        {"fetchNews": "false", "checkForUpdates": False},
}

# What the page shows: one entry per cell, in file order.
SNAPSHOT_JS = """() => [...document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-Cell')]
  .map(cell => ({
    code: cell.classList.contains('jp-CodeCell'),
    prompt: (cell.querySelector('.jp-InputArea-prompt') || {}).textContent || '',
    errors: [...cell.querySelectorAll(
        '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
      .map(node => node.textContent),
    images: cell.querySelectorAll('.jp-OutputArea-output img').length,
  }))"""
STATUS_JS = """() => ({
  status: (document.querySelector('.jp-Notebook-ExecutionIndicator') || {dataset: {}}).dataset.status,
  dirty: document.querySelector('.lm-TabBar-tab.jp-mod-dirty') !== null,
})"""


# ---- pure parts (unit tested in tests/test_browser_check.py) ----

def resolve_names(names: list[str], folder: Path = NOTEBOOKS) -> list[str]:
    """Lesson stems for `names` (numbers like "03", stems, file names); all if empty.
    A lesson named twice (`01 01`, `01 01_tokens`) is kept once, where first named.

    Raises ValueError naming an unknown or ambiguous lesson (the rule of
    `lessons.lesson_path`).
    """
    if not names:
        return [path.stem for path in lessons.lesson_paths(folder)]
    try:
        return list(dict.fromkeys(lessons.lesson_path(name, folder).stem for name in names))
    except lessons.LessonError as err:
        raise ValueError(str(err)) from None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="lesson numbers or names (default: all)")
    parser.add_argument("--screenshots", type=Path, default=ROOT / "build" / "browser",
                        help="folder for the screenshots (default: build/browser)")
    return parser.parse_args(argv)


def cell_tags(nb: dict) -> list[list[str]]:
    """The tags of each cell of notebook JSON `nb`, in order."""
    return [cell.get("metadata", {}).get("tags", []) for cell in nb["cells"]]


def png_cells(nb: dict) -> set[int]:
    """Indices of the cells of notebook JSON `nb` that have an image/png output."""
    return {index for index, cell in enumerate(nb["cells"])
            if any("image/png" in out.get("data", {}) for out in cell.get("outputs", []))}


def hint_box_problems(text: str) -> list[str]:
    """What is wrong with the text of a check cell's error box (empty: it is fine)."""
    problems = [] if "Check failed" in text else ["lacks 'Check failed'"]
    lines = len(text.strip().splitlines())
    if lines > HINT_MAX_LINES:
        problems.append(f"has {lines} lines (at most {HINT_MAX_LINES})")
    problems += [f"shows {word!r}" for word in HINT_FORBIDDEN if word in text]
    return problems


def last_line(text: str, width: int = 100) -> str:
    """The last non-blank line of `text`, stripped and cut to `width` characters."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return (lines[-1] if lines else "")[:width]


def judge(tags: list[list[str]], pngs: set[int], cells: list[dict]) -> list[str]:
    """Failure reasons for a run lesson: file `tags` and `pngs` against page `cells`."""
    if len(cells) != len(tags):
        return [f"the page shows {len(cells)} cells, the file has {len(tags)}"]
    not_run = [i for i, cell in enumerate(cells) if cell["code"]
               and not re.fullmatch(r"\[\d+\]:", cell["prompt"].strip())]
    problems = [f"cells not run: {', '.join(map(str, not_run))}"] if not_run else []
    for index, (cell, cell_tags_) in enumerate(zip(cells, tags)):
        errors = "\n".join(cell["errors"])
        if "check" in cell_tags_:
            found = hint_box_problems(errors) if errors else ["shows no error"]
            if found and index not in not_run:
                problems.append(f"check cell {index} {', '.join(found)}")
        elif errors:
            problems.append(f"cell {index} shows an error: {last_line(errors)}")
        if index in pngs and not cell["images"]:
            problems.append(f"cell {index} shows no plot image")
    return problems


# ---- JupyterLab server ----

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def make_workspace(root: Path) -> None:
    """The learner's working copy in root/work, and isolated JupyterLab settings."""
    cmd = [sys.executable, str(ROOT / "tools" / "lessons.py"), "workspace",
           "--dest", str(root / "work")]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[1:])} failed:\n{done.stderr}")
    for name, values in LAB_SETTINGS.items():
        path = root / "lab-settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")


def start_lab(root: Path, port: int, token: str) -> subprocess.Popen:
    """Start JupyterLab serving `root` on 127.0.0.1:port; wait until it answers."""
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(root / "config"),
               JUPYTER_RUNTIME_DIR=str(root / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(root / "lab-settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(root / "lab-workspaces"))
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root",
           f"--ServerApp.root_dir={root}", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
           "--LabApp.extension_manager=readonly"]
    with open(root / "jupyter.log", "w", encoding="utf-8") as log:  # the server keeps its copy
        server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=root,
                                  start_new_session=True)  # Ctrl-C here does not reach it
    deadline = time.monotonic() + START_TIMEOUT
    try:
        while time.monotonic() < deadline and server.poll() is None:
            try:
                api(port, token, "status")
                return server
            except OSError:
                time.sleep(POLL)
    except BaseException:  # Ctrl-C or SIGTERM while waiting: the caller has no server yet
        stop_lab(server)
        raise
    stop_lab(server)
    tail = (root / "jupyter.log").read_text(encoding="utf-8")[-2000:]
    raise RuntimeError(f"JupyterLab did not start within {START_TIMEOUT} s:\n{tail}")


def stop_lab(server: subprocess.Popen) -> None:
    """Stop the server (it shuts its kernels down), then anything left in its group."""
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(server.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    server.wait()


def api(port: int, token: str, path: str, method: str = "GET"):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/{path}", method=method,
                                     headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
    return json.loads(body) if body else None


def shut_down_sessions(port: int, token: str) -> None:
    for session in api(port, token, "sessions"):
        api(port, token, f"sessions/{session['id']}", method="DELETE")


# ---- one lesson in the browser ----

def wait_for(predicate, timeout: float, what: str):
    """Poll `predicate` until it returns something true; TimeoutError naming `what`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(POLL)
    raise TimeoutError(f"{what} after {timeout:.0f} s")


def run_all(page) -> list[dict]:
    """Run > Run All Cells; the cells once no cell is queued or running, the kernel is idle
    and the page has not changed for three looks."""
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    seen = []

    def settled():
        seen.append(page.evaluate(SNAPSHOT_JS))
        busy = any("*" in cell["prompt"] for cell in seen[-1])
        idle = page.evaluate(STATUS_JS)["status"] == "idle"
        return not busy and idle and len(seen) >= 3 and seen[-1] == seen[-2] == seen[-3]
    wait_for(settled, RUN_TIMEOUT, "cells still running")
    return seen[-1]


def check_explorer(page, index: int, shot: Path) -> list[str]:
    """Lesson 03: move the budget slider of cell `index`; the explorer must redraw."""
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    sliders = cell.locator(".widget-slider")
    if sliders.count() < 2:
        return [f"cell {index} shows {sliders.count()} sliders, expected 2 (budget, keep_recent)"]
    drawing = cell.locator(".widget-output").first
    before = drawing.inner_html()
    handle = sliders.first.locator(".noUi-handle")
    handle.scroll_into_view_if_needed()
    handle.focus()
    for _ in range(5):
        handle.press("ArrowRight")
    try:
        wait_for(lambda: drawing.inner_html() != before and drawing.locator("img").count(),
                 REDRAW_TIMEOUT, "explorer not redrawn")
    except TimeoutError as err:
        return [f"cell {index}: slider moved, {err}"]
    page.wait_for_timeout(1000)  # let the new image paint
    cell.screenshot(path=str(shot))
    return []


def check_lesson(page, base: str, token: str, name: str, shots: Path) -> list[str]:
    """Open, run and judge one lesson; the failure reasons (empty: it passed)."""
    nb = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))
    solution = json.loads((SOLUTIONS / f"{name}.ipynb").read_text(encoding="utf-8"))
    tags, problems = cell_tags(nb), []
    if len(solution["cells"]) != len(tags):
        problems.append(f"solutions/ has {len(solution['cells'])} cells, notebooks/ {len(tags)}")
    page.goto(f"{base}/lab/workspaces/{name}/tree/work/{name}.ipynb?token={token}")
    wait_for(lambda: page.evaluate(STATUS_JS)["status"] == "idle"
             and len(page.evaluate(SNAPSHOT_JS)) == len(tags), OPEN_TIMEOUT,
             "notebook not open with an idle kernel")
    page.wait_for_timeout(1000)  # kernel info and metadata updates arrive just after idle
    if page.evaluate(STATUS_JS)["dirty"]:
        problems.append("marked modified right after opening")
    problems += judge(tags, png_cells(solution), run_all(page))
    check_cells = [i for i, t in enumerate(tags) if "check" in t]
    if check_cells:  # the screenshot shows the first hint box
        page.locator(".jp-Notebook .jp-Cell").nth(check_cells[0]).scroll_into_view_if_needed()
    page.screenshot(path=str(shots / f"{name}.png"))
    if name == EXPLORER_LESSON:
        index = next(i for i, t in enumerate(tags) if EXPLORER_TAG in t)
        problems += check_explorer(page, index, shots / f"{name}-explorer.png")
    return problems


# ---- main ----

class Terminated(KeyboardInterrupt):
    """Raised by the SIGTERM handler of `stop_on_sigterm`: unwinds like Ctrl-C, so every
    `finally` (stop_lab) runs."""


@contextlib.contextmanager
def stop_on_sigterm():
    """While inside, SIGTERM raises `Terminated` (once; a repeat is ignored, so it cannot
    cut the cleanup short); on leaving, the previous SIGTERM handler is back. The lab runs
    in its own session (start_new_session), so without this a SIGTERM to this process
    would leave it running. Main thread only (as `signal.signal`)."""
    def terminated(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise Terminated(f"signal {signum}")
    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def find_tools() -> tuple[str, object] | str:
    """(chromium path, playwright's sync_playwright), or a message saying what is missing.

    Chromium is $CHROMIUM (default /usr/bin/chromium): a path or a name on PATH that must
    be an executable file (a folder does not count)."""
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    found = shutil.which(chromium)  # an executable file, never a folder
    missing = []
    if not found:
        missing.append(f"Chromium not found at {chromium}: `apt-get install -y chromium` "
                       "(or set CHROMIUM to a Chromium executable)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing.append(f"playwright not installed: `{sys.executable} -m pip install playwright`"
                       " (no `playwright install` needed)")
    return "\n".join(missing) if missing else (found, sync_playwright)


def outside_requests(urls: list[str], base: str) -> list[str]:
    """The hosts of the http(s)/ws(s) `urls` that do not start with `base`, sorted."""
    hosts = {re.sub(r"^\w+://([^/]*).*", r"\1", url) for url in urls
             if re.match(r"(https?|wss?)://", url) and not url.startswith(base)
             and not url.startswith(base.replace("http", "ws", 1))}
    return sorted(hosts)


def one_lesson(browser, base: str, token: str, name: str, shots: Path) -> list[str]:
    """check_lesson in a fresh page; any exception becomes a failure reason."""
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    try:
        problems = check_lesson(page, base, token, name, shots)
    except Exception as err:  # noqa: BLE001 (report it, go on with the next lesson)
        message = (str(err).strip().splitlines() or ["no message"])[0][:200]
        problems = [f"{type(err).__name__}: {message}"]
    finally:
        page.close()
    hosts = outside_requests(urls, base)
    return problems + ([f"requests outside 127.0.0.1: {', '.join(hosts)}"] if hosts else [])


def run_lessons(names: list[str], shots: Path, chromium: str, sync_playwright) -> int:
    """Check `names` in one JupyterLab and one browser; print results; the failure count."""
    failed = 0
    with tempfile.TemporaryDirectory(prefix="browser-check-") as tmp:
        root, port, token = Path(tmp), free_port(), secrets.token_hex(16)
        make_workspace(root)
        server = start_lab(root, port, token)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium, headless=True,
                                             args=CHROMIUM_ARGS)
                for name in names:
                    problems = one_lesson(browser, f"http://127.0.0.1:{port}", token,
                                          name, shots)
                    shut_down_sessions(port, token)  # the lesson's kernel
                    failed += bool(problems)
                    print(f"FAIL {name}: {'; '.join(problems)}" if problems
                          else f"PASS {name}", flush=True)
                browser.close()
        finally:
            stop_lab(server)
    return failed


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        names = resolve_names(args.names)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    tools = find_tools()
    if isinstance(tools, str):
        print(f"error: cannot run the browser check:\n{tools}", file=sys.stderr)
        return 2
    try:
        args.screenshots.mkdir(parents=True, exist_ok=True)
    except OSError as err:  # a file of that name, no permission, ...
        reason = ("it is a file, not a folder" if isinstance(err, FileExistsError)
                  else f"{err.strerror}: {err.filename}")
        print(f"error: --screenshots {args.screenshots}: cannot make the screenshot folder "
              f"({reason})", file=sys.stderr)
        return 2
    try:
        with stop_on_sigterm():
            failed = run_lessons(names, args.screenshots, *tools)
    except Terminated:
        print("terminated; JupyterLab stopped", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("interrupted; JupyterLab stopped", file=sys.stderr)
        return 130
    except RuntimeError as err:  # JupyterLab or the workspace did not start
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"browser: {len(names) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
