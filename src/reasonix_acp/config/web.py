"""config.toml's `[web]` table: which hosts the web tools reach without a question, which never,
and where `web_search` searches when no DeepSeek key is configured (tools/web_fetch.py,
tools/web_search.py).

[web]
allow = ["docs.python.org", "*.github.com"]   # fetched unasked; private addresses only if listed
deny = ["*.internal.example"]                 # refused under every preset
search_url = "https://searx.example/search"   # a SearXNG instance (its JSON API)
fetch_seconds = 30                            # one fetch, redirects and body included

A pattern is a host name or address, `*` standing for any run of characters (`*.github.com`:
every subdomain of github.com), matched without regard to case. A host that resolves to a
private, loopback or link-local address is fetched only when `allow` lists it: listing it is
how a user says "yes, this one on my network". `refusal` says why an address may not be
reached: the web tools ask it of an address written in a URL before any question, and of every
address a name resolves to when they connect (tools/web_guard.py).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


@dataclass(frozen=True)
class WebSettings:
    """`[web]`: hosts allowed and denied, and the search endpoint the user runs."""

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    search_url: str | None = None
    fetch_seconds: float = 30.0

    def allowed(self, host: str) -> bool:
        return _matches(host, self.allow)

    def denied(self, host: str) -> bool:
        return _matches(host, self.deny)

    @classmethod
    def parse(cls, table: Any) -> WebSettings:
        """The settings of a `[web]` table; ValueError names the key that is wrong."""
        if not isinstance(table, dict):
            raise ValueError("[web] must be a table")
        unknown = sorted(set(table) - {"allow", "deny", "search_url", "fetch_seconds"})
        if unknown:
            raise ValueError(f"[web] has no key {unknown[0]!r}")
        lists = {}
        for key in ("allow", "deny"):
            value = table.get(key, [])
            if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
                raise ValueError(f"[web] {key} must be a list of host names or patterns")
            lists[key] = tuple(p.strip().lower().rstrip(".") for p in value)
        url = table.get("search_url")
        if url is not None and (
            not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https")
        ):
            raise ValueError("[web] search_url must be an http:// or https:// URL")
        seconds = table.get("fetch_seconds", 30)
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0:
            raise ValueError("[web] fetch_seconds must be a positive number")
        return cls(lists["allow"], lists["deny"], url, float(seconds))


def _matches(host: str, patterns: tuple[str, ...]) -> bool:
    name = host.lower().rstrip(".").strip("[]")
    return any(fnmatch.fnmatchcase(name, pattern.strip("[]")) for pattern in patterns)


def refusal(host: str, address: str) -> str | None:
    """Why `address` (what `host` resolved to) may not be reached unlisted, or None."""
    # lazy: start-up (config.toml is read at start; addresses are judged only by the web tools)
    import ipaddress

    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_global and not ip.is_multicast:
        return None
    kind = (
        "loopback"
        if ip.is_loopback
        else "link-local"
        if ip.is_link_local
        else "private"
        if ip.is_private
        else "non-public"
    )
    shown = host if host == address else f"{host} ({address})"
    return (
        f"{shown} is a {kind} address: the web tools reach it only when [web] allow in "
        "config.toml lists it"
    )
