"""An MCP server's question during a turn goes to the connection that sent the turn's prompt,
also when another connection opened the session and started its servers: two clients of one
`acp serve` share a session whose stdio MCP server (tests/mcp_servers/tools_server.py) asks for
a colour (an elicitation); the second client, which loaded the session, prompts; it is asked
and answers, and the first is asked nothing."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from tests.remote.serving import Served
from tests.remote.test_serve_peers import Client, two_clients

TOOLS = str(Path(__file__).parents[1] / "mcp_servers" / "tools_server.py")
FORMS = {"elicitation": {"form": {}}}


def _colour(request: dict[str, Any]) -> dict[str, Any]:
    if request["method"] == "elicitation/create":
        return {"action": "accept", "content": {"colour": "blue"}}
    if request["method"] == "session/request_permission":
        allow = next(o for o in request["params"]["options"] if o["kind"] == "allow_once")
        return {"outcome": {"outcome": "selected", "optionId": allow["optionId"]}}
    return {}


async def _drive(url: str, cwd: str) -> tuple[Client, Client, dict[str, Any]]:
    servers = [{"name": "s", "command": sys.executable, "args": [TOOLS], "env": []}]
    async with two_clients(url, ("opener", "prompter"), _colour) as (a, b):
        for client in (a, b):
            await client.call("initialize", {"protocolVersion": 1, "clientCapabilities": FORMS})
        opened = await a.call("session/new", {"cwd": cwd, "mcpServers": servers})
        sid = opened["result"]["sessionId"]
        await b.call("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": servers})
        text = [{"type": "text", "text": "ask me"}]
        answer = await b.call("session/prompt", {"sessionId": sid, "prompt": text})
        await a.drain()
        return a, b, answer


def test_an_mcp_servers_question_goes_to_the_connection_that_prompted(tmp_path: Path) -> None:
    call = {"tool_call": {"name": "mcp__s__ask", "arguments": {}}}
    steps = [{"steps": [call]}, {"steps": [{"text": "asked"}]}]
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    served = Served(tmp_path, "--model", "offline", "--script", str(script))
    try:
        a, b, answer = asyncio.run(_drive(served.url, str(served.workspace)))
    finally:
        assert served.stop() == 0
    assert answer["result"]["stopReason"] == "end_turn", answer
    assert [r["method"] for r in b.asked if r["method"] != "session/request_permission"] == [
        "elicitation/create"
    ]
    assert [r["method"] for r in a.asked] == []
    ended = [
        n["params"]["update"]
        for n in b.heard
        if n["params"]["update"].get("sessionUpdate") == "tool_call_update"
        and n["params"]["update"].get("status") in ("completed", "failed")
    ]
    assert "accept:blue" in json.dumps(ended), ended
