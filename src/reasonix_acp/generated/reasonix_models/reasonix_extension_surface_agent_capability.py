# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# with session/fork, session/set_title, session/archive, session/unarchive, session/status, auth/status, auth/status_update, providers/list, providers/set, providers/disable, mcp/message, SessionForkCapabilities, SubagentCapabilities, SubagentUpdate, SessionMessage, SessionMessageChunk, SessionTitleCapabilities, SessionArchiveCapabilities, SessionStatusCapabilities, ListSessionsRequest, SessionInfo, NewSessionRequest, LoadSessionRequest, ResumeSessionRequest, SessionSystemPromptCapabilities, AuthStatusCapabilities, PlanUpdate, PlanRemoved, PlanCapabilities, ProvidersCapabilities, McpServer from schema/v1/schema.unstable.json (sha256 ce7881d10c854bcac4f0e7d3a9ce4fb0f612ec0a09e64b572940beec4668c189)
# and schema/vendor/*.json (sha256 d672a756040b1a5b6fe65589ffc86fcc1845182a712edca2bcabb643cbf61a41) by codegen/ -- DO NOT EDIT.
# Regenerate with `nox -s codegen`; `nox -s codegen_check` fails when this file is stale.
# ruff: noqa
from typing import Annotated, Any, Literal
from pydantic import ConfigDict, Field, RootModel
from reasonix_acp.protocol.lenient import LenientModel
from reasonix_acp.protocol.lenient import register


class ReasonixExtensionSurfaceAgentCapability(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    schema_version: Annotated[int, Field(alias="schemaVersion", ge=1)]
    supported: bool


class ReasonixMcpInteractionAgentCapability(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    method: Literal["_reasonix.io/mcp/request_interaction"]
    schema_version: Annotated[int, Field(alias="schemaVersion", ge=1)]
    supported: bool


class ReasonixSchemaVersionMarker(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    schema_version: Annotated[int, Field(alias="schemaVersion", ge=1)]


class ReasonixSessionInboxMethods(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    delete: Literal["_reasonix.io/session/inbox/delete"]
    enqueue: Literal["_reasonix.io/session/inbox/enqueue"]
    get: Literal["_reasonix.io/session/inbox/get"]
    list: Literal["_reasonix.io/session/inbox/list"]
    move: Literal["_reasonix.io/session/inbox/move"]
    refresh: Literal["_reasonix.io/session/inbox/refresh"]
    retry: Literal["_reasonix.io/session/inbox/retry"]
    set_paused: Annotated[
        Literal["_reasonix.io/session/inbox/setPaused"], Field(alias="setPaused")
    ]
    update: Literal["_reasonix.io/session/inbox/update"]


class ReasonixSessionReloadExtensionsCapability(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    method: Literal["_reasonix.io/session/reloadExtensions"]


class ReasonixSessionRewindCapability(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    method: Literal["_reasonix.io/session/rewind"]


class ReasonixSessionSteerCapability(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    method: Literal["_reasonix.io/session/steer"]


class ReasonixSessionInboxCapability(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    methods: ReasonixSessionInboxMethods
    schema_version: Annotated[int, Field(alias="schemaVersion", ge=1)]


class ReasonixAgentCapabilitiesMeta(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    extension_surface: Annotated[
        ReasonixExtensionSurfaceAgentCapability | None, Field(alias="extensionSurface")
    ] = None
    mcp_interaction: Annotated[
        ReasonixMcpInteractionAgentCapability | None, Field(alias="mcpInteraction")
    ] = None
    session_inbox: Annotated[
        ReasonixSessionInboxCapability | None, Field(alias="sessionInbox")
    ] = None
    session_reload_extensions: Annotated[
        ReasonixSessionReloadExtensionsCapability | None,
        Field(alias="sessionReloadExtensions"),
    ] = None
    session_rewind: Annotated[
        ReasonixSessionRewindCapability | None, Field(alias="sessionRewind")
    ] = None
    session_steer: Annotated[
        ReasonixSessionSteerCapability | None, Field(alias="sessionSteer")
    ] = None


class ReasonixAgentCapabilitiesMetaEnvelope(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_reasonix_io_session_status: Annotated[
        ReasonixSchemaVersionMarker | None, Field(alias="_reasonix.io/session/status")
    ] = None
    field_reasonix_io_session_status_update: Annotated[
        ReasonixSchemaVersionMarker | None,
        Field(alias="_reasonix.io/session/status_update"),
    ] = None
    reasonix_io: Annotated[
        ReasonixAgentCapabilitiesMeta | None, Field(alias="reasonix.io")
    ] = None


LENIENT_FIELDS: dict[str, Any] = {}

REJECT_TAGS: dict[str, Any] = {}

register(__name__, LENIENT_FIELDS, REJECT_TAGS)
