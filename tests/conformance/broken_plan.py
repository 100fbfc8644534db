"""The broken agent's todo list (broken_tools.py offers it as `write_todos`: `entries` of
{step, state}, the states todo, doing and done): each call tells the client the list as the
session's plan, by id (`plan_update` of plan `todos`, `plan_removed` once it is empty) where the
client advertised `plan`, else as the legacy `plan` update. Correct by default; the faults
(BREAK) it knows:

  plan-no-id       plan_update without its planId
  plan-partial     a list without its completed items
  plan-reorder     a list in the reverse order
  plan-new-id      each plan_update of the list under a new planId
  plan-both        the legacy plan update beside each update by id
  plan-no-remove   nothing once the list is empty
  plan-once        only the first list is told
  plan-unadvertised  updates by id whatever the client advertised

QUIRK `legacy-plan`: the legacy plan update only, whatever the client advertised (plan
updates by id are unstable: an agent may keep to the plan update).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

BREAK = {b.strip() for b in os.environ.get("BREAK", "").split(",") if b.strip()}
QUIRK = {b.strip() for b in os.environ.get("QUIRK", "").split(",") if b.strip()}
NAME = "write_todos"
STATES = {"todo": "pending", "doing": "in_progress", "done": "completed"}
ENTRY = {"step": {"type": "string"}, "state": {"type": "string", "enum": list(STATES)}}
ENTRIES = {"type": "array", "items": {"type": "object", "properties": ENTRY}}
TOOL = {
    "type": "function",
    "function": {
        "name": NAME,
        "parameters": {"type": "object", "properties": {"entries": ENTRIES}},
    },
}
told: dict[str, list[str]] = {}  # session → the planIds its updates named, in order


def report(
    sid: str,
    args: dict[str, Any],
    caps: dict[str, Any],
    update: Callable[[str, dict[str, Any]], None],
) -> tuple[str, list[dict[str, Any]]]:
    """A call's list told to the client → (the tool's result, its content)."""
    entries = [
        {
            "content": str(e.get("step", "")),
            "priority": "medium",
            "status": STATES.get(str(e.get("state")), "pending"),
        }
        for e in args.get("entries") or []
        if isinstance(e, dict)
    ]
    ids = told.setdefault(sid, [])
    if "plan-once" not in BREAK or not ids:
        for body in _updates(entries, caps, ids):
            update(sid, body)
    text = f"the list holds {len(entries)} entries"
    return text, [{"type": "content", "content": {"type": "text", "text": text}}]


def _updates(
    entries: list[dict[str, Any]], caps: dict[str, Any], ids: list[str]
) -> list[dict[str, Any]]:
    shown = entries
    if "plan-partial" in BREAK:
        shown = [e for e in shown if e["status"] != "completed"]
    if "plan-reorder" in BREAK:
        shown = shown[::-1]
    legacy = {"sessionUpdate": "plan", "entries": shown}
    advertised = isinstance(caps.get("plan"), dict) or "plan-unadvertised" in BREAK
    if not advertised or "legacy-plan" in QUIRK:
        ids.append("")
        return [legacy]
    if not entries:  # the list is gone
        last = ids[-1] if ids else "todos"
        ids.append(last)
        if "plan-no-remove" in BREAK:
            return []
        gone = {"sessionUpdate": "plan_removed", "planId": last}
        return [gone, legacy] if "plan-both" in BREAK else [gone]
    ids.append(f"todos-{len(ids) + 1}" if "plan-new-id" in BREAK else "todos")
    plan = {"type": "items", "planId": ids[-1], "entries": shown}
    if "plan-no-id" in BREAK:
        del plan["planId"]
    by_id = {"sessionUpdate": "plan_update", "plan": plan}
    return [by_id, legacy] if "plan-both" in BREAK else [by_id]
