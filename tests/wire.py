"""Schema validation of wire frames against the pinned upstream schema plus schema/vendor.

This uses the raw documents (not codegen's prepared copy), so it checks what we send against the
schemas as published, independently of the generator.
"""

from __future__ import annotations

import functools
from typing import Any

from jsonschema import Draft202012Validator

from codegen.pin import load_pin, load_unstable, load_upstream, load_vendor
from codegen.prepare import unstable_defs
from reasonix_acp.generated.methods import METHODS
from reasonix_acp.plugins.surface import UPDATE as SURFACE_UPDATE


@functools.cache
def document() -> dict[str, Any]:
    pin = load_pin()
    upstream = load_upstream(pin)
    defs = dict(upstream["$defs"])
    unstable = load_unstable(pin)
    if unstable is not None and pin.unstable is not None:  # what is taken from it
        defs.update(unstable_defs(unstable, upstream, pin.unstable.methods, pin.unstable.defs))
    for doc in load_vendor().values():
        defs.update(doc["$defs"])
    return {**upstream, "$defs": defs}


@functools.cache
def _validator(ref: str) -> Draft202012Validator:
    doc = document()
    schema = doc if ref == "" else {"$ref": f"#/$defs/{ref}"}
    return Draft202012Validator({**schema, "$defs": doc["$defs"]})


# Updates only the unstable schema's SessionUpdate union has (sent to clients that advertise
# `subagents`, or `plan`): their notification is checked against that schema as published, whole.
UNSTABLE_UPDATES = {
    "subagent_update",
    "session_message",
    "session_message_chunk",
    "plan_update",
    "plan_removed",
}


@functools.cache
def _unstable_validator(ref: str) -> Draft202012Validator:
    doc = load_unstable(load_pin())
    assert doc is not None, "the pin takes nothing from the unstable schema"
    return Draft202012Validator({"$ref": f"#/$defs/{ref}", "$defs": doc["$defs"]})


def errors(value: Any, ref: str, unstable: bool = False) -> list[str]:
    validator = _unstable_validator(ref) if unstable else _validator(ref)
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
        for e in validator.iter_errors(value)
    ]


def check_agent_frame(frame: dict[str, Any], request_methods: dict[Any, str]) -> list[str]:
    """Problems with one agent→client frame; `request_methods` maps client request ids to methods."""
    problems = [f"envelope: {p}" for p in errors(frame, "")]
    if "method" in frame:
        spec = METHODS.get(frame["method"])
        if spec is None or spec.side != "client":
            return [*problems, f"agent sent {frame['method']!r}, which is not a client-side method"]
        params = frame.get("params", {})
        update = params.get("update") if isinstance(params, dict) else None
        if isinstance(update, dict) and update.get("sessionUpdate") == SURFACE_UPDATE:
            # The vendor variant is not in the upstream union: its envelope is checked with a
            # known variant in its place, and the variant against schema/vendor.
            stand_in = {"sessionUpdate": "plan", "entries": []}
            problems += [
                f"params: {p}" for p in errors({**params, "update": stand_in}, spec.params)
            ]
            problems += [f"update: {p}" for p in errors(update, "ReasonixExtensionSurfaceUpdate")]
            return problems
        unstable = isinstance(update, dict) and update.get("sessionUpdate") in UNSTABLE_UPDATES
        problems += [f"params: {p}" for p in errors(params, spec.params, unstable)]
    elif "error" in frame:
        problems += [f"error: {p}" for p in _error_problems(frame["error"])]
    elif "result" in frame:
        method = request_methods.get(frame.get("id"))
        spec = METHODS.get(method) if method else None
        if spec is None or spec.result is None:
            problems.append(f"result for id {frame.get('id')!r}, which no client request had")
        else:
            problems += [f"result: {p}" for p in errors(frame["result"], spec.result)]
    return problems


def _error_problems(error: Any) -> list[str]:
    """An error object against the schema's Error: `code` and `message`, and `data` only on our
    -32603, as `{"details": <string>}`, and on an unknown session's -32002, as
    `{"sessionId": <string>}`."""
    problems = errors(error, "Error")
    if not isinstance(error, dict):
        return problems
    internal = error.get("code") == -32603
    data = error.get("data")
    if error.get("code") == -32002:
        if not (isinstance(data, dict) and set(data) == {"sessionId"}):
            problems.append(f"-32002 without data.sessionId alone: {data!r:.200}")
        return problems
    if set(error) - {"code", "message", *(["data"] if internal else [])}:
        problems.append("carries more than code and message (data is for -32603 only)")
    if internal and not (
        isinstance(data, dict) and set(data) == {"details"} and isinstance(data["details"], str)
    ):
        problems.append(f"-32603 without data.details as a string: {data!r:.200}")
    return problems
