"""x-deserialize-default-on-error / x-deserialize-skip-invalid-items, and catch-all variants."""

from __future__ import annotations

import logging

import pytest
from pydantic import ValidationError

from reasonix_acp.generated import models


def test_malformed_optional_value_falls_back_and_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, "reasonix_acp.lenient"):
        req = models.InitializeRequest.model_validate(
            {"protocolVersion": 1, "clientInfo": 7, "_meta": "x"}
        )
    assert req.client_info is None and req.field_meta is None
    assert (
        "InitializeRequest.clientInfo" in caplog.text and "InitializeRequest._meta" in caplog.text
    )


def test_invalid_items_are_dropped_one_by_one(caplog: pytest.LogCaptureFixture) -> None:
    update = {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [
            {"name": "a", "description": "x"},
            {"name": 1},
            "junk",
            {"name": "b", "description": "y"},
        ],
    }
    with caplog.at_level(logging.WARNING, "reasonix_acp.lenient"):
        note = models.SessionNotification.model_validate({"sessionId": "s", "update": update})
    assert [c.name for c in note.update.available_commands] == ["a", "b"]
    assert caplog.text.count("invalid item dropped") == 2


def test_required_fields_still_fail() -> None:
    with pytest.raises(ValidationError):
        models.InitializeRequest.model_validate({"clientInfo": 7})


def test_types_are_strict() -> None:
    caps = models.FileSystemCapabilities.model_validate({"readTextFile": "yes"})
    assert caps.read_text_file is False  # "yes" is not a JSON boolean: default, not coercion


def test_catch_all_takes_unknown_tags_only() -> None:
    other = models.CreateElicitationResponse.model_validate({"action": "snooze", "until": 5})
    assert type(other.root).__name__ == "CreateElicitationResponseOther"
    decline = models.CreateElicitationResponse.model_validate({"action": "decline"})
    assert type(decline.root).__name__ == "CreateElicitationResponseDecline"
    with pytest.raises(ValidationError):
        models.CreateElicitationResponse.model_validate({"action": "accept", "content": 5})


def test_unknown_fields_are_kept_and_dumped() -> None:
    msg = models.PromptResponse.model_validate({"stopReason": "end_turn", "futureField": {"a": 1}})
    assert msg.model_dump(by_alias=True, exclude_unset=True) == {
        "stopReason": "end_turn",
        "futureField": {"a": 1},
    }


def test_unset_optionals_are_not_dumped_but_explicit_null_is() -> None:
    upd = models.SessionInfoUpdate.model_validate({"title": None})
    assert upd.model_dump(by_alias=True, exclude_unset=True) == {"title": None}
