"""Transcript rows a load sends as they were stored, without decoding them.

Nearly all of a long session's replayed bytes are tool output shown (`tool_call_update` rows),
and decoding them to encode them again was most of a load's time. So:

- The store writes every body as frames spell JSON (framing.compact). A `tool_call_update`
  body that is its update after `sessionUpdate` (no private `x-` key), whose first key is
  `toolCallId` and whose second, if it has one, is `status`, is marked (`marked`): one more key
  at its end, `"x-crc"`, the CRC-32 of the UTF-8 bytes before it. Any other row is unmarked.
  The mark is a private key: a decoded body carries it and nothing sends it.
- A load takes a row whose mark still matches the bytes before it (`read`) as the writer wrote
  them: one JSON object of that shape, with no newline in it and no key twice; so its head
  names its call and status exactly, and its update is those bytes behind
  `{"sessionUpdate":"tool_call_update",`, byte for byte what encoding the decoded body would
  write (`Encoded`; the connection checks it under REASONIX_ACP_DEBUG). Every other row
  (unmarked, written before the mark, damaged or edited since) is decoded and checked as before.

The CRC is a check against damage, not against a writer: whoever can write the store can write
any rows it likes. The mark lives in the body, not in a column of its own: a column after the
body makes every row's read follow the body's overflow pages to reach it, and a schema change
would leave an older agent's process read-only on the same store.
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Any

from reasonix_acp.generated.methods import SESSION_UPDATE
from reasonix_acp.protocol.framing import Template, notification

KIND = "tool_call_update"
MARK = ',"x-crc":'
_OPENING = b'{"sessionUpdate":"tool_call_update",'
# The head of a body `marked` accepted, as `compact` spells it: the call's id, then its status
# when it has one.
_HEAD = re.compile(r'\{"toolCallId":("(?:[^"\\]|\\.)*")(?:,"status":("(?:[^"\\]|\\.)*"))?[,}]')


def marked(kind: str, body: dict[str, Any], text: str) -> str:
    """`text` (`body` as framing.compact spells it, well formed for its kind) with the mark
    where a load may send it as stored, else as it is."""
    if kind != KIND or any(key.startswith("x-") for key in body):
        return text
    keys = list(body)
    if not keys or keys[0] != "toolCallId" or type(body["toolCallId"]) is not str:
        return text
    if "status" in body and (keys[1] != "status" or type(body["status"]) is not str):
        return text
    head = text[:-1]
    try:
        return f"{head}{MARK}{zlib.crc32(head.encode('utf-8'))}}}"
    except UnicodeEncodeError:  # a lone surrogate: frames escape it, so no verbatim copy
        return text


class Verbatim(dict[str, Any]):
    """A body read without decoding: as a dict, its head only (`toolCallId`, `status` when
    stored); `text` the row as stored, `end` where its mark begins; `decoded()` all of it but
    the mark."""

    __slots__ = ("end", "text")
    text: str
    end: int

    def decoded(self) -> dict[str, Any]:
        body: dict[str, Any] = json.loads(self.text[: self.end] + "}")
        return body


class Encoded(dict[str, Any]):
    """A stored row's update: as a dict, `sessionUpdate` and the body's head; `body` the
    Verbatim body whose bytes the sender puts in its frame as they are."""

    __slots__ = ("body",)
    body: Verbatim

    def decoded(self) -> dict[str, Any]:
        return {"sessionUpdate": KIND, **self.body.decoded()}


def read(kind: str, text: Any) -> Verbatim | None:
    """The row as a Verbatim body when its mark matches the bytes before it, else None (decode
    it)."""
    if kind != KIND or type(text) is not str or text[-1:] != "}":
        return None
    at = text.rfind(MARK)
    crc = text[at + len(MARK) : -1]
    if at < 0 or not (crc.isascii() and crc.isdigit()):
        return None
    try:
        if zlib.crc32(text[:at].encode("utf-8")) != int(crc):
            return None
    except UnicodeEncodeError:
        return None
    head = _HEAD.match(text)
    if head is None:  # not a shape `marked` accepts: the CRC matched by chance
        return None
    body = Verbatim(toolCallId=json.loads(head[1]))
    if head[2] is not None:
        body["status"] = json.loads(head[2])
    body.text, body.end = text, at
    return body


def update_of(body: Verbatim) -> Encoded:
    """The `tool_call_update` a replay sends for a Verbatim body."""
    update = Encoded(sessionUpdate=KIND, **body)
    update.body = body
    return update


def frame(
    templates: dict[str, tuple[str | None, Template]], session_id: str, update: Encoded
) -> bytes:
    """A stored update's `session/update` frame: the session's frame around
    `{"sessionUpdate":"tool_call_update",` and the stored bytes after the body's `{` up to its
    mark (one copy of them besides their encoding). The frame is made once and kept in the
    session's `templates`."""
    known = templates.get(KIND)
    if known is None:
        params = {"sessionId": session_id, "update": Template.SLOT}
        known = (None, Template(notification(SESSION_UPDATE, params)))
        templates[KIND] = known
    body = update.body
    raw = memoryview(body.text.encode("utf-8"))
    mark = len(body.text) - body.end  # ASCII: as many bytes as characters
    return known[1].fill_parts(_OPENING, raw[1 : len(raw) - mark], b"}")
