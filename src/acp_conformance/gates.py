"""What a scenario requires before it goes on (`require` steps, a check's `when`), and why the
rest is SKIP where it is not there: a capability the agent advertised (in what a step captured)
or an option the runner was given.

A `require` step maps a captured path to what it must hold:

    <value>                      exactly it (`{}`: the capability advertised; `true`)
    {"one_of": [<value>, ...]}   any of them (null: absent)
    {"not_empty": true}          anything but absent, null, "", [] or {}
    {"has": {"id": "${x}"}}      a list with an item whose fields hold these values

The runner's options are captured under their own names (run.py): `auth_method`, the id given
with --auth-method (absent when none was), and `own_home`, whether the agent runs in a home of
its own (no --keep-home, no HOME nor XDG_* directory in --env). A skip reason for an option
names the option, not what the agent advertised.
"""

from __future__ import annotations

import json
from typing import Any

from acp_conformance import checks

# Why the rest is SKIP when an option's requirement is not met.
OPTIONS = {
    "auth_method": "requires --auth-method ID, the id of one of the agent's authMethods to "
    "authenticate with; none was given",
    "own_home": "requires the agent to run in a home of its own; it was given yours "
    "(--keep-home, or HOME or XDG_* in --env), where the scenario would sign you out or "
    "change your configuration of it",
}
EMPTY: tuple[Any, ...] = (None, "", [], {})


def unmet(captured: dict[str, Any], path: str, wanted: Any) -> str:
    """Why `path` of `captured` does not hold what `wanted` asks (forms above), or ""."""
    try:
        found = checks.at(captured, path)
    except KeyError:
        found = None
    if isinstance(wanted, dict) and "has" in wanted:
        return "" if holds(found, wanted["has"]) else lacking(path, wanted["has"], found)
    if isinstance(wanted, dict) and wanted.get("not_empty"):
        return "" if found not in EMPTY else required(path, None, found)
    allowed = wanted["one_of"] if isinstance(wanted, dict) and "one_of" in wanted else [wanted]
    return "" if found in allowed else required(path, allowed, found)


def holds(found: Any, fields: dict[str, Any]) -> bool:
    """`found` is a list with an item whose fields hold all of `fields`."""
    return isinstance(found, list) and any(
        isinstance(item, dict) and all(item.get(k) == v for k, v in fields.items())
        for item in found
    )


def lacking(path: str, fields: dict[str, Any], found: Any) -> str:
    """Why a `has` is not met: what was wanted, and what each advertised item holds there."""
    wanted = " and ".join(f"{k} {json.dumps(v)}" for k, v in fields.items())
    if not isinstance(found, list) or not found:
        return f"requires {path} to hold an item with {wanted}; the agent advertised none"
    shown = [{k: i.get(k) for k in fields} if isinstance(i, dict) else i for i in found]
    return (
        f"requires {path} to hold an item with {wanted}; the agent advertised {json.dumps(shown)}"
    )


def required(path: str, allowed: list[Any] | None, found: Any) -> str:
    """Why a scenario or check is SKIP: what it requires at `path` (any of `allowed`; `{}`, a
    capability advertised; None or False, one not advertised; `allowed` None, anything not
    empty) and what the agent advertised there; for an option, what it takes."""
    if path in OPTIONS:
        return OPTIONS[path]
    if allowed is None:
        wanted = "advertised, not empty"
    elif all(v in (None, False) for v in allowed):
        wanted = "absent or false"
    elif allowed == [{}]:
        wanted = "advertised"
    else:
        wanted = " or ".join("absent" if v is None else json.dumps(v) for v in allowed)
    if found is None:
        return f"requires {path} {wanted}; the agent did not advertise it"
    return f"requires {path} {wanted}; the agent advertised {json.dumps(found)}"
