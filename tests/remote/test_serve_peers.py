"""Two clients of one `acp serve` with different capabilities, one session: what the agent asks
during a turn goes to the client that sent that turn's prompt, as that client advertised."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from tests.remote.serving import TOKEN, Served


@contextlib.asynccontextmanager
async def two_clients(
    url: str,
    names: tuple[str, str],
    answer: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> AsyncIterator[tuple[Client, Client]]:
    """Two WebSocket clients of the `acp serve` at `url`, each with the token."""
    headers = {"authorization": f"Bearer {TOKEN}"}
    ws_url = url.replace("http", "ws", 1)
    async with (
        connect(ws_url, additional_headers=headers) as a_ws,
        connect(ws_url, additional_headers=headers) as b_ws,
    ):
        yield Client(a_ws, names[0], answer), Client(b_ws, names[1], answer)


class Client:
    def __init__(
        self,
        ws: ClientConnection,
        name: str,
        answer: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        self.ws, self.name = ws, name
        self.answer = answer or _answer  # what it answers the agent's requests
        self.asked: list[dict[str, Any]] = []  # the agent's requests to this client
        self.heard: list[dict[str, Any]] = []  # its notifications
        self.ids = iter(range(1, 1000))

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        rid = next(self.ids)
        await self.ws.send(
            json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        )
        while True:
            message = json.loads(await asyncio.wait_for(self.ws.recv(), 60))
            if "method" in message and "id" in message:
                self.asked.append(message)
                await self.ws.send(
                    json.dumps(
                        {"jsonrpc": "2.0", "id": message["id"], "result": self.answer(message)}
                    )
                )
            elif "method" in message:
                self.heard.append(message)
            elif message.get("id") == rid:
                return message

    async def drain(self) -> None:
        """What else came within a moment (another client's turn)."""
        while True:
            try:
                message = json.loads(await asyncio.wait_for(self.ws.recv(), 0.5))
            except TimeoutError:
                return
            (self.asked if "id" in message else self.heard).append(message)


def _answer(request: dict[str, Any]) -> dict[str, Any]:
    if request["method"] == "fs/read_text_file":
        return {"content": "what the editor's buffer holds\n"}
    if request["method"] == "session/request_permission":
        allow = next(o for o in request["params"]["options"] if o["kind"] == "allow_once")
        return {"outcome": {"outcome": "selected", "optionId": allow["optionId"]}}
    return {}


async def _drive(url: str, cwd: str) -> tuple[Client, Client, dict[str, Any], dict[str, Any]]:
    async with two_clients(url, ("editor", "phone")) as (a, b):
        fs = {"fs": {"readTextFile": True, "writeTextFile": False}}
        await a.call("initialize", {"protocolVersion": 1, "clientCapabilities": fs})
        await b.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        opened = await a.call("session/new", {"cwd": cwd, "mcpServers": []})
        sid = opened["result"]["sessionId"]
        await b.call("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
        status = await b.call("session/status", {"sessionId": sid})
        assert status["result"]["status"] == "open"  # open here, on either connection
        text = [{"type": "text", "text": "read it"}]
        by_a = await a.call("session/prompt", {"sessionId": sid, "prompt": text})
        await b.drain()
        by_b = await b.call("session/prompt", {"sessionId": sid, "prompt": text})
        await a.drain()
        return a, b, by_a, by_b


def test_the_prompting_client_is_asked_with_its_own_capabilities(tmp_path: Path) -> None:
    read = {"tool_call": {"name": "read", "arguments": {"path": "notes.txt"}}}
    steps = [{"steps": [read]}, {"steps": [{"text": "read"}]}] * 2
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    served = Served(tmp_path, "--model", "offline", "--script", str(script))
    (served.workspace / "notes.txt").write_text("what the disk holds\n", encoding="utf-8")
    try:
        a, b, by_a, by_b = asyncio.run(_drive(served.url, str(served.workspace)))
    finally:
        assert served.stop() == 0
    assert by_a["result"]["stopReason"] == "end_turn" and by_b["result"]["stopReason"] == "end_turn"
    # A's turn read through A (it offers fs); B's turn read the disk: B offers nothing, and
    # A was not asked on B's behalf.
    assert [r["method"] for r in a.asked] == ["fs/read_text_file"]
    assert b.asked == []
    results = [
        json.dumps(n["params"]["update"].get("content"))
        for n in a.heard
        if n["params"]["update"].get("sessionUpdate") == "tool_call_update"
        and n["params"]["update"].get("status") == "completed"
    ]
    assert len(results) == 2, results  # A heard both turns' tool calls end
    assert "editor's buffer" in results[0] and "what the disk holds" in results[1]
