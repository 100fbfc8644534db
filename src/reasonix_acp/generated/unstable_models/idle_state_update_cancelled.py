# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# with session/fork, session/set_title, session/archive, session/unarchive, session/status, auth/status, auth/status_update, providers/list, providers/set, providers/disable, mcp/message, SessionForkCapabilities, SubagentCapabilities, SubagentUpdate, SessionMessage, SessionMessageChunk, SessionTitleCapabilities, SessionArchiveCapabilities, SessionStatusCapabilities, ListSessionsRequest, SessionInfo, NewSessionRequest, LoadSessionRequest, ResumeSessionRequest, SessionSystemPromptCapabilities, AuthStatusCapabilities, PlanUpdate, PlanRemoved, PlanCapabilities, ProvidersCapabilities, McpServer from schema/v1/schema.unstable.json (sha256 ce7881d10c854bcac4f0e7d3a9ce4fb0f612ec0a09e64b572940beec4668c189)
# and schema/vendor/*.json (sha256 d672a756040b1a5b6fe65589ffc86fcc1845182a712edca2bcabb643cbf61a41) by codegen/ -- DO NOT EDIT.
# Regenerate with `nox -s codegen`; `nox -s codegen_check` fails when this file is stale.
# ruff: noqa
from typing import Annotated, Any, Literal
from pydantic import ConfigDict, Field, RootModel
from reasonix_acp.protocol.lenient import LenientModel
from reasonix_acp.protocol.lenient import register
from reasonix_acp.generated.models.error import Error
from reasonix_acp.generated.unstable_models.usage import Usage


class IdleStateUpdateCancelled(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    stop_reason: Annotated[Literal["cancelled"], Field(alias="stopReason")]
    usage: Usage | None = None


class IdleStateUpdateEndTurn(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    stop_reason: Annotated[Literal["end_turn"], Field(alias="stopReason")]
    usage: Usage | None = None


class IdleStateUpdateError(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    error: Error | None = None
    stop_reason: Annotated[Literal["error"], Field(alias="stopReason")]
    usage: Usage | None = None


class IdleStateUpdateMaxTokens(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    stop_reason: Annotated[Literal["max_tokens"], Field(alias="stopReason")]
    usage: Usage | None = None


class IdleStateUpdateMaxTurnRequests(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    stop_reason: Annotated[Literal["max_turn_requests"], Field(alias="stopReason")]
    usage: Usage | None = None


class IdleStateUpdateNone(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    stop_reason: Annotated[None, Field(alias="stopReason")] = None
    usage: Usage | None = None


class IdleStateUpdateOther(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    stop_reason: Annotated[str, Field(alias="stopReason")]
    usage: Usage | None = None


class IdleStateUpdateRefusal(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    stop_reason: Annotated[Literal["refusal"], Field(alias="stopReason")]
    usage: Usage | None = None


class IdleStateUpdate(
    RootModel[
        IdleStateUpdateEndTurn
        | IdleStateUpdateMaxTokens
        | IdleStateUpdateMaxTurnRequests
        | IdleStateUpdateRefusal
        | IdleStateUpdateCancelled
        | IdleStateUpdateError
        | IdleStateUpdateOther
        | IdleStateUpdateNone
    ]
):
    root: (
        IdleStateUpdateEndTurn
        | IdleStateUpdateMaxTokens
        | IdleStateUpdateMaxTurnRequests
        | IdleStateUpdateRefusal
        | IdleStateUpdateCancelled
        | IdleStateUpdateError
        | IdleStateUpdateOther
        | IdleStateUpdateNone
    )


LENIENT_FIELDS: dict[str, Any] = {
    "IdleStateUpdateCancelled": {"_meta": "default", "usage": "default"},
    "IdleStateUpdateEndTurn": {"_meta": "default", "usage": "default"},
    "IdleStateUpdateError": {
        "_meta": "default",
        "error": "default",
        "usage": "default",
    },
    "IdleStateUpdateMaxTokens": {"_meta": "default", "usage": "default"},
    "IdleStateUpdateMaxTurnRequests": {"_meta": "default", "usage": "default"},
    "IdleStateUpdateNone": {"_meta": "default", "usage": "default"},
    "IdleStateUpdateOther": {"_meta": "default", "usage": "default"},
    "IdleStateUpdateRefusal": {"_meta": "default", "usage": "default"},
}

REJECT_TAGS: dict[str, Any] = {
    "IdleStateUpdateOther": {
        "stopReason": [
            "cancelled",
            "end_turn",
            "error",
            "max_tokens",
            "max_turn_requests",
            "refusal",
        ]
    }
}

register(__name__, LENIENT_FIELDS, REJECT_TAGS)
