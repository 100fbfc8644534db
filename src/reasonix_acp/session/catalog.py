"""The unstable methods a client keeps its list of sessions with: `session/set_title`,
`session/archive`, `session/unarchive` and `session/status`.

Rules:
- A session the store does not have is -32002 with `data.sessionId` (what the schema names for
  these four), after the `sessionId` itself is checked (-32602 naming it).
- A client's title is trimmed (whitespace runs made one space) and cut to TITLE_LIMIT
  characters; empty after that is -32602. It is stored before the answer, replaces any title,
  and is never replaced by a generated one (session/catalog_rows.py). A session open here is
  told with `session_info_update`, as a generated title is; a live session's title is admitted
  by the session machine's `retitle` (refused once a delete has taken over).
- Archiving a session open here closes it first, as session/close would (the machine's
  `close`); one another live process has open is refused (-32600 naming it) and stays as it
  was. An archived session keeps its history; session/list leaves it out unless asked.
  Loading or resuming it brings it back (session/opening.py): a session in use is not archived.
- `session/status` changes nothing: `open` for a session open in this process (its turn
  machine's state in `_meta`), else `saved`, with the process that has it open, if another
  does, in `_meta`.
"""

from __future__ import annotations

from typing import Any

from reasonix_acp.protocol.errors import InvalidParams, SessionNotFound
from reasonix_acp.protocol.router import Call
from reasonix_acp.session.catalog_rows import CatalogRows
from reasonix_acp.session.live import Session
from reasonix_acp.session.params import check_session_id, title_from
from reasonix_acp.session.service import Sessions
from reasonix_acp.session.store_rows import now

TITLE_LIMIT = 200
VENDOR = "reasonix.io"


def client_title(method: str, title: str) -> str:
    words = " ".join(title.split())
    if not words:
        raise InvalidParams(f"{method}: title is empty")
    return words if len(words) <= TITLE_LIMIT else words[: TITLE_LIMIT - 3] + "..."


def generated_title(sessions: Sessions, session: Session, text: str) -> str | None:
    """The session's title from its first prompt, stored and returned, unless it has one (a
    title the client set meanwhile, here or in another process, included)."""
    if session.record.title:
        return None
    title = title_from(text)
    if not title:
        return None
    updated_at = now()
    if not CatalogRows(sessions.store).generated_title(session.id, title, updated_at):
        return None
    session.record.title, session.record.updated_at = title, updated_at
    return title


class Catalog:
    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions
        self.rows = CatalogRows(sessions.store)

    def _known(self, method: str, session_id: str) -> None:
        found = self.sessions.store_call(
            method, lambda: self.sessions.store.get_session(session_id)
        )
        if found is None:
            raise SessionNotFound(method, session_id)

    # -- session/set_title ---------------------------------------------------------------------

    def set_title(self, call: Call, params: Any) -> dict[str, Any]:
        method = "session/set_title"
        session_id = check_session_id(method, params.session_id)
        title = client_title(method, params.title)
        session = self.sessions.live.get(session_id)
        if session is not None:
            session.machine.fire("retitle", f"{method}: session is {{state}}")
        stored = self.sessions.store_call(method, lambda: self.rows.set_title(session_id, title))
        if not stored:
            raise SessionNotFound(method, session_id)
        if session is not None:
            session.record.title = title
            update = {"sessionUpdate": "session_info_update", "title": title}
            self.sessions.send(session, update)  # before the answer, as a turn's title is
        return {"title": title}

    # -- session/archive and session/unarchive ------------------------------------------------

    async def archive(self, call: Call, params: Any) -> dict[str, Any]:
        method = "session/archive"
        session_id = check_session_id(method, params.session_id)
        self._known(method, session_id)
        session = self.sessions.live.get(session_id)
        if session is not None:
            session.machine.fire("close", f"{method}: session is {{state}}")
            await self.sessions.close(None, params)
        archived = self.sessions.store_call(
            method, lambda: self.rows.set_archived(session_id, True)
        )
        if not archived:  # deleted meanwhile
            raise SessionNotFound(method, session_id)
        return {}

    def unarchive(self, call: Call, params: Any) -> dict[str, Any]:
        method = "session/unarchive"
        session_id = check_session_id(method, params.session_id)
        back = self.sessions.store_call(method, lambda: self.rows.set_archived(session_id, False))
        if not back:
            raise SessionNotFound(method, session_id)
        return {}

    # -- session/status -----------------------------------------------------------------------

    def status(self, call: Call, params: Any) -> dict[str, Any]:
        method = "session/status"
        session_id = check_session_id(method, params.session_id)
        session = self.sessions.live.get(session_id)
        if session is not None and session.machine.publishing:
            return {"status": "open", "_meta": {VENDOR: {"turn": session.turn.state.value}}}
        self._known(method, session_id)
        holder = self.sessions.store_call(method, lambda: self.rows.holder_elsewhere(session_id))
        if holder is None:
            return {"status": "saved"}
        return {"status": "saved", "_meta": {VENDOR: {"openElsewhere": holder}}}
