"""The stored side of a client's list of sessions: titles (the client's and the generated
one), the archive flag, and who else has a session open. Each change is one transaction of the
session store; none is activity (a session's `updated_at` moves only with its turns), except
the generated title, which comes with the first turn."""

from __future__ import annotations

from reasonix_acp.session.store import LeaseHeld, Store


class CatalogRows:
    def __init__(self, store: Store) -> None:
        self.store = store

    def set_title(self, session_id: str, title: str) -> bool:
        """A title the client chose. False: no such session."""
        with self.store.writing() as db:
            found = db.execute("UPDATE sessions SET title = ? WHERE id = ?", (title, session_id))
            return found.rowcount > 0

    def generated_title(self, session_id: str, title: str, updated_at: str) -> bool:
        """A title made from the first prompt, stored only where the session has none: a title
        the client set, in this process or another, is never replaced. False: not stored."""
        with self.store.writing() as db:
            found = db.execute(
                "UPDATE sessions SET title = ?, updated_at = ? WHERE id = ? AND title IS NULL",
                (title, updated_at, session_id),
            )
            return found.rowcount > 0

    def set_archived(self, session_id: str, archived: bool) -> bool:
        """Archive a session or bring it back. False: no such session. Archiving raises
        `LeaseHeld(holder)` while another live process has the session open; the check and
        the change are one transaction, so no other process can open it in between."""
        with self.store.writing() as db:
            if archived:
                holder = self.store.holder_elsewhere(db, session_id)
                if holder is not None:
                    raise LeaseHeld(holder)
            found = db.execute(
                "UPDATE sessions SET archived = ? WHERE id = ?", (int(archived), session_id)
            )
            return found.rowcount > 0

    def holder_elsewhere(self, session_id: str) -> str | None:
        """Who else has the session open: another live process, or None."""
        with self.store.reading() as db:
            return self.store.holder_elsewhere(db, session_id)
