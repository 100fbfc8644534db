"""The inbox across processes: recovery after a crash, a newer schema, closing and dropping,
durability settings, and two processes writing one file."""

from __future__ import annotations

import multiprocessing
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from reasonix_acp.reasonix_io import inbox_store
from reasonix_acp.reasonix_io.inbox import InboxStore, SessionInbox
from reasonix_acp.reasonix_io.inbox_errors import InboxClosed, InboxReadOnly
from tests.inbox import Clock, add, snapshot

# -- recovery, read-only, closing, dropping ----------------------------------------------------


def test_recovery_after_a_crash(tmp_path: Path, clock: Clock) -> None:
    crashed = InboxStore(tmp_path, run_id="run-a", clock=clock)
    old = crashed.open("s1")
    running, accepted, consumed, queued = (add(old, t) for t in ("r", "a", "c", "q"))
    old.claim(running)
    old.accept_steer(accepted)
    old.accept_steer(consumed)
    old.consume_steer(consumed)
    crashed.close()  # the process dies; nothing else is written

    again = InboxStore(tmp_path, run_id="run-a", clock=clock).open("s1")
    assert snapshot(again)["paused"] is False  # the same run: nothing to recover

    store = InboxStore(tmp_path, run_id="run-b", clock=clock)
    inbox = store.open("s1")
    snap = snapshot(inbox)
    assert (snap["paused"], snap["recovered"], snap["recoveredCount"]) == (True, True, 4)
    assert snap["runId"] == "run-b"
    states = {m["id"]: (m["state"], m.get("blockReason")) for m in snap["items"]}
    lost = ("uncertain", "in-flight owner is no longer active")
    assert states == {running: lost, accepted: lost, consumed: lost, queued: ("queued", None)}
    revision = snap["revision"]
    assert snapshot(store.open("s1"))["revision"] == revision  # recovered once
    assert inbox.first_queued() is None
    inbox.set_paused(True)
    assert snapshot(inbox)["recovered"] is True  # pausing keeps the recovered flag
    inbox.set_paused(False)
    snap = snapshot(inbox)
    assert (snap["paused"], snap["recovered"], "recoveredCount" in snap) == (False, False, False)
    store.close()


def test_no_recovery_for_an_empty_inbox(tmp_path: Path) -> None:
    first = InboxStore(tmp_path, run_id="one")
    inbox = first.open("s")
    inbox.delete(add(inbox))
    first.close()
    assert snapshot(InboxStore(tmp_path, run_id="two").open("s"))["paused"] is False


def test_newer_schema_is_read_only(tmp_path: Path) -> None:
    writer = InboxStore(tmp_path)
    item_id = add(writer.open("s1"), "kept")
    writer.close()
    with sqlite3.connect(tmp_path / "inbox.sqlite3") as db:
        db.execute("PRAGMA user_version = 99")
    store = InboxStore(tmp_path)
    assert store.readonly
    inbox = store.open("s1")
    snap = snapshot(inbox)
    assert snap["readonly"] is True and snap["paused"] is True and len(snap["items"]) == 1
    assert inbox.get(item_id)["envelope"]["rawText"] == "kept"
    assert inbox.first_queued() is None
    mutations: list[Callable[[], object]] = [
        lambda: inbox.enqueue("x"),
        lambda: inbox.update(item_id, "y"),
        lambda: inbox.delete(item_id),
        lambda: inbox.move(item_id, 0),
        lambda: inbox.set_paused(False),
        lambda: inbox.retry(item_id),
        lambda: inbox.refresh(item_id),
        lambda: inbox.claim(item_id),
        lambda: inbox.accept_steer(item_id),
        lambda: inbox.refuse_steer(item_id),
        lambda: inbox.consume_steer(item_id),
        lambda: inbox.ack(item_id),
        lambda: inbox.mark_uncertain(item_id, "x"),
        lambda: inbox.block(item_id, "x"),
        lambda: store.drop("s1"),
    ]
    for mutate in mutations:
        with pytest.raises(InboxReadOnly, match=r"^inbox schema is newer and is read-only$"):
            mutate()
    store.close()


def test_closed_and_dropped(tmp_path: Path) -> None:
    store = InboxStore(tmp_path)
    inbox = store.open("s1")
    other = store.open("s2")
    add(inbox, "a", idempotency_key="k")
    inbox.delete(add(inbox, "b", idempotency_key="j"))
    add(other, "kept")
    store.drop("s1")
    assert snapshot(inbox)["revision"] == 0 and snapshot(inbox)["items"] == []
    assert inbox.enqueue("new", idempotency_key="j")["disposition"] == "queued_followup"
    assert len(snapshot(other)["items"]) == 1
    store.close()
    with pytest.raises(InboxClosed, match=r"^inbox is closed$"):
        inbox.list()
    with pytest.raises(InboxClosed):
        inbox.enqueue("late")


def test_durability_settings(store: InboxStore, inbox: SessionInbox) -> None:
    add(inbox)
    with sqlite3.connect(store.path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA user_version").fetchone()[0] == inbox_store.SCHEMA_VERSION
    with store.file.read() as db:
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


# -- two processes, one file ---------------------------------------------------------------


def _writer(data_dir: str, name: str, count: int) -> None:
    store = InboxStore(Path(data_dir), run_id=name)
    for n in range(count):
        store.open(f"own-{name}").enqueue(f"{name} {n}", idempotency_key=f"{name}-{n}")
        store.open("shared").enqueue(f"{name} {n}")
    store.close()


def test_two_processes_share_the_file(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_writer, args=(str(tmp_path), n, 30)) for n in ("p", "q")]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
        assert w.exitcode == 0
    store = InboxStore(tmp_path)
    shared = snapshot(store.open("shared"))
    assert shared["capacity"]["items"] == 60
    assert sorted(m["preview"] for m in shared["items"]) == sorted(
        f"{name} {n}" for name in "pq" for n in range(30)
    )
    assert shared["revision"] >= 60
    for name in "pq":
        own = snapshot(store.open(f"own-{name}"))
        assert [m["preview"] for m in own["items"]] == [f"{name} {n}" for n in range(30)]
    store.close()
