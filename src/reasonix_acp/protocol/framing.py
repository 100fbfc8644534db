"""Sans-IO NDJSON framing: bytes in, lines out; values out, bytes in.

Rules (they are what a transcript sees):
- A frame is one line ending in `\\n`. Surrounding ASCII whitespace (and CR) is trimmed; empty
  lines are skipped. A final line without `\\n` is still delivered by `close()` at EOF.
- A line longer than `limit` bytes is not buffered: its bytes are discarded up to the next
  newline and one `Overflow` is reported in its place, so the connection can answer it and go on.
- `encode` produces compact JSON with no raw newline inside (JSON escapes every control
  character), non-ASCII kept as UTF-8, and exactly one trailing `\\n`.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

DEFAULT_LINE_LIMIT = 32 * 1024 * 1024
READ_CHUNK = 1 << 16  # bytes asked of the input per read

_WHITESPACE = b" \t\r\n\x0b\x0c"


# Immutable records as NamedTuples: defining a frozen dataclass compiles its six methods when
# the class is made, ten times the cost, and these classes are defined on every start-up.
class Line(NamedTuple):
    """One input frame: a complete line, trimmed, without its newline."""

    data: bytes


class Overflow(NamedTuple):
    """A line longer than the limit: its bytes were discarded, this stands in for it."""

    size: int  # bytes seen before the line ended (at least limit + 1)
    limit: int


Event = Line | Overflow


class LineFramer:
    def __init__(self, limit: int = DEFAULT_LINE_LIMIT) -> None:
        if limit < 1:
            raise ValueError("line limit must be positive")
        self.limit = limit
        self._buf = bytearray()
        self._skipping: int | None = None  # bytes discarded of the current over-long line

    def feed(self, data: bytes) -> list[Event]:
        events: list[Event] = []
        start = 0
        while start < len(data):
            nl = data.find(b"\n", start)
            end = len(data) if nl < 0 else nl
            chunk = data[start:end]
            if self._skipping is not None:
                self._skipping += len(chunk)
            elif len(self._buf) + len(chunk) > self.limit:
                self._skipping = len(self._buf) + len(chunk)
                self._buf.clear()
            else:
                self._buf += chunk
            if nl < 0:
                break
            events.extend(self._end_line())
            start = nl + 1
        return events

    def close(self) -> list[Event]:
        """Deliver what is left at EOF."""
        return self._end_line()

    def _end_line(self) -> list[Event]:
        if self._skipping is not None:
            size, self._skipping = self._skipping, None
            return [Overflow(size=size, limit=self.limit)]
        line = bytes(self._buf).strip(_WHITESPACE)
        self._buf.clear()
        return [Line(line)] if line else []


# One encoder for every frame: json.dumps with options builds a new encoder per call, and even
# JSONEncoder.encode builds its C encoder per call (about half the cost of a small frame), so the
# C encoder is made once here. Its output is JSONEncoder's, byte for byte (test_framing checks);
# without markers it skips the circular-reference check (a cycle, our bug, is a RecursionError).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_MAKE_C_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)  # absent outside CPython
_C_ENCODER: Any = (
    None
    if _MAKE_C_ENCODER is None
    else _MAKE_C_ENCODER(
        None, _ENCODER.default, json.encoder.encode_basestring, None, ":", ",", False, False, True
    )
)


def _text(message: Any) -> str:
    if _C_ENCODER is None:
        return _ENCODER.encode(message)
    return "".join(_C_ENCODER(message, 0))


def compact(value: Any) -> str:
    """A JSON value spelled as every frame spells it (compact, non-ASCII kept): the session
    store writes its rows so, and a row kept as written can go into a frame as it is."""
    return _text(value)


def notification(method: str, params: Any) -> dict[str, Any]:
    """A JSON-RPC notification frame, keys in the order every frame of ours has them."""
    return {"jsonrpc": "2.0", "method": method, "params": params}


def encode(message: dict[str, Any]) -> bytes:
    text = _text(message)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        # A lone surrogate (a peer may send "\\ud800") has no UTF-8 form; escaped it is valid JSON.
        return json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"


_escape = json.encoder.encode_basestring  # a JSON string literal, non-ASCII kept (C when present)


class Template:
    """A frame whose one variable part is a string, written by concatenation (the streaming hot
    path: a text delta costs one string escape instead of a whole encode).

    The bytes around the slot are the encoder's own, cut from `encode` of the frame with a
    sentinel in the slot, so a filled template is byte for byte what `encode` writes for the
    frame with that string (tests/protocol/test_framing.py checks it, and the connection
    re-checks every templated frame under REASONIX_ACP_DEBUG)."""

    SLOT = "\x00slot\x00"

    def __init__(self, message: dict[str, Any]) -> None:
        marker = json.encoder.encode_basestring(self.SLOT).encode("ascii")
        whole = encode(message)
        parts = whole.split(marker)
        if len(parts) != 2 or not whole.isascii():
            raise ValueError("a template needs an ASCII frame with exactly one slot")
        self._head, self._tail = parts

    def fill(self, text: str) -> bytes:
        try:
            return self._head + _escape(text).encode("utf-8") + self._tail
        except UnicodeEncodeError:  # a lone surrogate: escaped, as `encode` does
            return self._head + json.dumps(text).encode("ascii") + self._tail

    def fill_parts(self, *parts: bytes | memoryview) -> bytes:
        """The frame with the bytes of `parts`, together one JSON value as `compact` spells it
        (UTF-8), in the slot's place."""
        return b"".join((self._head, *parts, self._tail))
