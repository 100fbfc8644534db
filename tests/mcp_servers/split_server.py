"""An MCP server for the secret tests, on the official SDK, over stdio: `halves` answers with
one environment variable of the server split across two text blocks (tests/test_split_secrets.py)."""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer
from mcp.types import TextContent

server = MCPServer("split")


@server.tool()
def halves(name: str) -> list[TextContent]:
    """The variable's value in two text blocks, cut in its middle."""
    value = os.environ.get(name, "")
    middle = len(value) // 2
    return [
        TextContent(type="text", text=f"token: {value[:middle]}"),
        TextContent(type="text", text=f"{value[middle:]} (the end)"),
    ]


if __name__ == "__main__":
    server.run("stdio")
