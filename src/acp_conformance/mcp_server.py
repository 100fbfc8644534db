"""A tiny MCP server over stdio (NDJSON JSON-RPC; standard library only) for the elicitation
scenarios: a scenario hands it to the agent in `mcpServers` (`${python} ${mcp_server}`), and
the scripted model calls one of its tools. `conformance_elicit` puts a form elicitation
(`elicitation/create`, one string field `colour`) to the agent, which, as an ACP agent, asks its
client; the tool's result is `<action>` or `accept:<colour>`, so the answer can be followed to
the model. `conformance_open_url` puts a URL-mode elicitation (a page to visit) the same way;
its result is `url:<action>`.

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
URL_TOOL = {
    "name": "conformance_open_url",
    "description": "Send the user to a page to sign in.",
    "inputSchema": {"type": "object", "properties": {"reason": {"type": "string"}}},
}
URL = {
    "mode": "url",
    "message": "Sign in to continue",
    "url": "https://example.com/conformance/sign-in",
    "elicitationId": "conformance-url-1",
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


def elicit(incoming: Any, params: dict[str, Any]) -> str:
    """Ask the client; → what the tool answers."""
    send(
        {
            "jsonrpc": "2.0",
            "id": "conformance-elicit",
            "method": "elicitation/create",
            "params": params,
        }
    )
    for frame in incoming:
        if frame.get("id") == "conformance-elicit" and "method" not in frame:
            result = _obj(frame.get("result"))
            action = str(result.get("action", "error"))
            if params["mode"] == "url":
                return f"url:{action}"
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
        result = {"tools": [TOOL, URL_TOOL]}
    elif method == "tools/call" and params.get("name") in (TOOL["name"], URL_TOOL["name"]):
        asked = FORM if params.get("name") == TOOL["name"] else URL
        result = {"content": [{"type": "text", "text": elicit(incoming, asked)}], "isError": False}
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
