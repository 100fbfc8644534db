"""The runner's client side on its own: the overlay, permission answers by kind, real
terminals with an output limit, refusals."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from acp_conformance.client import Client


def client(tmp_path: Path, **setup: Any) -> tuple[Client, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []
    made = Client(sent.append, str(tmp_path), setup)
    made.advertised = {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True}
    made.seed()
    return made, sent


def ask(c: Client, sent: list[dict[str, Any]], method: str, params: Any) -> dict[str, Any]:
    c.answer({"jsonrpc": "2.0", "id": 9, "method": method, "params": params})
    return sent[-1]


def test_reads_see_the_overlay_then_the_disk_and_writes_reach_the_disk(tmp_path: Path) -> None:
    c, sent = client(tmp_path, files={"a.txt": "disk\n"}, buffers={"b.txt": "one\ntwo\n"})
    a, b = str(tmp_path / "a.txt"), str(tmp_path / "b.txt")
    assert ask(c, sent, "fs/read_text_file", {"sessionId": "s", "path": a})["result"] == {
        "content": "disk\n"
    }
    answer = ask(c, sent, "fs/read_text_file", {"sessionId": "s", "path": b, "line": 2})
    assert answer["result"] == {"content": "two\n"}
    assert (
        ask(c, sent, "fs/write_text_file", {"sessionId": "s", "path": a, "content": "new"})[
            "result"
        ]
        == {}
    )
    assert c.text_of("a.txt") == "new" and (tmp_path / "a.txt").read_text() == "new"
    deeper = {"sessionId": "s", "path": str(tmp_path / "d" / "c.txt"), "content": "c"}
    assert ask(c, sent, "fs/write_text_file", deeper)["result"] == {}
    buffered = {"sessionId": "s", "path": b, "content": "saved"}
    assert ask(c, sent, "fs/write_text_file", buffered)["result"] == {}
    assert c.text_of("b.txt") == "saved" == (tmp_path / "b.txt").read_text()
    assert (tmp_path / "d" / "c.txt").read_text() == "c"
    missing = ask(c, sent, "fs/read_text_file", {"sessionId": "s", "path": str(tmp_path / "x")})
    assert missing["error"]["code"] == -32002
    relative = ask(c, sent, "fs/write_text_file", {"sessionId": "s", "path": "a", "content": ""})
    assert relative["error"]["code"] == -32602
    relative = ask(c, sent, "fs/read_text_file", {"sessionId": "s", "path": "a.txt"})
    assert relative["error"]["code"] == -32602
    assert ask(c, sent, "_vendor/thing", {})["error"]["code"] == -32601
    c.advertised = {"fs": {"readTextFile": True}}
    unadvertised = {"sessionId": "s", "path": a, "content": ""}
    assert ask(c, sent, "fs/write_text_file", unadvertised)["error"]["code"] == -32601
    assert (
        ask(c, sent, "terminal/create", {"sessionId": "s", "command": "true"})["error"]["code"]
        == -32601
    )


def test_permission_answers_are_picked_by_kind(tmp_path: Path) -> None:
    options = [
        {"optionId": "yes", "name": "Yes", "kind": "allow_once"},
        {"optionId": "no", "name": "No", "kind": "reject_once"},
    ]
    params = {"sessionId": "s", "toolCall": {"toolCallId": "t"}, "options": options}
    c, sent = client(tmp_path, permission="reject_always")
    answer = ask(c, sent, "session/request_permission", params)
    assert answer["result"] == {"outcome": {"outcome": "selected", "optionId": "no"}}
    assert c.calls[-1].note == "no reject_always option offered; picked 'reject_once'"
    c, sent = client(tmp_path, permission="cancel")
    answer = ask(c, sent, "session/request_permission", params)
    assert sent[0] == {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}
    assert answer["result"] == {"outcome": {"outcome": "cancelled"}}


def test_terminals_run_cut_their_output_and_forget_released_ids(tmp_path: Path) -> None:
    c, sent = client(tmp_path)
    create = {"sessionId": "s", "command": "sh", "args": ["-c", "echo 0123456789"]}
    tid = ask(c, sent, "terminal/create", {**create, "outputByteLimit": 4})["result"]["terminalId"]
    ids = {"sessionId": "s", "terminalId": tid}
    c.answer({"jsonrpc": "2.0", "id": 10, "method": "terminal/wait_for_exit", "params": ids})
    deadline = time.monotonic() + 10
    while not any(f.get("id") == 10 for f in sent) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert next(f for f in sent if f.get("id") == 10)["result"] == {"exitCode": 0, "signal": None}
    output = ask(c, sent, "terminal/output", ids)["result"]
    assert output == {
        "output": "789\n",
        "truncated": True,
        "exitStatus": {"exitCode": 0, "signal": None},
    }
    assert ask(c, sent, "terminal/release", ids)["result"] == {}
    assert ask(c, sent, "terminal/output", ids)["error"]["code"] == -32602
    assert c.calls[-1].note.startswith("terminal")
    c.close()


def test_an_elicitation_is_answered_as_the_scenario_says(tmp_path: Path) -> None:
    form = {
        "type": "object",
        "properties": {
            "colour": {"type": "string"},
            "size": {"type": "integer", "minimum": 3},
            "kind": {"type": "string", "enum": ["a", "b"]},
            "ok": {"type": "boolean"},
        },
    }
    params = {"sessionId": "s", "mode": "form", "message": "?", "requestedSchema": form}
    c, sent = client(tmp_path, elicitation="accept")
    assert ask(c, sent, "elicitation/create", params)["error"]["code"] == -32602  # no form
    c.advertised = {"elicitation": {"form": {}}}
    content = {"colour": "conformance-answer", "size": 3, "kind": "a", "ok": True}
    answer = ask(c, sent, "elicitation/create", params)
    assert answer["result"] == {"action": "accept", "content": content}
    c, sent = client(tmp_path)
    c.advertised = {"elicitation": {"form": {}}}
    assert ask(c, sent, "elicitation/create", params)["result"] == {"action": "decline"}


def test_mcp_over_acp_is_answered_as_the_binding_answers(tmp_path: Path) -> None:
    """The client's MCP server over ACP (mcp_over_acp.py): outer errors for a server never
    declared and a requestId still active, inner errors for a request without the MCP `_meta`,
    and each request's MCP answer a moment later."""
    c, sent = client(tmp_path)
    c.mcp.declare([{"type": "acp", "name": "tools", "serverId": "srv"}, {"name": "stdio"}])
    version = "io.modelcontextprotocol/protocolVersion"
    meta = {version: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}

    def message(rid: int, request_id: str, method: str, inner: Any, server: str = "srv") -> None:
        body = {"serverId": server, "requestId": request_id, "method": method, "params": inner}
        c.answer({"jsonrpc": "2.0", "id": rid, "method": "mcp/message", "params": body})

    message(1, "r1", "tools/list", {"_meta": meta})
    message(2, "r1", "tools/list", {"_meta": meta})  # r1 is still being answered
    message(3, "r2", "tools/list", {"_meta": meta}, server="other")
    message(4, "r3", "tools/list", {"_meta": {**meta, version: "2025-06-18"}})
    message(5, "r4", "tools/call", {"name": "conformance_echo", "arguments": {"message": "hi"}})
    message(6, "r5", "tools/call", {"_meta": meta, "name": "conformance_echo", "arguments": {}})
    refused = {f["id"]: f["error"]["code"] for f in sent if "error" in f}
    assert refused == {2: -32602, 3: -33001}
    time.sleep(0.3)
    answers = {f["id"]: f["result"] for f in sent if "result" in f}
    assert answers[1]["result"]["tools"][0]["name"] == "conformance_echo"
    assert answers[4]["error"]["code"] == -32022
    assert answers[5]["error"]["code"] == -32602  # no _meta at all
    assert answers[6]["result"]["content"][0]["text"] == "conformance-acp-echo: "
    got = c.mcp.received
    assert [g.duplicate for g in got] == [False, True, False, False, False, False]
    assert [call.method for call in c.calls] == ["mcp/message"] * 6
    c.close()
