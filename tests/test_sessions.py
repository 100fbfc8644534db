"""Session behaviour across processes: replay = live, leases, crash durability, isolation,
a store from a newer version, corrupt rows."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.session.store_rows import DB_NAME
from tests.client import Client

GOLDEN = Path(__file__).parent / "golden"


def updates_of(notes: list[dict[str, Any]], session_id: str) -> list[dict[str, Any]]:
    return [
        n["params"]["update"]
        for n in notes
        if n.get("method") == "session/update" and n["params"]["sessionId"] == session_id
    ]


def merged(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive text chunks of one kind joined: deltas are a transport detail."""
    out: list[dict[str, Any]] = []
    for u in stream:
        kind = u["sessionUpdate"]
        if (
            kind in ("agent_message_chunk", "agent_thought_chunk")
            and out
            and out[-1]["sessionUpdate"] == kind
        ):
            out[-1] = {
                **out[-1],
                "content": {
                    "type": "text",
                    "text": out[-1]["content"]["text"] + u["content"]["text"],
                },
            }
        else:
            out.append(u)
    return out


REPLAYED = {
    "user_message_chunk",
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
}


def test_replay_equals_the_live_turn(tmp_path: Path) -> None:
    script = str(GOLDEN / "scripts" / "tool_round.jsonl")
    live = Client(tmp_path, "--model", "offline", "--script", script)
    sid = live.start()
    live.take_notes()
    for text in ("Plan the work", "Use a tool that is not there"):
        assert live.result(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
        ) == {"stopReason": "end_turn"}
    live_stream = [u for u in updates_of(live.take_notes(), sid) if u["sessionUpdate"] in REPLAYED]
    assert live.close() == 0
    # The user's own words are never echoed live; a replay shows them where they were typed.
    assert {u["sessionUpdate"] for u in live_stream} == REPLAYED - {"user_message_chunk"}
    assert sum(u["sessionUpdate"] == "agent_message_chunk" for u in live_stream) > 1  # deltas, live

    again = Client(tmp_path, "--model", "offline", scenario=live.scenario)
    again.result("initialize", {"protocolVersion": 1})
    again.result(
        "session/load", {"sessionId": sid, "cwd": live.scenario.vars["CWD"], "mcpServers": []}
    )
    replay = updates_of(again.take_notes(), sid)
    assert again.close() == 0
    assert [u for u in merged(replay) if u["sessionUpdate"] != "user_message_chunk"] == merged(
        live_stream
    )
    users = [u["content"]["text"] for u in replay if u["sessionUpdate"] == "user_message_chunk"]
    assert users == ["Plan the work", "Use a tool that is not there"]


def test_a_second_process_gets_the_holder_and_a_dead_holder_is_taken_over(tmp_path: Path) -> None:
    first = Client(tmp_path, "--model", "offline")
    sid = first.start()
    first.result(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hello"}]}
    )
    second = Client(tmp_path, "--model", "offline", scenario=first.scenario)
    second.result("initialize", {"protocolVersion": 1})
    refused = second.call("session/resume", {"sessionId": sid, "cwd": first.scenario.vars["CWD"]})
    assert refused["error"]["code"] == -32600
    pid = first.agent.proc.pid
    assert f"this session is in use by process {pid} on " in refused["error"]["message"]
    assert "close the other window or process first" in refused["error"]["message"]
    first.kill()
    assert second.call("session/resume", {"sessionId": sid, "cwd": first.scenario.vars["CWD"]}).get(
        "result"
    )
    assert second.close() == 0


def test_a_clean_exit_releases_the_lease(tmp_path: Path) -> None:
    first = Client(tmp_path, "--model", "offline")
    sid = first.start()
    assert first.close() == 0
    second = Client(tmp_path, "--model", "offline", scenario=first.scenario)
    second.result("initialize", {"protocolVersion": 1})
    assert "result" in second.call(
        "session/resume", {"sessionId": sid, "cwd": first.scenario.vars["CWD"]}
    )
    assert second.close() == 0


def test_a_crash_mid_turn_keeps_what_was_committed(tmp_path: Path) -> None:
    script = tmp_path / "crash.jsonl"
    script.write_text(
        '{"steps": [{"tool_call": {"name": "todo_write", "arguments": {"todos": [{"content": "a", "status": "pending"}]}}}]}\n'
        '{"steps": [{"text": "about to stall"}, {"delay_ms": 60000}]}\n',
        encoding="utf-8",
    )
    first = Client(tmp_path, "--model", "offline", "--script", str(script))
    sid = first.start()
    first.take_notes()
    first.send(
        {
            "jsonrpc": "2.0",
            "id": 99,
            "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]},
        }
    )
    while not any(
        f.get("params", {}).get("update", {}).get("content", {})
        == {"type": "text", "text": "about to stall"}
        for f in first.drain(1)
    ):
        pass
    first.kill()
    again = Client(tmp_path, "--model", "offline", scenario=first.scenario)
    again.result("initialize", {"protocolVersion": 1})
    again.result(
        "session/load", {"sessionId": sid, "cwd": first.scenario.vars["CWD"], "mcpServers": []}
    )
    kinds = [u["sessionUpdate"] for u in updates_of(again.take_notes(), sid)]
    assert kinds[:4] == ["user_message_chunk", "tool_call", "plan", "tool_call_update"]
    assert again.close() == 0


def test_two_sessions_prompting_at_once_stay_apart(tmp_path: Path) -> None:
    client = Client(tmp_path, "--model", "offline")
    one = client.start()
    two = client.result("session/new", {"cwd": client.scenario.vars["CWD2"], "mcpServers": []})[
        "sessionId"
    ]
    client.take_notes()
    for i, sid in enumerate((one, two), 100):
        words = " ".join(f"{sid[:4]}-{n}" for n in range(30))
        client.send(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "session/prompt",
                "params": {"sessionId": sid, "prompt": [{"type": "text", "text": words}]},
            }
        )
    done: set[Any] = set()
    notes = []
    while done != {100, 101}:
        frame = client.agent.receive()
        if "id" in frame and "method" not in frame:
            assert frame["result"] == {"stopReason": "end_turn"}
            done.add(frame["id"])
        else:
            notes.append(frame)
    for sid, other in ((one, two), (two, one)):
        stream = updates_of(notes, sid)
        assert stream
        text = "".join(
            u.get("content", {}).get("text", "")
            for u in stream
            if "content" in u and isinstance(u["content"], dict)
        )
        assert sid[:4] in text and other[:4] + "-" not in text
    assert client.close() == 0


def test_a_store_from_a_newer_version_is_read_only(tmp_path: Path) -> None:
    writer = Client(tmp_path, "--model", "offline")
    sid = writer.start()
    writer.result(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hello"}]}
    )
    assert writer.close() == 0
    scenario = writer.scenario
    db = sqlite3.connect(Path(scenario.vars["DATA"]) / DB_NAME)
    db.execute("PRAGMA user_version = 999")
    db.close()
    client = Client(tmp_path, "--model", "offline", scenario=scenario)
    client.result("initialize", {"protocolVersion": 1})
    refused = client.call("session/new", {"cwd": scenario.vars["CWD"], "mcpServers": []})
    assert refused["error"]["code"] == -32603
    assert "schema version 999, newer than this agent's" in refused["error"]["message"]
    assert "read-only" in refused["error"]["message"]
    assert [s["sessionId"] for s in client.result("session/list", {})["sessions"]] == [sid]
    assert client.close() == 0


def damaged_session(tmp: Path, kind: str, body: str) -> tuple[Client, str]:
    """A session prompted once ("hello"), closed, whose one stored `kind` event now has `body`
    (written behind the agent's back, as damage or a hand edit would)."""
    client = Client(tmp, "--model", "offline")
    sid = client.start()
    client.result(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hello"}]}
    )
    assert client.close() == 0
    db = sqlite3.connect(Path(client.scenario.vars["DATA"]) / DB_NAME)
    changed = db.execute(
        "UPDATE events SET body = ? WHERE session_id = ? AND kind = ?", (body, sid, kind)
    ).rowcount
    db.commit()
    db.close()
    assert changed == 1
    return client, sid


@pytest.mark.parametrize(
    "body",
    [
        "{not json",
        "[1, 2]",  # JSON, not an object
        '{"content": []}, {"content": []}',  # two objects in one row
        '{"content": [{"type": "text", "text": "cut',  # a torn write
    ],
)
def test_a_corrupt_transcript_row_is_skipped_with_a_warning(tmp_path: Path, body: str) -> None:
    client, sid = damaged_session(tmp_path, "user_message", body)
    again = Client(tmp_path, "--model", "offline", scenario=client.scenario)
    again.result("initialize", {"protocolVersion": 1})
    again.result(
        "session/load", {"sessionId": sid, "cwd": client.scenario.vars["CWD"], "mcpServers": []}
    )
    kinds = [u["sessionUpdate"] for u in updates_of(again.take_notes(), sid)]
    assert "user_message_chunk" not in kinds and "agent_message_chunk" in kinds
    assert again.close() == 0
    # row 1 is the history event the turn stored first, row 2 the user_message
    assert b"transcript row 2 is corrupt" in again.agent.stderr


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("agent_message", "{}"),  # no text
        ("agent_message", '{"text": 5}'),
        ("user_message", '{"content": "hello"}'),  # content not a list of blocks
        ("user_message", '{"content": [5]}'),
    ],
)
def test_a_transcript_row_of_the_wrong_shape_is_skipped_and_the_session_goes_on(
    tmp_path: Path, kind: str, body: str
) -> None:
    """A stored row that is a JSON object but not the event its kind says (a damaged or
    hand-edited file): the load replays the rest and the next prompt runs, with a warning."""
    client, sid = damaged_session(tmp_path, kind, body)
    again = Client(tmp_path, "--model", "offline", scenario=client.scenario)
    again.result("initialize", {"protocolVersion": 1})
    cwd = client.scenario.vars["CWD"]
    again.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
    kinds = [u["sessionUpdate"] for u in updates_of(again.take_notes(), sid)]
    other = "user_message_chunk" if kind == "agent_message" else "agent_message_chunk"
    assert other in kinds
    answer = again.result(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "again"}]}
    )
    assert answer == {"stopReason": "end_turn"}
    assert again.close() == 0
    assert b"is not a " + kind.encode() + b" event" in again.agent.stderr, again.agent.stderr


def test_a_saved_running_status_with_an_unreadable_sequence_still_opens(tmp_path: Path) -> None:
    """The last saved status says a turn was running, but its sequence is not a number (a
    damaged row): the session opens, offering the recovery as for any interrupted turn."""
    client, sid = damaged_session(tmp_path, "agent_message", '{"text": "reply"}')
    db = sqlite3.connect(Path(client.scenario.vars["DATA"]) / DB_NAME)
    db.execute(
        "UPDATE events SET body = ? WHERE session_id = ? AND seq = "
        "(SELECT MAX(seq) FROM events WHERE session_id = ? AND kind = 'status')",
        ('{"state": "running", "sequence": "x"}', sid, sid),
    )
    db.commit()
    db.close()
    again = Client(tmp_path, "--model", "offline", scenario=client.scenario)
    again.result("initialize", {"protocolVersion": 1})
    cwd = client.scenario.vars["CWD"]
    again.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
    status = again.result("_reasonix.io/session/status", {"sessionId": sid})
    assert status["protocolRecovery"]["id"]
    assert again.close() == 0


def test_concurrent_writers_share_the_store(tmp_path: Path) -> None:
    first = Client(tmp_path, "--model", "offline")
    second = Client(tmp_path, "--model", "offline", scenario=first.scenario)
    sids = [first.start(), second.start()]
    errors: list[Any] = []

    def prompt(client: Client, sid: str) -> None:
        for n in range(5):
            frame = client.call(
                "session/prompt",
                {"sessionId": sid, "prompt": [{"type": "text", "text": f"turn {n}"}]},
            )
            if "result" not in frame:
                errors.append(frame)

    threads = [
        threading.Thread(target=prompt, args=(c, s))
        for c, s in zip((first, second), sids, strict=True)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    listed = {s["sessionId"] for s in first.result("session/list", {})["sessions"]}
    assert set(sids) <= listed
    assert first.close() == 0 and second.close() == 0


def test_a_load_shows_the_plan_once(tmp_path: Path) -> None:
    """The replay already ends with the session's plan: no second copy after the response
    (Toad draws every plan update it gets). A resume, which replays nothing, gets it once."""
    first = Client(tmp_path, "--model", "offline")
    sid = first.start()
    first.result(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "- a\n- b"}]}
    )
    assert first.close() == 0
    for method in ("session/load", "session/resume"):
        again = Client(tmp_path, "--model", "offline", scenario=first.scenario)
        again.result("initialize", {"protocolVersion": 1})
        again.result(
            method, {"sessionId": sid, "cwd": first.scenario.vars["CWD"], "mcpServers": []}
        )
        again.take_notes()
        # the notifications sent after the response arrive before the next response
        again.result("session/list", {})
        after = [u for u in updates_of(again.take_notes(), sid) if u["sessionUpdate"] == "plan"]
        assert again.close() == 0
        expected = 0 if method == "session/load" else 1
        assert len(after) == expected, (method, after)
