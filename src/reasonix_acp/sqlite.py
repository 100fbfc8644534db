"""The SQLite connection every store here uses (the session store and the inbox sidecar).

The busy timeout (how long a statement waits for another process's write lock before it fails
with SQLITE_BUSY) is `BUSY_TIMEOUT_MS`, or the milliseconds in the environment variable
`REASONIX_ACP_SQLITE_BUSY_MS` when that is a whole number >= 0 (tests shorten it; anything else
there is ignored). It is read when a connection is opened.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from pathlib import Path

BUSY_TIMEOUT_MS = 5000
BUSY_TIMEOUT_ENV = "REASONIX_ACP_SQLITE_BUSY_MS"


def busy_timeout_ms() -> int:
    value = os.environ.get(BUSY_TIMEOUT_ENV, "").strip()
    return int(value) if value.isascii() and value.isdigit() else BUSY_TIMEOUT_MS


def is_busy(exc: sqlite3.Error) -> bool:
    """Whether `exc` is SQLITE_BUSY or SQLITE_LOCKED: another connection held a lock for longer
    than the busy timeout."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "database is locked" in str(exc)


def private_dir(directory: Path) -> None:
    """Create `directory` (and parents) if needed; the directory itself is made 0700."""
    directory.mkdir(parents=True, exist_ok=True)
    if stat.S_IMODE(directory.stat().st_mode) != 0o700:
        with contextlib.suppress(PermissionError):
            os.chmod(directory, 0o700)


def connect(path: Path, readonly: bool, synchronous: str) -> sqlite3.Connection:
    """A connection as every store here uses it: autocommit (transactions are explicit), a busy
    timeout for other processes, WAL when writing, rows by name. A database this process
    writes is 0600, and so are its -wal and -shm files (SQLite gives them the database's mode)."""
    if not readonly:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        with contextlib.suppress(PermissionError):
            os.fchmod(fd, 0o600)
        os.close(fd)
        for side in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError, PermissionError):
                os.chmod(f"{path}{side}", 0o600)
    uri = f"file:{path}?mode=ro" if readonly else f"file:{path}"
    busy_ms = busy_timeout_ms()
    db = sqlite3.connect(
        uri,
        uri=True,
        timeout=busy_ms / 1000,
        isolation_level=None,
        check_same_thread=False,
    )
    db.row_factory = sqlite3.Row
    db.execute(f"PRAGMA busy_timeout = {busy_ms}")
    if not readonly:
        _wal(db, busy_ms)
        db.execute(f"PRAGMA synchronous = {synchronous}")
    return db


def _wal(db: sqlite3.Connection, busy_ms: int) -> None:
    """Switch to WAL. Two processes switching a new file at once both hold a read lock and
    want the write lock: SQLite answers one of them busy at once instead of waiting (it would
    deadlock), so the switch is tried again until the busy timeout has passed."""
    deadline = time.monotonic() + busy_ms / 1000
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def schema_version(db: sqlite3.Connection) -> int:
    version: int = db.execute("PRAGMA user_version").fetchone()[0]
    return version


def migrate(db: sqlite3.Connection, migrations: list[str]) -> None:
    """Bring the schema forward from the file's `user_version` to `len(migrations)`, inside
    the caller's write transaction (another process may have migrated it meanwhile)."""
    for index in range(schema_version(db), len(migrations)):
        for statement in migrations[index].split(";"):
            if statement.strip():
                db.execute(statement)
    db.execute(f"PRAGMA user_version = {len(migrations)}")


@contextlib.contextmanager
def immediate(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One `BEGIN IMMEDIATE` transaction; it has committed when the block exits without
    error. A transaction still open after a failure (BEGIN, the block or COMMIT) is rolled
    back, so the connection is never left inside one."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
