"""How an MCP server's tools and prompts are named to the model and in slash commands:
`mcp__<server>__<name>`, characters outside `[A-Za-z0-9_-]` made `_`, cut to 64."""

from __future__ import annotations

import re

NAME_LIMIT = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def model_name(server: str, tool: str) -> str:
    return _UNSAFE.sub("_", f"mcp__{server}__{tool}")[:NAME_LIMIT]
