"""web_fetch through a real `acp` against a real HTTP server on 127.0.0.1: HTML read as Markdown,
text and JSON as they are, binaries refused by type, same-host redirects followed and another
host's handed back, bodies cut at the cap, slow bodies bounded; private addresses refused
unless [web] allow lists them (after DNS resolution, and where a redirect leads); each new
domain asked once, [web] deny refused under every preset, the host judged, asked about and shown
as the client connects to it however the URL spells it (tests/tools/test_web_host.py compares
the two for many spellings); a URL with a key in it never sent."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.client import Client
from tests.transcript import Scenario

PAGE = """<!doctype html><html><head><title>Guide</title><style>p{color:red}</style>
<script>alert('x')</script></head><body><h1>The guide</h1>
<p>Read <a href="/docs/start">the start</a> and <b>keep</b> going.</p>
<ul><li>one</li><li>two</li></ul><pre><code>x = 1</code></pre></body></html>"""


class Handler(BaseHTTPRequestHandler):
    hits: list[str] = []

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, ctype: str, body: bytes, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        Handler.hits.append(self.path)
        port = self.server.server_address[1]
        if self.path == "/page":
            self._send(200, "text/html; charset=utf-8", PAGE.encode())
        elif self.path == "/data.json":
            self._send(200, "application/json", b'{"a": [1, 2]}')
        elif self.path == "/logo.png":
            self._send(200, "image/png", b"\x89PNG\r\n\x1a\n" + bytes(2000))
        elif self.path == "/hop":
            self._send(302, "text/plain", b"", Location="/page")
        elif self.path == "/away":
            self._send(302, "text/plain", b"", Location=f"http://localhost:{port}/page")
        elif self.path == "/missing":
            self._send(404, "text/plain", b"no such page")
        elif self.path == "/big":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(50 * 1024 * 1024))
            self.end_headers()
            try:
                for _ in range(50 * 16):
                    self.wfile.write(b"a" * 65536)
            except OSError:
                pass  # the agent stopped reading at its cap
        elif self.path == "/slow":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            try:
                for _ in range(60):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.5)
            except OSError:
                pass


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02})
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    thread.join()


def turn(
    tmp_path: Path,
    urls: list[str],
    web: str = 'allow = ["127.0.0.1"]',
    preset: str = "workspace-write",
    answer: str = "allow_once",
    env: dict[str, str] | None = None,
    mode: str = "normal",
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One prompt whose model fetches each URL in turn: (the tool calls' last updates, the
    permission questions)."""
    script = tmp_path / "script.jsonl"
    steps = [
        {"steps": [{"tool_call": {"name": "web_fetch", "arguments": {"url": u}}}]} for u in urls
    ]
    steps.append({"steps": [{"text": "done"}]})
    script.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    scenario = Scenario(tmp_path)
    scenario.env.update(env or {})
    config = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(f"[web]\n{web}\nfetch_seconds = 3\n", encoding="utf-8")
    c = Client(tmp_path, "--model", "offline", "--script", str(script), scenario=scenario)
    sid = c.start()
    c.result(
        "session/set_config_option",
        {"sessionId": sid, "configId": "tool_approval", "value": preset},
    )
    if mode != "normal":
        c.result("session/set_mode", {"sessionId": sid, "modeId": mode})
    c._id += 1
    prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "read the web"}]}
    c.send({"jsonrpc": "2.0", "id": c._id, "method": "session/prompt", "params": prompt})
    frames, questions = [], []
    while True:
        frame = c.agent.receive()
        frames.append(frame)
        if frame.get("method") == "session/request_permission":
            questions.append(frame["params"])
            outcome = {"outcome": "selected", "optionId": answer}
            c.send({"jsonrpc": "2.0", "id": frame["id"], "result": {"outcome": outcome}})
        if frame.get("id") == c._id and "method" not in frame:
            assert frame["result"]["stopReason"] == "end_turn", frame
            break
    assert c.close() == 0
    ends: dict[str, dict[str, Any]] = {}
    for f in frames:
        update = f.get("params", {}).get("update", {})
        if update.get("sessionUpdate") in ("tool_call", "tool_call_update"):
            ends.setdefault(update["toolCallId"], {}).update(update)
    return list(ends.values()), questions


def text_of(call: dict[str, Any]) -> str:
    return "".join(
        c["content"]["text"] for c in call.get("content") or [] if c["type"] == "content"
    )


def test_html_is_read_as_markdown_and_text_and_json_as_they_are(
    tmp_path: Path, server: int
) -> None:
    base = f"http://127.0.0.1:{server}"
    calls, questions = turn(tmp_path, [f"{base}/page", f"{base}/data.json", f"{base}/hop"])
    assert questions == []  # [web] allow lists the host
    page, data, hop = calls
    assert [c["kind"] for c in calls] == ["fetch"] * 3
    assert [c["status"] for c in calls] == ["completed"] * 3
    assert page["title"] == f"Fetch {base}/page"
    assert text_of(page) == (
        f"Fetched {base}/page (HTTP 200, text/html; charset=utf-8).\n\n"
        "---\ntitle: Guide\n---\n\n# The guide\n\n"
        f"Read [the start]({base}/docs/start) and **keep** going.\n\n- one\n- two\n\n"
        "```\nx = 1\n```"
    )
    assert "alert" not in text_of(page) and "color:red" not in text_of(page)
    assert text_of(data).endswith('\n\n{"a": [1, 2]}')
    assert text_of(hop).startswith(f"Fetched {base}/page (HTTP 200")  # followed on the host


def test_binaries_errors_big_and_slow_bodies(tmp_path: Path, server: int) -> None:
    base = f"http://127.0.0.1:{server}"
    urls = [f"{base}/logo.png", f"{base}/missing", f"{base}/big", f"{base}/slow"]
    start = time.monotonic()
    png, missing, big, slow = turn(tmp_path, urls)[0]
    assert png["status"] == "failed"
    assert text_of(png) == f"{base}/logo.png is image/png (2,008 bytes), not text: it is not read"
    assert missing["status"] == "failed"
    assert text_of(missing) == f"{base}/missing answered HTTP 404: no such page"
    assert big["status"] == "completed"
    assert "only its first 5 MB were read" in text_of(big)
    assert slow["status"] == "failed"
    assert text_of(slow) == f"{base}/slow took longer than 3 s"
    assert time.monotonic() - start < 20


def test_private_addresses_are_refused_unless_listed_also_where_a_redirect_leads(
    tmp_path: Path, server: int
) -> None:
    base = f"http://127.0.0.1:{server}"
    away = f"http://localhost:{server}/page"
    Handler.hits.clear()
    calls, questions = turn(tmp_path, [f"{base}/away", away, f"http://10.1.2.3:{server}/"])
    redirect, local, private = calls
    assert redirect["status"] == "completed"
    assert text_of(redirect) == (
        f"{base}/away redirects to another host: {away}. Fetch that URL to follow it."
    )
    # A name is asked for, then refused for the address it resolves to (loopback); an
    # address written in the URL is refused before anyone is asked (private).
    # (the title shows the URL as it is fetched: upgraded to HTTPS, the host not listed)
    assert [q["toolCall"]["title"] for q in questions] == [f"Fetch {away.replace('http', 'https')}"]
    assert questions[0]["options"][1]["name"] == (
        "Allow web requests to localhost for this session"
    )
    assert local["status"] == "failed"
    assert text_of(local) == (
        "not fetched: localhost (127.0.0.1) is a loopback address: the web tools reach it "
        "only when [web] allow in config.toml lists it"
    )
    assert text_of(private) == (
        "not fetched: 10.1.2.3 is a private address: the web tools reach it only when "
        "[web] allow in config.toml lists it"
    )
    assert Handler.hits == ["/away"]  # nothing reached through the refused names


def test_full_access_fetches_unasked_but_deny_and_the_address_guard_still_hold(
    tmp_path: Path, server: int
) -> None:
    calls, questions = turn(
        tmp_path,
        [f"http://127.0.0.1:{server}/page", f"http://localhost:{server}/page"],
        web='allow = []\ndeny = ["localhost"]',
        preset="danger-full-access",
    )
    assert questions == []
    guarded, denied = calls
    assert text_of(guarded).startswith("not fetched: 127.0.0.1 is a loopback address")
    assert text_of(denied) == "localhost is denied by [web] deny in config.toml"


def test_an_allowed_domain_is_asked_once_per_session(tmp_path: Path, server: int) -> None:
    urls = [f"http://localhost:{server}/page", f"http://localhost:{server}/data.json"]
    calls, questions = turn(tmp_path, urls, web="allow = []", answer="allow_always")
    assert len(questions) == 1
    assert [c["status"] for c in calls] == ["failed", "failed"]  # loopback, still refused


def test_a_url_with_a_key_or_credentials_is_never_sent(tmp_path: Path, server: int) -> None:
    key = "sk-webfetch-secret-0123456789"
    urls = [
        f"http://127.0.0.1:{server}/page?key={key}",
        f"http://user:pw@127.0.0.1:{server}/page",
    ]
    Handler.hits.clear()
    calls, _ = turn(tmp_path, urls, env={"DEEPSEEK_API_KEY": key})
    keyed, with_user = calls
    assert text_of(keyed) == "the URL holds a secret this agent knows (a key): it is not sent"
    assert text_of(with_user) == "a URL with credentials in it is not fetched"
    assert Handler.hits == []
    assert key not in json.dumps(calls)
    assert "[redacted]" in json.dumps(keyed["rawInput"])  # the rest of the call is shown


def test_plan_mode_reads_the_web(tmp_path: Path, server: int) -> None:
    (page,), questions = turn(tmp_path, [f"http://127.0.0.1:{server}/page"], mode="plan")
    assert questions == [] and page["status"] == "completed"


def test_deny_judges_the_host_the_client_connects_to_however_the_url_spells_it(
    tmp_path: Path, server: int
) -> None:
    """`allow = ["*"]` with a deny list: a host the client would read as a denied one, however
    it is spelled (ideographic or full-width dots, upper case, a numeric form, IPv6), is
    refused before anything is sent."""
    spellings = [
        "127\u30020\u30020\u30021",  # ideographic full stops: httpx reads 127.0.0.1
        "127\uff0e0\uff0e0\uff0e1",  # full-width full stops
        "127\uff610\uff610\uff611",  # halfwidth ideographic full stops
        "LOCALHOST",
        "2130706433",  # one number: getaddrinfo reads 127.0.0.1
        "0x7f.1",
        "127.1",
        "[::ffff:127.0.0.1]",  # IPv4-mapped: the same socket
        "localhost.",
        "0.0.0.0",  # connects to this machine
    ]
    urls = [f"http://{host}:{server}/page" for host in spellings]
    Handler.hits.clear()
    calls, questions = turn(
        tmp_path,
        urls,
        web='allow = ["*"]\ndeny = ["127.0.0.1", "localhost"]',
        preset="danger-full-access",
    )
    assert questions == []
    assert Handler.hits == []  # nothing reached the server
    assert [c["status"] for c in calls] == ["failed"] * len(spellings)
    denied = "{} is denied by [web] deny in config.toml"
    texts = [text_of(c) for c in calls]
    assert texts[:4] == [denied.format("127.0.0.1")] * 3 + [denied.format("localhost")]
    number = (
        "ends in a number but is not an IPv4 address written a.b.c.d (four decimal numbers): "
        "the system may read it as another address"
    )
    assert texts[4:] == [
        f"not fetched: the host '2130706433' {number}",
        f"not fetched: the host '0x7f.1' {number}",
        f"not fetched: the host '127.1' {number}",
        "not fetched: the host '::ffff:127.0.0.1' is the IPv4 address 127.0.0.1 written as "
        "IPv6: write 127.0.0.1",
        "not fetched: the host 'localhost.' ends in a dot: write it without",
        "not fetched: the host '0.0.0.0' is the unspecified address, which reaches this machine",
    ]
    # Patterns are put in the same spelling: these deny 127.0.0.1 and localhost too.
    (tmp_path / "patterns").mkdir()
    urls = [f"http://127.0.0.1:{server}/page", f"http://localhost:{server}/page"]
    web = 'allow = ["*"]\ndeny = ["127\u30020\u30020\u30021", "LOCALHOST."]'
    calls, _ = turn(tmp_path / "patterns", urls, web=web, preset="danger-full-access")
    assert [text_of(c) for c in calls] == [denied.format("127.0.0.1"), denied.format("localhost")]
    assert Handler.hits == []
    # The question, the title and the grant name the host as the client connects to it.
    (tmp_path / "asked").mkdir()
    urls = [f"http://LOCAL\u0048OST:{server}/page", f"http://localhost:{server}/data.json"]
    calls, questions = turn(tmp_path / "asked", urls, web="", answer="allow_always")
    assert [q["toolCall"]["title"] for q in questions] == [f"Fetch https://localhost:{server}/page"]
    assert questions[0]["options"][1]["name"] == "Allow web requests to localhost for this session"
    assert [c["status"] for c in calls] == ["failed", "failed"]  # loopback, refused on connecting
    (tmp_path / "idn").mkdir()
    _, questions = turn(
        tmp_path / "idn", ["http://B\u00fccher\u3002example/"], answer="reject_once"
    )
    assert [q["toolCall"]["title"] for q in questions] == ["Fetch https://xn--bcher-kva.example/"]
    assert questions[0]["options"][1]["name"] == (
        "Allow web requests to xn--bcher-kva.example for this session"
    )
