"""Classify one decoded line into a JSON-RPC frame, or say precisely why it is not one.

`method` + `id` is a request, `method` alone a notification, `id` with `result` or `error` a
response to one of our requests. Anything else is an invalid request, answered with `id: null`
unless the frame carried a usable id. Only objects are frames: ACP has no batches.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from reasonix_acp.protocol.errors import InvalidRequest, ParseError

RequestId = int | str


@dataclass(frozen=True)
class Request:
    id: RequestId
    method: str
    params: dict[str, Any] | None


@dataclass(frozen=True)
class Notification:
    method: str
    params: dict[str, Any] | None


@dataclass(frozen=True)
class Response:
    id: RequestId
    result: Any = None
    error: dict[str, Any] | None = None


@dataclass(frozen=True)
class Invalid:
    """A frame to answer with an error; `id` is None when the frame had no usable id."""

    error: ParseError | InvalidRequest
    id: RequestId | None = None


Frame = Request | Notification | Response | Invalid


def _valid_id(value: Any) -> bool:
    # bool is an int subclass in Python but not an integer in JSON.
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def decode(line: bytes) -> Frame:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return Invalid(ParseError())
    return classify(obj)


def classify(obj: Any) -> Frame:
    if not isinstance(obj, dict):
        kind = (
            "an array (batches are not supported)" if isinstance(obj, list) else type(obj).__name__
        )
        return Invalid(InvalidRequest(f"invalid request: a frame must be an object, got {kind}"))
    raw_id = obj.get("id")
    frame_id = raw_id if _valid_id(raw_id) else None
    if obj.get("jsonrpc") != "2.0":
        return Invalid(InvalidRequest('invalid request: "jsonrpc" must be "2.0"'), frame_id)
    has_id = "id" in obj and raw_id is not None
    if has_id and frame_id is None:
        return Invalid(InvalidRequest('invalid request: "id" must be an integer or a string'))
    if "method" in obj:
        method = obj["method"]
        if not isinstance(method, str) or not method:
            return Invalid(
                InvalidRequest('invalid request: "method" must be a non-empty string'), frame_id
            )
        params = obj.get("params")
        if params is not None and not isinstance(params, dict):
            return Invalid(
                InvalidRequest(f'invalid request: "params" of {method} must be an object'), frame_id
            )
        if frame_id is not None:
            return Request(frame_id, method, params)
        return Notification(method, params)
    if frame_id is not None and ("result" in obj or "error" in obj):
        error = obj.get("error")
        if "error" in obj and not (isinstance(error, dict) and isinstance(error.get("code"), int)):
            # Never answer a response; fail the request it answers instead.
            error = {
                "code": -32603,
                "message": f"malformed error object in the reply: {error!r:.200}",
            }
        return Response(frame_id, obj.get("result"), error if "error" in obj else None)
    return Invalid(
        InvalidRequest('invalid request: a frame needs "method", or "id" with "result" or "error"'),
        frame_id,
    )
