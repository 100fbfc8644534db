from __future__ import annotations

from typing import Any

import pytest

from reasonix_acp.protocol.errors import InvalidRequest, ParseError
from reasonix_acp.protocol.messages import (
    Invalid,
    Notification,
    Request,
    Response,
    classify,
    decode,
)


def test_parse_error() -> None:
    frame = decode(b'{"jsonrpc":')
    assert isinstance(frame, Invalid) and isinstance(frame.error, ParseError) and frame.id is None


def test_deep_nesting_is_a_parse_error_not_a_crash() -> None:
    frame = decode(b"[" * 100000 + b"]" * 100000)
    assert isinstance(frame, Invalid)


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        ({"jsonrpc": "2.0", "id": 1, "method": "m"}, Request(1, "m", None)),
        (
            {"jsonrpc": "2.0", "id": "a", "method": "m", "params": {"x": 1}},
            Request("a", "m", {"x": 1}),
        ),
        ({"jsonrpc": "2.0", "method": "m"}, Notification("m", None)),
        ({"jsonrpc": "2.0", "id": None, "method": "m"}, Notification("m", None)),
        ({"jsonrpc": "2.0", "id": 3, "result": {}}, Response(3, {}, None)),
        ({"jsonrpc": "2.0", "id": 3, "result": None}, Response(3, None, None)),
        (
            {"jsonrpc": "2.0", "id": 3, "error": {"code": -1, "message": "x"}},
            Response(3, None, {"code": -1, "message": "x"}),
        ),
    ],
)
def test_valid_frames(obj: dict[str, Any], expected: object) -> None:
    assert classify(obj) == expected


@pytest.mark.parametrize(
    ("obj", "frame_id", "text"),
    [
        ([], None, "batches"),
        (5, None, "got int"),
        ({"id": 1, "method": "m"}, 1, '"jsonrpc"'),
        ({"jsonrpc": "2.0", "id": True, "method": "m"}, None, '"id"'),
        ({"jsonrpc": "2.0", "id": 1.0, "method": "m"}, None, '"id"'),
        ({"jsonrpc": "2.0", "id": 1, "method": ""}, 1, '"method"'),
        ({"jsonrpc": "2.0", "id": 1, "method": "m", "params": [1]}, 1, '"params"'),
        ({"jsonrpc": "2.0", "id": 1}, 1, "needs"),
        ({"jsonrpc": "2.0"}, None, "needs"),
    ],
)
def test_invalid_frames(obj: Any, frame_id: object, text: str) -> None:
    frame = classify(obj)
    assert isinstance(frame, Invalid)
    assert isinstance(frame.error, InvalidRequest) and frame.error.CODE == -32600
    assert frame.id == frame_id
    assert text in frame.error.message


def test_malformed_error_reply_fails_the_request_instead_of_being_answered() -> None:
    frame = classify({"jsonrpc": "2.0", "id": 4, "error": "boom"})
    assert isinstance(frame, Response) and frame.error is not None and frame.error["code"] == -32603
