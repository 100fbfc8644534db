"""The durable store: one SQLite file for sessions, their transcripts and their leases.

Invariants:
- WAL journal and a busy timeout, so several agent processes (two editor windows) share the file.
- Every write is one `BEGIN IMMEDIATE` transaction under the process lock (`_write`), every read
  runs under that lock (`_read`). Both end on every path: a BEGIN or COMMIT that fails, e.g. on
  SQLITE_BUSY after the busy timeout, rolls back what is open and releases the lock. A busy
  store fails that one call with `StoreBusy`; the next call tries again.
- A session is live in one process at a time: `acquire_lease` refuses while another live process
  holds it (a holder whose pid is gone on this host is taken over), naming the holder.
  `delete_session` refuses the same way (`LeaseHeld`), in the transaction that deletes.
- Transcript events are appended in one transaction per batch; what was committed before a crash
  is what `events` returns afterwards. A row that does not decode is skipped with a warning.
- The schema is versioned with `PRAGMA user_version` and migrated forward on open. A file from a
  newer version is opened read-only; every write then raises `StoreReadOnly` saying why.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import sqlite3
import threading
from collections.abc import Collection, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from reasonix_acp import digests
from reasonix_acp.session.projector import well_formed
from reasonix_acp.session.store_rows import (
    COLUMNS,
    DB_NAME,
    EVENTS,
    FORK_COPY,
    FORK_SOURCE,
    MIGRATIONS,
    SCHEMA_VERSION,
    TRANSCRIPT,
    SessionRecord,
    StoredEvent,
    all_bodies,
    column,
    now,
    object_body,
    record,
    stored_text,
    undecoded,
)
from reasonix_acp.sqlite import connect, immediate, is_busy, migrate, private_dir, schema_version

log = logging.getLogger("reasonix_acp.session.store")


class StoreError(Exception):
    pass


class StoreReadOnly(StoreError):
    pass


class StoreBusy(StoreError):
    """Another process held the store's write lock for longer than the busy timeout."""


class LeaseHeld(StoreError):
    def __init__(self, holder: str) -> None:
        super().__init__(f"this session is in use by {holder}")
        self.holder = holder


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Store:
    def __init__(self, directory: Path) -> None:
        private_dir(directory)
        self.path = directory / DB_NAME
        self._lock = threading.Lock()
        self.readonly_reason: str | None = None
        self._db = self._connect(readonly=False)
        version = schema_version(self._db)
        if version > SCHEMA_VERSION:
            self._db.close()
            self.readonly_reason = (
                f"the session store {self.path} has schema version {version}, newer than this "
                f"agent's {SCHEMA_VERSION}; it is read-only here (upgrade reasonix-acp to write to it)"
            )
            log.warning("%s", self.readonly_reason)
            self._db = self._connect(readonly=True)
        elif version < SCHEMA_VERSION:
            self._migrate()
        self.host = socket.gethostname()
        self.pid = os.getpid()

    def _connect(self, readonly: bool) -> sqlite3.Connection:
        db = connect(self.path, readonly, synchronous="NORMAL")
        db.execute("PRAGMA foreign_keys = ON")
        return db

    def _migrate(self) -> None:
        with self._write() as db:
            migrate(db, MIGRATIONS)

    @contextmanager
    def _busy(self) -> Iterator[None]:
        """SQLITE_BUSY / SQLITE_LOCKED inside the block become `StoreBusy`, naming the file."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            if not is_busy(exc):
                raise
            raise StoreBusy(
                f"the session store {self.path} is locked by another process ({exc}); "
                "try again when it lets go"
            ) from exc

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._busy():
            yield self._db

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; it has committed when the block exits without error.

        The lock is taken before BEGIN and released by the `with` whatever fails (BEGIN,
        the block, COMMIT), and a transaction still open after a failure is rolled back
        first: a failed write leaves neither the lock held nor the connection in a
        transaction, so the next call starts clean."""
        if self.readonly_reason:
            raise StoreReadOnly(self.readonly_reason)
        with self._lock, self._busy(), immediate(self._db) as db:
            yield db

    def close(self) -> None:
        self._db.close()

    def reading(self) -> AbstractContextManager[sqlite3.Connection]:
        """A read under the store's lock (for the store's other tables' modules)."""
        return self._read()

    def writing(self) -> AbstractContextManager[sqlite3.Connection]:
        """One write transaction (for the store's other tables' modules)."""
        return self._write()

    # -- sessions ----------------------------------------------------------------------------

    def create_session(self, rec: SessionRecord, leased: bool = False) -> None:
        """Store a new session; `leased`: this process holds its lease from the same commit
        (a new id has no other holder)."""
        values = [column(c, getattr(rec, c)) for c in COLUMNS]
        with self._write() as db:
            db.execute(
                f"INSERT INTO sessions ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
                values,
            )
            if leased:
                self._lease(db, rec.id)

    def fork_session(self, source_id: str, rec: SessionRecord, through: int | None = None) -> bool:
        """Store `rec` as a new session, leased by this process, whose transcript is a copy of
        `source_id`'s as stored now, in one commit; the source is only read. With `through`,
        the copy ends where turn `through + 1` begins, as a rewind cuts. False: no such
        source."""
        with self._write() as db:
            row = db.execute(FORK_SOURCE, (source_id, through or 0)).fetchone()
            if row is None:
                return False
            rec.event_count, rec.turn_count, after = row
            if through is not None and after is not None:
                rec.event_count, rec.turn_count = after, through
            insert = f"INSERT INTO sessions ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
            db.execute(insert, [column(c, getattr(rec, c)) for c in COLUMNS])
            db.execute(FORK_COPY, (rec.id, source_id, rec.event_count))
            self._lease(db, rec.id)
        return True

    def get_session(self, session_id: str) -> SessionRecord | None:
        with self._read() as db:
            row = db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return record(row) if row else None

    def update_session(self, session_id: str, touch: bool = True, **changes: Any) -> None:
        """Change stored fields. The store owns `updated_at`: a change that is activity
        (`touch`) sets it to now, like every transcript append; any other change (a control,
        the MCP server list) leaves it as the store has it, never an older copy."""
        if touch:
            changes.setdefault("updated_at", now())
        sets = ", ".join(f"{k} = ?" for k in changes)
        values = [column(k, v) for k, v in changes.items()]
        with self._write() as db:
            db.execute(f"UPDATE sessions SET {sets} WHERE id = ?", [*values, session_id])

    def list_sessions(
        self,
        cwd: str | None,
        after: tuple[str, str] | None,
        limit: int,
        prompted_only: bool = True,
        live: Collection[str] = (),
        archived: str = "include",
    ) -> list[SessionRecord]:
        """Newest first, then by id; `after` is the (updated_at, id) of the previous page's last.

        `prompted_only` keeps the sessions with a turn and those whose id is in `live` (open in
        the caller's process); `archived` is session/list's filter (exclude, include, only).
        The filters are in the query, before the LIMIT, so `limit` rows come back whenever that
        many match: a caller asking for one more than a page knows from the count alone whether
        there is another page."""
        where: list[str] = []
        args: list[Any] = []
        if archived != "include":
            where.append("archived = ?")
            args.append(int(archived == "only"))
        if prompted_only:
            # One parameter for any number of live ids (no per-id placeholders to run out of).
            where.append("(turn_count > 0 OR id IN (SELECT value FROM json_each(?)))")
            args.append(json.dumps(sorted(live)))
        if cwd is not None:
            where.append("cwd = ?")
            args.append(cwd)
        if after is not None:
            where.append("(updated_at < ? OR (updated_at = ? AND id > ?))")
            args += [after[0], after[0], after[1]]
        sql = "SELECT * FROM sessions"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY updated_at DESC, id ASC LIMIT ?"
        with self._read() as db:
            rows = db.execute(sql, [*args, limit]).fetchall()
        return [record(r) for r in rows]

    def delete_session(self, session_id: str) -> bool:
        """Delete the session, its transcript and its lease; False if there was no such session.

        Raises `LeaseHeld(holder)` while another live process holds the session's lease (as
        `acquire_lease` would refuse it); a lease of this process, or of a pid gone from this
        host, does not block. The check and the delete are one transaction, so no other
        process can take the lease in between."""
        with self._write() as db:
            holder = self.holder_elsewhere(db, session_id)
            if holder is not None:
                raise LeaseHeld(holder)
            db.execute("DELETE FROM events WHERE session_id = ?", (session_id,))
            db.execute("DELETE FROM checkpoint_files WHERE session_id = ?", (session_id,))
            db.execute("DELETE FROM rewinds WHERE session_id = ?", (session_id,))
            db.execute("DELETE FROM leases WHERE session_id = ?", (session_id,))
            return db.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0

    # -- transcript --------------------------------------------------------------------------

    def append_events(
        self, session_id: str, turn: int, events: list[tuple[str, dict[str, Any]]]
    ) -> None:
        if not events:
            return
        with self._write() as db:
            row = db.execute(
                "SELECT event_count FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            if row is None:
                raise StoreError(f"session {session_id} is not in the store")
            start = row[0]
            db.executemany(
                "INSERT INTO events (session_id, seq, turn, kind, body) VALUES (?, ?, ?, ?, ?)",
                [
                    (session_id, start + i, turn, kind, stored_text(kind, body))
                    for i, (kind, body) in enumerate(events)
                ],
            )
            db.execute(
                "UPDATE sessions SET event_count = ?, turn_count = MAX(turn_count, ?), updated_at = ? WHERE id = ?",
                (start + len(events), turn, now(), session_id),
            )

    def events(self, session_id: str) -> Iterator[StoredEvent]:
        """The session's transcript in order; a row that is not a JSON object is skipped, with
        a warning."""
        for seq, turn, kind, body in self._decoded(session_id):
            yield StoredEvent(seq, turn, kind, body)

    def transcript(self, session_id: str) -> list[tuple[str, dict[str, Any]]]:
        """`events` as (kind, body) pairs, what a load replays and rebuilds its history from:
        read as plain tuples of the two columns it needs (a load reads thousands of rows)."""
        with self._read() as db:
            cursor = db.cursor()
            cursor.row_factory = None
            rows = cursor.execute(TRANSCRIPT, (session_id,)).fetchall()
        kept = [undecoded(kind, text) for kind, text in rows]
        rest = [(kind, text) for (kind, text), body in zip(rows, kept, strict=True) if body is None]
        bodies = all_bodies([kind for kind, _ in rest], [text for _, text in rest])
        if bodies is None:  # damaged rows: read again row by row, each bad one named
            return [(kind, body) for _, _, kind, body in self._decoded(session_id)]
        decoded = iter(bodies)
        return [
            (kind, next(decoded) if body is None else body)
            for (kind, _), body in zip(rows, kept, strict=True)
        ]

    def _decoded(self, session_id: str) -> list[tuple[int, int, str, dict[str, Any]]]:
        with self._read() as db:
            rows = db.execute(EVENTS, (session_id,)).fetchall()
        bodies = all_bodies([row[2] for row in rows], [row[3] for row in rows])
        if bodies is not None:
            return [
                (seq, turn, kind, body)
                for (seq, turn, kind, _), body in zip(rows, bodies, strict=True)
            ]
        decoded = []
        for seq, turn, kind, text in rows:
            try:
                body = object_body(text)
            except ValueError as exc:
                log.warning(
                    "session %s: transcript row %d is corrupt (%s); skipped", session_id, seq, exc
                )
                continue
            if well_formed(kind, body):
                decoded.append((seq, turn, kind, body))
            else:  # a damaged or hand-edited row: a replay would send it invalid
                log.warning(
                    "session %s: transcript row %d is not a %s event; skipped",
                    session_id,
                    seq,
                    kind,
                )
        return decoded

    def secret(self) -> bytes:
        """A random key kept in the store, for signing the cursors of session/list."""
        if self.readonly_reason:
            return digests.sha256(str(self.path).encode())
        with self._read() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'cursor_secret'").fetchone()
        if row is not None:
            return bytes.fromhex(row[0])
        value = os.urandom(32).hex()
        with self._write() as db:
            db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('cursor_secret', ?)", (value,)
            )
            value = db.execute("SELECT value FROM meta WHERE key = 'cursor_secret'").fetchone()[0]
        return bytes.fromhex(value)

    # -- leases ------------------------------------------------------------------------------

    def holder_text(self) -> str:
        return f"process {self.pid} on {self.host}"

    def holder_elsewhere(self, db: sqlite3.Connection, session_id: str) -> str | None:
        """Who holds the session's lease, unless nobody does, this process does, or a process
        that is gone from this host did. A holder on another host is never presumed gone."""
        row = db.execute(
            "SELECT pid, host, holder FROM leases WHERE session_id = ?", (session_id,)
        ).fetchone()
        if row is None:
            return None
        pid, host, holder = row
        ours = pid == self.pid and host == self.host
        stale = host == self.host and not _pid_alive(pid)
        return None if ours or stale else str(holder)

    def acquire_lease(self, session_id: str) -> None:
        with self._write() as db:
            holder = self.holder_elsewhere(db, session_id)
            if holder is not None:
                raise LeaseHeld(holder)
            self._lease(db, session_id)

    def _lease(self, db: sqlite3.Connection, session_id: str) -> None:
        db.execute(
            "INSERT OR REPLACE INTO leases (session_id, pid, host, holder, acquired_at) VALUES (?, ?, ?, ?, ?)",
            (session_id, self.pid, self.host, self.holder_text(), now()),
        )

    def release_lease(self, session_id: str) -> None:
        if self.readonly_reason:
            return
        with self._write() as db:
            db.execute(
                "DELETE FROM leases WHERE session_id = ? AND pid = ? AND host = ?",
                (session_id, self.pid, self.host),
            )
