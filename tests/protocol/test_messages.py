from __future__ import annotations

from typing import Any

import pytest

from reasonix_acp.protocol.errors import InvalidParams, InvalidRequest, ParseError
from reasonix_acp.protocol.messages import (
    Ignored,
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
        ({"jsonrpc": "2.0", "id": None, "method": "m"}, None, "null"),
        ({"jsonrpc": "2.0", "id": None, "method": "m", "params": {}}, None, "null"),
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


@pytest.mark.parametrize(
    "obj",
    [
        {"jsonrpc": "2.0", "id": None, "result": {}},
        {"jsonrpc": "2.0", "id": None, "result": None},
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32601, "message": "no"}},
        {"jsonrpc": "2.0", "id": None, "error": "junk"},
    ],
)
def test_a_response_with_a_null_id_is_ignored_not_answered(obj: dict[str, Any]) -> None:
    frame = classify(obj)
    assert isinstance(frame, Ignored) and not frame.warn


@pytest.mark.parametrize(
    ("line", "text"),
    [
        (b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":NaN}}', "NaN is not a JSON value"),
        (b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":Infinity}}', "Infinity"),
        (b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":-Infinity}}', "-Infinity"),
        (b'{"jsonrpc":"2.0","id":-1e999,"method":"m","params":{}}', "out of range"),
        (b'{"jsonrpc":"2.0","id":1,"method":"m","n":1e999}', "out of range"),
        (b'\xef\xbb\xbf{"jsonrpc":"2.0","id":1,"method":"m"}', "byte order mark"),
        ('{"jsonrpc":"2.0","id":1,"method":"m"}'.encode("utf-16"), "not UTF-8"),
        ('{"jsonrpc":"2.0","id":1,"method":"m"}'.encode("utf-16-be"), "NUL"),
        ('{"jsonrpc":"2.0","id":1,"method":"m"}'.encode("utf-32"), "not UTF-8"),
        (b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"\xc3("}}', "byte 0xc3 at"),
        (b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"\xed\xb0\x80"}}', "not UTF-8"),
        (b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"\xf4\x90\x80\x80"}}', "not UTF-8"),
    ],
)
def test_frames_that_are_not_strict_utf8_json_are_parse_errors(line: bytes, text: str) -> None:
    frame = decode(line)
    assert isinstance(frame, Invalid) and isinstance(frame.error, ParseError), frame
    assert frame.id is None and text in frame.error.message


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            b'{"jsonrpc":"2.0","id":5,"method":"m","params":{"_meta":1e999}}',
            Invalid(
                InvalidParams("m: invalid params at _meta: the number 1e999 is out of range"), 5
            ),
        ),
        (
            b'{"jsonrpc":"2.0","method":"m","params":{"a":[{"b":-1e400}]}}',
            Ignored(
                "notification dropped: m: invalid params at a[0].b: the number -1e400 is out of range",
                warn=True,
            ),
        ),
    ],
)
def test_a_number_out_of_range_where_the_id_is_readable(line: bytes, expected: Any) -> None:
    frame = decode(line)
    if isinstance(expected, Invalid):
        assert isinstance(frame, Invalid) and isinstance(frame.error, InvalidParams)
        assert (frame.id, frame.error.message) == (expected.id, expected.error.message)
    else:
        assert frame == expected


def test_a_number_out_of_range_in_a_response_fails_its_request() -> None:
    frame = decode(b'{"jsonrpc":"2.0","id":3,"result":{"n":1e999}}')
    message = "invalid result at result.n: the number 1e999 is out of range"
    assert frame == Response(3, None, {"code": -32602, "message": message})


def test_plain_malformed_json_keeps_the_plain_message() -> None:
    frame = decode(b'{"jsonrpc":"2.0",')
    assert isinstance(frame, Invalid) and frame.error.message == "parse error"


def test_large_finite_numbers_and_non_ascii_text_are_fine() -> None:
    line = '{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":1e308,"s":"é😀"}}'.encode()
    assert decode(line) == Request(1, "m", {"n": 1e308, "s": "é😀"})


@pytest.mark.parametrize(
    ("params", "path", "point"),
    [
        ('{"prompt":[{"type":"text","text":"a\\ud800b"}]}', "prompt[0].text", "U+D800"),
        ('{"cwd":"\\udfff"}', "cwd", "U+DFFF"),
        ('{"a":{"b":["ok","\\uDC00"]}}', "a.b[1]", "U+DC00"),
        ('{"_meta":{"\\ud800":1}}', "_meta", "U+D800"),
        ('{"\\ud800":1}', "params", "U+D800"),
        ('{"pair":"\\ud83d\\ude00","lone":"\\ude00\\ud83d"}', "lone", "U+DE00"),
        ('{"sessionId":"\\udfff","prompt":[],"x":"ok"}', "sessionId", "U+DFFF"),
        ('{"a":"ok","b":{"c":"ok","d":["\\ud800"]},"e":"\\ud801"}', "b.d[0]", "U+D800"),
    ],
)
def test_a_lone_surrogate_in_request_params_is_invalid_params_naming_the_path(
    params: str, path: str, point: str
) -> None:
    frame = decode(
        f'{{"jsonrpc":"2.0","id":"r","method":"session/new","params":{params}}}'.encode()
    )
    assert isinstance(frame, Invalid) and isinstance(frame.error, InvalidParams), frame
    assert frame.id == "r" and frame.error.CODE == -32602
    assert frame.error.message == (
        f"session/new: invalid params at {path}: lone surrogate {point} is not Unicode text"
    )


def test_surrogate_pairs_are_text() -> None:
    line = b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"\\ud83d\\ude00"}}'
    assert decode(line) == Request(1, "m", {"s": "\U0001f600"})


def test_a_lone_surrogate_in_a_notification_drops_it_with_a_warning() -> None:
    frame = decode(b'{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"\\ud800"}}')
    assert isinstance(frame, Ignored) and frame.warn and "sessionId" in frame.reason


def test_a_lone_surrogate_in_a_reply_fails_the_request_it_answers() -> None:
    frame = decode(b'{"jsonrpc":"2.0","id":4,"result":{"content":"\\udc00"}}')
    assert isinstance(frame, Response) and frame.error is not None
    assert frame.error["code"] == -32602 and "result.content" in frame.error["message"]


def test_deeply_nested_params_with_an_escape_are_walked_without_recursion() -> None:
    depth = 900
    inner = '["\\ud800"]'
    params = '{"a":' + "[" * depth + inner + "]" * depth + "}"
    frame = decode(f'{{"jsonrpc":"2.0","id":1,"method":"m","params":{params}}}'.encode())
    assert isinstance(frame, Invalid) and isinstance(frame.error, InvalidParams)
