"""The store's checkpoint tables: the files each turn changed (`checkpoint_files`) and a
rewind's plan while it runs (`rewinds`), beside the sessions and transcripts of store.py.

Invariants:
- A turn's changes are stored in one transaction with nothing else (a turn's transcript is
  already stored by then: a lost process loses at most the last turn's file list).
- A rewind's end is one transaction: the conversation as it was copied to a new session (its
  record, every event and checkpoint), the session cut to the events before the rewound turn
  and its later turns' checkpoints dropped, and the rewind's plan removed. Before it commits,
  the plan is there for the next opening of the session to finish the rewind.
- A stored plan is read only once its header is sound (`pending_rewind`): JSON text of an
  object whose `turn` is a turn number, `cut` the position the transcript as stored starts
  that turn at, `keptAs` a session id no session has, `keptTitle` text. One that is not raises
  UnreadablePlan (why, never the plan's content, and the files its steps name when they can be
  read); `set_aside` marks it in its row (`{"setAside": why, "at": when, "plan": its text}`),
  where it stays for inspection, never read as a plan again, until the session's next rewind
  replaces it or the session is deleted.
- Reading the plans for the blobs they refer to (`referenced`) skips what is not a plan.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from reasonix_acp.checkpoints.blobs import Blobs
from reasonix_acp.session.store import Store, StoreError
from reasonix_acp.session.store_rows import COLUMNS, now

if TYPE_CHECKING:
    from reasonix_acp.checkpoints.recorder import Change

Row = tuple[int, str, str | None, str | None, int | None]
SET_ASIDE = '{"setAside": '  # how the body of a plan set aside starts (json.dumps keeps order)
KEPT_AS = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class UnreadablePlan(ValueError):
    """A stored rewind plan that cannot be read: `why` (never its content) and `paths`, the
    files its steps name (empty when those cannot be read either)."""

    def __init__(self, why: str, paths: list[str]) -> None:
        super().__init__(why)
        self.why, self.paths = why, paths


def blobs_of(store: Store) -> Blobs:
    """The blobs of the store's checkpoints: beside its database file."""
    return Blobs(store.path.parent / "blobs")


class CheckpointRows:
    def __init__(self, store: Store) -> None:
        self.store = store

    def keep(self, session_id: str, turn: int, changes: Iterable[Change]) -> None:
        rows = [(session_id, turn, c.path, c.before, c.after, c.mode) for c in changes]
        if not rows:
            return
        with self.store.writing() as db:
            db.executemany(
                "INSERT OR REPLACE INTO checkpoint_files "
                "(session_id, turn, path, before, after, mode) VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )

    def rows(self, session_id: str, from_turn: int = 0) -> list[Row]:
        """(turn, path, before, after, mode) of the session's turns from `from_turn` on."""
        with self.store.reading() as db:
            found = db.execute(
                "SELECT turn, path, before, after, mode FROM checkpoint_files "
                "WHERE session_id = ? AND turn >= ? ORDER BY turn, path",
                (session_id, from_turn),
            ).fetchall()
        return [tuple(r) for r in found]

    def digests(self, session_id: str) -> set[str]:
        """Every digest the session's checkpoints refer to."""
        with self.store.reading() as db:
            found = db.execute(
                "SELECT before FROM checkpoint_files WHERE session_id = ? AND before IS NOT NULL "
                "UNION SELECT after FROM checkpoint_files WHERE session_id = ? AND after IS NOT NULL",
                (session_id, session_id),
            ).fetchall()
        return {r[0] for r in found}

    def delete_session(self, session_id: str) -> bool:
        """`Store.delete_session`, then the blobs only its checkpoints referred to, and any
        other blob no checkpoint has referred to for a day (a turn killed before it stored
        its checkpoint leaves those)."""
        own = self.digests(session_id)
        deleted = self.store.delete_session(session_id)
        blobs = blobs_of(self.store)
        referenced = self.referenced()
        blobs.discard(own - referenced)
        blobs.prune(referenced)
        return deleted

    def referenced(self) -> set[str]:
        """Every digest a checkpoint or a rewind's plan refers to."""
        with self.store.reading() as db:
            found = db.execute(
                "SELECT before FROM checkpoint_files WHERE before IS NOT NULL "
                "UNION SELECT after FROM checkpoint_files WHERE after IS NOT NULL"
            ).fetchall()
            plans = db.execute("SELECT body FROM rewinds").fetchall()
        digests = {r[0] for r in found}
        for (body,) in plans:
            digests.update(_plan_digests(body))
        return digests

    def points(self, session_id: str) -> list[tuple[int, dict[str, Any]]]:
        """(turn, body) of the session's `checkpoint` events, in order: one per model turn."""
        with self.store.reading() as db:
            found = db.execute(
                "SELECT turn, body FROM events WHERE session_id = ? AND kind = 'checkpoint' "
                "ORDER BY seq",
                (session_id,),
            ).fetchall()
        points = []
        for turn, body in found:
            try:
                decoded = json.loads(body)
            except ValueError:
                continue
            points.append((int(turn), decoded if isinstance(decoded, dict) else {}))
        return points

    def first_seq(self, session_id: str, turn: int) -> int | None:
        """The position of the turn's first transcript event."""
        with self.store.reading() as db:
            row = db.execute(
                "SELECT MIN(seq) FROM events WHERE session_id = ? AND turn = ?",
                (session_id, turn),
            ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    # -- rewinds -------------------------------------------------------------------------------

    def begin_rewind(self, session_id: str, plan: dict[str, Any]) -> None:
        """Store the plan (replacing one set aside: a pending one is finished at opening)."""
        with self.store.writing() as db:
            db.execute(
                "DELETE FROM rewinds WHERE session_id = ? AND substr(body, 1, ?) = ?",
                (session_id, len(SET_ASIDE), SET_ASIDE),
            )
            db.execute(
                "INSERT INTO rewinds (session_id, body) VALUES (?, ?)",
                (session_id, json.dumps(plan, ensure_ascii=False)),
            )

    def pending_rewind(self, session_id: str) -> dict[str, Any] | None:
        """The plan of a rewind a lost process left; None when there is none (or it was set
        aside). Raises UnreadablePlan."""
        with self.store.reading() as db:
            row = db.execute(
                "SELECT body FROM rewinds WHERE session_id = ?", (session_id,)
            ).fetchone()
            if row is None or _text(row[0]).startswith(SET_ASIDE):
                return None
            plan = _decoded(row[0])
            why = _unsound(db, session_id, plan)
        if why:
            raise UnreadablePlan(why, _paths(plan.get("steps")))
        return plan

    def set_aside(self, session_id: str, why: str) -> None:
        """Mark the session's stored plan as set aside, with why and when, its text kept."""
        with self.store.writing() as db:
            row = db.execute(
                "SELECT body FROM rewinds WHERE session_id = ?", (session_id,)
            ).fetchone()
            if row is None:
                return
            kept = {"setAside": why, "at": now(), "plan": _text(row[0])}
            db.execute(
                "UPDATE rewinds SET body = ? WHERE session_id = ?",
                (json.dumps(kept, ensure_ascii=False), session_id),
            )

    def end_rewind(self, session_id: str, plan: dict[str, Any]) -> None:
        """Keep the conversation as it was as session `plan["keptAs"]`, cut the session at
        `plan["cut"]` (its events from there on, its checkpoints from `plan["turn"]` on), and
        drop the plan: one commit."""
        kept, cut, turn = plan["keptAs"], plan["cut"], plan["turn"]
        with self.store.writing() as db:
            row = db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                raise StoreError(f"session {session_id} is not in the store")
            copy = {c: row[c] for c in COLUMNS}
            copy["id"], copy["title"] = kept, plan["keptTitle"]
            db.execute(
                f"INSERT INTO sessions ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
                [copy[c] for c in COLUMNS],
            )
            for table, columns in (
                ("events", "seq, turn, kind, body"),
                ("checkpoint_files", "turn, path, before, after, mode"),
            ):
                db.execute(
                    f"INSERT INTO {table} (session_id, {columns}) "
                    f"SELECT ?, {columns} FROM {table} WHERE session_id = ?",
                    (kept, session_id),
                )
            db.execute("DELETE FROM events WHERE session_id = ? AND seq >= ?", (session_id, cut))
            db.execute(
                "DELETE FROM checkpoint_files WHERE session_id = ? AND turn >= ?",
                (session_id, turn),
            )
            db.execute(
                "UPDATE sessions SET event_count = ?, updated_at = ? WHERE id = ?",
                (cut, now(), session_id),
            )
            db.execute("DELETE FROM rewinds WHERE session_id = ?", (session_id,))


def _text(body: Any) -> str:
    """A stored body as text (damaged bytes shown escaped)."""
    if isinstance(body, bytes):
        return body.decode("utf-8", "backslashreplace")
    return body if isinstance(body, str) else str(body)


def _decoded(body: Any) -> dict[str, Any]:
    """A stored plan's JSON object; UnreadablePlan when it is not one."""
    if not isinstance(body, str):
        raise UnreadablePlan("it is not text", [])
    try:
        plan = json.loads(body)
    except ValueError:
        raise UnreadablePlan("it is not JSON", []) from None
    if not isinstance(plan, dict):
        raise UnreadablePlan("it is not a JSON object", [])
    return plan


def _unsound(db: sqlite3.Connection, session_id: str, plan: dict[str, Any]) -> str | None:
    """What is wrong with the plan's header (None: nothing), as a rewind wrote it: the turn it
    goes back to, where the transcript as stored starts that turn, a new session's id, text."""
    turn, cut, kept = plan.get("turn"), plan.get("cut"), plan.get("keptAs")
    if type(turn) is not int or turn < 0:
        return "its turn is not a turn number"
    if type(cut) is not int or cut < 0:
        return "its cut is not a position in the transcript"
    start = db.execute(
        "SELECT MIN(seq) FROM events WHERE session_id = ? AND turn = ?", (session_id, turn)
    ).fetchone()
    if start is None or start[0] != cut:
        return "its cut is not where its turn starts in the transcript"
    if not isinstance(kept, str) or not KEPT_AS.fullmatch(kept):
        return "its keptAs is not a session id"
    if db.execute("SELECT 1 FROM sessions WHERE id = ?", (kept,)).fetchone() is not None:
        return "its keptAs names a session that exists"
    if not isinstance(plan.get("keptTitle"), str):
        return "its keptTitle is not text"
    return None


def _paths(steps: Any) -> list[str]:
    """The files a plan's steps name, as far as they can be read."""
    if not isinstance(steps, list):
        return []
    return [s["path"] for s in steps if isinstance(s, dict) and isinstance(s.get("path"), str)]


def _plan_digests(body: Any) -> set[str]:
    """The digests a stored plan's steps name; none for what is not a plan."""
    try:
        plan = json.loads(body)
    except (ValueError, TypeError):
        return set()
    steps = plan.get("steps") if isinstance(plan, dict) else None
    if not isinstance(steps, list):
        return set()
    return {s["digest"] for s in steps if isinstance(s, dict) and isinstance(s.get("digest"), str)}
