"""Which of the tools an agent offers its model plays which role, judged by name and parameter
names only (any agent names its tools its own way):

- `write`: a path-like and a content-like parameter (`path` + `content`, `file_path` + `text`);
- `shell`: a command-like parameter (`command`, `cmd`, `script`);
- `read`: a path-like parameter, no content-like one, and a name that says read, view or open;
- `named`: the tool whose name is the scripted `name` or ends with it after a separator (the
  tools of a scenario's MCP server, which agents prefix as they like: `mcp__srv__name`);
- `search`: a tool that finds the agent's other tools (its name says tool and search, find,
  discover or load; a query-like parameter): agents that hide MCP tools behind one offer the
  named tool only once the model searched for it.

A scripted tool call names a role and role-level arguments (`path`, `content`, `command`); they
are put under the chosen tool's own parameter names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

PATH_NAMES = ("path", "file_path", "filepath", "absolute_path", "file", "filename", "target_file")
CONTENT_NAMES = ("content", "contents", "file_text", "text", "new_content", "data", "body")
COMMAND_NAMES = ("command", "cmd", "script", "shell_command")
QUERY_NAMES = ("query", "q", "search", "keywords", "pattern", "name", "tool_name")
SEARCH_WORDS = re.compile(r"search|find|discover|load|lookup", re.IGNORECASE)
READ_WORDS = re.compile(r"read|view|open|cat", re.IGNORECASE)
WRITE_WORDS = re.compile(r"write|create|save", re.IGNORECASE)


@dataclass(frozen=True)
class Chosen:
    role: str
    name: str  # the tool's name, as the agent offered it
    names: dict[str, str]  # role argument → the tool's parameter name


def _function(tool: Any) -> tuple[str, dict[str, Any]]:
    """(name, properties) of an OpenAI `tools` item; ("", {}) when it is not one."""
    if not isinstance(tool, dict) or not isinstance(tool.get("function"), dict):
        return "", {}
    function = tool["function"]
    params = function.get("parameters")
    props = params.get("properties") if isinstance(params, dict) else None
    name = function.get("name")
    return (name if isinstance(name, str) else ""), (props if isinstance(props, dict) else {})


def _first(props: dict[str, Any], candidates: tuple[str, ...]) -> str | None:
    lowered = {p.lower(): p for p in props}
    return next((lowered[c] for c in candidates if c in lowered), None)


def _fits(role: str, name: str, props: dict[str, Any]) -> dict[str, str] | None:
    path, content = _first(props, PATH_NAMES), _first(props, CONTENT_NAMES)
    if role == "write" and path and content:
        return {"path": path, "content": content}
    if role == "read" and path and not content and READ_WORDS.search(name):
        return {"path": path}
    if role == "shell":
        command = _first(props, COMMAND_NAMES)
        return {"command": command} if command else None
    if role == "search" and "tool" in name.lower() and SEARCH_WORDS.search(name):
        query = _first(props, QUERY_NAMES)
        return {"query": query} if query else None
    return None


def named(name: str, wanted: str) -> bool:
    """`name` is the tool `wanted`, or ends with it after a separator (an MCP server's tool,
    prefixed as the agent likes)."""
    return name == wanted or any(name.endswith(sep + wanted) for sep in ("_", ".", "/", ":"))


def choose(role: str, tools: Any, wanted: str = "") -> Chosen | None:
    """The offered tool that best plays `role`: for `write`, one named like a write first;
    for `named`, the one named `wanted`."""
    fitting = []
    for tool in tools if isinstance(tools, list) else []:
        name, props = _function(tool)
        names: dict[str, str] | None
        if role == "named":
            names = {} if name and named(name, wanted) else None
        else:
            names = _fits(role, name, props) if name else None
        if names is not None:
            fitting.append(Chosen(role, name, names))
    if role == "write":
        fitting.sort(key=lambda c: not WRITE_WORDS.search(c.name))
    return fitting[0] if fitting else None


def arguments(chosen: Chosen, args: dict[str, Any]) -> dict[str, Any]:
    """Role-level arguments under the tool's own parameter names (others pass as they are)."""
    return {chosen.names.get(key, key): value for key, value in args.items()}


def names(tools: Any) -> list[str]:
    """The names of the offered tools (for the log)."""
    return [_function(t)[0] for t in tools] if isinstance(tools, list) else []


def missing(role: str, tools: Any, wanted: str = "") -> str:
    """Why a scripted call of `role` cannot be made (the SKIP reason)."""
    if not isinstance(tools, list) or not tools:
        return "the agent offers its model no tools"
    if role == "named":
        return f"agent offers no tool named {wanted} (its MCP server's tool)"
    return f"agent offers no {role}-like tool"
