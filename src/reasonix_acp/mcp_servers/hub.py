"""The MCP servers of one session: started when it opens, stopped when it closes.

- The set is config.toml's `[mcp_servers.*]` with the client's `mcpServers` on top: a client
  server replaces a config server of the same name, for this session only. A session that
  sends none gets only config's; nothing is shared between sessions.
- Stdio servers start outside the workspace and learn it as MCP roots (link.py, launch.py).
- Servers connect in the background from the moment the session opens; a prompt waits for
  them (bounded) before its first model call, so a slow server delays a turn, never an opening.
- A server that fails is reported once to the user (a warning chunk in the next turn), with
  the detail on stderr and in `/mcp`; `/mcp reconnect [name]` tries again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from reasonix_acp.config.mcp_entries import shown_url
from reasonix_acp.mcp_servers.acp_link import AcpLink, ServerLink
from reasonix_acp.mcp_servers.link import Link
from reasonix_acp.mcp_servers.naming import model_name

if TYPE_CHECKING:
    from reasonix_acp.mcp_servers.acp_channel import AcpChannel
    from reasonix_acp.mcp_servers.elicit import TurnInteractions
    from reasonix_acp.mcp_servers.tools import McpTool


def merged(
    config_servers: list[dict[str, Any]], client: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    names = {s["name"] for s in client}
    return [s for s in config_servers if s["name"] not in names] + list(client)


class ServerSet:
    def __init__(
        self,
        specs: list[dict[str, Any]],
        cwd: str,
        elicits: bool = False,
        extra: Sequence[str] = (),
        channel: AcpChannel | None = None,
    ) -> None:
        """`elicits`: the client can answer an elicitation (it advertised `elicitation`, or
        opted in to the `_reasonix.io` MCP interaction); only then are servers told the host
        can elicit (the MCP `elicitation` capability). `cwd` and `extra` (the session's
        additional directories) are the roots servers are offered. `channel`: how servers the
        client provides over ACP are reached (acp_channel.py)."""
        self.cwd = cwd
        self.channel = channel
        self.extra = list(extra)
        # Set by the running turn; None: elicitations cancel, completions go nowhere.
        self.elicit: TurnInteractions | None = None
        self.elicits = elicits
        self.links = {s["name"]: self._link(s) for s in specs}

    def _link(self, spec: dict[str, Any]) -> ServerLink:
        if spec.get("type") == "acp":
            return AcpLink(spec, self.channel)
        if not self.elicits:
            return Link(spec, self.cwd, extra=self.extra)
        return Link(spec, self.cwd, self._elicit, self._completed, self.extra)

    async def _elicit(self, server: str, params: dict[str, Any]) -> dict[str, Any]:
        if self.elicit is None:
            return {"action": "cancel"}
        return await self.elicit(server, params)

    def _completed(self, server: str, elicitation_id: str) -> None:
        if self.elicit is not None:
            self.elicit.completed(server, elicitation_id)

    def __bool__(self) -> bool:
        return bool(self.links)

    def start(self) -> None:
        for link in self.links.values():
            link.start()

    async def settled(self) -> None:
        """Until every link has connected or failed (failures are left to `ready` to report)."""
        await asyncio.gather(*(link.ready() for link in self.links.values()))

    async def ready(self) -> list[ServerLink]:
        """Wait for every link to connect or fail; the failures not yet reported."""
        await asyncio.gather(*(link.ready() for link in self.links.values()))
        fresh = [k for k in self.links.values() if k.state == "failed" and not k.reported]
        for link in fresh:
            link.reported = True
        return fresh

    async def stop(self) -> None:
        await asyncio.gather(*(link.stop() for link in self.links.values()))

    async def reconnect(self, name: str | None = None) -> list[ServerLink]:
        chosen = [k for n, k in self.links.items() if name in (None, n)]
        await asyncio.gather(*(link.stop() for link in chosen))
        for link in chosen:
            link.start()
        await asyncio.gather(*(link.ready() for link in chosen))
        for link in chosen:
            link.reported = True
        return chosen

    async def tools(self) -> list[McpTool]:
        """The connected servers' tools, re-read where a server said its list changed."""
        # lazy: start-up (a session's servers are asked for tools by its first prompt)
        from reasonix_acp.mcp_servers.tools import McpTool

        links = [k for k in self.links.values() if k.state == "connected"]
        await asyncio.gather(*(link.refresh() for link in links))
        out: list[McpTool] = []
        taken: set[str] = set()
        for link in links:
            for tool in link.tools:
                name = model_name(link.name, tool.name)
                while name in taken:
                    name = name[:60] + f"_{len(taken)}"
                taken.add(name)
                out.append(McpTool(link, tool, name))
        return out

    def status(self) -> str:
        if not self.links:
            return "No MCP servers in this session (the client sent none and config.toml has none)."
        lines = ["MCP servers of this session:"]
        for link in self.links.values():
            url = link.spec.get("url")
            where = shown_url(url) if url else link.spec.get("command", "provided by the client")
            line = f"- {link.name} ({link.transport}, {where}): {link.state}"
            if link.state == "connected":
                names = ", ".join(t.name for t in link.tools) or "none"
                line += f"; tools: {names}"
            elif link.error:
                line += f"; {link.error}"
            lines.append(line)
        if any(k.state == "failed" for k in self.links.values()):
            lines.append("Run /mcp reconnect [name] to try again.")
        return "\n".join(lines)
