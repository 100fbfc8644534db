"""A client that stops reading while its session streams costs the server a bounded Outbox and
then its connection; another client goes on meanwhile, and the process never waits for the
stalled one."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import socket
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.frames import Frame, Opcode

from tests.remote.serving import TOKEN, Served

HEADERS = {"authorization": f"Bearer {TOKEN}"}


def _stalled_client(url: str, cwd: str) -> socket.socket:
    """A WebSocket client with a tiny receive buffer that opens a session, prompts, and from
    then on reads nothing (the socket is returned, kept open)."""
    host, port = re.match(r"http://([^:/]+):(\d+)/", url).groups()  # type: ignore[union-attr]
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /acp HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Authorization: Bearer {TOKEN}\r\n\r\n"
        ).encode()
    )
    seen = b""
    frames = [
        {"method": "initialize", "params": {"protocolVersion": 1}},
        {"method": "session/new", "params": {"cwd": cwd, "mcpServers": []}},
    ]
    for rid, frame in enumerate(frames, 1):
        message = json.dumps({"jsonrpc": "2.0", "id": rid, **frame}).encode()
        sock.sendall(Frame(Opcode.TEXT, message).serialize(mask=True))
        while f'"id":{rid},"result"'.encode() not in seen:
            seen += sock.recv(65536)
    sid = re.search(rb'"sessionId":"([^"]+)"', seen).group(1).decode()  # type: ignore[union-attr]
    prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "a lot"}]}
    message = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": prompt})
    sock.sendall(Frame(Opcode.TEXT, message.encode()).serialize(mask=True))
    return sock


async def _other(url: str) -> dict[str, object]:
    async with connect(url.replace("http", "ws", 1), additional_headers=HEADERS) as other:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
        await other.send(json.dumps(init))
        await other.recv()
        await other.send(
            json.dumps({"jsonrpc": "2.0", "id": 2, "method": "session/list", "params": {}})
        )
        listed: dict[str, object] = json.loads(await asyncio.wait_for(other.recv(), 30))
        return listed


def test_a_client_that_stops_reading_is_let_go_and_others_go_on(tmp_path: Path) -> None:
    script = tmp_path / "long.jsonl"
    reply = {
        "steps": [{"text": "word " * 2_000_000, "chunk": 16384}]
    }  # 10 MB: past the kernel buffers
    script.write_text(json.dumps(reply) + "\n", encoding="utf-8")
    served = Served(
        tmp_path, "--model", "offline", "--script", str(script), "--max-unread", "262144"
    )
    try:
        stalled = _stalled_client(served.url, str(served.workspace))
        listed = asyncio.run(_other(served.url))  # served while the other is stalled
        ended = served.wait_for(re.compile(r"a WebSocket client ended: (\d+) bytes waited"))
        stalled.close()
    finally:
        assert served.stop() == 0
    assert "result" in listed
    assert int(ended.group(1)) <= 262144
