"""The tools server (tools_server.py) with one more tool, `roots`: the roots the host offers
(`roots/list`), their file:// URIs one per line, or `none: <why>` when it offers none."""

from __future__ import annotations

import warnings

from mcp.server.mcpserver import Context
from tools_server import server

# The SDK marks roots deprecated from protocol 2026-07-28 on; hosts still offer them.
warnings.simplefilter("ignore")


@server.tool()
async def roots(ctx: Context) -> str:
    """The host's roots, one URI a line."""
    try:
        listed = await ctx.session.list_roots()
    except Exception as exc:
        return f"none: {exc}"
    return "\n".join(str(root.uri) for root in listed.roots)


if __name__ == "__main__":
    server.run("stdio")
