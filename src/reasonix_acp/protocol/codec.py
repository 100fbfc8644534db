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

from reasonix_acp.generated.methods import INITIALIZE, MethodSpec
from reasonix_acp.protocol.errors import InternalError, InvalidParams
from reasonix_acp.protocol.handshake import decode_initialize

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

# Methods whose params are decoded without pydantic (each checked against its generated model
# by tests/protocol/test_handshake.py).
LIGHT_DECODERS: dict[str, Callable[[dict[str, Any]], Any]] = {INITIALIZE: decode_initialize}

MAX_ERRORS_NAMED = 3


def model_class(name: str) -> type[BaseModel]:
    module = "reasonix_models" if name.startswith("Reasonix") else "models"
    cls: type[BaseModel] = getattr(import_module(f"reasonix_acp.generated.{module}"), name)
    return cls


def field_path(loc: tuple[int | str, ...]) -> str:
    """`prompt[0].text` from a pydantic location, without validator and union-member parts."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif "[" in part or "(" in part or part[:1].isupper():
            continue  # "function-wrap[_lenient()]", a union member's class name
        else:
            out += f".{part}" if out else part
    return out or "params"


def describe(method: str, exc: ValidationError) -> str:
    errors = exc.errors(include_url=False, include_input=False)
    named = [f"{field_path(e['loc'])}: {e['msg']}" for e in errors[:MAX_ERRORS_NAMED]]
    more = len(errors) - len(named)
    text = f"{method}: invalid params at " + "; ".join(named)
    return text + (f" (and {more} more)" if more > 0 else "")


def decode_params(spec: MethodSpec, params: dict[str, Any] | None) -> Any:
    light = LIGHT_DECODERS.get(spec.method)
    if light is not None:
        return light(params or {})
    from pydantic import ValidationError

    try:
        return model_class(spec.params).model_validate(params or {})
    except ValidationError as exc:
        raise InvalidParams(describe(spec.method, exc)) from None


def decode_result(spec: MethodSpec, result: Any) -> Any:
    """A client's answer to one of our requests, as the method's result model."""
    if spec.result is None:
        raise InternalError(f"{spec.method} is a notification and has no result")
    from pydantic import ValidationError

    try:
        return model_class(spec.result).model_validate({} if result is None else result)
    except ValidationError as exc:
        raise InvalidParams(describe(spec.method, exc).replace("invalid params", "invalid result")) from None


def dump(value: Any) -> Any:
    """A model, or a JSON-ready value, as JSON-ready data."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return {} if value is None else value


def encode_params(spec: MethodSpec, params: Any) -> dict[str, Any]:
    """Params we send: built as a model (or validated into one) so a bad shape never leaves."""
    if not hasattr(params, "model_dump"):
        from pydantic import ValidationError

        try:
            params = model_class(spec.params).model_validate(params)
        except ValidationError as exc:
            raise InternalError(describe(spec.method, exc)) from None
    data: dict[str, Any] = dump(params)
    return data
