"""Protocol robustness, through a real `acp` process over pipes: null ids, early cancels, lone
surrogates, non-UTF-8 and non-finite frames, -32603 details, client error details, and a
client that stops reading stdout."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.client import Client
from tests.transcript import Scenario, acp_command
from tests.wire import check_agent_frame

LIST = b'{"jsonrpc":"2.0","id":7,"method":"session/list","params":{}}'


def raw(client: Client, data: bytes) -> None:
    client.agent.send(data)


def frames_until(client: Client, request_id: Any) -> list[dict[str, Any]]:
    """Every agent frame up to and including the response to `request_id`."""
    out = []
    while True:
        frame = client.agent.receive()
        out.append(frame)
        if frame.get("id") == request_id and "method" not in frame:
            return out


def next_answer(client: Client) -> dict[str, Any]:
    """The next agent frame that is not a notification."""
    while True:
        frame = client.agent.receive()
        if "method" not in frame or "id" in frame:
            return frame


def answers(frames: list[dict[str, Any]], request_id: Any) -> list[dict[str, Any]]:
    return [f for f in frames if "method" not in f and f.get("id") == request_id]


# -- null ids -------------------------------------------------------------------------------


def test_a_request_with_a_null_id_is_an_invalid_request_answered_with_a_null_id(
    tmp_path: Path,
) -> None:
    client = Client(tmp_path, "--model", "offline")
    client.start()
    client.send({"jsonrpc": "2.0", "id": None, "method": "session/list", "params": {}})
    reply = next_answer(client)
    assert reply["id"] is None and reply["error"]["code"] == -32600, reply
    assert '"id"' in reply["error"]["message"]
    assert check_agent_frame(reply, {}) == []
    assert len(client.result("session/list", {})["sessions"]) == 1
    assert client.close() == 0


@pytest.mark.parametrize(
    "frame",
    [
        {"jsonrpc": "2.0", "id": None, "result": {}},
        {"jsonrpc": "2.0", "id": None, "result": None},
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32601, "message": "unknown"}},
    ],
)
def test_a_response_with_a_null_id_is_ignored(tmp_path: Path, frame: dict[str, Any]) -> None:
    client = Client(tmp_path, "--model", "offline")
    client.start()
    client.send(frame)
    # The next frame the agent writes is the answer to the next request: nothing for the null.
    client.take_notes()
    reply = client.call("session/list", {})
    notes = client.take_notes()
    assert reply.get("result") is not None, reply
    assert [n for n in notes if "method" not in n or "id" in n] == [], notes
    assert client.close() == 0


# -- cancel before the handler runs ---------------------------------------------------------


def test_a_cancel_in_the_same_read_as_its_request_is_answered_minus_32800_once(
    tmp_path: Path,
) -> None:
    client = Client(tmp_path, "--model", "offline")
    client.start()
    cancel = b'{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}'
    raw(client, LIST + b"\n" + cancel + b"\n")
    client.send({"jsonrpc": "2.0", "id": 8, "method": "session/list", "params": {}})
    seen = frames_until(client, 8)
    code, rest = client.agent.finish()
    seen += [json.loads(line) for line in rest]
    cancelled = answers(seen, 7)
    assert len(cancelled) == 1, seen
    assert cancelled[0]["error"]["code"] == -32800
    assert code == 0


# -- lone surrogates --------------------------------------------------------------------------


def test_a_lone_surrogate_in_a_prompt_is_invalid_params_and_the_session_goes_on(
    tmp_path: Path,
) -> None:
    client = Client(tmp_path, "--model", "offline")
    sid = client.start()
    bad = client.call(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "a\ud800b"}]}
    )
    assert bad["error"]["code"] == -32602, bad
    assert "session/prompt" in bad["error"]["message"]
    assert "prompt[0].text" in bad["error"]["message"]
    good = client.result(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
    )
    assert good["stopReason"] == "end_turn"
    assert client.close() == 0


@pytest.mark.parametrize(
    ("method", "params", "path"),
    [
        ("session/new", {"cwd": "/tmp/\udc80", "mcpServers": []}, "cwd"),
        ("session/list", {"cwd": "\ud800"}, "cwd"),
        ("session/prompt", {"sessionId": "\udfff", "prompt": []}, "sessionId"),
        ("session/new", {"cwd": "/tmp", "mcpServers": [], "_meta": {"\ud800": 1}}, "_meta"),
    ],
)
def test_a_lone_surrogate_anywhere_is_invalid_params_naming_its_place(
    tmp_path: Path, method: str, params: dict[str, Any], path: str
) -> None:
    client = Client(tmp_path, "--model", "offline")
    client.start()
    reply = client.call(method, params)
    assert reply["error"]["code"] == -32602, reply
    assert reply["error"]["message"].startswith(f"{method}: invalid params at {path}")
    # Nothing changed: the session start() opened is still the only one.
    assert len(client.result("session/list", {})["sessions"]) == 1
    assert client.close() == 0


# -- parse errors: non-finite numbers, encodings --------------------------------------------

NOT_UTF8_JSON = [
    pytest.param(LIST.replace(b"{}}", b'{"n":NaN}}'), id="NaN"),
    pytest.param(LIST.replace(b"{}}", b'{"n":Infinity}}'), id="Infinity"),
    pytest.param(LIST.replace(b"{}}", b'{"n":-Infinity}}'), id="-Infinity"),
    pytest.param(LIST.replace(b"{}}", b'{"n":1e400}}'), id="overflowing-number"),
    pytest.param(b"\xef\xbb\xbf" + LIST, id="utf8-bom"),
    pytest.param(LIST.decode().encode("utf-16-le"), id="utf-16-le"),
    pytest.param(LIST.decode().encode("utf-16"), id="utf-16-bom"),
    pytest.param(LIST.decode().encode("utf-32-le"), id="utf-32-le"),
    pytest.param(LIST.replace(b"{}}", b'{"cwd":"\xff"}}'), id="invalid-utf8"),
    pytest.param(LIST.replace(b"{}}", b'{"cwd":"\xed\xa0\x80"}}'), id="utf8-encoded-surrogate"),
]


@pytest.mark.parametrize("line", NOT_UTF8_JSON)
def test_frames_that_are_not_utf8_json_are_parse_errors_and_never_run(
    tmp_path: Path, line: bytes
) -> None:
    assert b"\n" not in line
    client = Client(tmp_path, "--model", "offline")
    client.start()
    raw(client, line + b"\n")
    reply = next_answer(client)
    assert reply == {"jsonrpc": "2.0", "id": None, "error": reply.get("error")}, reply
    assert reply["error"]["code"] == -32700
    assert len(client.result("session/list", {})["sessions"]) == 1
    assert client.close() == 0


INIT = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}'


@pytest.mark.parametrize(
    "first",
    [
        pytest.param(INIT.replace(b"1}}", b'1,"_meta":{"n":NaN}}}'), id="NaN"),
        pytest.param(b"\xef\xbb\xbf" + INIT, id="utf8-bom"),
        pytest.param(INIT.decode().encode("utf-16"), id="utf-16"),
        pytest.param(INIT.replace(b"}}", b',"x":"\xc3"}}'), id="invalid-utf8"),
    ],
)
def test_the_synchronous_handshake_applies_the_same_parse_rules(
    tmp_path: Path, first: bytes
) -> None:
    done = subprocess.run(
        acp_command(),
        input=first + b"\n" + INIT + b"\n",
        capture_output=True,
        timeout=30,
        env={**os.environ, **Scenario(tmp_path).env},
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert replies[0]["id"] is None and replies[0]["error"]["code"] == -32700, replies
    assert replies[1]["id"] == 1 and "result" in replies[1], replies
    assert len(replies) == 2 and done.returncode == 0


# -- -32603 carries data.details; client error data reaches the tool -------------------------


def test_an_internal_error_carries_its_redacted_cause_in_data_details(tmp_path: Path) -> None:
    script = tmp_path / "fail.jsonl"
    cause = "upstream said 500: Authorization: Bearer sk-live-abcdefghijkl failed"
    script.write_text(json.dumps({"steps": [{"error": cause}]}) + "\n", encoding="utf-8")
    client = Client(tmp_path, "--model", "offline", "--script", str(script))
    sid = client.start()
    reply = client.call(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "x"}]}
    )
    error = reply["error"]
    assert error["code"] == -32603
    assert error["data"] == {"details": error["message"]}
    assert "sk-live" not in json.dumps(error) and "[redacted]" in error["data"]["details"]
    assert check_agent_frame(reply, {}) == []
    assert client.close() == 0


def test_the_wire_check_allows_data_on_internal_errors_only() -> None:
    ours = {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": -32603, "message": "m", "data": {"details": "m"}},
    }
    assert check_agent_frame(ours, {}) == []
    peer = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "m", "data": {"x": 1}}}
    assert check_agent_frame(peer, {}) != []
    no_details = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "m", "data": 5}}
    assert check_agent_frame(no_details, {}) != []


class RefusingEditor:
    """Refuses every write with an error that explains itself in data.details."""

    def __init__(self) -> None:
        self.updates: list[Any] = []

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    async def write_text_file(self, content: str, path: str, session_id: str, **kw: Any) -> Any:
        from acp.exceptions import RequestError

        raise RequestError(-32000, "write refused", {"details": "the buffer is read-only"})

    async def read_text_file(self, path: str, session_id: str, **kw: Any) -> Any:
        from acp.exceptions import RequestError

        raise RequestError(-32002, "not open")


async def test_a_client_error_reaches_the_tool_result_with_its_message_and_details(
    tmp_path: Path,
) -> None:
    from acp import spawn_agent_process
    from acp.schema import ClientCapabilities, FileSystemCapabilities, TextContentBlock

    scenario = Scenario(tmp_path)
    target = str(Path(scenario.vars["CWD"]) / "out.txt")
    script = tmp_path / "write.jsonl"
    call = {"tool_call": {"name": "write", "arguments": {"path": target, "content": "hi"}}}
    script.write_text(json.dumps({"steps": [call]}) + "\n", encoding="utf-8")
    command = acp_command()
    editor = RefusingEditor()
    args = [*command[1:], "--model", "offline", "--script", str(script)]
    env = {**os.environ, **scenario.env}
    async with spawn_agent_process(editor, command[0], *args, env=env) as (conn, _p):
        caps = ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=True, write_text_file=True)
        )
        await conn.initialize(protocol_version=1, client_capabilities=caps)
        sid = (await conn.new_session(cwd=scenario.vars["CWD"], mcp_servers=[])).session_id
        reply = await conn.prompt(session_id=sid, prompt=[TextContentBlock(type="text", text="w")])
    assert reply.stop_reason == "end_turn"
    failed = [u for u in editor.updates if getattr(u, "status", None) == "failed"]
    assert len(failed) == 1
    text = json.dumps([c.model_dump(mode="json") for c in failed[0].content or []])
    assert "write refused" in text and "the buffer is read-only" in text, text
    assert not Path(target).exists()
