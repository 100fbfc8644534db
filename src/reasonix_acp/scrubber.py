"""One scrubber for output the agent reads or passes on in pieces: a command's output as it
comes, a log read in parts, an MCP result's blocks, a text cut at a limit. A piece scrubbed on
its own (redact.scrub_known) can show half a secret, the other half in the next piece.

Rules and invariants:
- A stream keeps one scrubber for its whole life (`StreamScrubber` for text,
  `ByteStreamScrubber` for bytes, which need not be UTF-8), is fed every piece in order and
  ended once. What it gives back, concatenated, is exactly `scrub_known` of the whole stream
  (of `scrub_known_bytes` for bytes): no secret the agent holds comes out, in one piece or
  split over several, and nothing else changes.
- It holds back only what could still be the start of a secret: the text after the last
  whitespace character that no secret holds (a line break, mostly), and never more than the
  longest secret's length less one character. What is held never depends on whether the text
  looks like a secret's start, so what is shown tells nothing of a secret's first characters;
  a finished line is never held back.
- Text is cut only after it is scrubbed: a cut then splits at most the [redacted] mark.
- Where a stream was cut before anything here saw the rest (the editor's terminal keeps only
  its last bytes, a page is read up to a limit, a pipe is left unread), the edge that may hold
  part of a secret is dropped, whatever it holds: at the start up to the first such whitespace
  within the longest secret's length (`scrub_cut(head=True)`, a secret the dropped part begins
  going with it), at the end what the scrubber holds (`end(cut=True)`). The edge is dropped
  whether or not it is part of a secret: replacing only a real part with the mark would tell
  whoever chose where to cut which characters a secret starts or ends with.
- Pieces delivered together (an MCP result's blocks) are scrubbed as one text, each keeping
  its part (`scrub_pieces`): a secret across two is redacted where it starts.
- A secret remembered while a stream is open counts from the next piece on.
"""

from __future__ import annotations

import codecs

from reasonix_acp.redact import MARK, known_shape, scrub_known


def _hold_from(text: str, longest: int, breaks: str) -> int:
    """Where the part of `text` that could begin an unfinished secret starts: after the last
    break within the last `longest - 1` characters, else at that many from the end."""
    start = max(len(text) - (longest - 1), 0)
    last = max((text.rfind(c, start) for c in breaks), default=-1)
    return last + 1 if last >= 0 else start


class StreamScrubber:
    """Scrubs a text stream fed in pieces; see the module's rules."""

    def __init__(self) -> None:
        self._held = ""

    @property
    def held(self) -> str:
        """What was fed and is not given back yet."""
        return self._held

    def feed(self, piece: str) -> str:
        """The part of the stream so far that no later piece can change, scrubbed."""
        text = self._held + piece
        pattern, longest, breaks = known_shape()
        if pattern is None:
            self._held = ""
            return text
        hold = _hold_from(text, longest, breaks)
        parts: list[str] = []
        at = 0
        for match in pattern.finditer(text):
            if match.start() >= hold:
                break
            parts += (text[at : match.start()], MARK)
            at = match.end()
        cut = max(at, hold)
        parts.append(text[at:cut])
        self._held = text[cut:]
        return "".join(parts)

    def end(self, cut: bool = False) -> str:
        """The rest of the stream, scrubbed; nothing of it when the stream was `cut` (what
        followed is unknown, so what is held may be part of a secret)."""
        held, self._held = self._held, ""
        return "" if cut else scrub_known(held)


class ByteStreamScrubber:
    """`StreamScrubber` for bytes: kept byte for byte (undecodable bytes too), a character
    split across pieces held until it is whole."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self._text = StreamScrubber()

    @property
    def held(self) -> int:
        """Bytes fed and not given back yet."""
        pending = len(self._decoder.getstate()[0])
        return pending + len(self._text.held.encode("utf-8", "surrogateescape"))

    def feed(self, piece: bytes) -> bytes:
        if known_shape().pattern is None and not self.held:
            return piece
        return _encode(self._text.feed(self._decoder.decode(piece)))

    def end(self, cut: bool = False) -> bytes:
        rest = self._decoder.decode(b"", final=True)
        if cut:
            self._text.end(cut=True)
            return b""
        return _encode(self._text.feed(rest) + self._text.end())


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def scrub_cut(text: str, head: bool = False, tail: bool = False) -> str:
    """`text` scrubbed, given that it was cut from a longer output at its start (`head`)
    and/or its end (`tail`): the edge that may hold part of a secret is dropped (a secret
    whole in `text` that the dropped start begins goes with it)."""
    if tail:
        scrubber = StreamScrubber()
        scrubber.feed(text)
        text = text[: len(text) - len(scrubber.held)]
    if not head:
        return scrub_known(text)
    start = _head_margin(text)
    return scrub_pieces([text[:start], text[start:]])[1]


def _head_margin(text: str) -> int:
    """Characters at the start of a text cut at its start that may end a secret: up to the
    first break within the longest secret's length less one."""
    _, longest, breaks = known_shape()
    window = min(max(longest - 1, 0), len(text))
    found = [i for c in breaks if (i := text.find(c, 0, window)) >= 0]
    return min(found) if found else window


def scrub_pieces(pieces: list[str]) -> list[str]:
    """Pieces of one output delivered together, scrubbed as the one text they make: a secret
    across pieces is replaced in the piece where it starts and removed from the others."""
    pattern = known_shape().pattern
    if pattern is None:
        return list(pieces)
    whole = "".join(pieces)
    spans = [m.span() for m in pattern.finditer(whole)]
    out: list[str] = []
    start = 0
    for piece in pieces:
        end = start + len(piece)
        out.append(_piece(whole, start, end, spans))
        start = end
    return out


def _piece(whole: str, start: int, end: int, spans: list[tuple[int, int]]) -> str:
    """`whole[start:end]` with the secrets at `spans` replaced (a mark where one starts)."""
    parts: list[str] = []
    at = start
    for first, last in spans:
        if last <= start or first >= end:
            continue
        if first >= start:
            parts += (whole[at:first], MARK)
        at = max(at, min(last, end))
    parts.append(whole[at:end])
    return "".join(parts)
