"""todo_write: the model's plan, shown to the client as the session's `plan`."""

from __future__ import annotations

import json
from typing import Any

from reasonix_acp.tools.base import ToolContext, ToolFailed, ToolResult
from reasonix_acp.words import counted

STATUSES = ("pending", "in_progress", "completed")


class TodoWrite:
    name = "todo_write"
    kind = "think"
    schema: dict[str, Any] = {
        "type": "function",
        "function": {
            "name": "todo_write",
            "description": "Replace the task plan shown to the user. Send the whole list every time.",
            "parameters": {
                "type": "object",
                "properties": {
                    "todos": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "content": {"type": "string"},
                                "status": {"type": "string", "enum": list(STATUSES)},
                                "priority": {"type": "string", "enum": ["high", "medium", "low"]},
                            },
                            "required": ["content", "status"],
                        },
                    }
                },
                "required": ["todos"],
            },
        },
    }

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return "Update plan"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        todos = args.get("todos")
        if not isinstance(todos, list):
            raise ToolFailed("todo_write: `todos` must be a list")
        entries = []
        for item in todos:
            if not isinstance(item, dict) or not str(item.get("content", "")).strip():
                continue
            status = item.get("status") if item.get("status") in STATUSES else "pending"
            priority = (
                item.get("priority")
                if item.get("priority") in ("high", "medium", "low")
                else "medium"
            )
            entries.append(
                {"content": str(item["content"]).strip(), "priority": priority, "status": status}
            )
        text = json.dumps({"todos": entries})
        summary = f"Plan updated: {counted(len(entries), 'entry', 'entries')}"
        return ToolResult(
            text=text,
            content=[{"type": "content", "content": {"type": "text", "text": summary}}],
            raw_output={"todos": entries},
            plan=entries,
        )


TOOLS = [TodoWrite()]
