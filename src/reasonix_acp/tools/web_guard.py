"""Where the web tools may connect: every connection they open, the first and each one a
redirect leads to, is vetted where it is made, after DNS resolution, against the address it
actually goes to.

Invariants:
- The host a connection is asked for is judged in the spelling config/web.py `unambiguous`
  gives, the one the URL was judged in (tools/web_host.py); a host the system could read as
  another is refused here too, whatever path led to it, and so is a host `[web] deny` names.
- A host `[web] allow` lists is connected to as written (the user named it: a machine on their
  network, a local server).
- Any other host is resolved here, and refused when any of its addresses is not global
  (private, loopback, link-local, shared, reserved, multicast, unspecified; an IPv4-mapped IPv6
  address is judged as the IPv4 one). The connection then goes to one of those vetted
  addresses, never to a second resolution that could answer differently (DNS rebinding).
- TLS still names the host (SNI, certificate check): only the TCP connection is made to the
  address.
- No proxy from the environment: a proxy would make the connection instead, unvetted.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx

from reasonix_acp.config.web import WebSettings, refusal, unambiguous
from reasonix_acp.tools.base import ToolFailed
from reasonix_acp.tools.web_host import Target, read_url

MAX_REDIRECTS = 5
MAX_BYTES = 5 * 1024 * 1024
USER_AGENT = "reasonix-acp (web_fetch)"
ACCEPT = "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5"
HTTPError = httpx.HTTPError


class AddressRefused(Exception):
    """A connection the web tools may not make; the message says which address and why."""


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend with every TCP connection vetted first."""

    def __init__(self, web: WebSettings) -> None:
        self.web = web
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            judged = unambiguous(host)
        except ValueError as exc:
            raise AddressRefused(str(exc)) from None
        if self.web.denied(judged):
            raise AddressRefused(f"{judged} is denied by [web] deny in config.toml")
        if self.web.allowed(judged):
            return await self.inner.connect_tcp(host, port, timeout, local_address, socket_options)
        addresses = await _resolve(host, port)
        for address in addresses:
            if (why := refusal(host, address)) is not None:
                raise AddressRefused(why)
        failure: Exception = httpcore.ConnectError(f"{host} has no address")
        for address in addresses:
            try:
                return await self.inner.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        raise failure

    async def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        raise AddressRefused("the web tools do not connect to local sockets")

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def _resolve(host: str, port: int) -> list[str]:
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise httpcore.ConnectError(f"{host} could not be resolved: {exc.strerror}") from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class GuardedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport on the guarded backend. httpx has no parameter for a network backend,
    so the connection pool it made is replaced by one like it on ours (a test checks the
    guard is the one connecting, tests/tools/test_web_fetch.py)."""

    def __init__(self, web: WebSettings) -> None:
        super().__init__(trust_env=False)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=4,
            network_backend=GuardedBackend(web),
        )


@dataclass
class Page:
    """What a fetch got: where from (after redirects), its status, type and body."""

    url: str
    status: int
    content_type: str
    body: bytes
    cut: bool  # the body was longer than MAX_BYTES
    cap: int = MAX_BYTES


async def fetch(target: Target, web: WebSettings) -> Page | str:
    """A GET through the guard: the page, or the target of a redirect to another host (a
    str). Same-host redirects are followed (MAX_REDIRECTS), the host compared as the client
    connects to it; the body is read up to MAX_BYTES; the whole of it bounded by
    `[web] fetch_seconds`."""
    headers = {"User-Agent": USER_AGENT, "Accept": ACCEPT}
    transport = GuardedTransport(web)
    url = target.url
    async with httpx.AsyncClient(transport=transport, headers=headers) as client:
        async with asyncio.timeout(web.fetch_seconds):
            for _ in range(MAX_REDIRECTS + 1):
                async with client.stream("GET", url) as response:
                    if not response.is_redirect:
                        body, cut = await _read(response)
                        ctype = response.headers.get("content-type", "")
                        return Page(url, response.status_code, ctype, body, cut)
                    location = response.headers.get("location", "")
                    joined = _joined(url, location)
                try:
                    hop = read_url(joined, upgrade=not web.allowed(target.host))
                except ToolFailed as exc:
                    raise ToolFailed(
                        f"{url} redirects to {location!r}, which is not fetched: {exc}"
                    ) from None
                if hop.host != target.host:
                    return joined
                url = hop.url
    raise ToolFailed(f"more than {MAX_REDIRECTS} redirects from {url}")


def _joined(url: str, location: str) -> str:
    """A redirect's target, resolved against the URL as httpx does."""
    try:
        return str(httpx.URL(url).join(location))
    except (httpx.InvalidURL, ValueError) as exc:
        raise ToolFailed(f"{url} redirects to {location!r}, which cannot be read: {exc}") from None


async def _read(response: httpx.Response) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BYTES:
            return b"".join(chunks)[:MAX_BYTES], True
    return b"".join(chunks), False
