"""The inbox sidecar file: schema, durable transactions and the primitives one inbox
mutation is made of (`Tx`). `reasonix_acp.reasonix_io.inbox` builds the inbox and its rules on top.

Invariants:
- `inbox.sqlite3` is a file of its own, versioned apart from the session store with its own
  `PRAGMA user_version` and `MIGRATIONS`. A file of a newer version is opened read-only; every
  write then raises `InboxReadOnly`.
- WAL journal, a busy timeout and `synchronous = FULL`: a transaction that returned from COMMIT
  is on disk (the WAL is synced at every commit), so a reply sent after it is never lost.
- Every write is one `BEGIN IMMEDIATE` transaction under the process lock; the checks that
  decide a mutation read inside that transaction, so two processes cannot interleave them.
- Receipts: a key whose item left the queue stays known for `RECEIPT_TTL`, at most
  `MAX_RECEIPTS` per session (the oldest go first).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from reasonix_acp.machines._base import StateMachine, TransitionRefused
from reasonix_acp.machines.inbox import InboxMachine, ItemMachine, State
from reasonix_acp.reasonix_io.inbox_errors import (
    InboxClosed,
    InboxIdempotencyConflict,
    InboxInvalidState,
    InboxNotFound,
    InboxPaused,
    InboxReadOnly,
)
from reasonix_acp.reasonix_io.inbox_rows import body, timestamp
from reasonix_acp.sqlite import connect, immediate, migrate, private_dir, schema_version

log = logging.getLogger("reasonix_acp.reasonix_io.inbox")

DB_NAME = "inbox.sqlite3"
# The schemaVersion an InboxSnapshot reports (the wire's, not the file's user_version).
SNAPSHOT_SCHEMA_VERSION = 2
RECEIPT_TTL = timedelta(days=7)
MAX_RECEIPTS = 512

MIGRATIONS: list[str] = [
    """
    CREATE TABLE inboxes (
        session_id TEXT PRIMARY KEY,
        revision INTEGER NOT NULL DEFAULT 0,
        run_id TEXT,
        paused INTEGER NOT NULL DEFAULT 0,
        recovered INTEGER NOT NULL DEFAULT 0,
        recovered_count INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE items (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        intent TEXT NOT NULL,
        state TEXT NOT NULL,
        revision INTEGER NOT NULL,
        source TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        preview TEXT NOT NULL,
        byte_size INTEGER NOT NULL,
        checksum TEXT NOT NULL,          -- sha256 hex of `envelope`
        idempotency_key TEXT,
        request_hash TEXT NOT NULL,      -- what an idempotent retry must match
        block_reason TEXT,
        run_id TEXT,
        envelope TEXT NOT NULL           -- the PromptEnvelope, compact JSON
    );
    CREATE INDEX items_by_position ON items (session_id, position);
    CREATE UNIQUE INDEX items_by_key ON items (session_id, idempotency_key)
        WHERE idempotency_key IS NOT NULL;
    CREATE TABLE receipts (
        session_id TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        item_id TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        disposition TEXT NOT NULL,
        completed_at TEXT NOT NULL,
        PRIMARY KEY (session_id, idempotency_key)
    ) WITHOUT ROWID;
    CREATE INDEX receipts_by_age ON receipts (session_id, completed_at);
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)

ITEM_COLUMNS = (
    "id, session_id, position, intent, state, revision, source, created_at, updated_at, preview, "
    "byte_size, checksum, idempotency_key, request_hash, block_reason, run_id"
)


# -- the file -----------------------------------------------------------------------------------


class Sidecar:
    """One connection to `inbox.sqlite3`, shared by the threads of this process."""

    def __init__(self, directory: Path, clock: Callable[[], datetime]) -> None:
        private_dir(directory)
        self.path = directory / DB_NAME
        self.clock = clock
        self.lock = threading.Lock()
        self.readonly = False
        self.closed = False
        self._db = self._connect(readonly=False)
        version = schema_version(self._db)
        if version > SCHEMA_VERSION:
            self._db.close()
            self.readonly = True
            log.warning("inbox %s: schema %d is newer; opened read-only", self.path, version)
            self._db = self._connect(readonly=True)
        elif version < SCHEMA_VERSION:
            self._migrate()

    def _connect(self, readonly: bool) -> sqlite3.Connection:
        # FULL: the WAL is fsynced at every COMMIT, so a returned commit survives power loss.
        return connect(self.path, readonly, synchronous="FULL")

    def _migrate(self) -> None:
        with self.write() as db:
            migrate(db, MIGRATIONS)

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One durable transaction; it has committed when the block exits without error."""
        with self.lock:
            if self.closed:
                raise InboxClosed()
            if self.readonly:
                raise InboxReadOnly()
            with immediate(self._db) as db:
                yield db

    def query(self, sql: str, params: tuple[Any, ...]) -> list[sqlite3.Row]:
        """The rows of one SELECT: a single statement reads one consistent snapshot by itself,
        without the BEGIN and COMMIT of `read` (the turn asks at every model step)."""
        with self.lock:
            if self.closed:
                raise InboxClosed()
            return self._db.execute(sql, params).fetchall()

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot across several SELECTs."""
        with self.lock:
            if self.closed:
                raise InboxClosed()
            db = self._db
            db.execute("BEGIN")
            try:
                yield db
            finally:
                if db.in_transaction:
                    db.execute("COMMIT")

    def close(self) -> None:
        with self.lock:
            if not self.closed:
                self.closed = True
                self._db.close()

    @contextmanager
    def session(self, session_id: str, run_id: str) -> Iterator[Tx]:
        """One durable mutation of one session's inbox; stamped unless `tx.changed` is False."""
        with self.write() as db:
            tx = Tx(db, session_id, run_id, self.clock())
            yield tx
            if tx.changed:
                tx.stamp()


_M = TypeVar("_M", bound=StateMachine)
_machines = threading.local()


def _reused(kind: type[_M]) -> _M:
    """This thread's one machine of `kind`. Building a transitions.Machine costs more than the
    rest of a commit's bookkeeping; a machine holds nothing but `state`, which every use sets
    before firing, and one Tx runs start to end in one thread (the sidecar lock is held)."""
    machine: _M | None = getattr(_machines, kind.NAME, None)
    if machine is None:
        machine = kind()
        setattr(_machines, kind.NAME, machine)
    return machine


class Tx:
    """The primitives of one inbox mutation, inside an open write transaction. Item and inbox
    states move only by `fire` and `machine.fire` (machines.inbox, Rule 1)."""

    def __init__(self, db: sqlite3.Connection, session_id: str, run_id: str, at: datetime) -> None:
        self.db, self.session_id, self.run_id = db, session_id, run_id
        self.at, self.now = at, timestamp(at)
        db.execute(
            "INSERT OR IGNORE INTO inboxes (session_id, updated_at) VALUES (?, ?)",
            (session_id, self.now),
        )
        row = db.execute("SELECT * FROM inboxes WHERE session_id = ?", (session_id,)).fetchone()
        self.stored_run_id: str | None = row["run_id"]
        self.revision: int = row["revision"] + 1  # the revision this commit will have
        self.recovered_count: int = row["recovered_count"]
        self.machine = _reused(InboxMachine)
        self.machine.state = InboxMachine.state_for(
            paused=bool(row["paused"]), recovered=bool(row["recovered"])
        )
        self.changed = True

    def items(self, where: str = "", args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        return self.db.execute(
            f"SELECT {ITEM_COLUMNS} FROM items WHERE session_id = ? {where} ORDER BY position",
            (self.session_id, *args),
        ).fetchall()

    def item(self, item_id: str) -> sqlite3.Row:
        rows = self.items("AND id = ?", (item_id,))
        if not rows:
            raise InboxNotFound()
        return rows[0]

    def envelope(self, item_id: str) -> dict[str, Any]:
        return body(
            self.db.execute(
                "SELECT id, checksum, envelope FROM items WHERE id = ?", (item_id,)
            ).fetchone()
        )

    def usage(self) -> tuple[int, int, int]:
        """(item count, total bytes, last position) of the session's items."""
        count, total, last = self.db.execute(
            "SELECT COUNT(*), COALESCE(SUM(byte_size), 0), COALESCE(MAX(position), -1) "
            "FROM items WHERE session_id = ?",
            (self.session_id,),
        ).fetchone()
        return count, total, last

    def can(self, row: sqlite3.Row, trigger: str) -> bool:
        machine = _reused(ItemMachine)
        machine.state = State(row["state"])
        return machine.can(trigger)

    def fire(self, row: sqlite3.Row, trigger: str) -> State:
        machine = _reused(ItemMachine)
        machine.state = State(row["state"])
        try:
            machine.fire(trigger, InboxInvalidState.MESSAGE)
        except TransitionRefused:
            raise InboxInvalidState() from None
        assert isinstance(machine.state, State)
        return machine.state

    def dispatch(self) -> None:
        """Only a running inbox hands out work."""
        try:
            self.machine.fire("dispatch", InboxPaused.MESSAGE)
        except TransitionRefused:
            raise InboxPaused() from None

    def insert(self, **columns: Any) -> None:
        columns |= {"session_id": self.session_id, "revision": self.revision, "run_id": self.run_id}
        columns |= {"created_at": self.now, "updated_at": self.now}
        names = ", ".join(columns)
        marks = ", ".join("?" * len(columns))
        self.db.execute(f"INSERT INTO items ({names}) VALUES ({marks})", tuple(columns.values()))

    def save(self, item_id: str, **columns: Any) -> None:
        """Change an item; it takes this commit's revision, run id and time."""
        columns |= {"revision": self.revision, "updated_at": self.now, "run_id": self.run_id}
        sets = ", ".join(f"{name} = ?" for name in columns)
        self.db.execute(f"UPDATE items SET {sets} WHERE id = ?", (*columns.values(), item_id))

    def reorder(self, order: list[str]) -> None:
        self.db.executemany("UPDATE items SET position = ? WHERE id = ?", list(enumerate(order)))

    def idempotent(self, key: str, hashed: str) -> tuple[str, int] | None:
        """(item id, position) of an earlier request with this key and input: a live item at
        its index + 1, else a receipt younger than RECEIPT_TTL at 0. Other input is a conflict."""
        row = self.db.execute(
            "SELECT id, request_hash, 1 + (SELECT COUNT(*) FROM items AS ahead WHERE "
            "ahead.session_id = items.session_id AND ahead.position < items.position) AS position "
            "FROM items WHERE session_id = ? AND idempotency_key = ? UNION ALL "
            "SELECT item_id, request_hash, 0 FROM receipts WHERE session_id = ? "
            "AND idempotency_key = ? AND completed_at >= ? ORDER BY position DESC LIMIT 1",
            (self.session_id, key, self.session_id, key, timestamp(self.at - RECEIPT_TTL)),
        ).fetchone()
        if row is None:
            return None
        if row["request_hash"] != hashed:
            raise InboxIdempotencyConflict()
        return row["id"], row["position"]

    def remove(self, row: sqlite3.Row, disposition: str) -> None:
        """Take an item out of the queue, keeping a receipt for its key; an emptied inbox
        drains (its pause and recovered flags clear)."""
        if row["idempotency_key"]:
            self.db.execute(
                "INSERT OR REPLACE INTO receipts SELECT session_id, idempotency_key, id, "
                "request_hash, ?, ? FROM items WHERE id = ?",
                (disposition, self.now, row["id"]),
            )
            self.db.execute(
                "DELETE FROM receipts WHERE session_id = ? AND (completed_at < ? OR "
                "idempotency_key NOT IN (SELECT idempotency_key FROM receipts "
                "WHERE session_id = ? ORDER BY completed_at DESC LIMIT ?))",
                (self.session_id, timestamp(self.at - RECEIPT_TTL), self.session_id, MAX_RECEIPTS),
            )
        self.db.execute("DELETE FROM items WHERE id = ?", (row["id"],))
        if self.usage()[0] == 0:
            self.machine.fire("drain", "inbox is {state}")

    def stamp(self) -> None:
        recovered = self.machine.recovered
        flags = (self.machine.paused, recovered, self.recovered_count if recovered else 0)
        self.db.execute(
            "UPDATE inboxes SET revision = ?, run_id = ?, updated_at = ?, paused = ?, "
            "recovered = ?, recovered_count = ? WHERE session_id = ?",
            (self.revision, self.run_id, self.now, *flags, self.session_id),
        )
