"""Credentials never reach the client: error causes and status text pass through `redact`."""

from __future__ import annotations

import re

from reasonix_acp.protocol.errors import clip

MARK = "[redacted]"

# A pattern's groups (prefix, and suffix when there are two) are kept; the rest is replaced.
_PATTERNS = [
    re.compile(r"(?i)(authorization\s*[:=]\s*(?:bearer|basic|token)?\s*)[^\s,;\"']+"),
    re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"\b(?:sk|pk|rk|ghp|gho|ghs|xox[abpr])[-_][A-Za-z0-9_-]{6,}"),
    re.compile(r"(?i)([?&](?:api[_-]?key|key|token|access_token|secret|password)=)[^&\s#]+"),
    re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+(@)"),
    re.compile(
        r"(?i)(\b(?:api[_-]?key|secret|password|token|credential)\b\s*[:=]?\s*)[\"']?[A-Za-z0-9._~+/=-]{12,}"
    ),
]


def _sub(pattern: re.Pattern[str], text: str) -> str:
    if pattern.groups == 2:
        return pattern.sub(lambda m: m.group(1) + MARK + m.group(2), text)
    if pattern.groups:
        return pattern.sub(lambda m: m.group(1) + MARK, text)
    return pattern.sub(MARK, text)


def redact(text: str, limit: int = 2048) -> str:
    for pattern in _PATTERNS:
        text = _sub(pattern, text)
    return clip(text.strip(), limit)
