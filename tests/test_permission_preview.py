"""A permission request for a write or an edit shows the change it would make (`diff` content
and `locations` in its tool call), so the editor can preview it before the user decides; a
change that cannot be made is refused before anyone is asked; the old text of a file outside
the workspace is shown to the user in the question, and to no one else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reasonix_acp.session.store import Store
from tests.client import Client


def run(
    tmp_path: Path,
    calls: list[dict[str, Any]],
    answer: str = "allow_once",
    preset: str = "read-only",
) -> list[Any]:
    script = tmp_path / "script.jsonl"
    steps = [{"steps": [{"tool_call": call}]} for call in calls] + [{"steps": [{"text": "ok"}]}]
    script.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    c = Client(tmp_path, "--model", "offline", "--script", str(script))
    sid = c.start()
    c.result(
        "session/set_config_option",
        {"sessionId": sid, "configId": "tool_approval", "value": preset},
    )
    c._id += 1
    prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]}
    c.send({"jsonrpc": "2.0", "id": c._id, "method": "session/prompt", "params": prompt})
    frames = []
    while True:
        frame = c.agent.receive()
        frames.append(frame)
        if frame.get("method") == "session/request_permission":
            outcome = {"outcome": "selected", "optionId": answer}
            c.send({"jsonrpc": "2.0", "id": frame["id"], "result": {"outcome": outcome}})
        if frame.get("id") == c._id and "method" not in frame:
            break
    assert c.close() == 0
    return frames


def first_update(frames: list[Any]) -> dict[str, Any]:
    return next(f for f in frames if f.get("method") == "session/update")


def asked(frames: list[Any]) -> list[dict[str, Any]]:
    return [
        f["params"]["toolCall"] for f in frames if f.get("method") == "session/request_permission"
    ]


def test_a_write_and_an_edit_show_their_diff_before_the_user_decides(tmp_path: Path) -> None:
    calls = [
        {"name": "write", "arguments": {"path": "notes.txt", "content": "all new\n"}},
        {"name": "write", "arguments": {"path": "fresh.txt", "content": "first\n"}},
        {
            "name": "edit",
            "arguments": {
                "path": "notes.txt",
                "edits": [{"old_text": "all new", "new_text": "edited"}],
            },
        },
    ]
    frames = run(tmp_path, calls)
    ws = tmp_path / "ws"
    notes, fresh = str(ws / "notes.txt"), str(ws / "fresh.txt")
    questions = asked(frames)
    assert [q["content"] for q in questions] == [
        [
            {
                "type": "diff",
                "path": notes,
                "oldText": "line one\nline two\n",
                "newText": "all new\n",
            }
        ],
        [{"type": "diff", "path": fresh, "oldText": None, "newText": "first\n"}],
        [{"type": "diff", "path": notes, "oldText": "all new\n", "newText": "edited\n"}],
    ]
    where = [[{"path": notes}], [{"path": fresh}], [{"path": notes}]]
    assert [q["locations"] for q in questions] == where
    assert (ws / "notes.txt").read_text() == "edited\n"


def test_a_rejected_write_leaves_the_file_as_the_preview_showed_it(tmp_path: Path) -> None:
    calls = [{"name": "write", "arguments": {"path": "notes.txt", "content": "gone\n"}}]
    frames = run(tmp_path, calls, answer="reject_once")
    (question,) = asked(frames)
    assert question["content"][0]["newText"] == "gone\n"
    assert (tmp_path / "ws" / "notes.txt").read_text() == "line one\nline two\n"


def test_an_edit_that_cannot_apply_fails_without_asking(tmp_path: Path) -> None:
    calls = [
        {
            "name": "edit",
            "arguments": {"path": "notes.txt", "edits": [{"old_text": "absent", "new_text": "x"}]},
        }
    ]
    frames = run(tmp_path, calls)
    assert asked(frames) == []
    failed = [
        f["params"]["update"]
        for f in frames
        if f.get("method") == "session/update" and f["params"]["update"].get("status") == "failed"
    ]
    assert "occurs 0 times" in failed[0]["content"][0]["content"]["text"]


def test_a_write_outside_the_workspace_shows_its_diff_to_the_user_alone(tmp_path: Path) -> None:
    """Under the default preset a write inside the workspace runs unasked; outside it asks, and
    the question shows the change: the old text to the user (they are asked to overwrite it),
    never to the model nor into the stored session."""
    outside, fresh = tmp_path / "outside.txt", tmp_path / "fresh.txt"
    outside.write_text("private\n", encoding="utf-8")
    calls = [
        {"name": "write", "arguments": {"path": str(outside), "content": "x"}},
        {"name": "write", "arguments": {"path": str(fresh), "content": "new\n"}},
    ]
    frames = run(tmp_path, calls, answer="reject_once", preset="workspace-write")
    first, second = asked(frames)
    assert first["content"] == [
        {"type": "diff", "path": str(outside), "oldText": "private\n", "newText": "x"}
    ]
    assert second["content"] == [
        {"type": "diff", "path": str(fresh), "oldText": None, "newText": "new\n"}
    ]
    assert first["locations"] == [{"path": str(outside)}]
    others = [f for f in frames if f.get("method") != "session/request_permission"]
    assert "private" not in json.dumps(others)
    sid = first_update(frames)["params"]["sessionId"]
    stored = [(e.kind, e.body) for e in Store(tmp_path / "data").events(sid)]
    assert "history" in dict(stored) and "private" not in json.dumps(stored)
    assert outside.read_text() == "private\n" and not fresh.exists()
