"""An inbox item as stored and shown: timestamps, the compact JSON of its envelope and its
checksum, the envelope read back (checked), its metadata on the wire, and the text rules
(cleaning, preview, the envelope of a prompt, the request hash of an idempotent retry, keys)."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import datetime
from typing import Any

from reasonix_acp import digests
from reasonix_acp.reasonix_io.inbox_errors import InboxError, InboxInvalidKey

PREVIEW_CHARS = 120


def timestamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def compact(value: dict[str, Any]) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def checksum(raw: bytes) -> str:
    return digests.sha256_hex(raw)


def body(row: sqlite3.Row) -> dict[str, Any]:
    """The stored envelope of an item, checked against its checksum."""
    raw = row["envelope"].encode("utf-8")
    if checksum(raw) != row["checksum"]:
        raise InboxError(f"inbox item {row['id']} is corrupt (checksum mismatch)")
    value: dict[str, Any] = json.loads(raw)
    return value


def meta(row: sqlite3.Row) -> dict[str, Any]:
    """InboxItemMeta of a stored item; never the body."""
    out: dict[str, Any] = {
        "id": row["id"],
        "sessionId": row["session_id"],
        "intent": row["intent"],
        "state": row["state"],
        "revision": row["revision"],
        "createdAt": row["created_at"],
        "updatedAt": row["updated_at"],
        "preview": row["preview"],
        "byteSize": row["byte_size"],
        "checksum": row["checksum"],
    }
    for column, name in (
        ("source", "source"),
        ("idempotency_key", "idempotencyKey"),
        ("block_reason", "blockReason"),
        ("run_id", "runId"),
    ):
        if row[column]:
            out[name] = row[column]
    return out


# -- item text ------------------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """Trimmed text; lone surrogates (invalid UTF-8 sent as a JSON escape) become U+FFFD."""
    return _SURROGATE.sub("\ufffd", text).strip()


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """Trimmed, whitespace runs collapsed to one space, at most `limit` characters plus `…`."""
    flat = " ".join(_SURROGATE.sub("", text).split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rstrip() + "…"


def envelope(text: str, idempotency_key: str | None, source: str) -> dict[str, Any]:
    """The stored body (PromptEnvelope). ACP prompts have no invocations, refs or attachments,
    so display, raw and submit text are all the trimmed text."""
    stored: dict[str, Any] = {"displayText": text, "rawText": text, "submitText": text}
    if idempotency_key is not None:
        stored["idempotencyKey"] = idempotency_key
    stored["source"] = source
    return stored


def request_hash(stored: dict[str, Any]) -> str:
    """What a retried enqueue must repeat to be the same request: the input, without frozen
    references (a retry after the workspace changed is no conflict) and without the key."""
    fields = ("displayText", "rawText", "submitText", "invocations", "format", "attachments")
    hashed = {k: stored[k] for k in (*fields, "explicitRefs", "source", "extra") if k in stored}
    return checksum(compact(hashed))


def validate_key(key: str | None) -> str | None:
    """None for no key ("" counts as none); raises InboxInvalidKey for a malformed key:
    surrounding whitespace, a NUL, or more than 1024 UTF-8 bytes."""
    if key is None or key == "":
        return None
    if key != key.strip() or "\x00" in key or len(key.encode("utf-8", "replace")) > 1024:
        raise InboxInvalidKey()
    return key
