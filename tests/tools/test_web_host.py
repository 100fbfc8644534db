"""The host the web tools judge a URL by, against where the real HTTP client connects.

Two servers record every connection they accept, on 127.0.0.1 and 127.0.0.2 (the same port).
For each URL, `read_url` (tools/web_host.py: what the rules, the question, the grants and the
guard are given) judges a host or refuses the URL; then a plain httpx client gets the URL as
written, and the web tools' own guarded fetch gets what `read_url` gave. A URL judged to host H
must reach exactly the servers H resolves to, through both; a refused URL is never fetched,
whatever a client would have done with it. The URLs: a corpus of odd spellings (ideographic
and full-width dots, case, a trailing dot, percent-encoding, one-number, hex, octal and short
IPv4 forms, IPv6 and IPv4-mapped addresses, userinfo, backslashes, `#` and `?` before an `@`,
tabs and newlines), each with what it is judged, and generated ones (hypothesis). Numeric forms
need no DNS; `localhost` is the only name, and the system's hosts file answers it.

Examples: WEB_HOST_EXAMPLES (150 unless set). The seed is printed; WEB_HOST_SEED=N replays it.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import socket
import socketserver
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from reasonix_acp.config.web import WebSettings
from reasonix_acp.tools import web_host
from reasonix_acp.tools.base import ToolFailed
from reasonix_acp.tools.web_guard import AddressRefused, GuardedBackend, fetch
from reasonix_acp.tools.web_host import read_url

EXAMPLES = int(os.environ.get("WEB_HOST_EXAMPLES", "150"))
SEED = int(os.environ.get("WEB_HOST_SEED", str(random.SystemRandom().randrange(1 << 32))))
SERVERS = ("127.0.0.1", "127.0.0.2")


class Recorder(socketserver.StreamRequestHandler):
    """Records the address a connection reached, then answers any request with `ok`."""

    hits: list[str] = []

    def handle(self) -> None:
        Recorder.hits.append(self.server.server_address[0])
        self.connection.settimeout(2)
        try:
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        except OSError:
            pass


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    servers = _listening()
    threads = [threading.Thread(target=s.serve_forever, args=(0.02,)) for s in servers]
    for thread in threads:
        thread.start()
    Clients.loop = asyncio.new_event_loop()
    Clients.plain = httpx.AsyncClient(trust_env=False, timeout=3)
    yield servers[0].server_address[1]
    Clients.loop.run_until_complete(Clients.plain.aclose())
    Clients.loop.close()
    for server, thread in zip(servers, threads, strict=True):
        server.shutdown()
        thread.join()
        server.server_close()


def _listening() -> list[socketserver.ThreadingTCPServer]:
    """A server on each of SERVERS, all on one port."""
    for _ in range(20):
        first = socketserver.ThreadingTCPServer((SERVERS[0], 0), Recorder)
        first.daemon_threads = True
        try:
            second = socketserver.ThreadingTCPServer(
                (SERVERS[1], first.server_address[1]), Recorder
            )
        except OSError:
            first.server_close()
            continue
        second.daemon_threads = True
        return [first, second]
    raise RuntimeError("no port free on both 127.0.0.1 and 127.0.0.2")


def judged(url: str) -> str:
    """The host `read_url` judges the URL by, or `refused: <why>`."""
    try:
        return read_url(url).host
    except ToolFailed as exc:
        return f"refused: {exc}"


class Clients:
    """One event loop and one plain httpx client for the module (a client costs a TLS
    context), made by the `port` fixture; the guarded fetch makes its own, as the tool does."""

    loop: asyncio.AbstractEventLoop
    plain: httpx.AsyncClient


def reached(url: str, guarded: bool) -> set[str]:
    """The servers a GET of `url` connected to: by a plain httpx client, or by the web tools'
    fetch (its guard, `[web] allow = ["*"]` so it connects to loopback) of what `read_url`
    gave."""
    Recorder.hits.clear()
    Clients.loop.run_until_complete(_get(url, guarded))
    return set(Recorder.hits)


async def _get(url: str, guarded: bool) -> None:
    try:
        if guarded:
            await fetch(read_url(url), WebSettings(allow=("*",), fetch_seconds=3))
        else:
            await Clients.plain.get(url)
    except Exception:  # where it connected is what is compared, not how it ended
        pass


def resolved(host: str) -> set[str]:
    """The servers `host` stands for: its addresses (no DNS: numeric, or the hosts file)."""
    try:
        infos = socket.getaddrinfo(host, 80, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return set()
    return {str(info[4][0]) for info in infos} & set(SERVERS)


def check(url: str) -> str:
    """The URL judged, having checked that a judged host is where both clients connect."""
    host = judged(url)
    plain = reached(url, guarded=False)
    if host.startswith("refused: "):
        return host
    assert plain == resolved(host), f"{url!r} is judged {host!r}, httpx reached {plain}"
    ours = reached(url, guarded=True)
    assert ours == plain, f"{url!r}: the guarded fetch reached {ours}, httpx {plain}"
    return host


NUMBER = "ends in a number but is not an IPv4 address written a.b.c.d"
CORPUS = [
    ("http://127.0.0.1:{P}/", "127.0.0.1"),
    ("http://127\u30020\u30020\u30021:{P}/", "127.0.0.1"),  # ideographic full stops
    ("http://127\uff0e0\uff0e0\uff0e2:{P}/", "127.0.0.2"),  # full-width
    ("http://127\uff610\uff610\uff611:{P}/", "127.0.0.1"),  # halfwidth ideographic
    ("HTTP://LOCALHOST:{P}/", "localhost"),
    ("http://LocalHost:{P}/x#frag", "localhost"),
    ("http://localhost.:{P}/", "refused: not fetched: the host 'localhost.' ends in a dot"),
    ("http://127.0.0.1.:{P}/", "refused: not fetched: the host '127.0.0.1.' ends in a dot"),
    ("http://%31%32%37.0.0.1:{P}/", "refused: not fetched: the host '%31%32%37.0.0.1' holds '%'"),
    ("http://local%68ost:{P}/", "refused: not fetched: the host 'local%68ost' holds '%'"),
    ("http://2130706433:{P}/", f"refused: not fetched: the host '2130706433' {NUMBER}"),
    ("http://0x7f.1:{P}/", f"refused: not fetched: the host '0x7f.1' {NUMBER}"),
    ("http://0X7F000001:{P}/", f"refused: not fetched: the host '0x7f000001' {NUMBER}"),
    ("http://127.1:{P}/", f"refused: not fetched: the host '127.1' {NUMBER}"),
    ("http://127\u30021:{P}/", f"refused: not fetched: the host '127.1' {NUMBER}"),
    ("http://0:{P}/", f"refused: not fetched: the host '0' {NUMBER}"),
    ("http://0177.0.0.1:{P}/", "refused: 'http://0177.0.0.1:{P}/' cannot be read as a URL"),
    ("http://127.000.000.001:{P}/", "refused: 'http://127.000.000.001:{P}/' cannot be read"),
    (
        "http://0177\u30020\u30020\u30021:{P}/",
        f"refused: not fetched: the host '0177.0.0.1' {NUMBER}",
    ),
    ("http://[::ffff:127.0.0.1]:{P}/", "refused: not fetched: the host '::ffff:127.0.0.1' is the"),
    ("http://[0:0:0:0:0:ffff:7f00:2]:{P}/", "refused: not fetched: the host '0:0:0:0:0:ffff:7f00"),
    ("http://[::1]:{P}/", "::1"),  # nothing listens there: it reaches nothing, as judged
    ("http://[fe80::1%25lo]:{P}/", "refused: not fetched: the host 'fe80::1%25lo' names a"),
    ("http://0.0.0.0:{P}/", "refused: not fetched: the host '0.0.0.0' is the unspecified"),
    ("http://[::]:{P}/", "refused: not fetched: the host '::' is the unspecified"),
    ("http://a@127.0.0.1:{P}/", "refused: a URL with credentials in it is not fetched"),
    ("http://127.0.0.2\\@127.0.0.1:{P}/", "refused: a URL with credentials in it is not fetched"),
    ("http://127.0.0.1:{P}\\@127.0.0.2:{P}/", "refused: a URL with credentials in it"),
    ("http://127.0.0.1\\127.0.0.2:{P}/", "refused: not fetched: the host '127.0.0.1\\\\127.0.0.2'"),
    ("http://127.0.0.2:{P}#@127.0.0.1:{P}/", "127.0.0.2"),
    ("http://127.0.0.2:{P}?@127.0.0.1:{P}/", "127.0.0.2"),
    ("http://127.0.\t0.1:{P}/", "refused: 'http://127.0.\\t0.1:{P}/' cannot be read as a URL"),
    ("http://127.0.0.1\n:{P}/", "refused: 'http://127.0.0.1\\n:{P}/' cannot be read as a URL"),
    ("http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54:{P}/", "refused: 'http://"),
    ("http://127.0.0.1 :{P}/", "refused: not fetched: the host '127.0.0.1%20' holds '%'"),
    ("http:\\\\127.0.0.1:{P}/", "refused: only http:// and https:// URLs with a host"),
    ("http://127.0.0.1:99999/", "refused: 'http://127.0.0.1:99999/' names port 99999"),
]


@pytest.mark.parametrize(("url", "expected"), CORPUS, ids=[u for u, _ in CORPUS])
def test_the_host_judged_is_where_the_client_connects(url: str, expected: str, port: int) -> None:
    url = url.replace("{P}", str(port))
    assert check(url).startswith(expected.replace("{P}", str(port)))


# Generated spellings: an address's numeric forms and `localhost`'s, dots and case varied,
# percent-encoded, in authorities with decoys (userinfo, backslashes, `#`, `?`), a tab or a
# newline anywhere.
DOT = st.sampled_from([".", ".", "\u3002", "\uff0e", "\uff61"])


@st.composite
def numeric(draw: Any, address: str) -> str:
    """`address` written a.b.c.d, or in one of the other forms a resolver reads (1 to 4
    parts, each decimal, octal, hex or zero-padded), the dots varied."""
    octets = [int(o) for o in address.split(".")]
    if draw(st.booleans()):
        shown = [str(o) for o in octets]
    else:
        count = draw(st.integers(1, 4))
        parts = [*octets[: count - 1], int.from_bytes(bytes(octets[count - 1 :]), "big")]
        forms = st.sampled_from(["{}", "0{:o}", "0x{:x}", "0X{:X}", "00{}"])
        shown = [draw(forms).format(p) for p in parts]
    text = shown[0]
    for part in shown[1:]:
        text += draw(DOT) + part
    return text


@st.composite
def host(draw: Any, address: str) -> str:
    """A spelling of `address`, or of `localhost`, or of the unspecified address; now and
    then with a trailing dot or a character percent-encoded."""
    kind = draw(st.sampled_from(["numeric"] * 5 + ["mapped", "name", "name", "unspecified"]))
    if kind == "numeric":
        text = draw(numeric(address))
    elif kind == "mapped":
        a, b, c, d = (int(o) for o in address.split("."))
        mapped = [f"[::ffff:{address}]", f"[::ffff:{a * 256 + b:x}:{c * 256 + d:x}]"]
        text = draw(st.sampled_from([*mapped, f"[0:0:0:0:0:ffff:{address}]", "[::1]"]))
    elif kind == "name":
        text = draw(st.sampled_from(["localhost", "LOCALHOST", "LocalHost", "lOcAlHoSt"]))
    else:
        text = draw(st.sampled_from(["0", "0.0.0.0", "[::]", "0x0", "[::ffff:0.0.0.0]"]))
    if draw(st.integers(0, 7)) == 0 and not text.startswith("["):
        text += draw(DOT)
    if draw(st.integers(0, 7)) == 0:
        at = draw(st.integers(0, len(text) - 1))
        text = text[:at] + "".join(f"%{b:02X}" for b in text[at].encode()) + text[at + 1 :]
    return text


@st.composite
def urls(draw: Any) -> str:
    target, decoy = draw(st.permutations(SERVERS))
    h, d = draw(host(target)), draw(host(decoy))
    authority = draw(
        st.sampled_from(
            [
                *["{h}:{P}"] * 12,
                "a@{h}:{P}",
                "{d}@{h}:{P}",
                "{d}\\@{h}:{P}",
                "{h}:{P}\\@{d}:{P}",
                "{d}:{P}#@{h}:{P}",
                "{d}:{P}?@{h}:{P}",
                "{h}\\{d}:{P}",
            ]
        )
    )
    scheme = draw(st.sampled_from(["http", "HTTP", "Http"]))
    url = f"{scheme}://{authority.format(h=h, d=d, P='{P}')}/x"
    if draw(st.integers(0, 7)) == 0:
        at = draw(st.integers(len(scheme) + 3, len(url)))
        url = url[:at] + draw(st.sampled_from(["\t", "\n", "\r", " "])) + url[at:]
    return url


COUNTS = {"judged": 0, "refused": 0}


@pytest.fixture(scope="module", autouse=True)
def _announce() -> Iterator[None]:
    print(f"\nweb host differential: WEB_HOST_SEED={SEED}, {EXAMPLES} examples")
    yield
    print(f"web host differential: {COUNTS['judged']} judged, {COUNTS['refused']} refused")


@pytest.mark.slow
@seed(SEED)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    print_blob=True,
)
@given(url=urls())
def test_generated_spellings_are_judged_where_the_client_connects(url: str, port: int) -> None:
    found = check(url.replace("{P}", str(port)))
    COUNTS["refused" if found.startswith("refused: ") else "judged"] += 1


def test_patterns_are_read_in_the_spelling_hosts_are_judged_in() -> None:
    web = WebSettings.parse(
        {
            "deny": ["127\u30020\u30020\u30021", " LOCALHOST. ", "[::1]", "B\u00fccher.example"],
            "allow": ["*.M\u00fcnchen.de", "10.*", "*", "[0:0:0:0:0:0:0:2]", "0.0.0.0"],
        }
    )
    assert web.deny == ("127.0.0.1", "localhost", "::1", "xn--bcher-kva.example")
    assert web.allow == ("*.xn--mnchen-3ya.de", "10.*", "*", "::2", "0.0.0.0")
    assert web.denied(judged("http://127\uff0e0\uff0e0\uff0e1/"))
    assert web.denied(judged("http://b\u00fcCHER.example/"))
    assert web.allowed(judged("http://www.m\u00fcnchen.de/"))
    number = "ends in a number but is not an IPv4 address written a.b.c.d"
    for pattern, why in [
        ("127.1", f"the host '127.1' {number}"),
        ("0x7f.0.0.1", f"the host '0x7f.0.0.1' {number}"),
        ("[::ffff:127.0.0.1]", "the host '::ffff:127.0.0.1' is the IPv4 address 127.0.0.1"),
        ("%31.example", "the host '%31.example' holds '%'"),
        ("a b.example", "the host 'a b.example' holds ' '"),
        ("*.ex%ample", "'%' is in no host name"),
        ("*\u00fc.example", "a label with `*` must be ASCII"),
    ]:
        with pytest.raises(ValueError) as caught:
            WebSettings.parse({"deny": [pattern]})
        assert str(caught.value).startswith(f"[web] deny: {pattern!r}"), caught.value
        assert why in str(caught.value), caught.value


def test_the_guard_refuses_on_connecting_what_the_url_reading_refuses(port: int) -> None:
    """The backstop: whatever leads a connection to a host (a redirect, a caller to come), the
    guard judges it in the same spelling, refusing one that could be read as another and one
    `[web] deny` names, even under `allow = ["*"]`."""
    backend = GuardedBackend(WebSettings.parse({"allow": ["*"], "deny": ["localhost"]}))
    refused = {
        "0x7f.1": "ends in a number",
        "2130706433": "ends in a number",
        "::ffff:127.0.0.1": "written as IPv6",
        "0.0.0.0": "the unspecified address",
        "localhost.": "ends in a dot",
        "local%68ost": "holds '%'",
        "localhost": "localhost is denied by [web] deny in config.toml",
    }
    Recorder.hits.clear()
    for host, why in refused.items():
        with pytest.raises(AddressRefused, match=re.escape(why)):
            Clients.loop.run_until_complete(backend.connect_tcp(host, port, timeout=3))
    Clients.loop.run_until_complete(_request(backend, "127.0.0.2", port))
    assert Recorder.hits == ["127.0.0.2"]


async def _request(backend: GuardedBackend, host: str, port: int) -> None:
    """A request through the backend, its answer read (the server has recorded it then)."""
    stream = await backend.connect_tcp(host, port, timeout=3)
    await stream.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", timeout=3)
    assert (await stream.read(100, timeout=3)).startswith(b"HTTP/1.1 200")
    await stream.aclose()


def test_the_web_tools_read_hosts_in_one_place_only() -> None:
    """No web tool reads a URL's host with urllib (whose reading is not the client's): each
    goes through tools/web_host.py."""
    tools = Path(web_host.__file__).parent
    for name in ("web.py", "web_fetch.py", "web_guard.py", "web_host.py"):
        source = (tools / name).read_text(encoding="utf-8")
        assert "urllib" not in source and ".hostname" not in source, name
