"""Checks on a whole turn (`await` steps): what the agent asked of the client while the response
was awaited, the tool calls it reported, what became of the workspace, what reached the model.

Each kind returns "" (passed) or why it failed, and raises NotApplicable when the turn holds
nothing it could judge (no such request, no tool call): that check is SKIP with the reason.

Requests: `requests_schema` (each against its $def; `methods` to narrow), `paths_absolute`,
`paths_inside` (the cwd), `sessions_known` (one the client opened), `requests_session` (all
for `session`), `requests_advertised` (only what clientCapabilities offered), `requests_known` (only client
methods the spec defines, its unstable schema's `mcp/message` among them, or `_`-prefixed
extensions),
`terminals_released`, `terminal_ids_known`, `permission_options` (an allow and a reject
kind), `permission_ids_unique`, `permission_tool_known` (its toolCallId reported before),
`permission_count` (at most `max`), `elicitation_tool_known` (the toolCallId it is scoped to
was reported). Tool calls: `has_tool_call`, `tool_ids_unique`,
`tool_updates_known`, `tool_final_once`, `tool_calls_finished`, `tool_call_status` (the last
status is in `status`), `tool_paths_absolute`, `tool_terminals_known` (terminal content names
a terminal the client created). Effects: `file_has` (`path` holds `content`,
in the client's overlay or on disk), `file_lacks`. Model: `model_tool_result` (every scripted
call answered with a `tool` message, one of them holding `contains` if given).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from acp_conformance import schema
from acp_conformance.checks import NotApplicable, brief
from acp_conformance.client import Call, Client, offered
from acp_conformance.model import ModelServer

REQUEST_DEFS = {
    "fs/read_text_file": "ReadTextFileRequest",
    "fs/write_text_file": "WriteTextFileRequest",
    "terminal/create": "CreateTerminalRequest",
    "terminal/output": "TerminalOutputRequest",
    "terminal/wait_for_exit": "WaitForTerminalExitRequest",
    "terminal/kill": "KillTerminalRequest",
    "terminal/release": "ReleaseTerminalRequest",
    "session/request_permission": "RequestPermissionRequest",
    "elicitation/create": "CreateElicitationRequest",
}
FINAL = ("completed", "failed")
# Client methods of the unstable schema, judged by their own checks (mcp_checks.py).
UNSTABLE_METHODS = ("mcp/message",)


@dataclass
class Turn:
    notes: list[dict[str, Any]]  # every frame with a method since the last await, in order
    calls: list[Call]  # the client's requests among them, with their answers
    client: Client
    model: ModelServer | None
    announced: set[Any]  # toolCallIds reported by tool_call earlier in the scenario
    cwd: str


def _requests(turn: Turn, args: dict[str, Any], prefixes: tuple[str, ...] = ("",)) -> list[Call]:
    methods = args.get("methods")
    found = [
        c
        for c in turn.calls
        if (c.method in methods if methods else c.method.startswith(prefixes))
        and c.method in REQUEST_DEFS
    ]
    if not found:
        named = [p if p.endswith("/create") else p + "*" for p in prefixes if p]
        what = ", ".join(methods) if methods else " or ".join(named) or "request"
        raise NotApplicable(f"the agent sent no {what} to the client")
    return found


def _requests_schema(turn: Turn, args: dict[str, Any]) -> str:
    for call in _requests(turn, args):
        found = schema.problems(call.params, REQUEST_DEFS[call.method])
        if found:
            return f"{call.method}: {found[0]}"
    return ""


def _paths(calls: list[Call]) -> Iterator[tuple[str, Any]]:
    for call in calls:
        params = call.params if isinstance(call.params, dict) else {}
        if call.method.startswith("fs/"):
            yield call.method, params.get("path")
        elif call.method == "terminal/create" and "cwd" in params:
            yield "terminal/create cwd", params.get("cwd")


def _paths_absolute(turn: Turn, args: dict[str, Any]) -> str:
    for where, path in _paths(_requests(turn, args, ("fs/", "terminal/create"))):
        if not isinstance(path, str) or not os.path.isabs(path):
            return f"{where}: path {path!r} is not absolute"
    return ""


def _paths_inside(turn: Turn, args: dict[str, Any]) -> str:
    root = os.path.normpath(turn.cwd)
    for where, path in _paths(_requests(turn, args, ("fs/",))):
        if not isinstance(path, str) or not os.path.isabs(path):
            return f"{where}: path {path!r} is not absolute"
        normal = os.path.normpath(path)
        if normal != root and not normal.startswith(root + os.sep):
            return f"{where}: {path} is outside the session's cwd {root}"
    return ""


def _sid(call: Call) -> Any:
    return call.params.get("sessionId") if isinstance(call.params, dict) else None


def _sessions_known(turn: Turn, args: dict[str, Any]) -> str:
    for call in _requests(turn, args):
        if _sid(call) not in turn.client.opened:
            opened = sorted(turn.client.opened)
            return f"{call.method} for session {_sid(call)!r}; the client opened {opened}"
    return ""


def _requests_session(turn: Turn, args: dict[str, Any]) -> str:
    for call in _requests(turn, args):
        if _sid(call) != args["session"]:
            return f"{call.method} for session {_sid(call)!r}, the prompt was {args['session']!r}"
    return ""


def _requests_advertised(turn: Turn, args: dict[str, Any]) -> str:
    for call in turn.calls:
        if not offered(turn.client.advertised, call.method, call.params):
            return f"{call.method}, which the client did not advertise"
    return ""


def _requests_known(turn: Turn, args: dict[str, Any]) -> str:
    for call in turn.calls:
        known = call.method in REQUEST_DEFS or call.method in UNSTABLE_METHODS
        if not known and not call.method.startswith("_"):
            return f"{call.method}: neither a client method of the spec nor an extension (_...)"
    return ""


def _terminals_released(turn: Turn, args: dict[str, Any]) -> str:
    _requests(turn, {"methods": ["terminal/create"]})
    kept = sorted(turn.client.terminals.live)
    return f"terminal(s) {kept} not released before the prompt's response" if kept else ""


def _terminal_ids_known(turn: Turn, args: dict[str, Any]) -> str:
    for call in _requests(turn, args, ("terminal/",)):
        if call.note.startswith("terminal"):
            return f"{call.method}: {call.note}"
    return ""


CHECKS: dict[str, Callable[[Turn, dict[str, Any]], str]] = {
    "requests_schema": _requests_schema,
    "paths_absolute": _paths_absolute,
    "paths_inside": _paths_inside,
    "sessions_known": _sessions_known,
    "requests_session": _requests_session,
    "requests_advertised": _requests_advertised,
    "requests_known": _requests_known,
    "terminals_released": _terminals_released,
    "terminal_ids_known": _terminal_ids_known,
}


def judge(kind: str, turn: Turn, args: dict[str, Any]) -> str:
    return CHECKS[kind](turn, args)


__all__ = ["CHECKS", "REQUEST_DEFS", "Turn", "brief", "judge"]
