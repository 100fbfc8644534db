"""`session/list`'s pages: each page's sessions as the wire shows them, and its cursor.

A cursor is the filter and the (updatedAt, id) of the page's last session, signed with the
store's secret: a client can hand back only cursors this store made, and only to a listing
with the same cwd filter. Every session is listed with a title: one with no prompt yet gets
"New session" and when it was started."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from reasonix_acp import digests
from reasonix_acp.protocol.errors import InvalidParams
from reasonix_acp.session.store_rows import SessionRecord

PAGE_SIZE = 50
MAC_BYTES = 12


def untitled(created_at: str) -> str:
    """A listed title for a session with none yet (no prompt): when it was started, in UTC, so
    a menu of sessions never shows a bare id."""
    return f"New session, {created_at[:10]} {created_at[11:16]} UTC"


def cursor(secret: bytes, cwd: str | None, last: SessionRecord) -> str:
    payload = json.dumps([cwd, last.updated_at, last.id], separators=(",", ":")).encode()
    signed = digests.mac(secret, payload)[:MAC_BYTES]
    return base64.urlsafe_b64encode(signed + payload).decode().rstrip("=")


def uncursor(secret: bytes, cwd: str | None, text: str) -> tuple[str, str]:
    """The (updatedAt, id) a cursor continues after; -32602 for a cursor this store did not
    make or that belongs to another cwd filter."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        mac, payload = raw[:MAC_BYTES], raw[MAC_BYTES:]
        good = digests.same(mac, digests.mac(secret, payload)[:MAC_BYTES])
        filt, updated_at, last_id = json.loads(payload)
    except (ValueError, TypeError):
        good = False
    if not good:
        raise InvalidParams(
            "session/list: unknown cursor (cursors come from a previous session/list)"
        )
    if filt != cwd:
        raise InvalidParams("session/list: the cursor belongs to a listing with another cwd filter")
    return updated_at, last_id


def page(rows: list[SessionRecord], cwd: str | None, secret: Callable[[], bytes]) -> dict[str, Any]:
    """The result for `rows`, read one past PAGE_SIZE: that one more row means a next page."""
    shown, more = rows[:PAGE_SIZE], len(rows) > PAGE_SIZE
    sessions = []
    for r in shown:
        info: dict[str, Any] = {"sessionId": r.id, "cwd": r.cwd, "updatedAt": r.updated_at}
        info["title"] = r.title or untitled(r.created_at)
        info["archived"] = r.archived
        if r.additional_directories:
            info["additionalDirectories"] = r.additional_directories
        sessions.append(info)
    result: dict[str, Any] = {"sessions": sessions}
    if more:
        result["nextCursor"] = cursor(secret(), cwd, shown[-1])
    return result
