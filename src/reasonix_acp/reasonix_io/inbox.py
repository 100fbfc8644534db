"""The durable session inbox: instructions queued for a session (follow-ups and steers), kept in
a sidecar SQLite file (`inbox_store`) next to the session store and shaped for the
`_reasonix.io/session/inbox/*` methods.

Invariants:
- Durability: every mutation is one committed transaction (WAL, `synchronous = FULL`) before the
  method returns, so a reply built from its result never announces something a crash can undo.
- Every commit increments the inbox `revision` and stamps this process's `run_id` and
  `updatedAt`; an item changed by a commit takes that commit's revision as its own.
- Capacity is checked in this order: read-only, idempotent hit, item too large (`MAX_ITEM_BYTES`
  of envelope JSON), item count (`MAX_ITEMS`), total bytes (`MAX_BYTES`).
- Idempotency: a key names one request (its `request_hash`). The same key with the same input
  answers the original item (`idempotent_hit`, position = live index + 1, or 0 from a receipt);
  other input is a conflict. When a keyed item leaves the queue (deleted or acknowledged) a
  receipt keeps the key for `RECEIPT_TTL`, at most `MAX_RECEIPTS` per session.
- Every state change of an item or of the inbox goes through `machines.inbox` (see its rules);
  an illegal one raises `InboxInvalidState` and writes nothing.
- Recovery: `InboxStore.open` of a session last written by another run (a process that is gone;
  sessions are leased to one live process) turns its in-flight items (running, steer_accepted,
  steer_consumed) into `uncertain` with reason "in-flight owner is no longer active", and when
  any items were carried over pauses the inbox with `recovered` and `recoveredCount` (the number
  of items carried over). There is no manifest file, blob directory or quarantine: one SQLite
  transaction writes an item and the inbox state together, so there are no orphan blobs to
  salvage and no torn manifest to set aside.
- An inbox that becomes empty clears its pause and recovered flags.
- ACP items carry no frozen references, so nothing here ever blocks an item by itself; `block`
  exists for callers that validate an item and `refresh` only re-checks and re-stamps it.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reasonix_acp.ids import uuid4, uuid4_hex
from reasonix_acp.machines.inbox import ItemMachine, State

# The two errors a caller maps (InboxEmptyText to -32602, every other InboxError to -32600);
# the specific sentinels live in inbox_errors.
from reasonix_acp.reasonix_io.inbox_errors import (
    InboxBodyEmpty,
    InboxByteLimit,
    InboxItemLimit,
    InboxItemTooLarge,
    InboxNotFound,
)
from reasonix_acp.reasonix_io.inbox_errors import InboxEmptyText as InboxEmptyText
from reasonix_acp.reasonix_io.inbox_errors import InboxError as InboxError
from reasonix_acp.reasonix_io.inbox_rows import (
    body,
    checksum,
    clean_text,
    compact,
    envelope,
    meta,
    preview,
    request_hash,
    validate_key,
)
from reasonix_acp.reasonix_io.inbox_store import ITEM_COLUMNS, SNAPSHOT_SCHEMA_VERSION, Sidecar, Tx

MAX_ITEMS = 64
MAX_ITEM_BYTES = 4 * 1024 * 1024
MAX_BYTES = 64 * 1024 * 1024
RECOVERY_REASON = "in-flight owner is no longer active"


class InboxStore:
    """The inbox sidecar of one data directory; `open` gives the inbox of one session."""

    def __init__(
        self,
        data_dir: Path,
        run_id: str | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.run_id = run_id or uuid4_hex()
        self.file = Sidecar(data_dir, clock or (lambda: datetime.now(UTC)))

    @property
    def path(self) -> Path:
        return self.file.path

    @property
    def readonly(self) -> bool:
        return self.file.readonly

    def open(self, session_id: str) -> SessionInbox:
        """The session's inbox, after recovering what a previous run left in flight."""
        inbox = SessionInbox(self, session_id)
        if not self.file.readonly:
            inbox._recover()
        return inbox

    def drop(self, session_id: str) -> None:
        """Delete every trace of a session's inbox (items, receipts, state)."""
        with self.file.write() as db:
            for table in ("items", "receipts", "inboxes"):
                db.execute(f"DELETE FROM {table} WHERE session_id = ?", (session_id,))

    def close(self) -> None:
        self.file.close()


class SessionInbox:
    """The inbox of one session. Methods named after wire methods return wire-shaped values;
    every mutation has committed durably when it returns."""

    def __init__(self, store: InboxStore, session_id: str) -> None:
        self.store = store
        self.session_id = session_id

    def _tx(self) -> AbstractContextManager[Tx]:
        return self.store.file.session(self.session_id, self.store.run_id)

    def _recover(self) -> None:
        # Most sessions have nothing in their inbox: one read says so, and the durable write
        # (which decides again inside its transaction) is taken only when items are there.
        if not self.store.file.query(
            "SELECT 1 FROM items WHERE session_id = ? LIMIT 1", (self.session_id,)
        ):
            return
        with self._tx() as tx:
            items = tx.items()
            tx.changed = tx.stored_run_id not in (None, self.store.run_id) and bool(items)
            if not tx.changed:
                return
            for row in items:
                if tx.can(row, "mark_uncertain"):
                    state = tx.fire(row, "mark_uncertain")
                    tx.save(row["id"], state=state.value, block_reason=RECOVERY_REASON)
            tx.machine.fire("recover", "inbox is {state}")
            tx.recovered_count = len(items)

    # -- the wire methods ------------------------------------------------------------------

    def enqueue(
        self,
        text: str,
        intent: str | None = None,
        idempotency_key: str | None = None,
        source: str = "acp",
    ) -> dict[str, Any]:
        """Store one instruction, passively (no turn starts here). A steer's admission is the
        caller's (`accept_steer` / `refuse_steer`), so the disposition is `queued_followup` or
        `idempotent_hit`; `position` is 1-based."""
        body_text = clean_text(text)
        if not body_text:
            raise InboxEmptyText()
        key = validate_key(idempotency_key)
        kind = "steer" if isinstance(intent, str) and intent.lower() == "steer" else "followup"
        stored = envelope(body_text, key, source)
        raw, hashed = compact(stored), request_hash(stored)
        with self._tx() as tx:
            hit = tx.idempotent(key, hashed) if key is not None else None
            tx.changed = hit is None
            if hit is not None:
                return _receipt("idempotent_hit", hit[0], tx.machine.paused, hit[1])
            if len(raw) > MAX_ITEM_BYTES:
                raise InboxItemTooLarge()
            count, total, last = tx.usage()
            if count >= MAX_ITEMS:
                raise InboxItemLimit()
            if total + len(raw) > MAX_BYTES:
                raise InboxByteLimit()
            item_id = uuid4()
            tx.insert(
                id=item_id,
                position=last + 1,
                intent=kind,
                state=ItemMachine.INITIAL.value,
                source=source,
                preview=preview(body_text),
                byte_size=len(raw),
                checksum=checksum(raw),
                idempotency_key=key,
                request_hash=hashed,
                envelope=raw.decode("utf-8"),
            )
            return _receipt("queued_followup", item_id, tx.machine.paused, count + 1)

    def list(self) -> dict[str, Any]:
        """The InboxSnapshot: state and item metadata in queue order, never a body."""
        file = self.store.file
        with file.read() as db:
            row = db.execute(
                "SELECT * FROM inboxes WHERE session_id = ?", (self.session_id,)
            ).fetchone()
            items = db.execute(
                f"SELECT {ITEM_COLUMNS} FROM items WHERE session_id = ? ORDER BY position",
                (self.session_id,),
            ).fetchall()
        snapshot: dict[str, Any] = {
            "schemaVersion": SNAPSHOT_SCHEMA_VERSION,
            "revision": row["revision"] if row else 0,
            "paused": self._paused(row),
            "recovered": bool(row and row["recovered"]),
        }
        if row and row["recovered_count"]:
            snapshot["recoveredCount"] = row["recovered_count"]
        if file.readonly:
            snapshot["readonly"] = True
        if row and row["run_id"]:
            snapshot["runId"] = row["run_id"]
        snapshot["items"] = [meta(r) for r in items]
        snapshot["capacity"] = {
            "items": len(items),
            "maxItems": MAX_ITEMS,
            "bytes": sum(r["byte_size"] for r in items),
            "maxBytes": MAX_BYTES,
            "maxItemBytes": MAX_ITEM_BYTES,
        }
        return snapshot

    def get(self, item_id: str) -> dict[str, Any]:
        """`{"envelope", "meta"}` of one item; the body is checked against its checksum."""
        with self.store.file.read() as db:
            row = db.execute(
                f"SELECT {ITEM_COLUMNS}, envelope FROM items WHERE session_id = ? AND id = ?",
                (self.session_id, item_id),
            ).fetchone()
        if row is None:
            raise InboxNotFound()
        return {"envelope": body(row), "meta": meta(row)}

    def update(self, item_id: str, text: str) -> dict[str, Any]:
        """Replace a pending item's text (key and source kept); a blocked item becomes queued.
        The request hash stays the original request's, so a retried enqueue still hits."""
        body_text = clean_text(text)
        if not body_text:
            raise InboxBodyEmpty()
        with self._tx() as tx:
            row = tx.item(item_id)
            state = tx.fire(row, "update")
            raw = compact(envelope(body_text, row["idempotency_key"], row["source"] or "acp"))
            if len(raw) > MAX_ITEM_BYTES:
                raise InboxItemTooLarge()
            if tx.usage()[1] - row["byte_size"] + len(raw) > MAX_BYTES:
                raise InboxByteLimit()
            tx.save(
                item_id,
                state=state.value,
                preview=preview(body_text),
                block_reason=row["block_reason"] if state is State.UNCERTAIN else None,
                byte_size=len(raw),
                checksum=checksum(raw),
                envelope=raw.decode("utf-8"),
            )
            return meta(tx.item(item_id))

    def delete(self, item_id: str) -> dict[str, Any]:
        """Remove a pending item or an accepted, unconsumed steer; a missing item is fine."""
        with self._tx() as tx:
            rows = tx.items("AND id = ?", (item_id,))
            tx.changed = bool(rows)
            if rows:
                tx.fire(rows[0], "delete")
                tx.remove(rows[0], "deleted")
        return {"ok": True}

    def move(self, item_id: str, to_index: int) -> dict[str, Any]:
        """Move a pending item to a 0-based index, clamped to the queue."""
        with self._tx() as tx:
            tx.fire(tx.item(item_id), "move")
            order = [r["id"] for r in tx.items() if r["id"] != item_id]
            order.insert(max(0, min(to_index, len(order))), item_id)
            tx.reorder(order)
            tx.save(item_id)
        return {"ok": True}

    def set_paused(self, paused: bool) -> bool:
        """Pause or resume (resuming clears recovered); a no-op writes nothing. Returns paused."""
        with self._tx() as tx:
            before = tx.machine.state
            tx.machine.fire("pause" if paused else "resume", "inbox is {state}")
            tx.changed = tx.machine.state is not before
            paused_now: bool = tx.machine.paused
        return paused_now

    def retry(self, item_id: str) -> dict[str, Any]:
        """uncertain|blocked → queued."""
        self._set(item_id, "retry")
        return {"ok": True}

    def refresh(self, item_id: str) -> dict[str, Any]:
        """Re-freeze references. ACP items have none, so this checks that the item exists and
        is pending, unblocks a blocked one and bumps its revision."""
        with self._tx() as tx:
            row = tx.item(item_id)
            state = tx.fire(row, "refresh")
            reason = row["block_reason"] if state is State.UNCERTAIN else None
            tx.save(item_id, state=state.value, block_reason=reason)
        return {"ok": True}

    # -- the turn side -----------------------------------------------------------------------

    def _paused(self, row: Any) -> bool:
        """Paused: by its `inboxes` row, or because the file is open read-only."""
        return bool(row and row["paused"]) or self.store.file.readonly

    def first_queued(self) -> dict[str, Any] | None:
        """The next follow-up to run, or None (nothing queued, or the inbox is paused). Asked
        after every turn: one statement reads that one item and the inbox's pause."""
        rows = self.store.file.query(
            "SELECT (SELECT paused FROM inboxes WHERE session_id = ?1) AS paused, "
            f"{ITEM_COLUMNS} FROM items WHERE session_id = ?1 AND state = 'queued' "
            "ORDER BY position LIMIT 1",
            (self.session_id,),
        )
        if not rows or self._paused(rows[0]):
            return None
        return meta(rows[0])

    def claim(self, item_id: str) -> dict[str, Any]:
        """queued → running on a running inbox (else InboxPaused); returns the envelope."""
        return self._set(item_id, "claim", dispatch=True)[0]

    def unclaim(self, item_id: str) -> None:
        """running → queued: the submission failed before anything ran."""
        self._set(item_id, "unclaim")

    def accept_steer(self, item_id: str) -> dict[str, Any]:
        """queued|uncertain → steer_accepted on a running inbox (else InboxPaused); returns
        the item's metadata."""
        return self._set(item_id, "accept_steer", dispatch=True)[1]

    def refuse_steer(self, item_id: str) -> dict[str, Any]:
        """The steer was not admitted: it stays queued, as a follow-up; returns its metadata."""
        with self._tx() as tx:
            state = tx.fire(tx.item(item_id), "refuse_steer")
            tx.save(item_id, state=state.value, intent="followup")
            return meta(tx.item(item_id))

    def consume_steer(self, item_id: str) -> dict[str, Any]:
        """steer_accepted → steer_consumed, the durable hand-off; returns the envelope."""
        return self._set(item_id, "consume_steer")[0]

    def ack(self, item_id: str) -> None:
        """running|steer_consumed → removed, keeping an "acknowledged" receipt."""
        with self._tx() as tx:
            row = tx.item(item_id)
            tx.fire(row, "ack")
            tx.remove(row, "acknowledged")

    def mark_uncertain(self, item_id: str, reason: str) -> None:
        """An in-flight item whose outcome is unknown: uncertain, and the inbox pauses."""
        self._set(item_id, "mark_uncertain", reason=reason, pause=True)

    def block(self, item_id: str, reason: str) -> None:
        """A pending item that cannot run as it is: blocked, and the inbox pauses."""
        self._set(item_id, "block", reason=reason, pause=True)

    def accepted_steers(self) -> builtins.list[dict[str, Any]]:
        """Metadata of the admitted, not yet consumed steers, oldest first (asked at every
        model step: it reads those items only)."""
        rows = self.store.file.query(
            f"SELECT {ITEM_COLUMNS} FROM items WHERE session_id = ? "
            "AND state = 'steer_accepted' ORDER BY created_at, position",
            (self.session_id,),
        )
        return [meta(r) for r in rows]

    def _set(
        self,
        item_id: str,
        trigger: str,
        reason: str | None = None,
        pause: bool = False,
        dispatch: bool = False,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Fire one item trigger (after the inbox's `dispatch` when asked), set the block
        reason, pause when asked; returns the envelope and metadata as committed."""
        with self._tx() as tx:
            if dispatch:
                tx.dispatch()
            state = tx.fire(tx.item(item_id), trigger)
            tx.save(item_id, state=state.value, block_reason=reason)
            if pause:
                tx.machine.fire("pause", "inbox is {state}")
            return tx.envelope(item_id), meta(tx.item(item_id))


def _receipt(disposition: str, item_id: str, paused: bool, position: int) -> dict[str, Any]:
    hit = disposition == "idempotent_hit"
    return {"disposition": disposition, "idempotent": hit, "itemId": item_id, "paused": paused} | {
        "position": position
    }
