"""`acp --model openai/NAME` against the local server: streaming, failures, prefix stability."""

from __future__ import annotations

import json
from pathlib import Path

from tests.client import Client
from tests.sse_server import Server
from tests.test_sessions import updates_of
from tests.transcript import Scenario


def client(tmp: Path, server: Server) -> Client:
    scenario = Scenario(tmp)
    scenario.env.update(
        {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-e2e-secret-key-123456"}
    )
    return Client(tmp, "--model", "openai/m1", scenario=scenario)


def prompt(c: Client, sid: str, text: str) -> dict[str, object]:
    return c.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})


def test_a_turn_through_the_http_provider(tmp_path: Path) -> None:
    with Server() as server:
        server.behaviours.extend(["tool", "ok"])
        c = client(tmp_path, server)
        sid = c.start()
        assert prompt(c, sid, "plan it")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    stream = updates_of(c.notes, sid)
    kinds = [u["sessionUpdate"] for u in stream]
    assert (
        kinds.index("tool_call")
        < kinds.index("plan")
        < kinds.index("tool_call_update")
        < kinds.index("agent_message_chunk")
    )
    assert [
        u["content"]["text"] for u in stream if u["sessionUpdate"] == "agent_thought_chunk"
    ] == ["Let me ", "think."]
    usage = next(u for u in stream if u["sessionUpdate"] == "usage_update")
    assert usage == {"sessionUpdate": "usage_update", "used": 47, "size": 65536}
    second = json.loads(server.bodies[1])
    assert second["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_a",
        "content": json.dumps(
            {"todos": [{"content": "ship it", "priority": "medium", "status": "pending"}]}
        ),
    }


def test_failures_are_redacted_internal_errors_and_the_session_goes_on(tmp_path: Path) -> None:
    with Server() as server:
        server.behaviours.extend(["401", "disconnect", "ok"])
        c = client(tmp_path, server)
        sid = c.start()
        refused = prompt(c, sid, "one")
        assert refused["error"] == {
            "code": -32603,
            "message": "session/prompt: authentication failed (HTTP 401): status 401 from the test server",
        }
        broken = prompt(c, sid, "two")
        assert broken["error"]["code"] == -32603 and "ended early" in broken["error"]["message"]
        assert prompt(c, sid, "three")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    assert b"sk-e2e-secret-key-123456" not in b"".join(json.dumps(n).encode() for n in c.notes)
    # the partial reply of the broken turn is kept in the history the model sees next
    third = json.loads(server.bodies[2])
    assert {"role": "assistant", "content": "Hello"} in third["messages"]


def test_turn_two_starts_with_the_bytes_of_turn_one(tmp_path: Path) -> None:
    with Server() as server:
        c = client(tmp_path, server)
        sid = c.start()
        for text in ("first", "second"):
            assert prompt(c, sid, text)["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    one, two = server.bodies
    stable = one[: one.rindex(b"]}")]  # everything but the closing of `messages` and the body
    assert two.startswith(stable)
    assert json.loads(one)["tools"] == json.loads(two)["tools"] and json.loads(one)["tools"]
    assert json.loads(one)["messages"][0] == json.loads(two)["messages"][0]
