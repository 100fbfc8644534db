"""Params in their plainest shape, decoded without pydantic; anything else goes to the model.

Importing pydantic costs more than everything else a new session does, and most `session/new`
requests are `{"cwd": ..., "mcpServers": []}`. A light decoder accepts only shapes the generated
model accepts with exactly the same values, and returns None for everything else, so the model
still decides every error, every lenient fallback and every extra field. tests/protocol/
test_light.py checks that against the model on generated params.
"""

from __future__ import annotations

from typing import Any

NEW_SESSION_KEYS = frozenset({"cwd", "mcpServers", "additionalDirectories", "_meta"})


class NewSessionParams:
    """`session/new` params with no MCP server: the attributes the handler reads."""

    __slots__ = ("additional_directories", "cwd", "field_meta", "mcp_servers")

    def __init__(
        self, cwd: str, additional_directories: list[str] | None, meta: dict[str, Any] | None
    ) -> None:
        self.cwd = cwd
        self.additional_directories = additional_directories
        self.field_meta = meta
        self.mcp_servers: list[Any] = []


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(type(item) is str for item in value)


def new_session(params: dict[str, Any]) -> NewSessionParams | None:
    """The params when they have this plain shape, else None (the model decodes them)."""
    if not params.keys() <= NEW_SESSION_KEYS:
        return None
    cwd = params.get("cwd")
    dirs = params.get("additionalDirectories")
    meta = params.get("_meta")
    if (
        type(cwd) is not str
        or params.get("mcpServers", 0) != []
        or not (dirs is None or _strings(dirs))
        or not (meta is None or type(meta) is dict)
    ):
        return None
    return NewSessionParams(cwd, None if dirs is None else list(dirs), meta)
