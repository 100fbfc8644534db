"""The session inbox on a real SQLite file: every method and sentinel, capacity limits,
idempotency and receipts."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from reasonix_acp.reasonix_io import inbox as inbox_mod
from reasonix_acp.reasonix_io import inbox_rows, inbox_store
from reasonix_acp.reasonix_io.inbox import InboxStore, SessionInbox
from reasonix_acp.reasonix_io.inbox_errors import (
    InboxBodyEmpty,
    InboxByteLimit,
    InboxEmptyText,
    InboxError,
    InboxIdempotencyConflict,
    InboxInvalidKey,
    InboxInvalidState,
    InboxItemLimit,
    InboxItemTooLarge,
    InboxNotFound,
    InboxPaused,
)
from tests.inbox import Clock, add, snapshot, state, valid

# -- enqueue, list, get --------------------------------------------------------------------


def test_enqueue_shape_positions_and_intent(inbox: SessionInbox) -> None:
    first = inbox.enqueue("  one  ")
    assert sorted(first) == ["disposition", "idempotent", "itemId", "paused", "position"]
    assert first["disposition"] == "queued_followup" and first["idempotent"] is False
    assert first["position"] == 1 and first["paused"] is False
    assert inbox.enqueue("two", intent="StEeR")["position"] == 2
    add(inbox, "three", intent="follow")
    add(inbox, "four", intent=None)
    assert [m["intent"] for m in snapshot(inbox)["items"]] == [
        "followup",
        "steer",
        "followup",
        "followup",
    ]


@pytest.mark.parametrize("text", ["", "   ", "\n\t "])
def test_empty_enqueue_text_is_invalid_params(inbox: SessionInbox, text: str) -> None:
    with pytest.raises(InboxEmptyText) as err:
        inbox.enqueue(text)
    assert err.value.message == "empty text" and err.value.CODE == -32602
    assert isinstance(err.value, InboxError)


def test_list_is_metadata_only_and_counts_revisions(inbox: SessionInbox) -> None:
    assert snapshot(inbox)["revision"] == 0
    a = add(inbox, "secret body " * 20)
    add(inbox, "second")
    snap = snapshot(inbox)
    assert snap["schemaVersion"] == 2 and snap["revision"] == 2 and snap["runId"] == "run-a"
    assert "recoveredCount" not in snap and "readonly" not in snap and snap["recovered"] is False
    assert "displayText" not in json.dumps(snap) and "secret body secret" in json.dumps(snap)
    assert snap["capacity"] == {
        "items": 2,
        "maxItems": 64,
        "bytes": sum(m["byteSize"] for m in snap["items"]),
        "maxBytes": 64 * 1024 * 1024,
        "maxItemBytes": 4 * 1024 * 1024,
    }
    meta = snap["items"][0]
    assert meta["id"] == a and meta["revision"] == 1 and meta["sessionId"] == "s1"
    assert datetime.fromisoformat(meta["createdAt"]).tzinfo is not None


def test_list_sees_every_change_to_the_file(
    inbox: SessionInbox, store: InboxStore, tmp_path: Path, clock: Clock
) -> None:
    """A list after any commit shows it: this process's, another connection's to the same
    file (another process, the sessions CLI), and the same snapshot again when nothing changed
    — a copy the caller may change freely."""
    first = inbox.list()
    first["items"].append({"state": "queued"})
    assert inbox.list()["items"] == []
    other = InboxStore(tmp_path, run_id="run-b", clock=clock)
    try:
        item = add(other.open("s1"), "from elsewhere")
        assert [m["id"] for m in inbox.list()["items"]] == [item]
        other.open("s1").delete(item)
        assert inbox.list()["items"] == []
    finally:
        other.close()
    mine = add(inbox, "from here")
    assert [m["id"] for m in inbox.list()["items"]] == [mine]
    raw = sqlite3.connect(store.file.path)
    raw.execute("UPDATE items SET preview = 'changed underneath'")
    raw.commit()
    raw.close()
    assert inbox.list()["items"][0]["preview"] == "changed underneath"


def test_get_envelope_checksum_and_size(inbox: SessionInbox) -> None:
    item_id = add(inbox, "  fix the build \n", idempotency_key="k-1")
    got = valid("ReasonixInboxGetResponse", inbox.get(item_id))
    env = got["envelope"]
    assert env["displayText"] == env["rawText"] == env["submitText"] == "fix the build"
    assert env["source"] == "acp" and env["idempotencyKey"] == "k-1"
    raw = json.dumps(env, ensure_ascii=False, separators=(",", ":")).encode()
    assert got["meta"]["checksum"] == hashlib.sha256(raw).hexdigest()
    assert got["meta"]["byteSize"] == len(raw)
    with pytest.raises(InboxNotFound, match=r"^inbox item not found$"):
        inbox.get("nope")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  a \n\n b\t\tc  ", "a b c"),
        ("x" * 120, "x" * 120),
        ("x" * 121, "x" * 120 + "…"),
        ("word " * 40, ("word " * 24).strip() + "…"),
        ("bad \ud800 char", "bad \ufffd char"),
    ],
)
def test_preview(inbox: SessionInbox, text: str, expected: str) -> None:
    assert inbox.get(add(inbox, text))["meta"]["preview"] == expected


def test_a_corrupt_body_is_refused(inbox: SessionInbox, store: InboxStore) -> None:
    item_id = add(inbox, "original")
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE items SET envelope = '{}' WHERE id = ?", (item_id,))
    with pytest.raises(InboxError, match="checksum mismatch"):
        inbox.get(item_id)


# -- update, delete, move, retry, refresh, setPaused ---------------------------------------


def test_update(inbox: SessionInbox) -> None:
    item_id = add(inbox, "old", idempotency_key="u")
    before = inbox.get(item_id)["meta"]
    meta = valid("ReasonixInboxUpdateResponse", inbox.update(item_id, "  new text "))
    assert meta["preview"] == "new text" and meta["revision"] == snapshot(inbox)["revision"] == 2
    assert meta["checksum"] != before["checksum"] and meta["idempotencyKey"] == "u"
    assert inbox.get(item_id)["envelope"]["submitText"] == "new text"
    inbox.block(item_id, "bad ref")
    assert inbox.update(item_id, "fixed")["state"] == "queued"
    assert inbox.set_paused(False) is False  # blocking paused the inbox
    inbox.claim(item_id)
    with pytest.raises(
        InboxInvalidState, match=r"^inbox item state does not allow this operation$"
    ):
        inbox.update(item_id, "late")
    with pytest.raises(InboxBodyEmpty, match=r"^inbox item body is empty$"):
        inbox.update(item_id, "  ")
    with pytest.raises(InboxNotFound):
        inbox.update("missing", "x")


def test_update_keeps_uncertain(inbox: SessionInbox) -> None:
    item_id = add(inbox)
    inbox.claim(item_id)
    inbox.mark_uncertain(item_id, "turn completed but transcript snapshot failed")
    meta = inbox.update(item_id, "edited")
    assert meta["state"] == "uncertain" and meta["blockReason"].startswith("turn completed")


def test_delete(inbox: SessionInbox) -> None:
    queued, steer, running = add(inbox), add(inbox, "s", intent="steer"), add(inbox, "r")
    assert valid("ReasonixInboxDeleteResponse", inbox.delete(queued)) == {"ok": True}
    assert inbox.delete("never-existed") == {"ok": True}
    inbox.accept_steer(steer)
    inbox.delete(steer)  # accepted, not consumed yet
    inbox.claim(running)
    with pytest.raises(InboxInvalidState):
        inbox.delete(running)
    consumed = add(inbox, "c", intent="steer")
    inbox.accept_steer(consumed)
    inbox.consume_steer(consumed)
    with pytest.raises(InboxInvalidState):
        inbox.delete(consumed)
    assert [m["id"] for m in snapshot(inbox)["items"]] == [running, consumed]


def test_move_is_clamped_and_pending_only(inbox: SessionInbox) -> None:
    a, b, c = add(inbox, "a"), add(inbox, "b"), add(inbox, "c")

    def order() -> list[str]:
        return [m["preview"] for m in snapshot(inbox)["items"]]

    assert valid("ReasonixInboxMoveResponse", inbox.move(c, 0)) == {"ok": True}
    assert order() == ["c", "a", "b"]
    inbox.move(c, 99)
    assert order() == ["a", "b", "c"]
    inbox.move(b, -5)
    assert order() == ["b", "a", "c"]
    inbox.claim(a)
    with pytest.raises(InboxInvalidState):
        inbox.move(a, 2)
    with pytest.raises(InboxNotFound):
        inbox.move("missing", 0)
    assert inbox.enqueue("d")["position"] == 4


def test_set_paused(inbox: SessionInbox) -> None:
    add(inbox)
    assert inbox.set_paused(True) is True
    revision = snapshot(inbox)["revision"]
    assert inbox.set_paused(True) is True  # a no-op writes nothing
    assert snapshot(inbox)["revision"] == revision
    assert inbox.first_queued() is None
    assert inbox.enqueue("while paused")["paused"] is True
    assert inbox.set_paused(False) is False and snapshot(inbox)["revision"] == revision + 2
    assert inbox.first_queued() is not None


def test_retry_and_refresh(inbox: SessionInbox) -> None:
    item_id = add(inbox)
    with pytest.raises(InboxInvalidState):
        inbox.retry(item_id)
    inbox.block(item_id, "reference changed")
    assert snapshot(inbox)["paused"] is True
    assert valid("ReasonixInboxRetryResponse", inbox.retry(item_id)) == {"ok": True}
    meta = inbox.get(item_id)["meta"]
    assert meta["state"] == "queued" and "blockReason" not in meta
    revision = meta["revision"]
    assert valid("ReasonixInboxRefreshResponse", inbox.refresh(item_id)) == {"ok": True}
    assert inbox.get(item_id)["meta"]["revision"] == revision + 1
    inbox.block(item_id, "again")
    inbox.refresh(item_id)
    assert state(inbox, item_id) == "queued"
    with pytest.raises(InboxNotFound):
        inbox.refresh("missing")
    inbox.set_paused(False)
    inbox.claim(item_id)
    with pytest.raises(InboxInvalidState):
        inbox.refresh(item_id)


# -- the turn side ---------------------------------------------------------------------------


def test_followup_lifecycle(inbox: SessionInbox) -> None:
    first, second = add(inbox, "first"), add(inbox, "second")
    meta = inbox.first_queued()
    assert meta is not None and meta["id"] == first
    assert inbox.claim(first)["submitText"] == "first"
    assert state(inbox, first) == "running"
    with pytest.raises(InboxInvalidState):
        inbox.claim(first)
    queued = inbox.first_queued()
    assert queued is not None and queued["id"] == second
    inbox.ack(first)
    inbox.claim(second)
    inbox.unclaim(second)  # the submission failed before anything ran
    assert state(inbox, second) == "queued"
    inbox.set_paused(True)
    with pytest.raises(InboxPaused, match=r"^inbox is paused$"):
        inbox.claim(second)
    with pytest.raises(InboxPaused):
        inbox.accept_steer(second)


def test_steer_lifecycle(inbox: SessionInbox, clock: Clock) -> None:
    a = add(inbox, "a", intent="steer")
    clock.now += timedelta(seconds=1)
    b = add(inbox, "b", intent="steer")
    inbox.move(b, 0)
    assert inbox.accept_steer(b)["state"] == "steer_accepted"
    inbox.accept_steer(a)
    assert [m["id"] for m in inbox.accepted_steers()] == [a, b]  # oldest first
    assert inbox.consume_steer(a)["submitText"] == "a"
    with pytest.raises(InboxInvalidState):
        inbox.consume_steer(a)
    inbox.ack(a)
    inbox.mark_uncertain(b, "steer accepted but unapplied before turn exit")
    snap = snapshot(inbox)
    assert snap["paused"] is True and snap["items"][0]["state"] == "uncertain"
    inbox.set_paused(False)
    inbox.accept_steer(b)  # a repeated steer may admit an uncertain one


def test_refused_steer_becomes_a_followup(inbox: SessionInbox) -> None:
    item_id = add(inbox, "s", intent="steer")
    meta = inbox.refuse_steer(item_id)
    assert meta["intent"] == "followup" and meta["state"] == "queued"
    inbox.claim(item_id)
    with pytest.raises(InboxInvalidState):
        inbox.refuse_steer(item_id)
    with pytest.raises(InboxInvalidState):
        inbox.mark_uncertain(add(inbox), "not in flight")


def test_an_emptied_inbox_clears_its_flags(inbox: SessionInbox) -> None:
    a = add(inbox)
    inbox.set_paused(True)
    inbox.delete(a)
    assert snapshot(inbox)["paused"] is False
    b = add(inbox)
    inbox.claim(b)
    inbox.mark_uncertain(b, "x")
    inbox.retry(b)
    inbox.set_paused(False)
    inbox.claim(b)
    inbox.set_paused(True)
    inbox.ack(b)
    assert snapshot(inbox)["paused"] is False


# -- idempotency and receipts ----------------------------------------------------------------


def test_idempotent_hit_and_conflict(inbox: SessionInbox) -> None:
    add(inbox, "ahead")
    first = inbox.enqueue("same", idempotency_key="key-1")
    revision = snapshot(inbox)["revision"]
    hit = valid("ReasonixInboxEnqueueResponse", inbox.enqueue("  same ", idempotency_key="key-1"))
    assert hit == {
        "disposition": "idempotent_hit",
        "idempotent": True,
        "itemId": first["itemId"],
        "paused": False,
        "position": 2,
    }
    assert snapshot(inbox)["revision"] == revision  # a hit commits nothing
    inbox.move(first["itemId"], 0)
    assert inbox.enqueue("same", idempotency_key="key-1")["position"] == 1
    with pytest.raises(
        InboxIdempotencyConflict, match=r"^idempotency key was already used for different input$"
    ):
        inbox.enqueue("other", idempotency_key="key-1")
    assert inbox.enqueue("same", idempotency_key="key-2")["itemId"] != first["itemId"]


def test_receipt_after_ack_then_expiry(inbox: SessionInbox, clock: Clock) -> None:
    item_id = add(inbox, "run me", idempotency_key="r")
    inbox.claim(item_id)
    inbox.ack(item_id)
    hit = inbox.enqueue("run me", idempotency_key="r")
    assert (hit["disposition"], hit["itemId"], hit["position"]) == ("idempotent_hit", item_id, 0)
    with pytest.raises(InboxIdempotencyConflict):
        inbox.enqueue("changed", idempotency_key="r")
    clock.now += timedelta(days=7, seconds=1)
    fresh = inbox.enqueue("changed", idempotency_key="r")
    assert fresh["disposition"] == "queued_followup" and fresh["itemId"] != item_id


def test_receipt_after_delete(inbox: SessionInbox, store: InboxStore) -> None:
    item_id = add(inbox, "gone", idempotency_key="d")
    inbox.delete(item_id)
    assert inbox.enqueue("gone", idempotency_key="d")["position"] == 0
    with sqlite3.connect(store.path) as db:
        assert db.execute("SELECT disposition FROM receipts").fetchall() == [("deleted",)]


def test_receipts_are_capped(
    inbox: SessionInbox, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inbox_store, "MAX_RECEIPTS", 3)
    for n in range(5):
        clock.now += timedelta(seconds=1)
        inbox.delete(add(inbox, f"t{n}", idempotency_key=f"k{n}"))
    assert inbox.enqueue("t4", idempotency_key="k4")["position"] == 0
    assert inbox.enqueue("other", idempotency_key="k0")["disposition"] == "queued_followup"


@pytest.mark.parametrize("key", [" k", "k ", "a\x00b", "é" * 513])
def test_invalid_keys(inbox: SessionInbox, key: str) -> None:
    with pytest.raises(InboxInvalidKey, match=r"^sessioninbox: invalid idempotency key$"):
        inbox.enqueue("x", idempotency_key=key)


def test_key_limits(inbox: SessionInbox) -> None:
    assert "idempotencyKey" in inbox.get(add(inbox, idempotency_key="k" * 1024))["meta"]
    assert "idempotencyKey" not in inbox.get(add(inbox, idempotency_key=""))["meta"]


# -- capacity --------------------------------------------------------------------------------


def test_item_limit_and_check_order(inbox: SessionInbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inbox_mod, "MAX_ITEMS", 3)
    add(inbox, "a", idempotency_key="a")
    add(inbox, "b")
    add(inbox, "c")
    with pytest.raises(InboxItemLimit, match=r"^session inbox item limit reached$"):
        inbox.enqueue("d")
    assert inbox.enqueue("a", idempotency_key="a")["idempotent"] is True  # hit before count
    monkeypatch.setattr(inbox_mod, "MAX_ITEM_BYTES", 50)
    with pytest.raises(InboxItemTooLarge):  # size before count
        inbox.enqueue("x" * 100)


def test_byte_limit(inbox: SessionInbox, monkeypatch: pytest.MonkeyPatch) -> None:
    size = inbox.get(add(inbox, "x" * 100))["meta"]["byteSize"]
    monkeypatch.setattr(inbox_mod, "MAX_BYTES", size * 2)
    second = add(inbox, "y" * 100)
    with pytest.raises(InboxByteLimit, match=r"^session inbox byte limit reached$"):
        inbox.enqueue("z")
    with pytest.raises(InboxByteLimit):
        inbox.update(second, "y" * 101)
    inbox.update(second, "y" * 99)


def test_real_single_item_limit(inbox: SessionInbox) -> None:
    # The text appears three times in the envelope (display, raw and submit text).
    limit = 4 * 1024 * 1024
    longest = (limit - len(inbox_rows.compact(inbox_rows.envelope("", None, "acp")))) // 3
    meta = inbox.get(add(inbox, "x" * longest))["meta"]
    assert limit - 3 < meta["byteSize"] <= limit
    with pytest.raises(InboxItemTooLarge, match=r"^inbox item exceeds single-item size limit$"):
        inbox.enqueue("x" * (longest + 1))
    with pytest.raises(InboxItemTooLarge):
        inbox.update(meta["id"], "x" * (longest + 1))
    assert snapshot(inbox)["capacity"]["items"] == 1
