"""One MCP server the client provides over the ACP connection (acp_channel.py), as a link the
session's server set holds beside the SDK's (link.py): the same states, tools and calls.

MCP 2026-07-28 is stateless, so connecting is two questions and nothing stays open: what the
server supports (`server/discover`: it must speak 2026-07-28; a server without the method is
asked for its tools all the same), then its tools (`tools/list`, every page). A call is one
`tools/call`. What is not offered from such a server, and said in docs/features.md: its prompts
(no slash commands from it), a tool list that changes while the session runs (`/mcp reconnect`
reads it again), and a call whose server asks for more input (`input_required`: the call fails
saying so).

A server the client did not declare on this connection (a stored entry read in a later process)
fails at once, naming what to do: the client sends its `mcpServers` again.
"""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import Any

from reasonix_acp.mcp_servers.acp_channel import MCP_VERSION, AcpChannel, McpFailure
from reasonix_acp.mcp_servers.link import Link
from reasonix_acp.protocol.errors import ConnectionClosed, RemoteError
from reasonix_acp.redact import redact

log = logging.getLogger("reasonix_acp.mcp")

CONNECT_TIMEOUT = 20.0
METHOD_NOT_FOUND = -32601
MAX_PAGES = 100  # tools/list pages read at most: a server that pages forever fails


class AcpLink:
    transport = "acp"

    def __init__(self, spec: dict[str, Any], channel: AcpChannel | None) -> None:
        self.spec = spec
        self.name: str = spec["name"]
        self.server_id: str = spec["serverId"]
        self.channel = channel
        self.state = "stopped"  # connecting | connected | failed | stopped
        self.error: str | None = None
        self.tools: list[Any] = []
        self.prompts: list[Any] = []  # not offered from a server over ACP
        self.server_info = ""
        self.reported = False
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    def start(self) -> None:
        self.state, self.error = "connecting", None
        self._ready.clear()
        channel = self.channel
        if channel is None or not channel.declared(self.server_id):
            self._fail(
                "not connected: a server the client provides over ACP is reached only on the "
                "connection that declared it; the client must send mcpServers again "
                "(session/load, or session/resume with mcpServers)"
            )
            self._ready.set()
            return
        self._task = asyncio.get_running_loop().create_task(self._connect(channel))

    async def _connect(self, channel: AcpChannel) -> None:
        try:
            await self._discover(channel)
            self.tools = await self._list_tools(channel)
            self.state = "connected"
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if self.state == "connecting":
                self._fail(_reason(exc))
        finally:
            self._ready.set()

    async def _discover(self, channel: AcpChannel) -> None:
        try:
            found = await channel.ask(self.server_id, "server/discover")
        except McpFailure as exc:
            if exc.code == METHOD_NOT_FOUND:
                return  # MCP says a server must answer it; its tools may still be there
            raise
        found = found if isinstance(found, dict) else {}
        versions = found.get("supportedVersions")
        if isinstance(versions, list) and MCP_VERSION not in versions:
            shown = ", ".join(map(str, versions)) or "none"
            raise ValueError(f"it speaks MCP {shown}; MCP over ACP carries {MCP_VERSION}")
        info = found.get("serverInfo")
        if isinstance(info, dict):
            self.server_info = f"{info.get('name', '')} {info.get('version', '')}".strip()

    async def _list_tools(self, channel: AcpChannel) -> list[Any]:
        tools: list[Any] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await channel.ask(
                self.server_id, "tools/list", {"cursor": cursor} if cursor else None
            )
            listed = page.get("tools") if isinstance(page, dict) else None
            if not isinstance(listed, list):
                raise ValueError("its tools/list answer has no list of tools")
            tools += [
                _tool(t) for t in listed if isinstance(t, dict) and isinstance(t.get("name"), str)
            ]
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor:
                return tools
        raise ValueError(f"its tools/list gave more than {MAX_PAGES} pages")

    async def ready(self, timeout: float = CONNECT_TIMEOUT) -> None:
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except TimeoutError:
            self._fail(f"did not answer within {timeout:g} s")
            await self.stop()
            self.state = "failed"

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self._ready.set()
        if self.state != "failed":
            self.state = "stopped"

    def _fail(self, reason: str) -> None:
        self.state, self.error = "failed", redact(reason, 500)
        self.reported = False
        log.warning("MCP server %r: %s", self.name, reason)

    async def refresh(self) -> bool:
        return False  # a change is read by /mcp reconnect

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        raise ConnectionError(f"MCP server {self.name} offers no prompts over ACP here")

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        channel = self.channel
        if self.state != "connected" or channel is None:
            raise ConnectionError(f"MCP server {self.name} is {self.state}")
        try:
            result = await channel.ask(
                self.server_id, "tools/call", {"name": tool, "arguments": arguments}
            )
        except (RemoteError, ConnectionClosed) as exc:
            self._fail(_reason(exc))  # the binding failed: no server, or no client
            raise
        if not isinstance(result, dict):
            raise ValueError("its tools/call answer is not an object")
        if result.get("resultType") == "input_required":
            raise ValueError(
                "it asked for more input (MCP input_required), which is not answered here"
            )
        content = result.get("content")
        return SimpleNamespace(
            content=[b for b in content if isinstance(b, dict)]
            if isinstance(content, list)
            else [],
            is_error=result.get("isError") is True,
            structured_content=result.get("structuredContent"),
        )


ServerLink = Link | AcpLink  # a server through the SDK, or one the client provides over ACP


def _tool(listed: dict[str, Any]) -> Any:
    """A listed tool in the shape McpTool reads (the SDK's Tool's attributes)."""
    annotations = listed.get("annotations")
    read_only = isinstance(annotations, dict) and annotations.get("readOnlyHint") is True
    schema = listed.get("inputSchema")
    return SimpleNamespace(
        name=listed["name"],
        description=listed.get("description")
        if isinstance(listed.get("description"), str)
        else None,
        input_schema=schema if isinstance(schema, dict) else {},
        annotations=SimpleNamespace(read_only_hint=read_only),
    )


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
