"""The tool interface the turn runner drives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


class ToolFailed(Exception):
    """The tool ran and failed; the message goes back to the model and to the client."""


@dataclass
class ToolResult:
    text: str  # what the model sees
    content: list[dict[str, Any]] = field(default_factory=list)  # ToolCallContent for the client
    raw_output: Any = None
    plan: list[dict[str, Any]] | None = None  # a plan update to send before the result


@dataclass
class ToolContext:
    cwd: str
    session_id: str


class Tool(Protocol):
    name: str
    kind: str
    schema: dict[str, Any]

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str: ...

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult: ...
