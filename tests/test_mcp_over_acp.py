"""MCP over ACP through a real `acp`: a server the client provides itself (`mcpServers` entry
`{"type": "acp", "name", "serverId"}`), reached with `mcp/message` requests to the client, which
here is tests/mcp_acp.py's stand-in for the official binding (it refuses what the binding
refuses). tests/test_ts_sdk_client.py drives the same through the SDK itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.mcp_acp import SERVER, Provider
from tests.transcript import Scenario


def agent(tmp_path: Path, lines: list[dict[str, Any]], scenario: Scenario | None = None) -> Client:
    script = tmp_path / "model.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return Client(tmp_path, "--model", "offline", "--script", str(script), scenario=scenario)


def echo_turn(message: str = "hi") -> list[dict[str, Any]]:
    call = {"name": "mcp__tools__echo", "arguments": {"message": message}}
    return [{"steps": [{"tool_call": call}]}, {"steps": [{"text": "done"}]}]


def serve(client: Client, request_id: int, provider: Provider, permit: str = "allow_once") -> Any:
    """Answer the agent's requests until the response to `request_id` comes."""
    while True:
        frame = client.agent.receive()
        if frame.get("id") == request_id and "method" not in frame:
            return frame
        method = frame.get("method")
        if method == "mcp/message" and "id" in frame:
            client.send(provider.answer(frame))
        elif method == "session/request_permission":
            outcome = {"outcome": "selected", "optionId": permit}
            client.send({"jsonrpc": "2.0", "id": frame["id"], "result": {"outcome": outcome}})
        else:
            client.notes.append(frame)


def request(client: Client, method: str, params: dict[str, Any]) -> int:
    client._id += 1
    client.send({"jsonrpc": "2.0", "id": client._id, "method": method, "params": params})
    return client._id


def opened(client: Client, provider: Provider, servers: list[dict[str, Any]]) -> str:
    client.result("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    cwd = client.scenario.vars["CWD"]
    frame = serve(
        client, request(client, "session/new", {"cwd": cwd, "mcpServers": servers}), provider
    )
    return str(frame["result"]["sessionId"])


def prompt(client: Client, provider: Provider, sid: str, text: str = "go") -> Any:
    body = {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
    return serve(client, request(client, "session/prompt", body), provider)


def updates(client: Client, kind: str) -> list[dict[str, Any]]:
    return [
        n["params"]["update"]
        for n in client.notes
        if n.get("method") == "session/update" and n["params"]["update"]["sessionUpdate"] == kind
    ]


def test_initialize_advertises_acp_servers(tmp_path: Path) -> None:
    client = Client(tmp_path, "--model", "offline")
    result = client.result("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    assert result["agentCapabilities"]["mcpCapabilities"]["acp"] is True
    assert client.close() == 0


def test_a_tool_of_a_server_the_client_provides_is_called_over_acp(tmp_path: Path) -> None:
    provider = Provider()
    client = agent(tmp_path, echo_turn())
    sid = opened(client, provider, [SERVER])
    reply = prompt(client, provider, sid)
    assert reply["result"]["stopReason"] == "end_turn", reply
    final = [u for u in updates(client, "tool_call_update") if u.get("status") == "completed"]
    assert final and final[-1]["content"][0]["content"]["text"] == "echo: hi", final
    methods = [s["method"] for s in provider.seen]
    assert methods == ["server/discover", "tools/list", "tools/call"], methods
    called = provider.seen[-1]
    assert called["serverId"] == "srv-1"
    assert called["params"]["name"] == "echo"
    assert called["params"]["arguments"] == {"message": "hi"}
    ids = [s["requestId"] for s in provider.seen]
    assert len(set(ids)) == len(ids), ids
    assert client.close() == 0


def test_the_call_is_asked_first_and_a_rejection_never_reaches_the_server(tmp_path: Path) -> None:
    provider = Provider()
    client = agent(tmp_path, echo_turn())
    sid = opened(client, provider, [SERVER])
    body = {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]}
    serve(client, request(client, "session/prompt", body), provider, permit="reject_once")
    assert [s["method"] for s in provider.seen] == ["server/discover", "tools/list"]
    assert client.close() == 0


def test_an_inner_mcp_error_fails_the_tool_call_with_its_message(tmp_path: Path) -> None:
    provider = Provider()
    provider.call = lambda params: {"error": {"code": -32603, "message": "the disk is full"}}
    client = agent(tmp_path, echo_turn())
    sid = opened(client, provider, [SERVER])
    reply = prompt(client, provider, sid)
    assert reply["result"]["stopReason"] == "end_turn"
    failed = [u for u in updates(client, "tool_call_update") if u.get("status") == "failed"]
    assert failed and "the disk is full" in json.dumps(failed[-1]), failed
    assert client.close() == 0


def test_a_result_asking_for_more_input_fails_the_call_saying_so(tmp_path: Path) -> None:
    provider = Provider()
    provider.call = lambda params: {"result": {"resultType": "input_required", "inputRequests": {}}}
    client = agent(tmp_path, echo_turn())
    sid = opened(client, provider, [SERVER])
    prompt(client, provider, sid)
    failed = [u for u in updates(client, "tool_call_update") if u.get("status") == "failed"]
    assert failed and "input_required" in json.dumps(failed[-1]), failed
    assert client.close() == 0


def test_a_server_the_client_does_not_serve_is_reported_failed(tmp_path: Path) -> None:
    provider = Provider(server_ids=())
    client = agent(tmp_path, [])
    sid = opened(client, provider, [SERVER])
    prompt(client, provider, sid, "/mcp")
    said = json.dumps(client.notes)
    assert "tools (acp, provided by the client): failed" in said, said
    assert "-33001" in said
    assert client.close() == 0


def test_a_stored_server_is_not_reached_from_a_later_process(tmp_path: Path) -> None:
    """A `serverId` names a server on the connection that declared it: a resume in a new
    process without `mcpServers` leaves it failed, saying to send them again."""
    provider = Provider()
    first = agent(tmp_path, [])
    sid = opened(first, provider, [SERVER])
    assert first.close() == 0
    provider.seen.clear()
    later = agent(tmp_path, [], scenario=first.scenario)
    later.result("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    cwd = later.scenario.vars["CWD"]
    serve(later, request(later, "session/resume", {"sessionId": sid, "cwd": cwd}), provider)
    prompt(later, provider, sid, "/mcp")
    said = json.dumps(later.notes)
    assert "must send mcpServers again" in said, said
    assert provider.seen == []
    assert later.close() == 0


def test_an_acp_entry_without_a_server_id_is_refused_naming_it(tmp_path: Path) -> None:
    client = Client(tmp_path, "--model", "offline")
    client.result("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    cwd = client.scenario.vars["CWD"]
    frame = client.call(
        "session/new", {"cwd": cwd, "mcpServers": [{"type": "acp", "name": "tools"}]}
    )
    assert frame["error"]["code"] == -32602
    assert 'mcpServers[0] ("tools").serverId' in frame["error"]["message"], frame
    assert client.close() == 0


def test_a_cancelled_turn_cancels_the_mcp_request_it_waits_for(tmp_path: Path) -> None:
    provider = Provider()
    client = agent(tmp_path, echo_turn())
    sid = opened(client, provider, [SERVER])
    asked = request(
        client, "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]}
    )
    held: dict[str, Any] = {}
    cancelled: list[int] = []
    while True:
        frame = client.agent.receive()
        if frame.get("method") == "session/request_permission":
            outcome = {"outcome": "selected", "optionId": "allow_once"}
            client.send({"jsonrpc": "2.0", "id": frame["id"], "result": {"outcome": outcome}})
        elif frame.get("method") == "mcp/message" and frame["params"]["method"] != "tools/call":
            client.send(provider.answer(frame))
        elif frame.get("method") == "mcp/message":
            held = frame  # never answered: the turn is cancelled while it waits
            client.send(
                {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}}
            )
        elif frame.get("method") == "$/cancel_request":
            cancelled.append(frame["params"]["requestId"])
        elif frame.get("id") == asked:
            assert frame["result"]["stopReason"] == "cancelled", frame
            break
    assert cancelled == [held["id"]], (cancelled, held)
    assert client.close() == 0
