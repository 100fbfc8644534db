"""Which of the tools an agent offers its model plays which role, judged by name and parameter
names only (any agent names its tools its own way):

- `write`: a path-like and a content-like parameter (`path` + `content`, `file_path` + `text`);
- `shell`: a command-like parameter (`command`, `cmd`, `script`);
- `read`: a path-like parameter, no content-like one, and a name that says read, view or open;
- `named`: the tool whose name is the scripted `name` or ends with it after a separator (the
  tools of a scenario's MCP server, which agents prefix as they like: `mcp__srv__name`);
- `search`: a tool that finds the agent's other tools (its name says tool and search, find,
  discover or load; a query-like parameter): agents that hide MCP tools behind one offer the
  named tool only once the model searched for it;
- `todo`: the model's todo list or plan (its name says todo, plan or task), whose array
  parameter (`todos`, `items`, `entries`, `tasks`, `plan`, `steps`) holds objects with a
  text-like property (`content`, `text`, `title`, `description`, `step`, `task`) and maybe a
  status-like one (`status`, `state`); a name that says todo first. The array and its items
  are read through a nullable `anyOf`/`oneOf` and local `$ref`s (schema_props.py: Kimi's
  `todos` is an array or null, Mistral Vibe's items a `$ref` into the parameters' `$defs`).

A scripted tool call names a role and role-level arguments (`path`, `content`, `command`); they
are put under the chosen tool's own parameter names. A todo call's `items` (`[{"content",
"status"}]`, statuses `pending`, `in_progress`, `completed`) go into the tool's array under its
own names, each status as the tool's enum spells it (`Done`, `in-progress`), and what the tool
requires beyond them is filled, by the property's schema and name:

- an enum: its write-like verb (`write`, `set`, `update`, `replace`, `create`, `save`, in that
  order; Mistral Vibe's `action`, which would read the list with any other), else `medium`,
  else its first value;
- a number: the item's place (1, 2, ...); a boolean: false (Cursor's `merge`: the list
  replaces the last one); an array: []; an object: {};
- a string named like a priority (`priority`, `importance`, `urgency`): `medium`; named like
  an action (`action`, `operation`, `op`): `write`; named like a text (`content`, `text`,
  `title`, `description`, `step`, `task`, `activeForm`, `summary`, `name`, `label`, ...): the
  item's text (Claude Code's `activeForm`; "The plan" beside the array); any other (an `id`, a
  name unknown): the item's place as a string ("1", "2": short, never empty, unique in the
  list, as ids must be).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from acp_conformance.schema_props import resolved

PATH_NAMES = ("path", "file_path", "filepath", "absolute_path", "file", "filename", "target_file")
CONTENT_NAMES = ("content", "contents", "file_text", "text", "new_content", "data", "body")
COMMAND_NAMES = ("command", "cmd", "script", "shell_command")
QUERY_NAMES = ("query", "q", "search", "keywords", "pattern", "name", "tool_name")
SEARCH_WORDS = re.compile(r"search|find|discover|load|lookup", re.IGNORECASE)
READ_WORDS = re.compile(r"read|view|open|cat", re.IGNORECASE)
WRITE_WORDS = re.compile(r"write|create|save", re.IGNORECASE)
TODO_WORDS = re.compile(r"todo|plan|task", re.IGNORECASE)
LIST_NAMES = ("todos", "items", "entries", "tasks", "plan", "steps", "todo_list", "todolist")
TEXT_NAMES = ("content", "text", "title", "description", "step", "task")
STATUS_NAMES = ("status", "state")
WRITE_VERBS = ("write", "set", "update", "replace", "create", "save")
# Names of required strings (lowercased, without "_" and "-"), by what fills them.
PRIORITY_LIKE = ("priority", "prio", "importance", "urgency")
ACTION_LIKE = ("action", "operation", "op")
TEXT_LIKE = (
    *TEXT_NAMES,
    "activeform",
    "contents",
    "summary",
    "name",
    "label",
    "subject",
    "note",
    "notes",
    "details",
)
# ACP's plan statuses and what tools' enums call them (lowercased, spaces and hyphens as "_").
STATUS_WORDS = {
    "pending": ("pending", "todo", "not_started", "open"),
    "in_progress": ("in_progress", "active", "doing", "started", "ongoing", "current"),
    "completed": ("completed", "done", "complete", "finished"),
}


@dataclass(frozen=True)
class Chosen:
    role: str
    name: str  # the tool's name, as the agent offered it
    names: dict[str, str]  # role argument → the tool's parameter name
    params: dict[str, Any] = field(default_factory=dict)  # a todo tool's parameters schema


def _function(tool: Any) -> tuple[str, dict[str, Any]]:
    """(name, properties) of an OpenAI `tools` item; ("", {}) when it is not one."""
    name, params = _parameters(tool)
    props = params.get("properties")
    return name, (props if isinstance(props, dict) else {})


def _parameters(tool: Any) -> tuple[str, dict[str, Any]]:
    """(name, parameters schema) of an OpenAI `tools` item; ("", {}) when it is not one."""
    if not isinstance(tool, dict) or not isinstance(tool.get("function"), dict):
        return "", {}
    function = tool["function"]
    params = function.get("parameters")
    name = function.get("name")
    return (name if isinstance(name, str) else ""), (params if isinstance(params, dict) else {})


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


def _item(params: dict[str, Any], key: str) -> dict[str, Any]:
    """The item schema of the array parameter `key` of `params` ({} when it is no array of
    objects), read through nullable unions and local refs."""
    props = params.get("properties")
    prop = resolved(props.get(key), params) if isinstance(props, dict) else {}
    item = resolved(prop.get("items"), params)
    return item if isinstance(item.get("properties"), dict) else {}


def _todo(name: str, params: dict[str, Any]) -> dict[str, str] | None:
    """A todo tool's names: its array, and in each item the text and the status (or "")."""
    props = params.get("properties")
    if not TODO_WORDS.search(name) or not isinstance(props, dict):
        return None
    lowered = {p.lower(): p for p in props}
    for wanted in LIST_NAMES:
        key = lowered.get(wanted)
        item = _item(params, key) if key else {}
        text = _first(item.get("properties") or {}, TEXT_NAMES)
        if key and text:
            status = _first(item["properties"], STATUS_NAMES) or ""
            return {"items": key, "content": text, "status": status}
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
        name, params = _parameters(tool)
        _, props = _function(tool)
        names: dict[str, str] | None
        if role == "named":
            names = {} if name and named(name, wanted) else None
        elif role == "todo":
            names = _todo(name, params) if name else None
        else:
            names = _fits(role, name, props) if name else None
        if names is not None:
            fitting.append(Chosen(role, name, names, params if role == "todo" else {}))
    if role == "write":
        fitting.sort(key=lambda c: not WRITE_WORDS.search(c.name))
    if role == "todo":
        fitting.sort(key=lambda c: "todo" not in c.name.lower())
    return fitting[0] if fitting else None


def arguments(chosen: Chosen, args: dict[str, Any]) -> dict[str, Any]:
    """Role-level arguments under the tool's own parameter names (others pass as they are)."""
    if chosen.role == "todo":
        return _todo_arguments(chosen, args)
    return {chosen.names.get(key, key): value for key, value in args.items()}


def _todo_arguments(chosen: Chosen, args: dict[str, Any]) -> dict[str, Any]:
    """A todo call's `items` in the tool's array, under its names, with what it requires."""
    item = _item(chosen.params, chosen.names["items"])
    text, status = chosen.names["content"], chosen.names["status"]
    status_prop = resolved((item.get("properties") or {}).get(status), chosen.params)
    entries = []
    for index, given in enumerate(args.get("items") or []):
        entry: dict[str, Any] = {text: given.get("content", "")}
        if status:
            entry[status] = _status(status_prop, given.get("status", "pending"))
        entries.append(_filled(item, entry, index, str(given.get("content", "")), chosen.params))
    rest = {key: value for key, value in args.items() if key != "items"}
    top = {**rest, chosen.names["items"]: entries}
    return _filled(chosen.params, top, 0, "The plan", chosen.params)


def _status(prop: Any, wanted: str) -> str:
    """`wanted` (an ACP status) as the tool's enum spells it, when it has one that does."""
    enum = prop.get("enum") if isinstance(prop, dict) else None
    for value in enum if isinstance(enum, list) else []:
        spelt = str(value).lower().replace(" ", "_").replace("-", "_")
        if spelt in STATUS_WORDS.get(wanted, (wanted,)):
            return str(value)
    return wanted


def _filled(
    schema: dict[str, Any], given: dict[str, Any], index: int, text: str, root: dict[str, Any]
) -> dict[str, Any]:
    """`given` with each property `schema` requires and it lacks filled in (the module's rule;
    refs are resolved in `root`, the tool's parameters)."""
    props = schema.get("properties") or {}
    out = dict(given)
    for key in schema.get("required") or []:
        prop = props.get(key) if isinstance(key, str) else None
        if key in out or not isinstance(prop, dict):
            continue
        out[key] = _filler(key, resolved(prop, root), index, text)
    return out


def _filler(key: str, prop: dict[str, Any], index: int, text: str) -> Any:
    """The value of a required property `key` (schema `prop`) of the item at `index`."""
    enum, kind = prop.get("enum"), prop.get("type")
    name = key.lower().replace("_", "").replace("-", "")
    if isinstance(enum, list) and enum:
        spelt = {str(v).lower(): v for v in enum}
        verbs = [spelt[v] for v in WRITE_VERBS if v in spelt]
        return verbs[0] if verbs else "medium" if "medium" in enum else enum[0]
    fixed = {"integer": index + 1, "number": index + 1, "boolean": False, "array": [], "object": {}}
    if isinstance(kind, str) and kind in fixed:
        return fixed[kind]
    if name in PRIORITY_LIKE:
        return "medium"
    if name in ACTION_LIKE:
        return "write"
    return text if name in TEXT_LIKE else str(index + 1)


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
