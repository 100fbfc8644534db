from __future__ import annotations

import pytest

from reasonix_acp.generated.methods import METHODS, SESSION_NEW, SESSION_PROMPT, SESSION_UPDATE
from reasonix_acp.protocol import codec
from reasonix_acp.protocol.errors import InternalError, InvalidParams


def test_invalid_params_name_method_and_path() -> None:
    with pytest.raises(InvalidParams) as info:
        codec.decode_params(
            METHODS[SESSION_PROMPT], {"sessionId": "s", "prompt": [{"type": "text"}]}
        )
    assert info.value.CODE == -32602
    assert info.value.message == "session/prompt: invalid params at prompt[0].text: Field required"


def test_present_but_invalid_field_in_a_tagged_member() -> None:
    with pytest.raises(InvalidParams) as info:
        codec.decode_params(
            METHODS[SESSION_PROMPT], {"sessionId": "s", "prompt": [{"type": "text", "text": 5}]}
        )
    assert (
        info.value.message
        == "session/prompt: invalid params at prompt[0].text: Input should be a valid string"
    )


def test_several_errors_are_counted() -> None:
    with pytest.raises(InvalidParams) as info:
        codec.decode_params(
            METHODS[SESSION_NEW], {"cwd": 5, "mcpServers": [], "additionalDirectories": [1, 2, 3]}
        )
    assert info.value.message.startswith("session/new: invalid params at ")
    assert "(and " in info.value.message and info.value.message.endswith("more)")


def test_vendor_extension_of_an_upstream_method() -> None:
    spec = METHODS[SESSION_PROMPT]
    assert spec.params == "ReasonixPromptRequest"
    params = codec.decode_params(
        spec, {"sessionId": "s", "prompt": [], "action": "protocol_recovery", "recoveryId": "r"}
    )
    assert params.action == "protocol_recovery" and params.recovery_id == "r"


def test_outgoing_params_are_validated_before_they_leave() -> None:
    with pytest.raises(InternalError, match="session/update"):
        codec.encode_params(
            METHODS[SESSION_UPDATE], {"sessionId": "s", "update": {"sessionUpdate": "nope"}}
        )
    ok = codec.encode_params(
        METHODS[SESSION_UPDATE],
        {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "hi"},
            },
        },
    )
    assert ok == {
        "sessionId": "s",
        "update": {
            "content": {"text": "hi", "type": "text"},
            "sessionUpdate": "agent_message_chunk",
        },
    }


def test_result_of_null_is_an_empty_object() -> None:
    assert codec.dump(None) == {}
