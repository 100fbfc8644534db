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


class SessionCancelCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class StateUpdateOther(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    state: str


class StateUpdateRequiresAction(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    state: Literal["requires_action"]


class StateUpdateRunning(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    state: Literal["running"]


class StateUpdateUnknown(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    state: Literal["unknown"]


class SubagentSessionCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    cancel: SessionCancelCapabilities | None = None


class StateUpdateIdleCancelled(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    state: Literal["idle"]
    stop_reason: Annotated[Literal["cancelled"], Field(alias="stopReason")]
    usage: Usage | None = None


class StateUpdateIdleEndTurn(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    state: Literal["idle"]
    stop_reason: Annotated[Literal["end_turn"], Field(alias="stopReason")]
    usage: Usage | None = None


class StateUpdateIdleError(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    error: Error | None = None
    state: Literal["idle"]
    stop_reason: Annotated[Literal["error"], Field(alias="stopReason")]
    usage: Usage | None = None


class StateUpdateIdleMaxTokens(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    state: Literal["idle"]
    stop_reason: Annotated[Literal["max_tokens"], Field(alias="stopReason")]
    usage: Usage | None = None


class StateUpdateIdleMaxTurnRequests(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    state: Literal["idle"]
    stop_reason: Annotated[Literal["max_turn_requests"], Field(alias="stopReason")]
    usage: Usage | None = None


class StateUpdateIdleNone(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    state: Literal["idle"]
    stop_reason: Annotated[None, Field(alias="stopReason")] = None
    usage: Usage | None = None


class StateUpdateIdleOther(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    state: Literal["idle"]
    stop_reason: Annotated[str, Field(alias="stopReason")]
    usage: Usage | None = None


class StateUpdateIdleRefusal(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    state: Literal["idle"]
    stop_reason: Annotated[Literal["refusal"], Field(alias="stopReason")]
    usage: Usage | None = None


class SubagentUpdate(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    additional_directories: Annotated[
        list[str] | None, Field(alias="additionalDirectories")
    ] = None
    capabilities: SubagentSessionCapabilities | None = None
    cwd: str | None = None
    description: str | None = None
    session_id: Annotated[str, Field(alias="sessionId")]
    state: (
        StateUpdateRunning
        | StateUpdateIdleEndTurn
        | StateUpdateIdleMaxTokens
        | StateUpdateIdleMaxTurnRequests
        | StateUpdateIdleRefusal
        | StateUpdateIdleCancelled
        | StateUpdateIdleError
        | StateUpdateIdleOther
        | StateUpdateIdleNone
        | StateUpdateRequiresAction
        | StateUpdateUnknown
        | StateUpdateOther
        | None
    ) = None
    title: str | None = None


LENIENT_FIELDS: dict[str, Any] = {
    "SessionCancelCapabilities": {"_meta": "default"},
    "StateUpdateIdleCancelled": {"_meta": "default", "usage": "default"},
    "StateUpdateIdleEndTurn": {"_meta": "default", "usage": "default"},
    "StateUpdateIdleError": {
        "_meta": "default",
        "error": "default",
        "usage": "default",
    },
    "StateUpdateIdleMaxTokens": {"_meta": "default", "usage": "default"},
    "StateUpdateIdleMaxTurnRequests": {"_meta": "default", "usage": "default"},
    "StateUpdateIdleNone": {"_meta": "default", "usage": "default"},
    "StateUpdateIdleOther": {"_meta": "default", "usage": "default"},
    "StateUpdateIdleRefusal": {"_meta": "default", "usage": "default"},
    "StateUpdateRequiresAction": {"_meta": "default"},
    "StateUpdateRunning": {"_meta": "default"},
    "StateUpdateUnknown": {"_meta": "default"},
    "SubagentSessionCapabilities": {"_meta": "default", "cancel": "default"},
    "SubagentUpdate": {
        "_meta": "default",
        "capabilities": "default",
        "description": "default",
        "state": "default",
        "title": "default",
    },
}

REJECT_TAGS: dict[str, Any] = {
    "StateUpdateOther": {"state": ["idle", "requires_action", "running", "unknown"]}
}

register(__name__, LENIENT_FIELDS, REJECT_TAGS)
