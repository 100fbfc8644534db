"""An MCP server's tool as one of the model's tools.

The model sees `mcp__<server>__<tool>` (characters outside `[A-Za-z0-9_-]` become `_`, cut to
64). Calls go through the permission gate as access "mcp": they ask unless the preset is
danger-full-access, and an "always" answer covers that one tool of that server for the session.
The result's content becomes ACP content (text, images, embedded resources, resource links);
`isError` fails the call; structured content is the call's `rawOutput`.

The text of a result's blocks (text blocks, embedded text resources) is scrubbed as the one
text the blocks make (scrubber.scrub_pieces): a secret the agent holds split across two blocks
is redacted in the first and its rest removed from the next, so neither shows half of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reasonix_acp.scrubber import scrub_pieces
from reasonix_acp.tools.base import ToolContext, ToolFailed, ToolResult

if TYPE_CHECKING:
    from reasonix_acp.mcp_servers.acp_link import ServerLink

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

    def __init__(self, link: ServerLink, tool: Any, name: str) -> None:
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
        return f"{self.tool_name} ({self.link.name})"

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
    """MCP content blocks as ACP tool-call content, and the text the model reads; the blocks'
    text scrubbed as one."""
    converted = [_block(b) for b in blocks]
    holders = [h for h in map(_text_holder, converted) if h is not None]
    for holder, text in zip(holders, scrub_pieces([h["text"] for h in holders]), strict=True):
        holder["text"] = text
    content = [{"type": "content", "content": acp} for acp in converted]
    return content, "\n".join(map(_model_text, converted))


def _block(block: Any) -> dict[str, Any]:
    """One MCP content block (the SDK's model, or as a server over ACP sent it) as ACP content."""
    if isinstance(block, dict):
        data = {k: v for k, v in block.items() if v is not None}
    else:
        data = block.model_dump(mode="json", by_alias=True, exclude_none=True)
    kind = data.get("type")
    if kind == "text":
        return {"type": "text", "text": str(data.get("text", ""))}
    if kind in ("image", "audio"):
        return {"type": kind, "data": data.get("data", ""), "mimeType": data.get("mimeType", "")}
    if kind == "resource":
        return {"type": "resource", "resource": data.get("resource") or {}}
    if kind == "resource_link":
        return {"type": "resource_link", "uri": data.get("uri", ""), "name": data.get("name", "")}
    return {"type": "text", "text": f"[{kind} content]"}


def _text_holder(acp: dict[str, Any]) -> dict[str, Any] | None:
    """The dict whose "text" is output of the server's (a text block, a text resource)."""
    if acp["type"] == "text":
        return acp
    resource = acp.get("resource")
    if acp["type"] == "resource" and isinstance(resource, dict) and resource.get("text"):
        return resource
    return None


def _model_text(acp: dict[str, Any]) -> str:
    """What the model reads of one block."""
    kind = acp["type"]
    if kind == "text":
        return str(acp["text"])
    if kind in ("image", "audio"):
        return f"[{kind} {acp['mimeType']}]"
    if kind == "resource":
        res = acp["resource"]
        return str(res.get("text") or f"[resource {res.get('uri', '')}]")
    return f"[resource link {acp['uri']}]"
