"""The session store's schema (`MIGRATIONS`, one per `user_version`) and its rows as Python
sees them: a session's record and how its columns
are stored, a transcript event, and the decoding of transcript bodies (every row's in one pass
when they are whole, row by row when some are damaged)."""

from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from reasonix_acp.config.mcp_entries import names_only
from reasonix_acp.protocol.framing import compact
from reasonix_acp.session import verbatim
from reasonix_acp.session.projector import well_formed

log = logging.getLogger("reasonix_acp.session.store")

MIGRATIONS: list[str] = [
    """
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        cwd TEXT NOT NULL,
        additional_directories TEXT NOT NULL DEFAULT '[]',
        mcp_servers TEXT NOT NULL DEFAULT '[]',
        title TEXT,
        model TEXT NOT NULL,
        effort TEXT NOT NULL DEFAULT 'auto',
        mode TEXT NOT NULL DEFAULT 'normal',
        approval TEXT NOT NULL DEFAULT 'workspace-write',
        plan TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        event_count INTEGER NOT NULL DEFAULT 0,
        turn_count INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX sessions_by_update ON sessions (updated_at DESC, id);
    CREATE INDEX sessions_by_cwd ON sessions (cwd, updated_at DESC, id);
    CREATE TABLE events (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        turn INTEGER NOT NULL,
        kind TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE leases (
        session_id TEXT PRIMARY KEY,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        holder TEXT NOT NULL,
        acquired_at TEXT NOT NULL
    );
    """,
    # Checkpoints: each file a turn changed, with its bytes' digests before and after
    # (checkpoints/blobs.py); a rewind's plan, kept from before its first file is touched until
    # its end is committed (session/rewind.py).
    """
    CREATE TABLE checkpoint_files (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        turn INTEGER NOT NULL,
        path TEXT NOT NULL,
        before TEXT,
        after TEXT,
        mode INTEGER,
        PRIMARY KEY (session_id, turn, path)
    ) WITHOUT ROWID;
    CREATE TABLE rewinds (
        session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        body TEXT NOT NULL
    );
    """,
    # session/archive: an archived session keeps its history and is left out of the default
    # session/list.
    """
    ALTER TABLE sessions ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;
    """,
    # A client's systemPrompt (append mode), kept as given: a load or resume that gives none
    # sends the model the same system message.
    """
    ALTER TABLE sessions ADD COLUMN system_prompt TEXT;
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)
DB_NAME = "reasonix-acp.sqlite3"

JSON_FIELDS = ("additional_directories", "mcp_servers", "plan")

_scan: Any = getattr(json.decoder.JSONDecoder(), "scan_once")  # noqa: B009 - untyped attribute


def object_body(text: str) -> dict[str, Any]:
    """A stored event body: what json.loads makes of it, which must be an object (ValueError
    otherwise). The rows we write are compact JSON, so the scanner alone reads them (a replay
    decodes thousands); anything it does not read whole goes through json.loads."""
    try:
        value, end = _scan(text, 0)
    except (StopIteration, ValueError, TypeError):  # TypeError: a BLOB row; json.loads reads it
        end = -1
    if end != len(text) or not isinstance(text, str):
        value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("not an object")
    return value


EVENTS = "SELECT seq, turn, kind, body FROM events WHERE session_id = ? ORDER BY seq"
TRANSCRIPT = "SELECT kind, body FROM events WHERE session_id = ? ORDER BY seq"
# session/fork: the source's counts and where turn N + 1 begins; its transcript copied below it.
FORK_SOURCE = (
    "SELECT event_count, turn_count, (SELECT MIN(seq) FROM events WHERE session_id = sessions.id"
    " AND turn > ?2) FROM sessions WHERE id = ?1"
)
FORK_COPY = (
    "INSERT INTO events (session_id, seq, turn, kind, body) "
    "SELECT ?, seq, turn, kind, body FROM events WHERE session_id = ? AND seq < ?"
)


# Kinds a load does not need to decode: the model's messages (`history`), the largest rows,
# are read when the history is rebuilt (the session's first turn), if ever.
DEFERRED = frozenset({"history"})


class Deferred(dict[str, Any]):
    """A stored body not decoded yet: empty as a dict; `decoded()` reads its text (a damaged
    one reads as None)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def decoded(self) -> dict[str, Any] | None:
        try:
            body = json.loads(self.text)
        except ValueError:
            return None
        return body if type(body) is dict else None


def undecoded(kind: str, text: Any) -> dict[str, Any] | None:
    """A row's body as a load takes it without decoding it (a `history` deferred, a row sent as
    stored), or None: decode it."""
    if kind in DEFERRED and type(text) is str:
        return Deferred(text)
    return verbatim.read(kind, text)


def all_bodies(kinds: list[str], texts: list[Any]) -> list[dict[str, Any]] | None:
    """Every row's body decoded in one pass, as a replay reads thousands; None when they do not
    read as one JSON object per row, each of its kind's shape (projector.well_formed; the caller
    then goes row by row and skips the bad ones).

    The bodies are joined into one JSON array. A damaged body breaks the array or changes its
    count of items: for damage to pass, the damaged rows together would have to read as
    exactly one object per row, which torn or overwritten bytes do not do (only a deliberate
    rewrite of the file could, and that can store any rows it likes anyway)."""
    if not all(type(text) is str for text in texts):
        return None  # a BLOB row: json.loads reads it on its own
    try:
        values: list[Any] = json.loads("[" + ",".join(texts) + "]")
    except ValueError:
        return None
    if len(values) != len(texts) or not all(
        type(value) is dict and well_formed(kind, value)
        for kind, value in zip(kinds, values, strict=True)
    ):
        return None
    return values


def stored_text(kind: str, body: dict[str, Any]) -> str:
    """An event's body as the store writes it: spelled as frames spell JSON, and marked where a
    load may send it as stored (session/verbatim.py)."""
    text = compact(body)
    return verbatim.marked(kind, body, text) if well_formed(kind, body) else text


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@dataclass
class SessionRecord:
    """A session as the store keeps it: where it works, its model and controls, its plan,
    its counters."""

    id: str
    cwd: str
    model: str
    additional_directories: list[str] = field(default_factory=list)
    mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    title: str | None = None
    effort: str = "auto"
    mode: str = "normal"
    approval: str = "workspace-write"
    plan: list[dict[str, Any]] = field(default_factory=list)
    created_at: str = field(default_factory=now)
    updated_at: str = ""
    event_count: int = 0
    turn_count: int = 0
    archived: bool = False
    system_prompt: str | None = None  # the client's, appended to the agent's instructions

    def __post_init__(self) -> None:
        self.updated_at = self.updated_at or self.created_at


@dataclass(frozen=True)
class StoredEvent:
    """One transcript row: its sequence number, the turn it belongs to, its kind and its
    body."""

    seq: int
    turn: int
    kind: str
    body: dict[str, Any]


COLUMNS = [f for f in SessionRecord.__dataclass_fields__]


def column(name: str, value: Any) -> Any:
    """A field as stored: lists and objects as JSON; MCP servers without header or env values."""
    if name == "mcp_servers":
        value = names_only(value)
    return json.dumps(value) if name in JSON_FIELDS else value


def record(row: sqlite3.Row) -> SessionRecord:
    values = dict(zip(row.keys(), tuple(row), strict=True))
    for name in JSON_FIELDS:
        try:
            values[name] = json.loads(values[name])
        except ValueError:
            log.warning("session %s: corrupt %s column ignored", values["id"], name)
            values[name] = []
    values["archived"] = bool(values["archived"])
    return SessionRecord(**values)
