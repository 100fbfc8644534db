"""Checks on the notifications that came while a response was awaited (`await` steps).

Kinds: `updates_valid` (every session/update against the schema's SessionNotification, for
`session`; with `unstable`, the unstable schema's, for a client that advertised what it adds), `has_update` (one whose sessionUpdate is `update`), `no_history` (none of a message:
user, agent or thought chunks), `notes_valid` (at least `min` notifications of `method`, each
with params valid against `def`), `sequence_rises` (their params.sequence rises, and equals the
value at `inner`). Checks on what a session says across requests are in session_checks.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp_conformance import schema
from acp_conformance.checks import HISTORY_UPDATES, at


def _updates_valid(notes: list[dict[str, Any]], args: dict[str, Any]) -> str:
    updates = [n for n in notes if n.get("method") == "session/update"]
    for note in updates:
        found = schema.problems(
            note.get("params"), "SessionNotification", bool(args.get("unstable"))
        )
        if found:
            return f"an update does not validate: {found[0]}"
        if "session" in args and note["params"].get("sessionId") != args["session"]:
            return f"an update names session {note['params'].get('sessionId')!r}"
    return ""


def _update_kinds(notes: list[dict[str, Any]]) -> list[Any]:
    """The `sessionUpdate` of each session/update among `notes`, in order."""
    return [
        n["params"]["update"].get("sessionUpdate")
        for n in notes
        if n.get("method") == "session/update"
        and isinstance(n.get("params"), dict)
        and isinstance(n["params"].get("update"), dict)
    ]


def _has_update(notes: list[dict[str, Any]], args: dict[str, Any]) -> str:
    kinds = _update_kinds(notes)
    return "" if args["update"] in kinds else f"no {args['update']} update; saw {kinds[:8]}"


def _no_history(notes: list[dict[str, Any]], args: dict[str, Any]) -> str:
    """No message of the conversation (a user, agent or thought chunk) among the updates."""
    told = [k for k in _update_kinds(notes) if k in HISTORY_UPDATES]
    return f"the conversation came with it: {told[:4]}" if told else ""


def _notes_valid(notes: list[dict[str, Any]], args: dict[str, Any]) -> str:
    """Every notification of `method` has params valid against `def`, and at least `min`
    came (default 1)."""
    found = [n for n in notes if n.get("method") == args["method"]]
    least = int(args.get("min", 1))
    if len(found) < least:
        return f"{len(found)} {args['method']} notification(s), expected at least {least}"
    for note in found:
        problems = schema.problems(note.get("params"), args["def"])
        if problems:
            return f"a {args['method']} does not validate: {problems[0]}"
    return ""


def _sequence_rises(notes: list[dict[str, Any]], args: dict[str, Any]) -> str:
    """The `sequence` of successive notifications of `method` rises, and each equals the
    value at `inner` of its params when given."""
    last = None
    for note in notes:
        if note.get("method") != args["method"] or not isinstance(note.get("params"), dict):
            continue
        sequence = note["params"].get("sequence")
        if "inner" in args:
            try:
                inner = at(note["params"], args["inner"])
            except KeyError:
                return f"a {args['method']} has no {args['inner']}"
            if inner != sequence:
                return f"params.sequence {sequence!r} but {args['inner']} {inner!r}"
        if not isinstance(sequence, int) or (last is not None and sequence <= last):
            return f"sequence {sequence!r} after {last!r}"
        last = sequence
    return ""


# Checks on the notifications that came while a response was awaited.
ON_NOTES: dict[str, Callable[[list[dict[str, Any]], dict[str, Any]], str]] = {
    "updates_valid": _updates_valid,
    "has_update": _has_update,
    "no_history": _no_history,
    "notes_valid": _notes_valid,
    "sequence_rises": _sequence_rises,
}
