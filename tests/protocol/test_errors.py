from __future__ import annotations

from typing import Any

import pytest

from reasonix_acp.protocol import dispatch, errors
from reasonix_acp.protocol.errors import InternalError, InvalidParams, RemoteError


def test_an_internal_error_carries_its_cause_as_data_details() -> None:
    error = InternalError("session/prompt: upstream said 502").to_error()
    assert error == {
        "code": -32603,
        "message": "session/prompt: upstream said 502",
        "data": {"details": "session/prompt: upstream said 502"},
    }


def test_peer_errors_carry_code_and_message_only() -> None:
    assert InvalidParams("m: invalid params at x: y").to_error() == {
        "code": -32602,
        "message": "m: invalid params at x: y",
    }


def test_the_installed_scrubber_cleans_internal_causes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(errors, "_scrubber", errors.clip)
    errors.install_scrubber(lambda text: text.replace("sk-secret", "[redacted]"))
    error = InternalError("failed with sk-secret").to_error()
    assert error["message"] == error["data"]["details"] == "failed with [redacted]"


def test_the_server_installs_redaction() -> None:
    import reasonix_acp.server.connection  # noqa: F401  (installs reasonix_acp.redact.redact)

    cause = "POST https://user:hunter2@api.example/v1 failed: Authorization: Bearer abcdefgh12345"
    error = dispatch.internal("session/prompt", RuntimeError(cause)).to_error()
    assert "hunter2" not in str(error) and "abcdefgh12345" not in str(error)
    assert error["data"] == {"details": error["message"]}


def test_internal_causes_are_bounded() -> None:
    error = InternalError("x" * 100_000).to_error()
    assert len(error["message"].encode()) <= errors.MAX_MESSAGE_BYTES
    assert error["data"]["details"] == error["message"]


def test_a_cause_without_text_is_named_by_its_type() -> None:
    assert dispatch.internal("session/list", AssertionError()).message == (
        "session/list: AssertionError"
    )


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (None, "write refused (code -32000)"),
        ({"details": "read-only buffer"}, "write refused (code -32000): read-only buffer"),
        ("read-only buffer", "write refused (code -32000): read-only buffer"),
        ({"reason": "locked", "by": 2}, 'write refused (code -32000): {"reason":"locked","by":2}'),
        ({"details": "write refused"}, "write refused (code -32000)"),
        ({"details": "  "}, "write refused (code -32000)"),
    ],
)
def test_a_client_error_keeps_its_data_in_its_text(data: Any, text: str) -> None:
    error = RemoteError(-32000, "write refused", data)
    assert str(error) == text and error.data == data and error.code == -32000


def test_client_details_are_bounded() -> None:
    error = RemoteError(-32000, "no", {"details": "d" * 10_000})
    assert error.details is not None
    assert len(error.details.encode()) <= errors.MAX_DETAILS_BYTES
