"""HTTP servers on 127.0.0.1 for the tests of the real-model clients (chat and
embeddings): started on an ephemeral port in the test, stopped after it. No test
reaches past the loopback interface (``tests/conftest.py`` blocks the rest)."""
from __future__ import annotations

import contextlib
import threading
from http.server import ThreadingHTTPServer

PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                   "ALL_PROXY")


@contextlib.contextmanager
def serving(handler):
    """A ThreadingHTTPServer with ``handler`` on 127.0.0.1, port 0, serving on a thread;
    its ``base_url`` is ``http://127.0.0.1:<port>/v1``. Shut down and joined on exit."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def without_proxies(monkeypatch) -> None:
    """Unset the proxy variables, so a request to 127.0.0.1 goes straight there."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
