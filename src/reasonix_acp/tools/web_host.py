"""Where a URL given to the web tools connects, read once and used for every decision.

The URL is read by the HTTP client's own parser (httpx.URL: IDNA, so `127。0。0。1` is
127.0.0.1 and `münchen.de` is xn--mnchen-3ya.de), and its host is the one the connection is
made to (`raw_host`), put in the one spelling hosts are judged in (config/web.py
`unambiguous`). That host, and only it, is what `[web] deny` and `allow` match, what the
question names, what a session's "always" remembers, what the address guard vets and what a
redirect is compared by; what is fetched is the URL as httpx writes it back, which is read
again and must give the same host.

Refused before anything is asked or sent, each with why: a URL httpx cannot read (a tab or a
newline in it, an IPv4 address with leading zeros, a name IDNA refuses), a scheme other than
http and https, a URL without a host, with credentials, with a port out of range, and a host
the system could read as another (config/web.py). Nothing here imports httpx until a URL is
read (start-up).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from reasonix_acp.config.web import unambiguous
from reasonix_acp.tools.base import ToolFailed


class Target(NamedTuple):
    """A URL as it is fetched, and the host it connects to (in the spelling judged)."""

    url: str
    host: str
    scheme: str


def read_url(raw: str, upgrade: bool = False) -> Target:
    """The target of `raw`, its fragment dropped and, with `upgrade`, `http://` made
    `https://`; ToolFailed says what is wrong with it."""
    # lazy: start-up (httpx loads with the first URL read, not with every session's tools)
    import httpx

    try:
        url = httpx.URL(raw)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise ToolFailed(f"{raw!r} cannot be read as a URL: {exc}") from None
    if url.scheme not in ("http", "https") or not url.raw_host:
        raise ToolFailed(f"only http:// and https:// URLs with a host are fetched, not {raw!r}")
    if url.userinfo:
        raise ToolFailed("a URL with credentials in it is not fetched")
    if url.port is not None and not 0 < url.port < 65536:
        raise ToolFailed(f"{raw!r} names port {url.port}, which does not exist")
    host = _host(url.raw_host)
    fetched = url.copy_with(fragment=None)
    if upgrade and fetched.scheme == "http":
        fetched = fetched.copy_with(scheme="https")
    written = str(fetched)
    again = httpx.URL(written)
    if again.raw_host != url.raw_host or again.userinfo:
        raise ToolFailed(f"{raw!r} does not read the same when written back: not fetched")
    return Target(written, host, fetched.scheme)


def _host(raw_host: bytes) -> str:
    try:
        return unambiguous(raw_host.decode("ascii", "replace"))
    except ValueError as exc:
        raise ToolFailed(f"not fetched: {exc}") from None


def host_of(raw: Any) -> str:
    """The host a URL connects to, or ToolFailed."""
    if not isinstance(raw, str):
        raise ToolFailed("`url` must be a non-empty string")
    return read_url(raw).host
