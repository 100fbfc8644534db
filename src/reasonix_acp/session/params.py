"""The checks every session method makes of its parameters (-32602 naming the method and the
field), and a session's title from its first words."""

from __future__ import annotations

import os
import re

from reasonix_acp.protocol.errors import InvalidParams
from reasonix_acp.session.store_rows import SessionRecord

SESSION_ID = re.compile(r"^[A-Za-z0-9._-]+$")
TITLE_LIMIT = 80


def check_session_id(method: str, session_id: str) -> str:
    if not session_id.strip():
        raise InvalidParams(f"{method}: missing sessionId")
    if (
        session_id != session_id.strip()
        or session_id in (".", "..")
        or not SESSION_ID.match(session_id)
    ):
        raise InvalidParams(f"{method}: invalid sessionId")
    return session_id


def check_absolute(method: str, field: str, path: str) -> str:
    if not os.path.isabs(path):
        raise InvalidParams(f"{method}: {field} must be an absolute path")
    return os.path.normpath(path)


def check_cwd(method: str, cwd: str | None, record: SessionRecord) -> None:
    """A cwd given with a session that already has one must be that one."""
    if cwd is not None and cwd != "":
        cwd = check_absolute(method, "cwd", cwd)
        if cwd != record.cwd:
            raise InvalidParams(f"{method}: cwd {cwd} is not the session's cwd {record.cwd}")


def title_from(text: str) -> str:
    words = " ".join(text.split())
    return words if len(words) <= TITLE_LIMIT else words[: TITLE_LIMIT - 3] + "..."
