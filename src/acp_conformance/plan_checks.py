"""Checks on the plan a turn reported of the model's todo list (kinds on `await` steps, like
turn_checks.py). The model's lists are its todo calls as made (roles.py: their role-level
`items`, in order); the plan is told by the turn's `session/update`s: `plan_update` and
`plan_removed` (the unstable plan updates by id, for a client that advertises `plan`) or the
legacy `plan`. A list is an update's entries as (content, status) pairs; a markdown plan holds
a list when each item's text is in it.

- `plan_items`: every update of `shape` (`by_id`: plan_update; `legacy`: plan) carries one of
  the model's lists whole, each item with its status (a file plan is not read);
- `plan_each_list`: each list the model gave (but an empty one) came in an update of `shape`;
- `plan_order`: a plan_update's items come in the model's order;
- `plan_same_id`: the plan_updates of the model's list all name one planId, not empty;
- `plan_one_shape`: no legacy `plan` update beside the plan_updates;
- `plan_emptied`: once the model emptied its list, a plan_removed names the list's planId, or
  a plan_update of it carries no entries;
- `plan_removed`: once the model emptied its list, a plan_removed names the list's planId;
- `plan_by_id_absent`: no plan_update nor plan_removed (a client that did not advertise `plan`).

Each raises NotApplicable when the scripted model made no todo call; the `by_id` kinds too
when the agent sent no plan_update (it may tell its list as the legacy plan only, or not at
all), `plan_items` with `legacy` when it sent no plan update.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from acp_conformance.checks import NotApplicable, brief, obj
from acp_conformance.turn_checks import Turn

BY_ID = ("plan_update", "plan_removed")
Pairs = list[tuple[str, str]]


def _lists(turn: Turn) -> list[Pairs]:
    """The model's todo lists as (content, status) pairs, in the order it gave them."""
    model = turn.model
    given = [c["args"] for c in model.given if c["role"] == "todo"] if model is not None else []
    if not given:
        why = model.why_no_call if model is not None else ""
        raise NotApplicable(why or "the scripted model made no todo call")
    return [
        [(str(i.get("content")), str(i.get("status"))) for i in args.get("items") or []]
        for args in given
    ]


def _updates(turn: Turn, kinds: tuple[str, ...]) -> list[dict[str, Any]]:
    """The turn's session updates of these kinds, in order."""
    found = []
    for note in turn.notes:
        update = obj(obj(note.get("params")).get("update"))
        if note.get("method") == "session/update" and update.get("sessionUpdate") in kinds:
            found.append(update)
    return found


def _by_id(turn: Turn) -> list[dict[str, Any]]:
    """The plan_update and plan_removed updates; NotApplicable when no plan_update came."""
    _lists(turn)
    found = _updates(turn, BY_ID)
    if not any(u.get("sessionUpdate") == "plan_update" for u in found):
        legacy = "as the legacy plan update" if _updates(turn, ("plan",)) else "not as a plan"
        raise NotApplicable(
            f"the agent sent no plan_update: it told the model's list {legacy} (plan updates "
            "by id are unstable; an agent may keep to the plan update)"
        )
    return found


def _pairs(entries: Any) -> Pairs:
    found = entries if isinstance(entries, list) else []
    return [(str(e.get("content")), str(e.get("status"))) for e in found if isinstance(e, dict)]


def _held(plan: dict[str, Any], lists: list[Pairs]) -> Pairs | None:
    """The model's list a plan (an update's `plan`, or a legacy update) carries, else None."""
    if plan.get("type") == "markdown":
        text = str(plan.get("content", ""))
        return next((x for x in lists if x and all(c in text for c, _ in x)), None)
    given = _pairs(plan.get("entries"))
    return next((x for x in lists if sorted(x) == sorted(given)), None)


def _plans(turn: Turn) -> list[dict[str, Any]]:
    """The `plan` of each plan_update, a file plan aside (nothing to read of it)."""
    plans = [obj(u.get("plan")) for u in _by_id(turn) if u.get("sessionUpdate") == "plan_update"]
    return [p for p in plans if p.get("type") != "file"]


def _items(turn: Turn, args: dict[str, Any]) -> str:
    lists = _lists(turn)
    if args["shape"] == "legacy":
        told = _updates(turn, ("plan",))
        if not told:
            raise NotApplicable("the agent told the model's list with no plan update")
    else:
        told = _plans(turn)
        if not told:
            raise NotApplicable("the agent's plan_updates hold a file: nothing to compare")
    for plan in told:
        if _held(plan, lists) is None:
            shown = plan.get("content") if plan.get("type") == "markdown" else plan.get("entries")
            return f"a plan update carries {brief(shown)}: none of the model's lists {lists}"
    return ""


def _each_list(turn: Turn, args: dict[str, Any]) -> str:
    lists = _lists(turn)
    legacy = args["shape"] == "legacy"
    plans = _updates(turn, ("plan",)) if legacy else _plans(turn)
    held = [_held(p, lists) for p in plans]
    for index, wanted in enumerate(lists):
        if wanted and wanted not in held:
            what = "plan update" if legacy else "plan_update"
            return f"the model's list #{index + 1} {wanted} came in no {what}"
    return ""


def _order(turn: Turn, args: dict[str, Any]) -> str:
    lists = _lists(turn)
    for plan in _plans(turn):
        wanted = _held(plan, lists)
        given = _pairs(plan.get("entries"))
        if plan.get("type") == "items" and wanted is not None and given != wanted:
            return f"plan {plan.get('planId')!r} carries {given}; the model gave {wanted}"
    return ""


def _ids(turn: Turn) -> list[Any]:
    """The planId of each plan_update that carries one of the model's lists, in order."""
    lists = _lists(turn)
    return [p.get("planId") for p in _plans(turn) if _held(p, lists) is not None]


def _same_id(turn: Turn, args: dict[str, Any]) -> str:
    ids = _ids(turn)
    if not ids:
        raise NotApplicable("no plan_update carries one of the model's lists")
    unnamed = [i for i in ids if not isinstance(i, str) or not i.strip()]
    if unnamed:
        return f"a plan_update of the model's list names planId {unnamed[0]!r}: no plan to track"
    distinct = sorted({json.dumps(i) for i in ids})
    return f"the model's list came under planIds {', '.join(distinct)}" if len(distinct) > 1 else ""


def _one_shape(turn: Turn, args: dict[str, Any]) -> str:
    _by_id(turn)
    legacy = _updates(turn, ("plan",))
    if legacy:
        return f"{len(legacy)} legacy plan update(s) beside plan_update: {brief(legacy[0])}"
    return ""


def _after_emptied(turn: Turn) -> tuple[Any, list[dict[str, Any]]]:
    """(the list's planId, the plan updates by id after its last one with entries)."""
    lists, updates = _lists(turn), _by_id(turn)
    if lists[-1]:
        raise NotApplicable("the model did not empty its list")
    last = -1
    for index, update in enumerate(updates):
        if _held(obj(update.get("plan")), lists):  # a list with items (a removal holds none)
            last = index
    if last < 0:
        raise NotApplicable("no plan_update carried one of the model's lists with items")
    return obj(updates[last].get("plan")).get("planId"), updates[last + 1 :]


def _emptied(turn: Turn, args: dict[str, Any]) -> str:
    plan_id, later = _after_emptied(turn)
    for update in later:
        plan = obj(update.get("plan"))
        if update.get("sessionUpdate") == "plan_removed" and update.get("planId") == plan_id:
            return ""
        if plan.get("planId") == plan_id and plan.get("entries") == []:
            return ""
    return f"the model emptied its list: no plan_removed named plan {plan_id!r}, no empty update"


def _removed(turn: Turn, args: dict[str, Any]) -> str:
    plan_id, later = _after_emptied(turn)
    for update in later:
        if update.get("sessionUpdate") == "plan_removed" and update.get("planId") == plan_id:
            return ""
    return f"the model emptied its list: no plan_removed named plan {plan_id!r}"


def _by_id_absent(turn: Turn, args: dict[str, Any]) -> str:
    _lists(turn)
    sent = _updates(turn, BY_ID)
    return f"{len(sent)} plan update(s) by id: {brief(sent[0])}" if sent else ""


CHECKS: dict[str, Callable[[Turn, dict[str, Any]], str]] = {
    "plan_items": _items,
    "plan_each_list": _each_list,
    "plan_order": _order,
    "plan_same_id": _same_id,
    "plan_one_shape": _one_shape,
    "plan_emptied": _emptied,
    "plan_removed": _removed,
    "plan_by_id_absent": _by_id_absent,
}
