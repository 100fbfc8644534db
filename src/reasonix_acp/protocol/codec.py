"""The one place where wire values become models and models become wire values.

Params are validated against the class the generated method table names for the method; a
failure is an `InvalidParams` whose message gives the method and the failing field path. Results
are dumped by alias without unset fields, so optional fields never appear as `null` unless a
handler set them to null on purpose (the "clear" of `session_info_update`).

The generated models are imported on first use, not at start-up: the handshake (see
`handshake.py`) is decoded without them so that `initialize` is answered before pydantic loads.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any

from reasonix_acp.generated.methods import (
    INITIALIZE,
    SESSION_LIST,
    SESSION_LOAD,
    SESSION_NEW,
    SESSION_PROMPT,
    SESSION_RESUME,
    MethodSpec,
)
from reasonix_acp.protocol import light
from reasonix_acp.protocol.errors import InternalError, InvalidParams
from reasonix_acp.protocol.handshake import decode_initialize

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

# Methods whose params are decoded without pydantic (each checked against its generated model
# by tests/protocol/test_handshake.py).
LIGHT_DECODERS: dict[str, Callable[[dict[str, Any]], Any]] = {INITIALIZE: decode_initialize}
# Methods whose params in their plainest shape are decoded without pydantic; a decoder returns
# None for any other shape, which the model then decodes (see light.py).
PLAIN_DECODERS: dict[str, Callable[[dict[str, Any]], Any]] = {
    SESSION_NEW: light.new_session,
    SESSION_LOAD: light.load_session,
    SESSION_RESUME: light.resume_session,
    SESSION_LIST: light.list_sessions,
    SESSION_PROMPT: light.prompt_request,
}

MAX_ERRORS_NAMED = 3


def model_class(name: str) -> type[BaseModel]:
    """A generated class by name: the vendor's (`Reasonix…`), the stable schema's, else one
    taken from the unstable schema."""
    package = "reasonix_models" if name.startswith("Reasonix") else "models"
    module = import_module(f"reasonix_acp.generated.{package}")
    if package == "models" and name not in module.WHERE:
        module = import_module("reasonix_acp.generated.unstable_models")
    cls: type[BaseModel] = getattr(module, name)
    return cls


def field_path(loc: tuple[int | str, ...], data: Any) -> str:
    """`prompt[0].text` from a pydantic location and the input it describes.

    Pydantic puts validator names and, for tagged unions, the tag value into the location; both
    are dropped: a tag is recognised as a part that equals a value of the object at that point
    (`{"type": "text", ...}` has the part "text" before its fields)."""
    out = ""
    node = data
    for i, part in enumerate(loc):
        last = i == len(loc) - 1
        if isinstance(part, int):
            out += f"[{part}]"
            node = node[part] if isinstance(node, list) and -len(node) <= part < len(node) else None
            continue
        if "[" in part or "(" in part:
            continue  # "function-wrap[_lenient()]"
        if not last and isinstance(node, dict) and part in node.values():
            continue  # the tag of a tagged union member
        if not last and part[:1].isupper() and not (isinstance(node, dict) and part in node):
            continue  # an untagged union member's class name
        out += f".{part}" if out else part
        node = node.get(part) if isinstance(node, dict) else None
    return out or "params"


def describe(method: str, exc: ValidationError, data: Any) -> str:
    errors = exc.errors(include_url=False, include_input=False)
    unique = list(dict.fromkeys(f"{field_path(e['loc'], data)}: {e['msg']}" for e in errors))
    named = unique[:MAX_ERRORS_NAMED]
    more = len(unique) - len(named)
    text = f"{method}: invalid params at " + "; ".join(named)
    return text + (f" (and {more} more)" if more > 0 else "")


Normaliser = Callable[[str, dict[str, Any]], dict[str, Any]]


def decode_params(
    spec: MethodSpec, params: dict[str, Any] | None, normalise: Normaliser | None = None
) -> Any:
    """Params as the method's model; `normalise` (the route's, from the domain) reshapes the
    raw params first, e.g. forgiving `mcpServers` entries."""
    whole = LIGHT_DECODERS.get(spec.method)
    if whole is not None:
        return whole(params or {})
    plain = PLAIN_DECODERS.get(spec.method)
    given = {} if params is None else params
    decoded = plain(given) if plain is not None and isinstance(given, dict) else None
    if decoded is not None:
        return decoded
    # lazy: start-up
    from pydantic import ValidationError

    if normalise is not None and params:
        params = normalise(spec.method, params)
    try:
        return model_class(spec.params).model_validate(params or {})
    except ValidationError as exc:
        raise InvalidParams(describe(spec.method, exc, params)) from None


def decode_result(spec: MethodSpec, result: Any) -> Any:
    """A client's answer to one of our requests, as the method's result model."""
    if spec.result is None:
        raise InternalError(f"{spec.method} is a notification and has no result")
    from pydantic import ValidationError

    try:
        return model_class(spec.result).model_validate({} if result is None else result)
    except ValidationError as exc:
        raise InvalidParams(
            describe(spec.method, exc, result).replace("invalid params", "invalid result")
        ) from None


def dump(value: Any) -> Any:
    """A model, or a JSON-ready value, as JSON-ready data."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return {} if value is None else value


# `session/update` variants of schema/vendor, outside the upstream union: (tag → model name).
# Updates outside the stable SessionUpdate union, each validated as its own model: ours, and
# the unstable schema's subagent updates (sent only to clients that advertise `subagents`) and
# plans by id (only to clients that advertise `plan`).
VENDOR_UPDATES = {
    "_reasonix.io/extension_surface": "ReasonixExtensionSurfaceUpdate",
    "subagent_update": "SubagentUpdate",
    "session_message": "SessionMessage",
    "session_message_chunk": "SessionMessageChunk",
    "plan_update": "PlanUpdate",
    "plan_removed": "PlanRemoved",
}


def encode_params(spec: MethodSpec, params: Any) -> dict[str, Any]:
    """Params we send: built as a model (or validated into one) so a bad shape never leaves."""
    if not hasattr(params, "model_dump"):
        from pydantic import ValidationError

        update = params.get("update") if isinstance(params, dict) else None
        tag = update.get("sessionUpdate") if isinstance(update, dict) else None
        vendor = VENDOR_UPDATES.get(tag) if isinstance(tag, str) else None
        try:
            if vendor is not None:  # the envelope with a known variant, and the variant alone
                stand_in = {"sessionUpdate": "plan", "entries": []}
                model_class(spec.params).model_validate({**params, "update": stand_in})
                model_class(vendor).model_validate(update)
                return dict(params)
            params = model_class(spec.params).model_validate(params)
        except ValidationError as exc:
            raise InternalError(describe(spec.method, exc, params)) from None
    data: dict[str, Any] = dump(params)
    return data
