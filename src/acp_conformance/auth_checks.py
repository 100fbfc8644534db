"""Checks on `auth/status_update`, the notification of the unstable schema
(AuthStatusUpdateNotification) that an agent advertising `auth.status` sends when its
authentication status changes. It carries the fields of an `auth/status` answer; the agent MAY
send it at any time after `initialize`, and SHOULD send it only when the status it reports
differs from the last one it sent on the connection.

An await step keeps the updates among its notifications with `"capture_from": {"<name>":
"auth_updates"}` (their params, in order). The checks judge an `auth/status` answer captured
before (`inspect` steps), with `sent`, the lists kept, in order:

- `auth_updates_valid`: every update in `sent` validates against AuthStatusUpdateNotification
  (SKIP where none came);
- `auth_update_on_change`: where the `state` of this answer differs from the one of `before`
  (the answer before the request `by` names, a logout or an authenticate), an update came in
  `sent` and the last one reports this state (SKIP where the state did not change);
- `auth_updates_differ`: no update reports the same status (its `state` and `accounts`,
  omitted accounts being none) as the last one the agent sent on the connection before it, an
  update or an `auth/status` answer: `reported` holds both in the order they came, a list of
  updates kept or an answer captured (SKIP where no update came).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp_conformance import schema
from acp_conformance.checks import NotApplicable, brief, obj

METHOD = "auth/status_update"


def updates(notes: list[dict[str, Any]]) -> list[Any]:
    """The params of each auth/status_update among `notes`, in order."""
    return [n.get("params") for n in notes if n.get("method") == METHOD]


def _sent(args: dict[str, Any]) -> list[Any]:
    return [u for kept in args.get("sent") or [] if isinstance(kept, list) for u in kept]


def _valid(answer: dict[str, Any], args: dict[str, Any]) -> str:
    sent = _sent(args)
    if not sent:
        raise NotApplicable(f"the agent sent no {METHOD}")
    for update in sent:
        found = schema.problems(update, "AuthStatusUpdateNotification")
        if found:
            return f"an {METHOD} does not validate: {found[0]}"
    return ""


def _on_change(answer: dict[str, Any], args: dict[str, Any]) -> str:
    before, after = obj(args.get("before")).get("state"), answer.get("state")
    if before == after:
        raise NotApplicable(f"{args['by']} left the state auth/status reports as it was: {after!r}")
    sent = _sent(args)
    if not sent:
        return f"auth/status went from {before!r} to {after!r} with {args['by']}, and no {METHOD}"
    last = obj(sent[-1]).get("state")
    if last != after:
        return f"the last {METHOD} says {last!r}, auth/status then {after!r}"
    return ""


def _status(reported: Any) -> tuple[Any, Any]:
    """What an answer or an update reports: its state and its accounts (omitted or null:
    none)."""
    return obj(reported).get("state"), obj(reported).get("accounts") or []


def _differ(answer: dict[str, Any], args: dict[str, Any]) -> str:
    last, judged = None, 0
    for item in args.get("reported") or []:
        if isinstance(item, dict):  # an auth/status answer
            last = item
            continue
        for update in item if isinstance(item, list) else []:
            if last is not None and _status(update) == _status(last):
                return f"an {METHOD} reports what was last sent on the connection: {brief(update)}"
            last, judged = update, judged + 1
    if not judged:
        raise NotApplicable(f"the agent sent no {METHOD}")
    return ""


# Checks on a captured auth/status answer (`inspect` steps).
ON_RESPONSE: dict[str, Callable[[dict[str, Any], dict[str, Any]], str]] = {
    "auth_updates_valid": _valid,
    "auth_update_on_change": _on_change,
    "auth_updates_differ": _differ,
}

# What `capture_from` may keep of an await step: (its response, its notifications) → a value.
CAPTURES: dict[str, Callable[[dict[str, Any], list[dict[str, Any]]], Any]] = {
    "auth_updates": lambda response, notes: updates(notes),
}
