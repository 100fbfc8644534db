"""Classify one line into a JSON-RPC frame, or say precisely why it is not one.

A line is UTF-8 JSON (RFC 8259), strictly: bytes that are not UTF-8 (UTF-16 or UTF-32 text, a
UTF-8-encoded surrogate), a leading byte order mark, `NaN`, `Infinity`, `-Infinity` and numbers
too large for a double are a parse error (-32700, `id: null`) and never run.

`method` + `id` is a request, `method` alone a notification, `id` with `result` or `error` a
response to one of our requests. Anything else is an invalid request, answered with `id: null`
unless the frame carried a usable id. Only objects are frames: ACP has no batches.

Null ids. A request with `"id": null` cannot be correlated with its answer (JSON-RPC 2.0
discourages null ids), so it is an invalid request (-32600) answered with `id: null`, and never
run. A response with `"id": null` (what some clients send back to a notification they do not
know) is ignored: responses are never answered.

Lone surrogates. A `\\ud800`-style escape that is not half of a pair is not Unicode text and
cannot be stored or re-encoded as UTF-8. In a request's params it is invalid params (-32602,
naming the method and the field path) answered with the request's id before anything runs; in a
notification the frame is dropped with a warning; in a response to one of our requests it fails
that request with -32602 ("invalid result at ...").
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from reasonix_acp.protocol.errors import InvalidParams, InvalidRequest, ParseError, PeerError

RequestId = int | str


# Immutable records as NamedTuples: defining a frozen dataclass compiles its six methods when
# the class is made, ten times the cost, and these classes are defined on every start-up.
class Request(NamedTuple):
    """A JSON-RPC request: it expects an answer with its id."""

    id: RequestId
    method: str
    params: dict[str, Any] | None


class Notification(NamedTuple):
    """A JSON-RPC notification: no id, no answer."""

    method: str
    params: dict[str, Any] | None


class Response(NamedTuple):
    """A JSON-RPC response to one of our requests: a result or an error."""

    id: RequestId
    result: Any = None
    error: dict[str, Any] | None = None


class Invalid(NamedTuple):
    """A frame to answer with an error; `id` is None when the frame had no usable id."""

    error: PeerError
    id: RequestId | None = None


class Ignored(NamedTuple):
    """A frame that is never answered: logged (as a warning when `warn`) and dropped."""

    reason: str
    warn: bool = False


Frame = Request | Notification | Response | Invalid | Ignored


def _valid_id(value: Any) -> bool:
    # bool is an int subclass in Python but not an integer in JSON.
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class _Huge(str):
    """A number too large for a double, kept as its text while the frame is read again."""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


def _parse_error(line: bytes, exc: Exception) -> ParseError:
    if isinstance(exc, UnicodeDecodeError):
        return ParseError(f"parse error: not UTF-8 (byte 0x{line[exc.start]:02x} at {exc.start})")
    if line.startswith(b"\xef\xbb\xbf"):
        return ParseError("parse error: a frame may not start with a byte order mark")
    if b"\x00" in line:
        return ParseError("parse error: not UTF-8 (NUL bytes: UTF-16 or UTF-32 text?)")
    if isinstance(exc, ValueError) and str(exc).endswith(("is not a JSON value", "out of range")):
        return ParseError(f"parse error: {exc}")
    return ParseError()


def decode(line: bytes) -> Frame:
    try:
        obj = json.loads(line.decode("utf-8"), parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        if isinstance(exc, ValueError) and str(exc).endswith("out of range"):
            return _out_of_range(line, exc)
        return Invalid(_parse_error(line, exc))
    frame = classify(obj)
    if _SURROGATE_ESCAPE.search(line):  # lone surrogates only come in as \u escapes
        return _without_lone_surrogates(frame)
    return frame


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
    if "id" in obj and raw_id is None:
        if "method" not in obj and ("result" in obj or "error" in obj):
            return Ignored("a response with a null id")
        if "method" in obj:
            return Invalid(
                InvalidRequest('invalid request: "id" may not be null (a notification has none)')
            )
    if "id" in obj and frame_id is None and raw_id is not None:
        return Invalid(InvalidRequest('invalid request: "id" must be an integer or a string'))
    if "method" in obj:
        return _call(obj, frame_id)
    if frame_id is not None and ("result" in obj or "error" in obj):
        return _response(obj, frame_id)
    return Invalid(
        InvalidRequest('invalid request: a frame needs "method", or "id" with "result" or "error"'),
        frame_id,
    )


def _call(obj: dict[str, Any], frame_id: RequestId | None) -> Frame:
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


def _response(obj: dict[str, Any], frame_id: RequestId) -> Response:
    if "error" not in obj:
        return Response(frame_id, obj.get("result"))
    error = obj["error"]
    if not (isinstance(error, dict) and isinstance(error.get("code"), int)):
        # Never answer a response; fail the request it answers instead.
        error = {"code": -32603, "message": f"malformed error object in the reply: {error!r:.200}"}
    return Response(frame_id, None, error)


# -- lone surrogates ---------------------------------------------------------------------------

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _nodes(root: Any, root_path: str) -> Iterator[tuple[Any, str]]:
    """Every value under `root` with its field path, depth first in document order. Iterative:
    frames nest as deep as the JSON parser allows."""
    stack: list[tuple[Any, str]] = [(root, root_path)]
    while stack:
        node, path = stack.pop()
        yield node, path
        if isinstance(node, dict):
            stack.extend(
                (value, f"{path}.{key}" if path else key) for key, value in reversed(node.items())
            )
        elif isinstance(node, list):
            stack.extend((item, f"{path}[{i}]") for i, item in reversed(list(enumerate(node))))


def _surrogate_at(root: Any, root_path: str) -> tuple[str, str] | None:
    """(field path, the code point) of the first lone surrogate in a string or a key under
    `root`, or None."""
    for node, path in _nodes(root, root_path):
        texts = [node] if isinstance(node, str) else list(node) if isinstance(node, dict) else []
        for text in texts:
            found = _SURROGATE.search(text)
            if found:
                return (path if text is node else path or "params"), found.group()
    return None


def _lone(point: str) -> str:
    return f"lone surrogate U+{ord(point):04X} is not Unicode text"


def _without_lone_surrogates(frame: Frame) -> Frame:
    if isinstance(frame, Request | Notification):
        where = _surrogate_at(frame.params, "")
        if where is None:
            return frame
        text = f"{frame.method}: invalid params at {where[0]}: {_lone(where[1])}"
        if isinstance(frame, Request):
            return Invalid(InvalidParams(text), frame.id)
        return Ignored(f"notification dropped: {text}", warn=True)
    if isinstance(frame, Response):
        root, path = (frame.error, "error") if frame.error is not None else (frame.result, "result")
        where = _surrogate_at(root, path)
        if where is not None:
            message = f"invalid result at {where[0]}: {_lone(where[1])}"
            return Response(frame.id, None, {"code": InvalidParams.CODE, "message": message})
    return frame


def _out_of_range(line: bytes, exc: ValueError) -> Frame:
    """A frame that is JSON but for a number too large for a double (`1e999`). Where its id
    can be read, the frame is answered or handled as one with a bad field: a request gets
    -32602 naming the field, with its id; a notification is dropped with a warning; a
    response fails its request. Elsewhere (in the id, the method, outside params) it stays a
    parse error, answered with `id: null`."""
    obj = json.loads(line.decode("utf-8"), parse_constant=_no_constant, parse_float=_Huge)
    frame = classify(obj) if isinstance(obj, dict) and _huge_at(obj.get("id"), "") is None else None
    if isinstance(frame, Request | Notification):
        where = _huge_at(frame.params, "")
        if where is not None and _huge_at({**obj, "params": None}, "") is None:
            text = f"{frame.method}: invalid params at {where[0] or 'params'}: the number {where[1][:40]} is out of range"
            if isinstance(frame, Request):
                return Invalid(InvalidParams(text), frame.id)
            return Ignored(f"notification dropped: {text}", warn=True)
    if isinstance(frame, Response):
        root, path = (frame.error, "error") if frame.error is not None else (frame.result, "result")
        where = _huge_at(root, path)
        if where is not None:
            message = f"invalid result at {where[0]}: the number {where[1][:40]} is out of range"
            return Response(frame.id, None, {"code": InvalidParams.CODE, "message": message})
    return Invalid(_parse_error(line, exc))


def _huge_at(root: Any, root_path: str) -> tuple[str, str] | None:
    """(field path, the number's text) of the first number out of range under `root`."""
    return next(((path, str(n)) for n, path in _nodes(root, root_path) if type(n) is _Huge), None)
