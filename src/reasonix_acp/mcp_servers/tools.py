"""An MCP server's tool as one of the model's tools.

The model sees `mcp__<server>__<tool>` (characters outside `[A-Za-z0-9_-]` become `_`, cut to
64). Calls go through the permission gate as access "mcp": they ask unless the preset is
danger-full-access, and an "always" answer covers that one tool of that server for the session.
The result's content becomes ACP content (text, images, embedded resources, resource links);
`isError` fails the call; structured content is the call's `rawOutput`.
"""

from __future__ import annotations

from typing import Any

from reasonix_acp.mcp_servers.link import Link
from reasonix_acp.tools.base import ToolContext, ToolFailed, ToolResult

_KIND_WORDS = (
    ("search", ("search", "grep", "find")),
    ("edit", ("edit", "write", "replace")),
    ("read", ("read", "cat", "view")),
    ("fetch", ("fetch", "http", "download")),
    ("execute", ("bash", "exec", "shell", "run")),
)


def kind_for(tool: str) -> str:
    lowered = tool.lower()
    for kind, words in _KIND_WORDS:
        if any(w in lowered for w in words):
            return kind
    return "other"


class McpTool:
    access = "mcp"

    def __init__(self, link: Link, tool: Any, name: str) -> None:
        self.link = link
        self.tool_name: str = tool.name
        self.name = name
        self.kind = kind_for(tool.name)
        annotations = getattr(tool, "annotations", None)
        # the server says the tool changes nothing (plan mode lets such a tool run)
        self.read_only = bool(getattr(annotations, "read_only_hint", False))
        parameters = tool.input_schema if isinstance(tool.input_schema, dict) else {}
        self.schema: dict[str, Any] = {
            "type": "function",
            "function": {
                "name": name,
                "description": tool.description
                or f"The {tool.name} tool of the MCP server {link.name}",
                "parameters": parameters or {"type": "object", "properties": {}},
            },
        }

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"{self.link.name}: {self.tool_name}"

    def target(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return ctx.workspace.resolve(".")

    def grant_scope(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"mcp {self.link.name}/{self.tool_name}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            result = await self.link.call(self.tool_name, args)
        except ConnectionError as exc:
            raise ToolFailed(str(exc)) from None
        except Exception as exc:
            raise ToolFailed(f"MCP server {self.link.name}: {exc}") from None
        content, text = convert(result.content)
        if result.is_error:
            raise ToolFailed(text or f"{self.tool_name} failed")
        raw = result.structured_content
        return ToolResult(text=text, content=content, raw_output=raw)


def convert(blocks: list[Any]) -> tuple[list[dict[str, Any]], str]:
    """MCP content blocks as ACP tool-call content, and the text the model reads."""
    content: list[dict[str, Any]] = []
    texts: list[str] = []
    for block in blocks:
        data = block.model_dump(mode="json", by_alias=True, exclude_none=True)
        kind = data.get("type")
        if kind == "text":
            acp: dict[str, Any] = {"type": "text", "text": data.get("text", "")}
            texts.append(acp["text"])
        elif kind in ("image", "audio"):
            acp = {"type": kind, "data": data.get("data", ""), "mimeType": data.get("mimeType", "")}
            texts.append(f"[{kind} {acp['mimeType']}]")
        elif kind == "resource":
            res = data.get("resource") or {}
            acp = {"type": "resource", "resource": res}
            texts.append(res.get("text") or f"[resource {res.get('uri', '')}]")
        elif kind == "resource_link":
            acp = {
                "type": "resource_link",
                "uri": data.get("uri", ""),
                "name": data.get("name", ""),
            }
            texts.append(f"[resource link {acp['uri']}]")
        else:
            acp = {"type": "text", "text": f"[{kind} content]"}
            texts.append(acp["text"])
        content.append({"type": "content", "content": acp})
    return content, "\n".join(texts)
