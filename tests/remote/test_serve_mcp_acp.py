"""A server a client provides over ACP (`mcpServers` entry `{"type": "acp"}`) is reached only on
the connection that declared it, also when one `acp serve` holds several: a second client that
resumes the session without sending `mcpServers` is not sent `mcp/message` for an id it never
declared (the server is not connected there, and says why), while the client that declared it
was asked."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.remote.serving import Served
from tests.remote.test_serve_peers import Client, two_clients

PROVIDED = [{"type": "acp", "name": "tools", "serverId": "srv-of-a"}]


async def _drive(url: str, cwd: str) -> tuple[Client, Client]:
    async with two_clients(url, ("declares", "resumes")) as (a, b):
        for client in (a, b):
            await client.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        opened = await a.call("session/new", {"cwd": cwd, "mcpServers": PROVIDED})
        sid = opened["result"]["sessionId"]
        await a.drain()  # the agent reaches A's server
        await a.call("session/close", {"sessionId": sid})
        resumed = await b.call("session/resume", {"sessionId": sid, "cwd": cwd})
        assert "result" in resumed, resumed
        await b.drain()
        return a, b


def _mcp(client: Client) -> list[dict[str, Any]]:
    return [r for r in client.asked if r["method"] == "mcp/message"]


def test_a_server_provided_over_acp_is_reached_only_where_it_was_declared(tmp_path: Path) -> None:
    served = Served(tmp_path, "--model", "offline")
    try:
        a, b = asyncio.run(_drive(served.url, str(served.workspace)))
    finally:
        assert served.stop() == 0
    assert _mcp(a) and all(r["params"]["serverId"] == "srv-of-a" for r in _mcp(a))
    assert _mcp(b) == [], _mcp(b)
