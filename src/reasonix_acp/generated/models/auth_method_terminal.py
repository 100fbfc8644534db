# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# with session/fork, session/set_title, session/archive, session/unarchive, session/status, auth/status, auth/status_update, providers/list, providers/set, providers/disable, mcp/message, SessionForkCapabilities, SubagentCapabilities, SubagentUpdate, SessionMessage, SessionMessageChunk, SessionTitleCapabilities, SessionArchiveCapabilities, SessionStatusCapabilities, ListSessionsRequest, SessionInfo, NewSessionRequest, LoadSessionRequest, ResumeSessionRequest, SessionSystemPromptCapabilities, AuthStatusCapabilities, PlanUpdate, PlanRemoved, PlanCapabilities, ProvidersCapabilities, McpServer from schema/v1/schema.unstable.json (sha256 ce7881d10c854bcac4f0e7d3a9ce4fb0f612ec0a09e64b572940beec4668c189)
# and schema/vendor/*.json (sha256 d672a756040b1a5b6fe65589ffc86fcc1845182a712edca2bcabb643cbf61a41) by codegen/ -- DO NOT EDIT.
# Regenerate with `nox -s codegen`; `nox -s codegen_check` fails when this file is stale.
# ruff: noqa
from typing import Annotated, Any, Literal
from pydantic import ConfigDict, Field, RootModel
from reasonix_acp.protocol.lenient import LenientModel
from reasonix_acp.protocol.lenient import register
from reasonix_acp.generated.models.implementation import Implementation


class AuthMethodTerminal(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    args: list[str] | None = None
    description: str | None = None
    env: dict[str, str] | None = None
    id: str
    name: str


class LogoutCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class McpCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    http: bool | None = False
    sse: bool | None = False


class PromptCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    audio: bool | None = False
    embedded_context: Annotated[bool | None, Field(alias="embeddedContext")] = False
    image: bool | None = False


class SessionAdditionalDirectoriesCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class SessionCloseCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class SessionDeleteCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class SessionListCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class SessionResumeCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class AgentAuthCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    logout: LogoutCapabilities | None = None


class AuthMethodTerminalModel(AuthMethodTerminal):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["terminal"]


class AuthMethodAgent(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    description: str | None = None
    id: str
    name: str


class SessionCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    additional_directories: Annotated[
        SessionAdditionalDirectoriesCapabilities | None,
        Field(alias="additionalDirectories"),
    ] = None
    close: SessionCloseCapabilities | None = None
    delete: SessionDeleteCapabilities | None = None
    list: SessionListCapabilities | None = None
    resume: SessionResumeCapabilities | None = None


class AgentCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    auth: Annotated[AgentAuthCapabilities | None, Field(validate_default=True)] = {}
    load_session: Annotated[bool | None, Field(alias="loadSession")] = False
    mcp_capabilities: Annotated[
        McpCapabilities | None, Field(alias="mcpCapabilities", validate_default=True)
    ] = {"http": False, "sse": False}
    prompt_capabilities: Annotated[
        PromptCapabilities | None,
        Field(alias="promptCapabilities", validate_default=True),
    ] = {"audio": False, "embeddedContext": False, "image": False}
    session_capabilities: Annotated[
        SessionCapabilities | None,
        Field(alias="sessionCapabilities", validate_default=True),
    ] = {}


class InitializeResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    agent_capabilities: Annotated[
        AgentCapabilities | None,
        Field(alias="agentCapabilities", validate_default=True),
    ] = {
        "auth": {},
        "loadSession": False,
        "mcpCapabilities": {"http": False, "sse": False},
        "promptCapabilities": {
            "audio": False,
            "embeddedContext": False,
            "image": False,
        },
        "sessionCapabilities": {},
    }
    agent_info: Annotated[Implementation | None, Field(alias="agentInfo")] = None
    auth_methods: Annotated[
        list[AuthMethodTerminalModel | AuthMethodAgent] | None,
        Field(alias="authMethods", validate_default=True),
    ] = []
    protocol_version: Annotated[int, Field(alias="protocolVersion", ge=0, le=65535)]


LENIENT_FIELDS: dict[str, Any] = {
    "AgentAuthCapabilities": {"_meta": "default", "logout": "default"},
    "AgentCapabilities": {
        "_meta": "default",
        "auth": "default",
        "loadSession": "default",
        "mcpCapabilities": "default",
        "promptCapabilities": "default",
        "sessionCapabilities": "default",
    },
    "AuthMethodAgent": {"_meta": "default", "description": "default"},
    "AuthMethodTerminal": {
        "_meta": "default",
        "args": "default_on_null",
        "description": "default",
        "env": "default_on_null",
    },
    "InitializeResponse": {
        "_meta": "default",
        "agentCapabilities": "default",
        "agentInfo": "default",
        "authMethods": "skip_items",
    },
    "LogoutCapabilities": {"_meta": "default"},
    "McpCapabilities": {"_meta": "default", "http": "default", "sse": "default"},
    "PromptCapabilities": {
        "_meta": "default",
        "audio": "default",
        "embeddedContext": "default",
        "image": "default",
    },
    "SessionAdditionalDirectoriesCapabilities": {"_meta": "default"},
    "SessionCapabilities": {
        "_meta": "default",
        "additionalDirectories": "default",
        "close": "default",
        "delete": "default",
        "list": "default",
        "resume": "default",
    },
    "SessionCloseCapabilities": {"_meta": "default"},
    "SessionDeleteCapabilities": {"_meta": "default"},
    "SessionListCapabilities": {"_meta": "default"},
    "SessionResumeCapabilities": {"_meta": "default"},
}

REJECT_TAGS: dict[str, Any] = {}

register(__name__, LENIENT_FIELDS, REJECT_TAGS)
