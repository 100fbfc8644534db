"""Protocol robustness, through a real `acp` process over pipes: null ids, early cancels, lone
surrogates, non-UTF-8 and non-finite frames, -32603 details, client error details, and a
client that stops reading stdout."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.generated.methods import SESSION_UPDATE
from reasonix_acp.protocol.router import Router
from reasonix_acp.server.connection import Connection
from reasonix_acp.server.writer import HARD_LIMIT, WRITE_BATCH, Writer
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
    pytest.param(LIST.replace(b"7,", b"1e999,"), id="overflowing-id"),
    pytest.param(LIST.replace(b'"params"', b'"n":1e400,"params"'), id="overflowing-outside-params"),
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


@pytest.mark.parametrize(
    ("params", "path"),
    [
        (b'{"_meta":1e999}', "_meta"),
        (b'{"cwd":"/x","_meta":{"deep":[1,-1e400]}}', "_meta.deep[1]"),
    ],
)
def test_a_number_out_of_range_in_params_is_invalid_params_with_the_request_id(
    tmp_path: Path, params: bytes, path: str
) -> None:
    """The frame is JSON and its id can be read: the client waiting on id 7 gets its answer."""
    client = Client(tmp_path, "--model", "offline")
    client.start()
    raw(client, LIST.replace(b"{}}", params + b"}") + b"\n")
    reply = next_answer(client)
    assert reply["id"] == 7 and reply["error"]["code"] == -32602, reply
    assert reply["error"]["message"] == (
        f"session/list: invalid params at {path}: the number "
        f"{'1e999' if path == '_meta' else '-1e400'} is out of range"
    )
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


# -- a client that stops reading ---------------------------------------------------------------

CHUNK = 64
CHUNKS = 50_000
# Each chunk's frame is ~550 bytes ("\x01" is escaped as six bytes): ~28 MB of frames in all,
# which an unbounded queue holds (~60 MB of RSS). Bounded: the queue's limit, one write batch,
# and the turn's own copy of the text in pieces (~6 MB).
RSS_GROWTH_LIMIT_KB = (HARD_LIMIT + WRITE_BATCH) // 1024 + 16 * 1024


def _proc_status(pid: int) -> tuple[int, int]:
    """(VmRSS in kB, user+system CPU ticks) of a process."""
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        rss = next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return rss, int(fields[11]) + int(fields[12])


def _watch_stalled_writer(pid: int, budget: float) -> int:
    """The largest RSS growth (kB) seen until the agent stops using CPU for half a second (it
    waits for the client), or the growth passes the limit, or `budget` seconds pass."""
    base, ticks = _proc_status(pid)
    still_since = time.monotonic()
    grown = 0
    deadline = time.monotonic() + budget
    while time.monotonic() < deadline and grown < RSS_GROWTH_LIMIT_KB:
        time.sleep(0.05)
        rss, now_ticks = _proc_status(pid)
        grown = max(grown, rss - base)
        if now_ticks != ticks:
            ticks, still_since = now_ticks, time.monotonic()
        elif time.monotonic() - still_since > 0.5:
            break
    return grown


def test_a_client_that_stops_reading_keeps_the_agent_memory_bounded(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    text = "\x01" * (CHUNK * CHUNKS)
    script = tmp_path / "long.jsonl"
    script.write_text(json.dumps({"chunk": CHUNK, "steps": [{"text": text}]}) + "\n")
    env = {**os.environ, **scenario.env, "REASONIX_ACP_DEBUG": "0"}
    with (tmp_path / "stderr.log").open("wb") as err:
        proc = subprocess.Popen(
            [*acp_command(), "--model", "offline", "--script", str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            env=env,
        )
    assert proc.stdin is not None and proc.stdout is not None
    try:

        def send(msg: dict[str, Any]) -> None:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(msg).encode() + b"\n")
            proc.stdin.flush()

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
        assert json.loads(proc.stdout.readline())["id"] == 1
        new = {"cwd": scenario.vars["CWD"], "mcpServers": []}
        send({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": new})
        sid = json.loads(proc.stdout.readline())["result"]["sessionId"]
        time.sleep(0.2)  # the session's start-up notifications are written
        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]}
        send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": prompt})
        grown = _watch_stalled_writer(proc.pid, budget=6)
        assert grown < RSS_GROWTH_LIMIT_KB, f"RSS grew by {grown} kB while the client did not read"
        streamed: list[str] = []
        while True:
            frame = json.loads(proc.stdout.readline())
            if frame.get("id") == 3 and "method" not in frame:
                break
            update = frame.get("params", {}).get("update", {})
            if update.get("sessionUpdate") == "agent_message_chunk":
                streamed.append(update["content"]["text"])
        assert frame["result"]["stopReason"] == "end_turn", frame
        assert len(streamed) == CHUNKS and "".join(streamed) == text
        proc.stdin.close()
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _update(n: int, size: int) -> dict[str, Any]:
    text = f"{n:08d}".ljust(size, ".")
    content = {"type": "text", "text": text}
    return {
        "sessionId": "s",
        "update": {"sessionUpdate": "agent_message_chunk", "content": content},
    }


def _read_all(fd: int, count: int) -> list[bytes]:
    buf = b""
    while buf.count(b"\n") < count:
        buf += os.read(fd, 1 << 16)
    return buf.splitlines()


def test_the_writer_blocks_producers_at_its_limit_and_keeps_every_frame_in_order() -> None:
    read_fd, write_fd = os.pipe()
    writer = Writer(write_fd, high_water=64 << 10, low_water=16 << 10, hard_limit=128 << 10)
    frames = [f"{n:06d}".encode().ljust(8 << 10, b"x") + b"\n" for n in range(100)]
    done = threading.Event()

    def produce() -> None:
        for frame in frames:
            writer.put(frame)
        done.set()

    threading.Thread(target=produce, daemon=True).start()
    try:
        time.sleep(0.3)  # nobody reads: the pipe fills (64 KiB), then the queue
        assert not done.is_set(), "800 KiB were queued for a client that reads nothing"
        assert writer.queued <= (128 << 10) + (8 << 10)
        drained: list[bool] = []
        writer.when_drained(lambda: drained.append(True))
        assert drained == []
        assert _read_all(read_fd, len(frames)) == [f.rstrip(b"\n") for f in frames]
        assert done.wait(5) and drained == [True]
        # The bytes are read before the writer thread counts its last write as done.
        deadline = time.monotonic() + 5
        while writer.queued and time.monotonic() < deadline:
            time.sleep(0.01)
        assert writer.queued == 0
    finally:
        writer.close()
        os.close(read_fd)
        os.close(write_fd)


def test_a_released_writer_no_longer_blocks_and_a_broken_one_drops() -> None:
    read_fd, write_fd = os.pipe()
    writer = Writer(write_fd, high_water=32 << 10, low_water=0, hard_limit=64 << 10)
    blocked = threading.Thread(
        target=lambda: [writer.put(b"y" * (16 << 10)) for _ in range(20)], daemon=True
    )
    blocked.start()
    time.sleep(0.2)
    assert blocked.is_alive()
    writer.release()  # what end of input does
    blocked.join(5)
    assert not blocked.is_alive()
    os.close(read_fd)  # the client closes our output
    writer.put(b"z\n")
    writer.close(timeout=5)
    assert writer.broken
    writer.put(b"dropped\n")
    assert writer.queued == 0
    os.close(write_fd)


async def test_writable_waits_while_the_output_is_congested() -> None:
    c2a_r, c2a_w = os.pipe()
    a2c_r, a2c_w = os.pipe()
    conn = Connection(Router(), read_fd=c2a_r, write_fd=a2c_w)
    conn._writer.close()
    conn._writer = Writer(a2c_w, high_water=64 << 10, low_water=8 << 10, hard_limit=1 << 20)
    try:
        await conn.writable()  # nothing queued: returns at once
        for n in range(40):  # ~160 KiB: the pipe fills, the rest stays queued
            conn.notify(SESSION_UPDATE, _update(n, 4 << 10), trusted=True)
        waiting = asyncio.ensure_future(conn.writable())
        await asyncio.sleep(0.2)
        assert not waiting.done()
        loop = asyncio.get_running_loop()
        lines = await loop.run_in_executor(None, _read_all, a2c_r, 40)
        await asyncio.wait_for(waiting, 5)
        texts = [json.loads(line)["params"]["update"]["content"]["text"][:8] for line in lines]
        assert texts == [f"{n:08d}" for n in range(40)]
    finally:
        conn._writer.close()
        for fd in (c2a_r, c2a_w, a2c_r, a2c_w):
            os.close(fd)
