"""The web a hostile run fetches from: a real HTTP server on 127.0.0.1 with the pages of
tests/tools/test_web_fetch.py, redirect chains on the same host and to other spellings of it,
and a page that holds the provider key (which must reach the model scrubbed). Every request it
receives is counted and kept (its line and headers): in a world whose [web] table denies or
does not list 127.0.0.1, any hit at all is a request the rules should have stopped, and no
request may carry a secret."""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer
from typing import Any

from tests.deepseek_server import KEY
from tests.tools.test_web_fetch import Handler

# Ways to write the server's host: the plain one, names, and spellings that urlsplit, the
# address parser and the HTTP client may read differently.
HOSTS = (
    "127.0.0.1",
    "localhost",
    "127\u30020\u30020\u30021",  # ideographic full stops
    "127\uff0e0\uff0e0\uff0e1",  # full-width full stops
    "127\uff610\uff610\uff611",  # half-width ideographic full stops
    "127.0.0.1.",
    "LOCALHOST",
    "localhost.",
    "2130706433",
    "0x7f000001",
    "0177.0.0.1",
    "0x7f.0.0.1",
    "127.1",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "u@127.0.0.1",
    "127.0.0.1%2e",
    "\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54",  # full-width letters
)
PATHS = ("/page", "/hop", "/chain/3", "/secret", "/elsewhere", "/data.json", "/echo?q=1")


class HostileHandler(Handler):
    """test_web_fetch's pages, and: /chain/N (N same-host redirects), /secret (a page holding
    the provider key between two markers), /elsewhere (a redirect to another spelling of this
    host, in hex), /echo (the request line and headers back)."""

    def do_GET(self) -> None:
        hits: list[tuple[str, str]] = self.server.hits  # type: ignore[attr-defined]
        hits.append((self.headers.get("Host", ""), self.path))
        sent: list[str] = self.server.sent  # type: ignore[attr-defined]
        sent.append(f"{self.requestline}\n{self.headers}")
        port = self.server.server_address[1]
        if self.path.startswith("/chain/"):
            left = int(self.path.rsplit("/", 1)[1] or 0)
            where = f"/chain/{left - 1}" if left > 0 else "/page"
            self._send(302, "text/plain", b"", Location=where)
        elif self.path == "/secret":
            body = f"before the key\n{KEY}\nafter the key\n".encode()
            self._send(200, "text/plain", body)
        elif self.path == "/elsewhere":
            # a header is Latin-1: of the host's other spellings, one that is
            self._send(302, "text/plain", b"", Location=f"http://0x7f000001:{port}/page")
        elif self.path.startswith("/echo"):
            echoed = f"{self.requestline}\n{self.headers}".encode()
            self._send(200, "text/plain", echoed)
        else:
            Handler.hits.clear()  # the shared list of test_web_fetch: not ours to grow
            super().do_GET()


class Web:
    """The server, started on entry; `hits` holds (Host header, path) of every request."""

    def __init__(self) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), HostileHandler)
        self.httpd.daemon_threads = True
        self.hits: list[tuple[str, str]] = []
        self.httpd.hits = self.hits  # type: ignore[attr-defined]
        self.sent: list[str] = []  # every request line and its headers
        self.httpd.sent = self.sent  # type: ignore[attr-defined]
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> Web:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def url(self, host: str, path: str) -> str:
        return f"http://{host}:{self.port}{path}"
