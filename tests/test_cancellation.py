"""Cancel a scripted turn at every point where it waits; each prompt ends with exactly one
`cancelled`, nothing of the turn arrives after it, and the session takes the next prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.client import Client

# One model call with an await between every step: thought, text, a tool call (its run), text.
STEPS = [
    {"thought": "think"},
    {"delay_ms": 300},
    {"text": "one "},
    {"delay_ms": 300},
    {
        "tool_call": {
            "name": "todo_write",
            "arguments": {"todos": [{"content": "x", "status": "pending"}]},
        }
    },
]
SECOND = [{"text": "after the tool"}, {"delay_ms": 300}, {"text": " and more"}, {"delay_ms": 300}]
POINTS = 6  # updates of a full turn before its answer: user, thought, text, tool_call, plan, update


@pytest.mark.parametrize("after", range(POINTS + 1))
def test_cancel_after_n_updates(tmp_path: Path, after: int) -> None:
    script = tmp_path / "script.jsonl"
    script.write_text(
        json.dumps({"steps": STEPS}) + "\n" + json.dumps({"steps": SECOND}) + "\n", encoding="utf-8"
    )
    client = Client(tmp_path, "--model", "offline", "--script", str(script))
    sid = client.start()
    client.take_notes()
    client.send(
        {
            "jsonrpc": "2.0",
            "id": 50,
            "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]},
        }
    )
    seen = [client.agent.receive() for _ in range(after)]
    assert all("method" in f for f in seen), seen
    client.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
    frames = []
    while True:
        frame = client.agent.receive()
        frames.append(frame)
        if frame.get("id") == 50:
            break
    answers = [f for f in frames if f.get("id") == 50]
    assert answers == [{"jsonrpc": "2.0", "id": 50, "result": {"stopReason": "cancelled"}}]
    started = {
        f["params"]["update"]["toolCallId"]
        for f in seen + frames
        if f.get("params", {}).get("update", {}).get("sessionUpdate") == "tool_call"
    }
    finished = {
        f["params"]["update"]["toolCallId"]
        for f in seen + frames
        if f.get("params", {}).get("update", {}).get("sessionUpdate") == "tool_call_update"
        and f["params"]["update"]["status"] in ("completed", "failed")
    }
    assert started <= finished  # no tool call is left pending
    # the session is usable, and nothing of the cancelled turn shows up later
    reply = client.call(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hello again"}]}
    )
    assert reply["result"] == {"stopReason": "end_turn"}
    late = [n for n in client.take_notes() if "tool" in json.dumps(n) and "tc-1-" in json.dumps(n)]
    assert late == []
    assert client.close() == 0
