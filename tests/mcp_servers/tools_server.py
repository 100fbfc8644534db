"""An MCP server for the tests, on the official SDK: `python tools_server.py stdio|http|sse [port]`.

Tools: `echo` (its text back), `cwd` (the server's working directory; marked read-only), `env` (one variable),
`add_tool` (registers `late` and sends tools/list_changed), `ask` (an elicitation: a form, or a
URL with `url=`, whose completion it announces once accepted), `can_elicit` (the elicitation
modes the host advertised), and `pid` (the server's process id, for the reaping tests). Prompt, with
TEST_MCP_PROMPTS set: `review` (`path`, and `focus`, by default "bugs").
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel

server = MCPServer(os.environ.get("TEST_MCP_NAME", "tools"))


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def cwd() -> str:
    """The server's working directory."""
    return os.getcwd()


def review(path: str, focus: str = "bugs") -> str:
    """Review a file."""
    return f"Review {path} for {focus}."


if os.environ.get("TEST_MCP_PROMPTS"):  # the prompt tests only: others see no prompts
    server.prompt()(review)


@server.tool()
def env(name: str) -> str:
    """One environment variable of the server, or an empty string."""
    return os.environ.get(name, "")


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


class Answer(BaseModel):
    colour: str


@server.tool()
async def ask(ctx: Context, url: str = "") -> str:
    """Ask the user for a colour (a form), or to visit a URL."""
    if url:
        result = await ctx.elicit_url("Visit this page", url, "el-1")
        if result.action == "accept":  # the user went through with it, out of band
            await ctx.session.send_elicit_complete("el-1")
        return f"url:{result.action}"
    answer = await ctx.elicit("Which colour?", Answer)
    if answer.action == "accept":
        return f"accept:{answer.data.colour}"
    return answer.action


@server.tool()
async def can_elicit(ctx: Context) -> str:
    """The elicitation modes the host said it supports, or `none`."""
    caps = ctx.session.client_capabilities
    found = caps.elicitation if caps is not None else None
    if found is None:
        return "none"
    return ",".join(mode for mode in ("form", "url") if getattr(found, mode, None) is not None)


@server.tool()
async def add_tool(ctx: Context) -> str:
    """Register the `late` tool and tell the client the tool list changed."""

    def late() -> str:
        """A tool that appears at run time."""
        return "late"

    server.add_tool(late)
    await ctx.session.send_tool_list_changed()
    return "added"


if __name__ == "__main__":
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if transport == "stdio":
        server.run("stdio")
    else:
        port = int(sys.argv[2])
        kind = "streamable-http" if transport == "http" else "sse"
        server.run(kind, host="127.0.0.1", port=port)  # type: ignore[call-overload]
