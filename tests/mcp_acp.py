"""A client's MCP server over ACP, standing in for the official binding
(`@agentclientprotocol/sdk` 2.4.0's `McpOverAcpProvider`, dist/mcp/core.js) and refusing what it
refuses: an unknown `serverId` (outer -33001), a request whose inner `_meta` lacks the MCP
2026-07-28 protocol version or the client capabilities (inner errors -32022 and -32602). It
answers each request as it comes, so none is active when the next arrives (the binding's
refusal of a duplicate active `requestId` cannot arise; tests check the ids are unique). Its server speaks MCP 2026-07-28:
`server/discover`, `tools/list`, `tools/call`; every request it got is in `seen`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER = {"type": "acp", "name": "tools", "serverId": "srv-1"}
ECHO = {
    "name": "echo",
    "description": "Echo a message",
    "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}},
}


class Provider:
    """The client's MCP server over ACP, with the binding's checks."""

    def __init__(self, server_ids: tuple[str, ...] = ("srv-1",)) -> None:
        self.server_ids = server_ids
        self.seen: list[dict[str, Any]] = []
        self.tools: list[dict[str, Any]] = [ECHO]
        self.call: Callable[[dict[str, Any]], dict[str, Any]] = lambda params: {
            "result": {
                "content": [{"type": "text", "text": f"echo: {_message(params)}"}],
                "resultType": "complete",
            }
        }

    @property
    def calls(self) -> list[dict[str, Any]]:
        """The `tools/call` requests the server got, in order."""
        return [s for s in self.seen if s["method"] == "tools/call"]

    def answer(self, frame: dict[str, Any]) -> dict[str, Any]:
        """The response frame for one `mcp/message` request."""
        params = frame["params"]
        self.seen.append(params)
        if params["serverId"] not in self.server_ids:
            return _error(frame, -33001, "no registration for this server ID")
        meta = (params.get("params") or {}).get("_meta") or {}
        if meta.get(VERSION_KEY) != "2026-07-28":
            outcome: dict[str, Any] = {"error": {"code": -32022, "message": "Unsupported version"}}
        elif not isinstance(meta.get(CAPABILITIES_KEY), dict):
            outcome = {"error": {"code": -32602, "message": "Invalid params: capabilities"}}
        elif params["method"] == "server/discover":
            outcome = {
                "result": {
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "stand-in", "version": "1"},
                    "resultType": "complete",
                }
            }
        elif params["method"] == "tools/list":
            outcome = {"result": {"tools": self.tools, "resultType": "complete"}}
        elif params["method"] == "tools/call":
            outcome = self.call(params["params"])
        else:
            outcome = {"error": {"code": -32601, "message": "Method not found"}}
        return {"jsonrpc": "2.0", "id": frame["id"], "result": outcome}


def _error(frame: dict[str, Any], code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": frame["id"], "error": {"code": code, "message": message}}


def _message(params: dict[str, Any]) -> str:
    arguments = params.get("arguments")
    return str(arguments.get("message")) if isinstance(arguments, dict) else ""
