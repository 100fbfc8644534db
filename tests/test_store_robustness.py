"""The session store under pressure: another process holding its write lock, listings where
never-prompted sessions outnumber a page, and deletes of sessions another process holds."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.session import store_rows
from reasonix_acp.session.store import LeaseHeld, Store
from reasonix_acp.session.store_rows import DB_NAME, SessionRecord
from tests.client import Client
from tests.transcript import Scenario

# Holds the write lock of the SQLite file in argv[1] until a line arrives on stdin.
HOLDER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
db.execute("BEGIN IMMEDIATE")
print("held", flush=True)
sys.stdin.readline()
db.execute("ROLLBACK")
print("released", flush=True)
"""


@contextmanager
def agent(client: Client) -> Iterator[Client]:
    """The client; its agent is killed if the test fails before closing it."""
    try:
        yield client
    finally:
        if client.agent.proc.poll() is None:
            client.kill()


@contextmanager
def write_lock_held(db: Path) -> Iterator[subprocess.Popen[str]]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdin is not None and holder.stdout is not None
    try:
        assert holder.stdout.readline() == "held\n"
        yield holder
    finally:
        if holder.poll() is None:
            holder.stdin.write("\n")
            holder.stdin.flush()
            holder.wait(10)


def prompt(client: Client, sid: str, text: str = "hello") -> None:
    assert client.result(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
    ) == {"stopReason": "end_turn"}


def new_session(client: Client) -> str:
    cwd = client.scenario.vars["CWD"]
    sid: str = client.result("session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]
    return sid


def list_all(client: Client, params: dict[str, Any] | None = None) -> list[list[str]]:
    """Every page of session/list, following nextCursor; the ids of each page."""
    pages: list[list[str]] = []
    cursor = None
    while True:
        result = client.result(
            "session/list", {**(params or {}), **({"cursor": cursor} if cursor else {})}
        )
        pages.append([s["sessionId"] for s in result["sessions"]])
        cursor = result.get("nextCursor")
        if cursor is None:
            return pages
        assert len(pages) < 10, "the cursors do not advance"


# -- 1: SQLITE_BUSY past the busy timeout --------------------------------------------------------


def test_a_busy_store_fails_one_request_and_service_resumes(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    scenario.env["REASONIX_ACP_SQLITE_BUSY_MS"] = "200"
    with agent(Client(tmp_path, "--model", "offline", scenario=scenario)) as client:
        first = client.start()
        db = Path(scenario.vars["DATA"]) / DB_NAME
        with write_lock_held(db) as holder:
            refused = client.call("session/new", {"cwd": scenario.vars["CWD"], "mcpServers": []})
            assert refused["error"]["code"] == -32603, refused
            assert "locked by another process" in refused["error"]["message"], refused
            assert holder.poll() is None  # still holding: the error came from the busy timeout
        # The other process let go: the store serves again, writes included.
        second = new_session(client)
        prompt(client, second)
        prompt(client, first)
        listed = client.result("session/list", {})["sessions"]
        assert {first, second} <= {s["sessionId"] for s in listed}
        assert client.close() == 0  # end of input is answered too


def test_a_busy_store_at_end_of_input_still_exits(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    scenario.env["REASONIX_ACP_SQLITE_BUSY_MS"] = "200"
    with agent(Client(tmp_path, "--model", "offline", scenario=scenario)) as client:
        sid = client.start()
        db = Path(scenario.vars["DATA"]) / DB_NAME
        with write_lock_held(db):
            assert (
                client.call("session/new", {"cwd": scenario.vars["CWD"], "mcpServers": []})[
                    "error"
                ]["code"]
                == -32603
            )
            # Closing at end of input cannot release the lease while the lock is held; it
            # logs that and exits rather than waiting on a lock nobody will release.
            assert client.close() == 0
    again = Client(tmp_path, "--model", "offline", scenario=scenario)
    with agent(again):
        again.result("initialize", {"protocolVersion": 1})
        # The lease left behind names a process that is gone: it is taken over.
        assert "result" in again.call(
            "session/resume", {"sessionId": sid, "cwd": scenario.vars["CWD"]}
        )
        assert again.close() == 0


def test_busy_timeout_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from reasonix_acp import sqlite

    monkeypatch.setenv("REASONIX_ACP_SQLITE_BUSY_MS", "250")
    assert sqlite.busy_timeout_ms() == 250
    for bad in ("", "soon", "-1"):
        monkeypatch.setenv("REASONIX_ACP_SQLITE_BUSY_MS", bad)
        assert sqlite.busy_timeout_ms() == sqlite.BUSY_TIMEOUT_MS
    monkeypatch.delenv("REASONIX_ACP_SQLITE_BUSY_MS")
    assert sqlite.busy_timeout_ms() == sqlite.BUSY_TIMEOUT_MS


# -- 12: session/list filters in SQL ----------------------------------------------------------------


def test_never_prompted_sessions_do_not_hide_a_prompted_one(tmp_path: Path) -> None:
    with agent(Client(tmp_path, "--model", "offline")) as first:
        prompted = first.start()
        prompt(first, prompted)
        for _ in range(55):  # newer than the prompted one, so they come first by updated_at
            new_session(first)
        assert first.close() == 0
    with agent(Client(tmp_path, "--model", "offline", scenario=first.scenario)) as second:
        second.result("initialize", {"protocolVersion": 1})
        listed = second.result("session/list", {})
        assert [s["sessionId"] for s in listed["sessions"]] == [prompted]
        assert "nextCursor" not in listed
        assert second.close() == 0


def test_paging_returns_every_listed_session_once(tmp_path: Path) -> None:
    with agent(Client(tmp_path, "--model", "offline")) as first:
        first.result("initialize", {"protocolVersion": 1})
        prompted = []
        for _ in range(56):  # prompted and never-prompted interleaved by updated_at
            sid = new_session(first)
            prompt(first, sid)
            prompted.append(sid)
            new_session(first)
        assert first.close() == 0
    with agent(Client(tmp_path, "--model", "offline", scenario=first.scenario)) as second:
        second.result("initialize", {"protocolVersion": 1})
        live = new_session(second)  # never prompted, but live in this process: listed
        pages = list_all(second)
        assert [len(p) for p in pages] == [50, 7]
        ids = [i for page in pages for i in page]
        assert len(ids) == len(set(ids)) and set(ids) == {*prompted, live}
        cwd = first.scenario.vars["CWD"]
        assert [i for page in list_all(second, {"cwd": cwd}) for i in page] == ids
        assert list_all(second, {"cwd": first.scenario.vars["CWD2"]}) == [[]]
        assert second.close() == 0


def test_store_list_sessions_filters_before_the_limit(tmp_path: Path) -> None:
    store = Store(tmp_path)
    for n in range(6):
        store.create_session(SessionRecord(id=f"s{n}", cwd="/w", model="m"))
    store.append_events("s0", 1, [("user", {"text": "hi"})])
    assert [r.id for r in store.list_sessions(None, None, 2)] == ["s0"]
    live = {"s3", "s5"}
    assert sorted(r.id for r in store.list_sessions(None, None, 10, live=live)) == [
        "s0",
        "s3",
        "s5",
    ]
    everything = store.list_sessions(None, None, 10, prompted_only=False)
    assert len(everything) == 6
    store.close()


# -- 3: delete refuses a session another live process holds ------------------------------------


def test_delete_refuses_a_session_another_live_process_holds(tmp_path: Path) -> None:
    with agent(Client(tmp_path, "--model", "offline")) as holder:
        sid = holder.start()  # the agent process holds the lease
        store = Store(Path(holder.scenario.vars["DATA"]))
        with pytest.raises(LeaseHeld) as refused:
            store.delete_session(sid)
        assert refused.value.holder.startswith(f"process {holder.agent.proc.pid} on ")
        assert store.get_session(sid) is not None  # nothing was deleted
        holder.kill()
        # A holder whose pid is gone does not block.
        assert store.delete_session(sid) is True
        assert store.get_session(sid) is None
        store.close()


def test_delete_of_a_session_this_process_holds_or_nobody_holds(tmp_path: Path) -> None:
    store = Store(tmp_path)
    for sid in ("mine", "free"):
        store.create_session(SessionRecord(id=sid, cwd="/w", model="m"))
    store.acquire_lease("mine")
    assert store.delete_session("mine") is True
    assert store.delete_session("free") is True
    assert store.delete_session("gone") is False
    store.close()


@pytest.mark.parametrize(
    "text",
    [
        '{"text":"é \\u00e9 \\ud800","n":[1,2.5,null,true]}',
        ' {"a":1}',  # leading space: json.loads reads it, the scanner alone does not
        '{"a":1} ',
        '{"a":1}{"b":2}',
        '{"a":NaN}',
        "[1]",
        '"s"',
        "",
        "{",
        '{"a":1',
    ],
)
def test_a_stored_body_reads_as_json_loads_reads_it(text: str) -> None:
    try:
        expected = json.loads(text)
        ok = isinstance(expected, dict)
    except ValueError:
        ok = False
    if ok and text == '{"a":NaN}':
        assert math.isnan(store_rows.object_body(text)["a"])
    elif ok:
        assert store_rows.object_body(text) == expected
    else:
        with pytest.raises(ValueError):
            store_rows.object_body(text)


def test_a_blob_row_reads_as_json_loads_reads_it() -> None:
    assert store_rows.object_body(b'{"a": 1}') == {"a": 1}  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        store_rows.object_body(b"[1]")  # type: ignore[arg-type]
