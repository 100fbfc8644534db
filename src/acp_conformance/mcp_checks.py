"""Checks on what the client's MCP server over ACP received (mcp_over_acp.py): every
`mcp/message` request of the scenario so far, whenever it came (an agent may reach the server
when the session opens, or only in the turn). Kinds (on `await` steps, like turn_checks.py):

- `mcp_acp_schema`: each request's params validate against the unstable `MessageMcpRequest`;
- `mcp_acp_servers`: each names a `serverId` the client declared in its `mcpServers`;
- `mcp_acp_meta`: each inner request's `params._meta` carries the MCP protocol version
  2026-07-28 and the client capabilities, an object (MCP 2026-07-28 asks both of every request;
  the binding refuses a request without them);
- `mcp_acp_request_ids`: no request came under a `(serverId, requestId)` still active;
- `mcp_acp_tool_offered`: a request of the agent's to the scripted model offered `tool` (under
  the agent's name for it), the declared server's tool;
- `mcp_acp_tool_called`: the model's call of `tool` reached the server as a `tools/call` the
  server answered with a result;
- `mcp_acp_tool_shown`: a tool call of the turn was reported `completed` with `text` (the
  server's answer) in its content.

Each raises NotApplicable when there is nothing to judge: no `mcp/message` came, the agent
offers its model no tools at all (`mcp_acp_tool_offered`), or the scripted model made no call
of the tool (the last two).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from acp_conformance import roles, schema
from acp_conformance.checks import NotApplicable, brief, obj
from acp_conformance.mcp_over_acp import CAPABILITIES_KEY, MCP_VERSION, VERSION_KEY, Received
from acp_conformance.turn_checks import Turn


def _received(turn: Turn) -> list[Received]:
    found = turn.client.mcp.received
    if not found:
        raise NotApplicable("the agent sent no mcp/message to the client's MCP server")
    return found


def _where(got: Received) -> str:
    return f"mcp/message {got.method!r} (requestId {obj(got.params).get('requestId')!r})"


def _schema(turn: Turn, args: dict[str, Any]) -> str:
    for got in _received(turn):
        found = schema.problems(got.params, "MessageMcpRequest")
        if found:
            return f"{_where(got)}: {found[0]}"
    return ""


def _servers(turn: Turn, args: dict[str, Any]) -> str:
    declared = sorted(turn.client.mcp.declared)
    for got in _received(turn):
        server = obj(got.params).get("serverId")
        if server not in declared:
            return f"{_where(got)} names serverId {server!r}; the client declared {declared}"
    return ""


def _meta(turn: Turn, args: dict[str, Any]) -> str:
    for got in _received(turn):
        meta = got.inner.get("_meta")
        if not isinstance(meta, dict):
            return f"{_where(got)}: its params carry no _meta object: {brief(got.inner)}"
        if meta.get(VERSION_KEY) != MCP_VERSION:
            return f"{_where(got)}: _meta {VERSION_KEY} is {meta.get(VERSION_KEY)!r}"
        if not isinstance(meta.get(CAPABILITIES_KEY), dict):
            return f"{_where(got)}: _meta {CAPABILITIES_KEY} is {meta.get(CAPABILITIES_KEY)!r}"
    return ""


def _request_ids(turn: Turn, args: dict[str, Any]) -> str:
    for got in _received(turn):
        if got.duplicate:
            return f"{_where(got)} came while a request with its requestId was still active"
    return ""


def _tool_offered(turn: Turn, args: dict[str, Any]) -> str:
    model = turn.model
    offered = [roles.names(r.get("tools")) for r in model.requests] if model is not None else []
    if not any(offered):
        raise NotApplicable(roles.missing("named", None))
    if any(roles.named(name, args["tool"]) for names in offered for name in names):
        return ""
    last = next(names for names in reversed(offered) if names)
    return f"no request to the model offered {args['tool']}; the tools offered: {brief(last)}"


def _model_called(turn: Turn, tool: str) -> None:
    """NotApplicable unless the scripted model called `tool` (under the agent's name for it)."""
    model = turn.model
    if model is None or not any(roles.named(c["name"], tool) for c in model.calls):
        why = model.why_no_call if model is not None else ""
        raise NotApplicable(why or f"the scripted model made no call of {tool}")


def _tool_called(turn: Turn, args: dict[str, Any]) -> str:
    _model_called(turn, args["tool"])
    calls = [g for g in turn.client.mcp.received if g.method == "tools/call"]
    mine = [g for g in calls if g.inner.get("name") == args["tool"]]
    if not mine:
        named = [g.inner.get("name") for g in calls]
        return f"the server got no tools/call of {args['tool']} (tools/call of: {named})"
    for got in mine:
        if got.outer is None and "result" in got.outcome:
            return ""
    last = mine[-1]
    refused = last.outer or last.outcome.get("error")
    return f"its tools/call of {args['tool']} was refused: {brief(refused)}"


def _tool_shown(turn: Turn, args: dict[str, Any]) -> str:
    _model_called(turn, args["tool"])
    for note in turn.notes:
        update = obj(obj(note.get("params")).get("update"))
        if note.get("method") != "session/update" or update.get("status") != "completed":
            continue
        if args["text"] in json.dumps(update.get("content"), ensure_ascii=False):
            return ""
    return f"no tool call was reported completed with {args['text']!r} in its content"


CHECKS: dict[str, Callable[[Turn, dict[str, Any]], str]] = {
    "mcp_acp_schema": _schema,
    "mcp_acp_servers": _servers,
    "mcp_acp_meta": _meta,
    "mcp_acp_request_ids": _request_ids,
    "mcp_acp_tool_offered": _tool_offered,
    "mcp_acp_tool_called": _tool_called,
    "mcp_acp_tool_shown": _tool_shown,
}
