"""The chat page without a browser: the app serves its three files with the
Content-Security-Policy, the page has no inline script or style and writes no HTML, its
server-sent-event parser (under Node, where there is one), and the pure parts of
tools/browser_chat.py (the browser test itself is `make test-browser`)."""
import asyncio
import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed: pip install -e '.[dev]'")
pytest.importorskip("starlette", reason="the serve extra is not installed")

from kit.serve import ChatService, SQLiteSessionStore, service_memory  # noqa: E402
from kit.serve.app import create_app  # noqa: E402
from kit.serve.service import SESSION_ID  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "kit" / "serve" / "static"
sys.path.insert(0, str(ROOT / "tools"))
import browser_chat as bch  # noqa: E402

PAGES = {"/": ("index.html", "text/html"), "/static/chat.js": ("chat.js", "text/javascript"),
         "/static/chat.css": ("chat.css", "text/css")}
IDS = ("session", "messages", "composer", "text", "send", "context", "budget-bar",
       "budget-mark", "budget-legend", "size", "turns", "summary", "recent", "moved")


@pytest.fixture
def app(tmp_path):
    with SQLiteSessionStore(tmp_path / "chat.db") as store:
        yield create_app(ChatService(store, memory_factory=service_memory(budget=60)))


def get(app, path: str) -> httpx.Response:
    async def go():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app),
                                     base_url="http://kit.test") as client:
            return await client.get(path)
    return asyncio.run(go())


class Tags(HTMLParser):
    """Every start tag of a page as (tag, attributes), and the text inside <script>
    and <style> elements."""

    def __init__(self) -> None:
        super().__init__()
        self.tags, self.inline, self._open = [], [], None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._open = tag if tag in ("script", "style") else None

    def handle_endtag(self, tag):
        self._open = None

    def handle_data(self, data):
        if self._open and data.strip():
            self.inline.append((self._open, data.strip()))


def page_tags() -> Tags:
    tags = Tags()
    tags.feed((STATIC / "index.html").read_text(encoding="utf-8"))
    return tags


@pytest.mark.parametrize("path", PAGES)
def test_each_static_file_is_served_with_the_csp(app, path):
    name, kind = PAGES[path]
    response = get(app, path)
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] == kind
    assert response.content == (STATIC / name).read_bytes()
    csp = response.headers["content-security-policy"]
    assert "script-src 'self';" in csp and "style-src 'self';" in csp
    assert "connect-src 'self';" in csp and "unsafe" not in csp
    assert response.headers["x-content-type-options"] == "nosniff"


def test_the_page_has_no_inline_script_style_or_handler():
    tags = page_tags()
    assert tags.inline == []
    assert [attrs["src"] for tag, attrs in tags.tags if tag == "script"] == ["/static/chat.js"]
    assert [attrs["href"] for tag, attrs in tags.tags if tag == "link"] == ["/static/chat.css"]
    assert not [tag for tag, _ in tags.tags if tag == "style"]
    attributes = {name for _, attrs in tags.tags for name in attrs}
    assert "style" not in attributes
    assert not [name for name in attributes if name.startswith("on")]


def test_the_page_has_every_element_the_script_and_the_browser_test_use():
    ids = [attrs["id"] for _, attrs in page_tags().tags if "id" in attrs]
    assert sorted(set(ids)) == sorted(ids)                     # none twice
    assert set(IDS) <= set(ids)
    script = (STATIC / "chat.js").read_text(encoding="utf-8")
    assert set(re.findall(r'\$\("([\w-]+)"\)', script)) <= set(ids)


def test_the_script_writes_no_html_and_runs_no_strings():
    script = (STATIC / "chat.js").read_text(encoding="utf-8")
    for word in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write",
                 "eval(", "new Function", "setAttribute(\"style\"", "javascript:"):
        assert word not in script, word
    assert re.findall(r"setTimeout\(\s*[\"'`]", script) == []


def test_the_page_fetches_nothing_from_another_host():
    for name in ("index.html", "chat.js", "chat.css"):
        text = (STATIC / name).read_text(encoding="utf-8")
        assert re.findall(r"(?:https?:|wss?:)?//[\w.-]+\.\w", text) == [], name
    css = (STATIC / "chat.css").read_text(encoding="utf-8")
    assert "@import" not in css and "url(" not in css


def test_the_script_checks_session_ids_by_the_services_rule():
    script = (STATIC / "chat.js").read_text(encoding="utf-8")
    found = re.search(r"const SESSION_ID = /\^(.+?)\$/;", script)
    assert found and found.group(1) == SESSION_ID.pattern


# ---- the hand-written server-sent-event parser, under Node ----

PARSER_CASES = [
    # (chunks fed in turn, events returned after each chunk)
    (['event: reply\ndata: {"text": "a "}\n\n'], [[["reply", '{"text": "a "}']]]),
    (["event: re", "ply\ndata: {\"te", "xt\": \"b\"}\n", "\n"],
     [[], [], [], [["reply", '{"text": "b"}']]]),
    (["event: done\r\ndata: 1\r\n\r\n"], [[["done", "1"]]]),
    ([": a comment\ndata: x\ndata: y\n\nevent: done\ndata:2\n\n"],
     [[["message", "x\ny"], ["done", "2"]]]),
    (["event: reply\n\n", "data: z\n\n"], [[], [["message", "z"]]]),
]


def parser_source() -> str:
    script = (STATIC / "chat.js").read_text(encoding="utf-8")
    start = script.index("  function eventParser()")
    return script[start:script.index("\n  }\n", start) + 4]


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
@pytest.mark.parametrize("chunks, expected", PARSER_CASES)
def test_the_event_parser_splits_events_across_chunks(chunks, expected):
    program = (parser_source() + "\nconst feed = eventParser();\n"
               f"const out = {json.dumps(chunks)}.map(c => feed(c).map(e => [e.event, e.data]));\n"
               "process.stdout.write(JSON.stringify(out));\n")
    done = subprocess.run(["node", "-e", program], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected


# ---- the pure parts of tools/browser_chat.py ----

def context(parts, budget=60, size=None, **more):
    size = sum(tokens for _, tokens in parts) if size is None else size
    return {"parts": [{"name": n, "tokens": t, "items": 1, "cut": 0} for n, t in parts],
            "budget": budget, "size": size, "unit": "tokens", "turns": 3, "summary": "",
            "recent": [], "events": [], **more}


def test_importing_needs_no_playwright():
    code = ("import sys; sys.path.insert(0, 'tools'); import browser_chat; "
            "assert 'playwright' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_legend_text_says_free_under_the_budget_and_over_past_it():
    assert bch.legend_text(context([("summary", 40), ("recent", 95)], budget=150)) == \
        "summary 40 · recent 95 · free 15 / 150 tokens"
    assert bch.legend_text(context([("summary", 36), ("recent", 73)], budget=60)) == \
        "summary 36 · recent 73 · over 49 / 60 tokens"
    assert bch.legend_text(context([("recent", 0)], budget=60)) == "recent 0 · free 60 / 60 tokens"
    assert bch.legend_text(context([("recent", 7)], budget=None)) == "recent 7 (no budget) tokens"


def test_streaming_problems_wants_a_partial_text_before_the_whole():
    final = "This is the old refund policy. [1]"
    assert bch.streaming_problems(["", "This is the ", final], final) == []
    assert bch.streaming_problems(["", final], final) == [
        "was never seen partial (texts seen: 2)"]
    assert bch.streaming_problems(["This is", "Other", final], final) == [
        "showed 'Other', not a beginning of the reply"]
    assert bch.streaming_problems(["", "This is the "], final) == [
        "ended as 'This is the ', not the final text"]


def panel_of(ctx, legend=None, width=600.0):
    scale = max(ctx["budget"] or 0, ctx["size"], 1)
    return {"segments": [{"part": p["name"], "tokens": str(p["tokens"]),
                          "width": width * p["tokens"] / scale} for p in ctx["parts"]],
            "barWidth": width, "legend": legend or bch.legend_text(ctx),
            "turns": str(ctx["turns"]), "size": str(ctx["size"]), "budget": str(ctx["budget"]),
            "summary": ctx["summary"] or "nothing summarised yet",
            "recent": [m["number"] for m in ctx["recent"]], "moved": []}


def test_panel_problems_is_empty_for_a_panel_that_matches():
    ctx = context([("summary", 36), ("recent", 73)])
    assert bch.panel_problems(panel_of(ctx), ctx) == []


def test_panel_problems_names_a_wrong_legend_segment_and_width():
    ctx = context([("summary", 36), ("recent", 73)])
    assert bch.panel_problems(panel_of(ctx, legend="summary 36 · recent 73 / 60 tokens"), ctx) == [
        "legend 'summary 36 · recent 73 / 60 tokens', expected "
        "'summary 36 · recent 73 · over 49 / 60 tokens'"]
    panel = panel_of(ctx)
    panel["segments"][0]["width"] = 60.0                # tokens / budget, not / size
    assert bch.panel_problems(panel, ctx) == [
        "segment summary is 60.0 px wide, expected 198.2 px (36/109 of the bar)"]
    panel["segments"] = panel["segments"][1:]
    assert bch.panel_problems(panel, ctx) == [
        "budget bar segments [('recent', '73')], /context parts "
        "[('summary', '36'), ('recent', '73')]"]


def test_moved_problems_compares_the_numbers_and_texts_that_moved():
    moved_text = [{"number": 1, "role": "user", "content": "How long do refunds take?"},
                  {"number": 2, "role": "assistant", "content": "About 5 days. [1]"}]
    ctx = context([("recent", 10)], events=[
        {"kind": "memory", "action": "compacted", "turn": 3, "moved": [1, 2],
         "moved_text": moved_text}])
    shown = {"turn": "3", "moved": "1 2",
             "messages": [{"number": m["number"], "content": m["content"]} for m in moved_text]}
    assert bch.moved_problems({"moved": [shown]}, ctx, 3) == []
    assert bch.moved_problems({"moved": []}, ctx, 3) == [
        "'what moved into the summary' does not show turn 3 (it shows turns [])"]
    assert bch.moved_problems({"moved": [{**shown, "moved": "1"}]}, ctx, 3) == [
        "moved after turn 3: '1', /context [1, 2]"]
    assert bch.moved_problems({"moved": [shown]}, ctx, 4) == [
        "/context has no compaction after turn 4"]


def function_source(name: str) -> str:
    script = (STATIC / "chat.js").read_text(encoding="utf-8")
    start = script.index(f"  async function {name}(")
    return script[start:script.index("\n  }\n", start) + 4]


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_page_retries_a_dropped_message_with_its_idempotency_key():
    """send() of chat.js with the page around it stubbed: the first fetch drops, the
    second is cut off before `done`, the third streams it; all three carry one key, and
    the next message another."""
    stubs = """
    const calls = [], bubble = {className: "", dataset: {}, classList: {add() {}, remove() {}},
      querySelector: () => ({textContent: ""})};
    let busy = false, session = "s-1", TRIES = 4, RETRY_PAUSE = 0, SECOND_LOOK = 0, round = 0;
    const sendButton = {}, sessionInput = {}, input = {focus() {}};
    const addBubble = () => bubble, pause = async () => {}, refreshContext = () => {};
    const showError = (b, m) => calls.push(["error", m]), errorText = async () => "";
    const newKey = () => "key-" + (++round);
    const setTimeout = () => {};
    let fetches = 0;
    async function fetch(url, options) {
      calls.push(["fetch", options.headers["Idempotency-Key"], options.body]);
      fetches += 1;
      if (fetches === 1) throw new TypeError("network error");
      return {ok: true, status: 200, headers: {get: (h) => h === "Content-Type" ? "text/event-stream" : null}};
    }
    async function readReply() { return fetches === 2 ? null : {turn: fetches}; }
    """
    program = (stubs + function_source("send") +
               "\n(async () => { await send('hi'); await send('again');"
               " process.stdout.write(JSON.stringify(calls)); })();\n")
    done = subprocess.run(["node", "-e", program], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    calls = json.loads(done.stdout)
    assert calls == [["fetch", "key-1", '{"text":"hi"}']] * 3 + \
        [["fetch", "key-2", '{"text":"again"}']]
