from __future__ import annotations

import json

import pytest

from reasonix_acp.protocol.framing import Line, LineFramer, Overflow, Template, encode

CASES = [
    # (chunks fed, expected events including those from close())
    ([b'{"a":1}\n'], [Line(b'{"a":1}')]),
    ([b'{"a":', b"1}\n"], [Line(b'{"a":1}')]),
    ([b"\r\n\n  \t\n"], []),
    ([b' {"a":1} \r\n'], [Line(b'{"a":1}')]),
    ([b"one\ntwo\nthree"], [Line(b"one"), Line(b"two"), Line(b"three")]),
    ([b"tail without newline"], [Line(b"tail without newline")]),
]


@pytest.mark.parametrize(("chunks", "expected"), CASES)
def test_lines(chunks: list[bytes], expected: list[object]) -> None:
    framer = LineFramer()
    events = [e for c in chunks for e in framer.feed(c)] + framer.close()
    assert events == expected


def test_overlong_line_is_reported_once_and_the_next_line_survives() -> None:
    framer = LineFramer(limit=8)
    events = framer.feed(b"x" * 5) + framer.feed(b"y" * 50) + framer.feed(b"z\nok\n")
    assert events == [Overflow(size=56, limit=8), Line(b"ok")]


def test_line_at_exactly_the_limit_is_kept() -> None:
    framer = LineFramer(limit=4)
    assert framer.feed(b"abcd\nabcde\n") == [Line(b"abcd"), Overflow(size=5, limit=4)]


def test_overlong_tail_at_eof() -> None:
    framer = LineFramer(limit=2)
    assert framer.feed(b"abc") == []
    assert framer.close() == [Overflow(size=3, limit=2)]


def test_encode_is_one_line_of_utf8() -> None:
    data = encode({"text": "a\nb\u2028ü", "n": 1})
    assert data.count(b"\n") == 1 and data.endswith(b"\n")
    assert json.loads(data) == {"text": "a\nb\u2028ü", "n": 1}
    assert "ü".encode() in data


def test_encode_lone_surrogate_stays_valid_utf8() -> None:
    data = encode({"text": "\ud800"})
    data.decode("utf-8")
    assert json.loads(data) == {"text": "\ud800"}


def test_limit_must_be_positive() -> None:
    with pytest.raises(ValueError):
        LineFramer(limit=0)


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 1, "result": {"a": [1, 2.5, True, None, 'é\n"\\'], "b": {}}},
        {"jsonrpc": "2.0", "method": "m", "params": {"x": 10**30, "y": -0.0, "z": "\u2028\x00"}},
        {"k": float("inf"), "n": float("nan")},  # as JSONEncoder writes them
    ],
)
def test_encode_writes_what_the_standard_encoder_writes(message: dict[str, object]) -> None:
    standard = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode(message)
    assert encode(message) == standard.encode("utf-8") + b"\n"


@pytest.mark.parametrize(
    "text", ["", "plain", 'é\n\t"\\</script>', "\u2028\x00\x1f", "\ud800 lone", "😀"]
)
def test_a_filled_template_is_what_encode_writes(text: str) -> None:
    def frame(value: str) -> dict[str, object]:
        update = {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": value},
        }
        return {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s", "update": update},
        }

    assert Template(frame(Template.SLOT)).fill(text) == encode(frame(text))


def test_a_template_needs_one_slot_in_an_ascii_frame() -> None:
    with pytest.raises(ValueError):
        Template({"a": "no slot"})
    with pytest.raises(ValueError):
        Template({"a": Template.SLOT, "b": Template.SLOT})
    with pytest.raises(ValueError):
        Template({"a": Template.SLOT, "b": "é"})
