"""Checks on what a session says across requests (`await` steps, on the notifications that
came meanwhile): message ids, live and replayed; the mode as a config option kept in step with
`modes`.

Kinds: `message_ids` (chunks of one message share one `messageId`, and an id does not come
back once another message started), `message_ids_replayed` (a load's replay names the
messages with the ids they had live, `live` a list captured with `capture_notes`),
`mode_in_step` (after a mode change, `current_mode_update` and the `mode`-category config
option both say `mode`). Each raises NotApplicable when the agent sent nothing to judge (no
chunk with a `messageId`, no mode-category option).
On a response: `mode_option_current` (the option of category mode, when there is one, has the
current mode of `modes` as its value), `differs` (`path` does not hold `value`).
`capture_from` (an await step's `{"name": "message_ids" | "mode_option" | "current_mode" |
"other_mode"}`) keeps what a later step compares or sends: the messages the step's chunks
named, the id of the mode option, the current mode and another one the session offers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp_conformance.checks import NotApplicable, at, obj

CHUNKS = ("agent_message_chunk", "agent_thought_chunk")


def _updates(notes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        obj(obj(n.get("params")).get("update"))
        for n in notes
        if n.get("method") == "session/update"
    ]


def _chunk_ids(notes: list[dict[str, Any]]) -> list[Any]:
    """The `messageId` of every agent chunk, in order (None where a chunk has none)."""
    return [u.get("messageId") for u in _updates(notes) if u.get("sessionUpdate") in CHUNKS]


def message_ids(notes: list[dict[str, Any]]) -> list[str]:
    """The messages the agent's chunks named, in order, each once."""
    seen: list[str] = []
    for found in _chunk_ids(notes):
        if isinstance(found, str) and (not seen or seen[-1] != found):
            seen.append(found)
    return seen


def _message_ids(notes: list[dict[str, Any]], args: dict[str, Any]) -> str:
    ids = _chunk_ids(notes)
    if not any(isinstance(i, str) for i in ids):
        raise NotApplicable("no chunk carried a messageId")
    if not all(isinstance(i, str) and i for i in ids):
        return f"some chunks carry a messageId and some do not: {ids[:8]}"
    runs = message_ids(notes)
    again = sorted({i for i in runs if runs.count(i) > 1})
    return f"messageId {again[0]!r} came back after another message started" if again else ""


def _message_ids_replayed(notes: list[dict[str, Any]], args: dict[str, Any]) -> str:
    live = args.get("live")
    if not isinstance(live, list) or not live:
        raise NotApplicable("the live turn's chunks carried no messageId")
    replayed = message_ids(notes)
    if replayed == live:
        return ""
    return f"live messages {live[:4]}, replayed {replayed[:4]}"


def _mode_in_step(notes: list[dict[str, Any]], args: dict[str, Any]) -> str:
    mode = args["mode"]
    if mode is None:
        raise NotApplicable("the session offers no other mode to change to")
    updates = _updates(notes)
    options = [
        o
        for u in updates
        if u.get("sessionUpdate") == "config_option_update"
        for o in u.get("configOptions") or []
        if isinstance(o, dict) and o.get("category") == "mode"
    ]
    modes = [
        u.get("currentModeId") for u in updates if u.get("sessionUpdate") == "current_mode_update"
    ]
    if args.get("options", True) and not options:
        if not any(u.get("sessionUpdate") == "config_option_update" for u in updates):
            return f"no config_option_update with the mode option after the change to {mode!r}"
        raise NotApplicable("the config options have no option of category mode")
    if options and options[-1].get("currentValue") != mode:
        return f"the mode option says {options[-1].get('currentValue')!r}, the mode is {mode!r}"
    if mode not in modes:
        return f"no current_mode_update to {mode!r}; saw {modes[:4]}"
    return ""


def _mode_option(result: Any) -> dict[str, Any] | None:
    options = obj(result).get("configOptions")
    found = [o for o in options or [] if isinstance(o, dict) and o.get("category") == "mode"]
    return found[0] if found else None


def _mode_option_current(frame: dict[str, Any], args: dict[str, Any]) -> str:
    option = _mode_option(frame.get("result"))
    if option is None:
        raise NotApplicable("the config options have no option of category mode")
    current = obj(obj(frame.get("result")).get("modes")).get("currentModeId")
    if current is None:
        raise NotApplicable("the session has no modes")
    value = option.get("currentValue")
    return "" if value == current else f"the mode option says {value!r}, modes say {current!r}"


def _differs(frame: dict[str, Any], args: dict[str, Any]) -> str:
    try:
        found = at(frame, args["path"])
    except KeyError:
        return f"{args['path']} is missing"
    return f"{args['path']} is {found!r}, the same as before" if found == args["value"] else ""


ON_RESPONSE: dict[str, Callable[[dict[str, Any], dict[str, Any]], str]] = {
    "mode_option_current": _mode_option_current,
    "differs": _differs,
}

ON_NOTES: dict[str, Callable[[list[dict[str, Any]], dict[str, Any]], str]] = {
    "message_ids": _message_ids,
    "message_ids_replayed": _message_ids_replayed,
    "mode_in_step": _mode_in_step,
}

# What `capture_from` may keep of a step: (its response, its notifications) → a value.
CAPTURES: dict[str, Callable[[dict[str, Any], list[dict[str, Any]]], Any]] = {
    "message_ids": lambda response, notes: message_ids(notes),
    "mode_option": lambda response, notes: obj(_mode_option(response.get("result"))).get("id"),
    "current_mode": lambda response, notes: _modes(response)[0],
    "other_mode": lambda response, notes: _modes(response)[1],
}


def _modes(response: dict[str, Any]) -> tuple[Any, Any]:
    """(the current mode, another mode the session offers); None where there is none."""
    modes = obj(obj(response.get("result")).get("modes"))
    current = modes.get("currentModeId")
    ids = [obj(m).get("id") for m in modes.get("availableModes") or []]
    return current, next((i for i in ids if i is not None and i != current), None)
