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

Hosts and patterns are compared in one spelling, the one the connection is made to
(`unambiguous`): ASCII, lower case, an international name in its `xn--` form, an IPv6 address
compressed. A host the system could read as another is never matched, it is refused: one that
ends in a number but is not an IPv4 address written a.b.c.d (`2130706433`, `0x7f.1`, `127.1`:
the system's resolver reads them as 127.0.0.1), an IPv4 address written as IPv6
(`::ffff:127.0.0.1`), an unspecified address (it reaches this machine), a name ending in a dot,
an IPv6 zone, and any character a host name does not hold (`%`, `\\`, a space). A pattern is put
in the same spelling when the config is read (`münchen.de` becomes `xn--mnchen-3ya.de`,
`[::1]` `::1`); one that no host could ever be spelled as is a config error naming it.
"""

from __future__ import annotations

import fnmatch
import re
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
        """The settings of a `[web]` table; ValueError names the value that is wrong. A key it
        does not read is named as every such key is (config/keys.py), the rest applied: a typo
        beside `deny` must not cost the user their deny rules."""
        if not isinstance(table, dict):
            raise ValueError("[web] must be a table")
        lists = {}
        for key in ("allow", "deny"):
            value = table.get(key, [])
            if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
                raise ValueError(f"[web] {key} must be a list of host names or patterns")
            lists[key] = tuple(_pattern(key, p) for p in value)
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
    """Whether `host` (in the spelling `unambiguous` gives) matches one of `patterns`."""
    return any(fnmatch.fnmatchcase(host, pattern) for pattern in patterns)


NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")
NUMBER = re.compile(r"[0-9]+|0x[0-9a-f]*")  # a label the resolver reads as part of an address
DOTS = re.compile("[.\u3002\uff0e\uff61]")  # the full stops IDNA splits labels at


def unambiguous(host: str) -> str:
    """`host` (ASCII, as the HTTP client connects to it: httpx's `raw_host`) in the one spelling
    it is judged in, when the system connects to exactly that host; ValueError says why not."""
    # lazy: start-up (hosts are judged only by the web tools)
    import ipaddress

    if ":" in host:
        if "%" in host:
            raise ValueError(f"the host {host!r} names a network interface (an IPv6 zone)")
        try:
            ip6 = ipaddress.IPv6Address(host)
        except ValueError:
            raise ValueError(f"the host {host!r} is not an IPv6 address") from None
        if ip6.ipv4_mapped is not None:
            raise ValueError(
                f"the host {host!r} is the IPv4 address {ip6.ipv4_mapped} written as IPv6: "
                f"write {ip6.ipv4_mapped}"
            )
        return _specified(ip6.compressed)
    if host.endswith("."):
        raise ValueError(f"the host {host!r} ends in a dot: write it without")
    if not NAME.fullmatch(host):
        odd = next((c for c in host if not NAME.fullmatch(c) and c != "."), None)
        if odd is None:
            raise ValueError(f"the host {host!r} has an empty label (a dot at its start or two)")
        raise ValueError(f"the host {host!r} holds {odd!r}, which a host name does not")
    if NUMBER.fullmatch(host.rsplit(".", 1)[-1]):
        try:
            ip4 = ipaddress.IPv4Address(host)
        except ValueError:
            raise ValueError(
                f"the host {host!r} ends in a number but is not an IPv4 address written "
                "a.b.c.d (four decimal numbers): the system may read it as another address"
            ) from None
        return _specified(str(ip4))
    return host


def _specified(address: str) -> str:
    if address in ("0.0.0.0", "::"):
        raise ValueError(
            f"the host {address!r} is the unspecified address, which reaches this machine"
        )
    return address


def _pattern(key: str, raw: str) -> str:
    """A `[web] allow` or `deny` pattern in the spelling hosts are judged in; ValueError names
    one no host could be spelled as."""
    text = raw.strip().lower()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if not text.isascii():
        text = _ascii(key, raw, text)
    text = text.rstrip(".")
    try:
        if "*" not in text:
            return unambiguous(text) if text not in ("0.0.0.0", "::") else text
        return "*".join(_part(part) for part in text.split("*"))
    except ValueError as exc:
        raise ValueError(f"[web] {key}: {raw!r} is not a host pattern: {exc}") from None


def _part(part: str) -> str:
    """A run of a pattern between `*`s: only characters a host (or an IPv6 address) holds."""
    odd = next((c for c in part if not (NAME.fullmatch(c) or c in ".:")), None)
    if odd is not None:
        raise ValueError(f"{odd!r} is in no host name")
    return part


def _ascii(key: str, raw: str, text: str) -> str:
    """An international pattern's `xn--` spelling, label by label (as httpx encodes a host);
    a label holding `*` must be ASCII."""
    # lazy: start-up (only a config with an international pattern needs IDNA)
    import idna

    labels = []
    for label in DOTS.split(text):
        if label.isascii():
            labels.append(label)
            continue
        if "*" in label:
            raise ValueError(f"[web] {key}: {raw!r}: a label with `*` must be ASCII")
        try:
            labels.append(idna.encode(label).decode("ascii"))
        except idna.IDNAError as exc:
            raise ValueError(f"[web] {key}: {raw!r} is not a host name: {exc}") from None
    return ".".join(labels)


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
