"""The client's own MCP server over ACP (the unstable schema's `McpServerAcp`): a scenario
declares it in a session's `mcpServers` as `{"type": "acp", "name", "serverId"}`, and the agent
reaches it with `mcp/message` requests to the client, `{serverId, requestId, method, params}`.

The runner answers them as the official binding does (the TypeScript SDK's
`McpOverAcpProvider`, `@agentclientprotocol/sdk` 2.4.0, dist/mcp/core.js):
- outer JSON-RPC errors for the binding's failures: a malformed envelope (serverId, requestId or
  method not strings) or a `(serverId, requestId)` already active is -32602, a serverId no
  request of the client declared on this connection is -33001;
- inner MCP errors, in a result `{"error": {code, message}}`, for a request whose `params._meta`
  lacks `io.modelcontextprotocol/protocolVersion` (-32602), names another version than
  2026-07-28 (-32022), or lacks `io.modelcontextprotocol/clientCapabilities` as an object
  (-32602);
- else the inner result `{"result": ...}` of its stateless MCP 2026-07-28 server:
  `server/discover`, `tools/list` (one tool, `conformance_echo`, whose call answers
  `ECHO_PREFIX` and its `message`), `tools/call`, `ping`; any other method is an inner -32601.

An answer the envelope checks let through is sent `HOLD` seconds later, from a thread: a request
counts as active until then, so a second request the agent sends meanwhile under the same
requestId (one it pipelined without waiting) is seen as the duplicate it is. Every request is
kept in `received`, in order, with what it was answered, for the checks (mcp_checks.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MCP_VERSION = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_UNAVAILABLE = -33001
UNSUPPORTED_VERSION = -32022
HOLD = 0.05  # seconds an answer waits before it is sent (the request stays active)
ECHO_PREFIX = "conformance-acp-echo: "
ECHO = {
    "name": "conformance_echo",
    "description": "Echo a message back.",
    "inputSchema": {
        "type": "object",
        "properties": {"message": {"type": "string"}},
        "required": ["message"],
    },
}
Reply = Callable[..., None]  # (result=..) or (error=(code, message))


@dataclass
class Received:
    """One `mcp/message` request the server got, and what it answered."""

    params: Any
    outer: tuple[int, str] | None = None  # the binding's outer error, if any
    outcome: dict[str, Any] = field(default_factory=dict)  # {"result": ..} or {"error": ..}
    duplicate: bool = False  # its (serverId, requestId) was active when it came

    @property
    def method(self) -> Any:
        return self.params.get("method") if isinstance(self.params, dict) else None

    @property
    def inner(self) -> dict[str, Any]:
        """The inner MCP params (an empty object where there are none)."""
        params = self.params.get("params") if isinstance(self.params, dict) else None
        return params if isinstance(params, dict) else {}


class McpOverAcp:
    def __init__(self) -> None:
        self.declared: dict[str, str] = {}  # serverId → name, as the client declared them
        self.received: list[Received] = []
        self._active: set[tuple[str, str]] = set()
        self.unsent = 0  # answers held (HOLD) and not yet sent
        self._timers: list[threading.Timer] = []
        self._lock = threading.Lock()

    def declare(self, servers: Any) -> None:
        """The client sent these `mcpServers` (a request's params): its `acp` entries."""
        for entry in servers if isinstance(servers, list) else []:
            if isinstance(entry, dict) and entry.get("type") == "acp":
                sid, name = entry.get("serverId"), entry.get("name")
                if isinstance(sid, str) and isinstance(name, str):
                    self.declared[sid] = name

    def handle(self, params: Any, reply: Reply) -> Received:
        """One `mcp/message` request: refused at once (the binding's outer errors), or
        answered after HOLD."""
        got = Received(params)
        self.received.append(got)
        body = params if isinstance(params, dict) else {}
        sid, rid, method = body.get("serverId"), body.get("requestId"), body.get("method")
        if not all(isinstance(v, str) for v in (sid, rid, method)):
            got.outer = (-32602, "Invalid params: serverId, requestId and method are strings")
        elif sid not in self.declared:
            got.outer = (SERVER_UNAVAILABLE, "MCP server registration unavailable")
        with self._lock:
            if got.outer is None and (sid, rid) in self._active:
                got.duplicate = True
                got.outer = (-32602, "duplicate active MCP request ID")
            if got.outer is None:
                self._active.add((str(sid), str(rid)))
        if got.outer is not None:
            reply(error=got.outer)
            return got
        got.outcome = self.outcome(str(method), got.inner)
        with self._lock:
            self.unsent += 1
        timer = threading.Timer(HOLD, self._answer, (got, (str(sid), str(rid)), reply))
        timer.daemon = True
        self._timers.append(timer)
        timer.start()
        return got

    def _answer(self, got: Received, key: tuple[str, str], reply: Reply) -> None:
        with self._lock:
            self._active.discard(key)
        try:
            reply(result=got.outcome)
        finally:
            with self._lock:
                self.unsent -= 1

    def outcome(self, method: str, inner: dict[str, Any]) -> dict[str, Any]:
        """The inner outcome of one request whose envelope the binding took."""
        found = inner.get("_meta")
        meta: dict[str, Any] = found if isinstance(found, dict) else {}
        version = meta.get(VERSION_KEY)
        if not isinstance(version, str):
            return _inner_error(-32602, f"Invalid params: missing {VERSION_KEY} in params._meta")
        if version != MCP_VERSION:
            data = {"supported": [MCP_VERSION], "requested": version}
            return _inner_error(UNSUPPORTED_VERSION, "Unsupported protocol version", data)
        if not isinstance(meta.get(CAPABILITIES_KEY), dict):
            why = f"Invalid params: missing {CAPABILITIES_KEY} in params._meta"
            return _inner_error(-32602, why)
        if method == "server/discover":
            info = {"name": "acp-conformance", "version": "1"}
            found = {"supportedVersions": [MCP_VERSION], "capabilities": {"tools": {}}}
            return _complete({**found, "serverInfo": info})
        if method == "tools/list":
            return _complete({"tools": [ECHO]})
        if method == "tools/call":
            return self._call(inner)
        if method == "ping":
            return _complete({})
        return _inner_error(-32601, f"Method not found: {method}")

    def _call(self, inner: dict[str, Any]) -> dict[str, Any]:
        if inner.get("name") != ECHO["name"]:
            return _inner_error(-32602, f"Unknown tool: {inner.get('name')}")
        arguments = inner.get("arguments")
        message = arguments.get("message", "") if isinstance(arguments, dict) else ""
        text = ECHO_PREFIX + str(message)
        return _complete({"content": [{"type": "text", "text": text}], "isError": False})

    def close(self) -> None:
        for timer in self._timers:
            timer.cancel()


def _complete(result: dict[str, Any]) -> dict[str, Any]:
    return {"result": {**result, "resultType": "complete"}}


def _inner_error(code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"error": error}
