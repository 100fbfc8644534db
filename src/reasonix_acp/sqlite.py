"""The SQLite connection every store here uses (the session store and the inbox sidecar).

The busy timeout (how long a statement waits for another process's write lock before it fails
with SQLITE_BUSY) is `BUSY_TIMEOUT_MS`, or the milliseconds in the environment variable
`REASONIX_ACP_SQLITE_BUSY_MS` when that is a whole number >= 0 (tests shorten it; anything else
there is ignored). It is read when a connection is opened.
"""

from __future__ import annotations

import os
import sqlite3
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


def connect(path: Path, readonly: bool, synchronous: str) -> sqlite3.Connection:
    """A connection as every store here uses it: autocommit (transactions are explicit), a busy
    timeout for other processes, WAL when writing, rows by name."""
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
        db.execute("PRAGMA journal_mode = WAL")
        db.execute(f"PRAGMA synchronous = {synchronous}")
    return db
