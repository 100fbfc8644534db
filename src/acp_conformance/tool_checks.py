"""Turn checks on permissions, tool calls, the workspace and the model (kinds: turn_checks.py).

A tool call's history is read from the `tool_call` / `tool_call_update` notifications of the
turn, in order; ids announced in earlier turns of the scenario count as known.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from acp_conformance.checks import NotApplicable, brief, obj
from acp_conformance.turn_checks import Turn, _requests

ALLOW = ("allow_once", "allow_always")
REJECT = ("reject_once", "reject_always")
FINAL = ("completed", "failed")


def _permissions(turn: Turn) -> list[dict[str, Any]]:
    calls = _requests(turn, {"methods": ["session/request_permission"]})
    return [c.params if isinstance(c.params, dict) else {} for c in calls]


def _permission_options(turn: Turn, args: dict[str, Any]) -> str:
    for params in _permissions(turn):
        kinds = [o.get("kind") for o in params.get("options") or [] if isinstance(o, dict)]
        if not any(k in ALLOW for k in kinds) or not any(k in REJECT for k in kinds):
            return f"options of kinds {kinds}: not at least one allow and one reject"
    return ""


def _permission_ids_unique(turn: Turn, args: dict[str, Any]) -> str:
    for params in _permissions(turn):
        ids = [o.get("optionId") for o in params.get("options") or [] if isinstance(o, dict)]
        if len(set(map(json.dumps, ids))) != len(ids):
            return f"optionIds {ids} repeat"
    return ""


def _permission_tool_known(turn: Turn, args: dict[str, Any]) -> str:
    _permissions(turn)
    announced: set[Any] = set(turn.announced)
    for frame in turn.notes:
        announced |= {u["toolCallId"] for u in _tool_updates([frame]) if _kind(u) == "tool_call"}
        if frame.get("method") == "session/request_permission" and "id" in frame:
            tool = obj(obj(frame.get("params")).get("toolCall"))
            if tool.get("toolCallId") not in announced:
                return f"permission asked for tool call {tool.get('toolCallId')!r}, never reported"
    return ""


def _permission_count(turn: Turn, args: dict[str, Any]) -> str:
    """At most `max` questions; an agent that did not offer the option the scenario picks (no
    allow_always to remember) has nothing to remember: not applicable."""
    asked = len(_permissions(turn))
    for call in turn.calls:
        if call.method == "session/request_permission" and call.note:
            raise NotApplicable(f"the agent offered no such option: {call.note}")
    return "" if asked <= args["max"] else f"asked {asked} times, expected at most {args['max']}"


def _elicitation_tool_known(turn: Turn, args: dict[str, Any]) -> str:
    calls = _requests(turn, {"methods": ["elicitation/create"]})
    announced = set(turn.announced) | announced_in(turn.notes)
    for call in calls:
        tool = obj(call.params).get("toolCallId")
        if tool is not None and tool not in announced:
            return f"elicitation scoped to tool call {tool!r}, never reported"
    return ""


def _kind(update: dict[str, Any]) -> Any:
    return update.get("sessionUpdate")


def _tool_updates(notes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for note in notes:
        params = note.get("params") if note.get("method") == "session/update" else None
        update = params.get("update") if isinstance(params, dict) else None
        if isinstance(update, dict) and _kind(update) in ("tool_call", "tool_call_update"):
            found.append(update)
    return found


def _tools(turn: Turn) -> list[dict[str, Any]]:
    found = _tool_updates(turn.notes)
    if not found:
        raise NotApplicable("the agent reported no tool call in this turn")
    return found


def _has_tool_call(turn: Turn, args: dict[str, Any]) -> str:
    kinds = [_kind(u) for u in _tool_updates(turn.notes)]
    return "" if "tool_call" in kinds else "no tool_call update for the model's tool call"


def _tool_ids_unique(turn: Turn, args: dict[str, Any]) -> str:
    seen = set(map(json.dumps, turn.announced))
    for update in _tools(turn):
        key = json.dumps(update.get("toolCallId"))
        if _kind(update) != "tool_call":
            continue
        if key in seen:
            return f"tool_call {key} reported twice"
        seen.add(key)
    return ""


def _tool_updates_known(turn: Turn, args: dict[str, Any]) -> str:
    """Every tool_call_update names a tool call reported before it: by a tool_call, or by the
    permission request that asked about it (its `toolCall`, which clients show as the call)."""
    _tools(turn)
    announced: set[Any] = set(turn.announced)
    for note in turn.notes:
        params = obj(note.get("params"))
        if note.get("method") == "session/request_permission":
            announced.add(obj(params.get("toolCall")).get("toolCallId"))
            continue
        update = obj(params.get("update")) if note.get("method") == "session/update" else {}
        if _kind(update) == "tool_call":
            announced.add(update.get("toolCallId"))
        elif _kind(update) == "tool_call_update" and update.get("toolCallId") not in announced:
            return f"tool_call_update for {update.get('toolCallId')!r}, never reported"
    return ""


def _statuses(turn: Turn) -> dict[str, list[Any]]:
    """Each tool call's statuses in order (the ids this turn reported)."""
    seen: dict[str, list[Any]] = {}
    for update in _tools(turn):
        key = json.dumps(update.get("toolCallId"))
        seen.setdefault(key, [])
        if "status" in update:
            seen[key].append(update["status"])
    return seen


def _tool_final_once(turn: Turn, args: dict[str, Any]) -> str:
    ended: set[str] = set()
    for update in _tools(turn):
        key = json.dumps(update.get("toolCallId"))
        if key in ended:
            return f"an update for tool call {key} after it was {FINAL[0]} or {FINAL[1]}"
        if update.get("status") in FINAL:
            ended.add(key)
    return ""


def _tool_calls_finished(turn: Turn, args: dict[str, Any]) -> str:
    for key, statuses in _statuses(turn).items():
        if not statuses or statuses[-1] not in FINAL:
            return f"tool call {key} ended the turn {statuses[-1] if statuses else 'statusless'}"
    return ""


def _tool_call_status(turn: Turn, args: dict[str, Any]) -> str:
    for key, statuses in _statuses(turn).items():
        last = statuses[-1] if statuses else None
        if last not in args["status"]:
            return f"tool call {key} ended {last!r}, expected one of {args['status']}"
    return ""


def _tool_paths_absolute(turn: Turn, args: dict[str, Any]) -> str:
    tools = _tools(turn) + [
        c.params["toolCall"]
        for c in turn.calls
        if isinstance(c.params, dict) and isinstance(c.params.get("toolCall"), dict)
    ]
    paths = [
        loc.get("path") for t in tools for loc in t.get("locations") or [] if isinstance(loc, dict)
    ]
    paths += [c.get("path") for t in tools for c in t.get("content") or [] if _diff(c)]
    if not paths:
        raise NotApplicable("no tool call location or diff names a path")
    bad = [p for p in paths if not isinstance(p, str) or not os.path.isabs(p)]
    return f"paths not absolute: {bad[:3]}" if bad else ""


def _diff(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "diff"


def _tool_terminals_known(turn: Turn, args: dict[str, Any]) -> str:
    shown = [
        item.get("terminalId")
        for update in _tool_updates(turn.notes)
        for item in update.get("content") or []
        if isinstance(item, dict) and item.get("type") == "terminal"
    ]
    if not shown:
        raise NotApplicable("no tool call shows a terminal")
    created = turn.client.terminals.created
    unknown = [t for t in shown if t not in created]
    return (
        f"terminal content names {unknown[:3]}, not created by terminal/create" if unknown else ""
    )


def _file_has(turn: Turn, args: dict[str, Any]) -> str:
    text = turn.client.text_of(args["path"])
    if text == args["content"]:
        return ""
    return f"{args['path']} holds {brief(text)} (overlay or disk), not {brief(args['content'])}"


def _file_lacks(turn: Turn, args: dict[str, Any]) -> str:
    text = turn.client.text_of(args["path"])
    return f"{args['path']} was written: {brief(text)}" if text is not None else ""


def _owed(model: Any) -> set[str]:
    """The scripted calls the agent owes a tool message: those it asked the model again after
    (with tools offered); an agent that ends the turn after a call (a rejected permission) owes
    the model nothing."""
    owed: set[str] = set()
    for index, exchange in enumerate(model.exchanges):
        if any(later["tools"] for later in model.exchanges[index + 1 :]):
            owed |= {a["tool_call"]["id"] for a in exchange["reply"] if "tool_call" in a}
    return owed


def _model_tool_result(turn: Turn, args: dict[str, Any]) -> str:
    if turn.model is None or not turn.model.calls:
        raise NotApplicable("the scripted model made no tool call")
    owed = _owed(turn.model)
    if not owed:
        raise NotApplicable("the agent did not ask the model again after its tool calls")
    answers: dict[str, str] = {}
    for request in turn.model.requests:
        for message in request.get("messages") or []:
            if isinstance(message, dict) and message.get("role") == "tool":
                answers[str(message.get("tool_call_id"))] = json.dumps(message.get("content"))
    for call in turn.model.calls:
        if call["id"] in owed and call["id"] not in answers:
            return f"no tool message answers the model's call {call['id']} ({call['name']})"
    wanted = args.get("contains")
    if wanted and not any(wanted in text for text in answers.values()):
        return f"no tool result holds {wanted!r}: {brief(list(answers.values()))}"
    return ""


def _model_saw(turn: Turn, args: dict[str, Any]) -> str:
    """Some request to the scripted model holds `text` (a prompt's link reached the model)."""
    if turn.model is None or not turn.model.requests:
        raise NotApplicable("the agent never asked the scripted model")
    if any(args["text"] in json.dumps(r.get("messages")) for r in turn.model.requests):
        return ""
    return f"no request to the model holds {args['text']!r}: the prompt's block was dropped"


def _tool_named(turn: Turn, args: dict[str, Any]) -> str:
    """Each tool call reported says its tool's programmatic `name` (an optional field)."""
    started = [u for u in _tools(turn) if _kind(u) == "tool_call"]
    if not started:
        raise NotApplicable("no tool_call reported")
    unnamed = [u.get("toolCallId") for u in started if not u.get("name")]
    if unnamed:
        return f"tool calls without their tool's name: {unnamed[:3]}"
    return ""


CHECKS: dict[str, Callable[[Turn, dict[str, Any]], str]] = {
    "permission_options": _permission_options,
    "tool_named": _tool_named,
    "permission_ids_unique": _permission_ids_unique,
    "permission_tool_known": _permission_tool_known,
    "permission_count": _permission_count,
    "elicitation_tool_known": _elicitation_tool_known,
    "has_tool_call": _has_tool_call,
    "tool_ids_unique": _tool_ids_unique,
    "tool_updates_known": _tool_updates_known,
    "tool_final_once": _tool_final_once,
    "tool_calls_finished": _tool_calls_finished,
    "tool_call_status": _tool_call_status,
    "tool_paths_absolute": _tool_paths_absolute,
    "tool_terminals_known": _tool_terminals_known,
    "file_has": _file_has,
    "file_lacks": _file_lacks,
    "model_tool_result": _model_tool_result,
    "model_saw": _model_saw,
}


def announced_in(notes: list[dict[str, Any]]) -> set[Any]:
    """The toolCallIds these notes report with tool_call (kept for the next turns)."""
    return {u.get("toolCallId") for u in _tool_updates(notes) if _kind(u) == "tool_call"}
