"""A tiny MCP server over stdio (NDJSON JSON-RPC; standard library only) for the elicitation
scenarios: a scenario hands it to the agent in `mcpServers` (`${python} ${mcp_server}`), and
the scripted model calls its one tool, `conformance_elicit`. The tool puts a form elicitation
(`elicitation/create`, one string field `colour`) to the agent, which, as an ACP agent, asks its
client; the tool's result is `<action>` or `accept:<colour>`, so the answer can be followed to
the model.

    python mcp_server.py
"""

from __future__ import annotations

import json
import sys
from typing import Any

TOOL = {
    "name": "conformance_elicit",
    "description": "Ask the user for a colour.",
    "inputSchema": {"type": "object", "properties": {"question": {"type": "string"}}},
}
FORM = {
    "mode": "form",
    "message": "Which colour?",
    "requestedSchema": {
        "type": "object",
        "properties": {"colour": {"type": "string", "title": "Colour"}},
        "required": ["colour"],
    },
}


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def send(frame: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(frame) + "\n")
    sys.stdout.flush()


def frames() -> Any:
    for line in sys.stdin:
        try:
            frame = json.loads(line)
        except ValueError:
            continue
        if isinstance(frame, dict):
            yield frame


def elicit(incoming: Any) -> str:
    """Ask the client; → what the tool answers."""
    send(
        {
            "jsonrpc": "2.0",
            "id": "conformance-elicit",
            "method": "elicitation/create",
            "params": FORM,
        }
    )
    for frame in incoming:
        if frame.get("id") == "conformance-elicit" and "method" not in frame:
            result = _obj(frame.get("result"))
            action = str(result.get("action", "error"))
            colour = _obj(result.get("content")).get("colour")
            return f"accept:{colour}" if action == "accept" else action
        handle(frame, incoming)
    return "no answer"


def handle(frame: dict[str, Any], incoming: Any) -> None:
    method, rid = frame.get("method"), frame.get("id")
    if method is None or rid is None:
        return  # a notification (initialized, cancelled) or a stray response
    params = _obj(frame.get("params"))
    if method == "initialize":
        result: Any = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "conformance", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call" and params.get("name") == TOOL["name"]:
        result = {"content": [{"type": "text", "text": elicit(incoming)}], "isError": False}
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"{method} is not offered"}
        return send({"jsonrpc": "2.0", "id": rid, "error": error})
    return send({"jsonrpc": "2.0", "id": rid, "result": result})


def main() -> None:
    incoming = frames()
    for frame in incoming:
        handle(frame, incoming)


if __name__ == "__main__":
    main()
