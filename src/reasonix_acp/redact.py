"""Credentials never reach the client, a log or the store: text that can carry remote or
configured content passes through `redact`.

Two layers:
- the secret values this process knows (`remember`): provider API keys from config.toml and the
  environment, the values of MCP servers' headers and env; each is replaced wherever it
  appears, whatever its shape;
- patterns for credentials nobody told us about: Authorization headers, Bearer tokens, well-known
  key prefixes, `key=value` and JSON `"api_key": "value"` pairs, URL userinfo and key query
  parameters, masked keys (`****ae54`).

A pattern replaces the credential only: quotes, punctuation and the text around it stay.
`RedactingFilter` applies the same to every log record.

Each function here scrubs one whole text. Output read or passed on in pieces (a command's
output as it comes, a log read in parts, an MCP result's blocks) and output cut at a limit go
through scrubber.py instead, which sees across the pieces: a piece scrubbed on its own can show
half a secret.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import threading
from typing import Any, NamedTuple

from reasonix_acp.protocol.errors import clip

MARK = "[redacted]"
MIN_SECRET = 6  # a shorter configured value would hide ordinary words

_KEYS = r"(?:api[_-]?key|apikey|secret|client[_-]?secret|password|passwd|token|access[_-]?token|refresh[_-]?token|credential|credentials)"
_TOKEN = r"[A-Za-z0-9_~+/=-](?:[A-Za-z0-9._~+/=-]*[A-Za-z0-9_~+/=-])?"  # never ends on a dot


# A pattern's named group `v` is replaced; everything else is kept.
_SOURCES = (
    r"(?i)authorization\s*[:=]\s*(?:(?:bearer|basic|token)\s+)?"
    r"(?P<v>(?!(?:bearer|basic|token)\s)" + _TOKEN + ")",
    r"(?i)\bbearer\s+(?P<v>[A-Za-z0-9._~+/=-]{7,}[A-Za-z0-9_~+/=-])",
    r"\b(?P<v>(?:sk|pk|rk|ghp|gho|ghs|ghu|github_pat|xox[abpr])[-_][A-Za-z0-9_-]{6,})",
    r"(?i)[?&](?:api[_-]?key|key|token|access_token|secret|password|sig)=(?P<v>[^&\s#\"']+)",
    r"(?i)\b[a-z][a-z0-9+.-]*://(?P<v>[^/\s:@\"']+:[^/\s@\"']+)@",
    # "api_key": "value" / api_key='value' / password="value"
    r"(?i)[\"']?\b" + _KEYS + r"\b[\"']?\s*[:=]\s*(?P<q>[\"'])(?P<v>(?:\\.|(?!(?P=q)).)+)(?P=q)",
    # api_key=value / token: value (unquoted)
    r"(?i)\b" + _KEYS + r"\b\s*[:=]\s*(?P<v>(?![\"'])[A-Za-z0-9._~+/=-]{5,}[A-Za-z0-9_~+/=-])",
    r"(?i)\b" + _KEYS + r"\s+(?P<v>[A-Za-z0-9_~+/=-]{16,})",
    r"(?P<v>(?<![\w*])\*{3,}[A-Za-z0-9_-]{2,8}\b)",  # a masked key's visible tail
)


@functools.cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    """The patterns, compiled on first use: most runs never log or fail anything, and
    compiling them all is a noticeable part of start-up."""
    return tuple(re.compile(source) for source in _SOURCES)


_SECRET_NAME = re.compile(
    r"(?i)(api[_-]?key|apikey|secret|token|passw(?:or)?d|credential|private[_-]?key|_auth$|^auth)"
)
# Characters a secret may never span when none holds one: scrubber.py holds back no further
# than the last of them.
_SPACES = " \t\n\r\f\v"


class Known(NamedTuple):
    """The remembered secrets as a scrubber needs them, replaced as one value by `remember`."""

    pattern: re.Pattern[str] | None  # every secret, the longest first
    longest: int  # characters of the longest secret (0: none)
    breaks: str  # the whitespace characters no secret holds


_known: set[str] = set()
_passed: set[str] = set()
_known_pattern: re.Pattern[str] | None = None
_shape = Known(None, 0, _SPACES)
_lock = threading.Lock()


def remember(*values: str | None) -> None:
    """Secret values to remove from any text from now on (short and empty ones are ignored)."""
    global _known_pattern, _shape
    fresh = {v for v in values if v and len(v) >= MIN_SECRET and v.strip() == v} - _known
    if not fresh:
        return
    with _lock:
        _known.update(fresh)
        ordered = sorted(_known, key=len, reverse=True)
        _known_pattern = re.compile("|".join(re.escape(v) for v in ordered))
        breaks = "".join(c for c in _SPACES if not any(c in v for v in ordered))
        _shape = Known(_known_pattern, len(ordered[0]), breaks)


def known() -> frozenset[str]:
    return frozenset(_known)


def known_shape() -> Known:
    """The remembered secrets' pattern, longest length and breaks, as of now."""
    return _shape


def pass_env(names: list[str]) -> None:
    """Environment variables a user wants commands to get even though they look secret."""
    _passed.clear()
    _passed.update(names)


def child_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for commands we start (bash, plugin commands): ours without credentials,
    that is without a variable holding a remembered secret or named like one (`*_API_KEY`,
    `*TOKEN*`, `*SECRET*`, `*PASSWORD*` ...), except those named in `pass_env`."""
    env = os.environ if base is None else base
    return {
        name: value
        for name, value in env.items()
        if name in _passed or not (_SECRET_NAME.search(name) or value in _known)
    }


def _sub(pattern: re.Pattern[str], text: str) -> str:
    def one(m: re.Match[str]) -> str:
        start, end = m.span("v")
        whole = m.group(0)
        return whole[: start - m.start()] + MARK + whole[end - m.start() :]

    return pattern.sub(one, text)


def scrub_known(text: str) -> str:
    """`text` with every remembered secret value (keys, MCP header and env values) replaced by
    [redacted]; the generic patterns are left out (for a command's own output)."""
    pattern = _known_pattern
    return pattern.sub(MARK, text) if pattern is not None else text


def scrub_known_in(value: Any) -> Any:
    """`scrub_known` through a JSON-like value: every string in it, keys left as they are."""
    if _known_pattern is None:
        return value
    if isinstance(value, str):
        return scrub_known(value)
    if isinstance(value, dict):
        return {k: scrub_known_in(v) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_known_in(v) for v in value]
    return value


def scrub_known_bytes(data: bytes) -> bytes:
    """`scrub_known` on bytes (kept output), which need not be UTF-8: kept byte for byte."""
    if _known_pattern is None:
        return data
    text = data.decode("utf-8", "surrogateescape")
    return scrub_known(text).encode("utf-8", "surrogateescape")


def scrub(text: str) -> str:
    """`text` with every credential replaced by [redacted], nothing else changed."""
    pattern = _known_pattern
    if pattern is not None:
        text = pattern.sub(MARK, text)
    for p in _patterns():
        text = _sub(p, text)
    return text


def redact(text: str, limit: int = 2048) -> str:
    """`scrub`, trimmed and bounded to `limit` bytes (for error and status text)."""
    return clip(scrub(text).strip(), limit)


class RedactingFilter(logging.Filter):
    """Installed on the log handler: every record's text is scrubbed before it is written."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = scrub(record.exc_text)
        record.msg, record.args = scrub(message), None
        return True
