"""MCP over ACP on this connection: the client's requests channel for the MCP servers it
provides itself (`mcpServers` entries `{"type": "acp", "name", "serverId"}`), reached with
`mcp/message` requests to the client (the pinned unstable schema's binding, MCP 2026-07-28).

Invariants:
- A server is reached only by the `serverId` the client declared on this connection (in a
  `session/new`, `load`, `resume` or `fork` it sent here): the schema scopes an id to its
  connection, so a copy read from the store in a later process names nothing and is not
  connected (acp_link.py says so to the user).
- Each request carries the `_meta` MCP 2026-07-28 asks of every request (its protocol version,
  the agent's MCP client capabilities and identity) and a `requestId` no other request active on
  this connection has (a counter). The outcome is the inner MCP result, or `McpFailure` for
  an inner MCP error; outer ACP errors (the binding's: no such server, the backend failed, a
  limit) and a closed connection are raised as the connection raises them.
- Cancelling the awaiting task cancels the outer request (`$/cancel_request`,
  server/connection.py), which is how the binding cancels an MCP request.
- Notifications the client sends for an active request (`notifications/progress`, ...) are
  read and dropped: nothing here shows progress. One for a request not active is dropped too,
  as the binding asks.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from reasonix_acp import __version__
from reasonix_acp.generated.methods import MCP_MESSAGE

log = logging.getLogger("reasonix_acp.mcp")

MCP_VERSION = "2026-07-28"  # the only MCP revision the binding carries
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT = "io.modelcontextprotocol/clientInfo"
CLIENT_INFO = {"name": "reasonix-acp", "version": __version__}

Request = Callable[[str, dict[str, Any]], Awaitable[Any]]


class McpFailure(Exception):
    """The server answered with an inner MCP error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{message} (MCP error {code})")
        self.code = code


class AcpChannel:
    def __init__(self, request: Request) -> None:
        self._request = request
        # The connection being served (`acp serve` serves several; None on stdio); set by the
        # agent. The ids each connection declared are its own.
        self.who: Callable[[], object] = lambda: None
        self._declared: dict[object, set[str]] = {}
        self._ids = itertools.count(1)
        self._active: set[tuple[str, str]] = set()

    def declare(self, specs: list[dict[str, Any]]) -> None:
        """The client sent these `mcpServers` on this connection."""
        ids = {s["serverId"] for s in specs if s.get("type") == "acp"}
        if ids:
            self._declared.setdefault(self.who(), set()).update(ids)

    def declared(self, server_id: str) -> bool:
        """Whether the client of the connection being served declared `server_id`."""
        return server_id in self._declared.get(self.who(), ())

    def forget(self, connection: object) -> None:
        """That connection is gone: what it declared names nothing any more."""
        self._declared.pop(connection, None)

    async def ask(self, server_id: str, method: str, params: dict[str, Any] | None = None) -> Any:
        """One MCP request to a server the client provides: its inner result."""
        request_id = f"reasonix-{next(self._ids)}"
        meta = {META_VERSION: MCP_VERSION, META_CAPABILITIES: {}, META_CLIENT: CLIENT_INFO}
        inner = {**(params or {}), "_meta": meta}
        body = {"serverId": server_id, "requestId": request_id, "method": method, "params": inner}
        self._active.add((server_id, request_id))
        try:
            answer = await self._request(MCP_MESSAGE, body)
        finally:
            self._active.discard((server_id, request_id))
        data = answer.model_dump(mode="json", by_alias=True, exclude_unset=True)
        if "result" in data:  # the binding: a receiver prefers `result` when both are there
            return data["result"]
        error = data["error"]
        raise McpFailure(int(error["code"]), str(error["message"]))

    def notified(self, params: Any) -> None:
        """An `mcp/message` notification from the client: read, and dropped."""
        key = (params.server_id, params.request_id)
        state = "active" if key in self._active else "not active"
        log.debug("mcp/message %s for %s request %s (%s): dropped", params.method, *key, state)
