"""The broken agent's MCP servers (broken_agent.py, its tool loop broken_tools.py).

The tools of the runner's stdio MCP server (`conformance`) are never started: the tool loop
makes their calls itself (StandInTools), asking the client what the server would ask it
(`elicitation/create`).

The servers the client provides over ACP (AcpServers), the `{"type": "acp", "name",
"serverId"}` entries of a session's `mcpServers`, are reached with `mcp/message` requests to
the client. At the session's first turn (QUIRK mcp-acp-eager: once session/new is answered) it
asks each `server/discover` and `tools/list`, offers the model their tools as
`mcp__<name>__<tool>` and makes a call of one a `tools/call`. Each request carries the `_meta`
MCP 2026-07-28 asks of it and a requestId of its own. Correct by default; the faults (BREAK) it
knows:

  mcp-acp-meta     its requests' _meta lacks io.modelcontextprotocol/protocolVersion
  mcp-acp-dup-id   server/discover and tools/list go out at once, under one requestId
  mcp-acp-local    answers a call of the server's tool itself: no tools/call reaches it
  bad-requests     its requests lack serverId
"""

from __future__ import annotations

import itertools
import os
import threading

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Request = Callable[..., tuple[Any, Any]]  # (method, params) → (result, error)

BREAK = {b.strip() for b in os.environ.get("BREAK", "").split(",") if b.strip()}
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
MCP_VERSION = "2026-07-28"
FORM = {"type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]}


def declared(servers: Any) -> list[dict[str, Any]]:
    """The `acp` entries of a session/new's `mcpServers`."""
    return [
        s
        for s in (servers if isinstance(servers, list) else [])
        if isinstance(s, dict) and s.get("type") == "acp" and isinstance(s.get("serverId"), str)
    ]


class AcpServers:
    """One session's servers over ACP, connected at its first turn."""

    def __init__(self, servers: list[dict[str, Any]], request: Request) -> None:
        self.servers, self.request = servers, request
        self.tools: dict[str, tuple[str, str]] = {}  # offered name → (serverId, MCP tool name)
        self.listed: list[dict[str, Any]] = []  # the OpenAI tools offered the model
        self.connected = False
        self._ids = itertools.count(1)
        self._connecting = threading.Lock()  # a connection begun at session/new is waited for

    def ask(self, server: str, method: str, params: Any = None, rid: str = "") -> tuple[Any, Any]:
        """One MCP request → (inner result, error): the outer error, or the inner one."""
        meta: dict[str, Any] = {VERSION_KEY: MCP_VERSION, CAPABILITIES_KEY: {}}
        if "mcp-acp-meta" in BREAK:
            del meta[VERSION_KEY]
        body: dict[str, Any] = {
            "serverId": server,
            "requestId": rid or f"broken-{next(self._ids)}",
            "method": method,
            "params": {**(params or {}), "_meta": meta},
        }
        if "bad-requests" in BREAK:
            del body["serverId"]
        result, error = self.request("mcp/message", body)
        if error is not None or not isinstance(result, dict):
            return None, error or {"message": "no result"}
        if "result" in result:
            return result["result"], None
        return None, result.get("error")

    def _discover_and_list(self, server: str) -> tuple[Any, Any]:
        """(the tools/list result, an error): mcp-acp-dup-id sends both at once, one id."""
        if "mcp-acp-dup-id" not in BREAK:
            _, error = self.ask(server, "server/discover")
            return (None, error) if error is not None else self.ask(server, "tools/list")
        answers: dict[str, tuple[Any, Any]] = {}

        def asking(method: str) -> None:
            answers[method] = self.ask(server, method, rid="broken-same")

        methods = ("server/discover", "tools/list")
        threads = [threading.Thread(target=asking, args=(m,)) for m in methods]
        for thread in threads:  # at once: the first is still active when the second goes
            thread.start()
        for thread in threads:
            thread.join()
        errors = [e for _, e in answers.values() if e is not None]
        return (None, errors[0]) if errors else answers["tools/list"]

    def connect(self) -> None:
        """Each server's tools, once; a server that fails offers none."""
        with self._connecting:
            if not self.connected:
                self.connected = True
                self._connect()

    def _connect(self) -> None:
        for server in self.servers:
            listed, error = self._discover_and_list(server["serverId"])
            if error is not None or not isinstance(listed, dict):
                continue
            for tool in listed.get("tools") or []:
                name = f"mcp__{server['name']}__{tool['name']}"
                self.tools[name] = (server["serverId"], tool["name"])
                function = {"name": name, "parameters": tool.get("inputSchema") or {}}
                self.listed.append({"type": "function", "function": function})

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        """(it succeeded, the text of its result or why it failed)."""
        server, tool = self.tools[name]
        if "mcp-acp-local" in BREAK:
            return True, f"echoed locally: {arguments.get('message')}"
        result, error = self.ask(server, "tools/call", {"name": tool, "arguments": arguments})
        if error is not None:
            return False, f"tools/call: {error.get('message')}"
        content = result.get("content") if isinstance(result, dict) else None
        texts = [c.get("text", "") for c in content or [] if isinstance(c, dict)]
        return not result.get("isError"), "\n".join(texts)


class StandInTools:
    """The stdio MCP server's tools, made by the tool loop (broken_tools.Tools)."""

    caps: dict[str, Any]
    client: Callable[[str, dict[str, Any]], Any]

    def do_elicit(self, args: dict[str, Any], path: str, tid: str) -> tuple[str, list[Any]]:
        """What the MCP server's tool does, asked of the client as ACP elicitation/create."""
        offered = (self.caps.get("elicitation") or {}).get("form") is not None
        if not offered and "ignore-caps" not in BREAK:
            return "cancel", []
        params = {"toolCallId": tid, "mode": "form", "message": "Which colour?"}
        params["requestedSchema"] = FORM
        if "bad-requests" in BREAK:
            del params["message"]
        answer = self.client("elicitation/create", params)
        action = str(answer.get("action"))
        colour = (answer.get("content") or {}).get("colour")
        text = f"accept:{colour}" if action == "accept" else action
        return text, [{"type": "content", "content": {"type": "text", "text": text}}]

    def do_url(self, args: dict[str, Any], path: str, tid: str) -> tuple[str, list[Any]]:
        """A URL-mode elicitation of the MCP server's, asked of the client."""
        if (self.caps.get("elicitation") or {}).get("url") is None and "ignore-caps" not in BREAK:
            return "url:cancel", []
        url = "https://example.com/conformance/sign-in"
        params = {"toolCallId": tid, "mode": "url", "message": "Sign in", "url": url}
        params["elicitationId"] = "conformance-url-1"
        if "bad-requests" in BREAK:
            del params["url"]
        answer = self.client("elicitation/create", params)
        return f"url:{answer.get('action')}", []
