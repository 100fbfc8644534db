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


class AuthCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    terminal: bool | None = False


class BooleanConfigOptionCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class CompactionCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )


class ElicitationFormCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class ElicitationUrlCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class FileSystemCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    read_text_file: Annotated[bool | None, Field(alias="readTextFile")] = False
    write_text_file: Annotated[bool | None, Field(alias="writeTextFile")] = False


class NoticeCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )


class SessionConfigOptionsCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    boolean: BooleanConfigOptionCapabilities | None = None


class ClientSessionCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    compaction: CompactionCapabilities | None = None
    config_options: Annotated[
        SessionConfigOptionsCapabilities | None, Field(alias="configOptions")
    ] = None
    notices: NoticeCapabilities | None = None


class ElicitationCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    form: ElicitationFormCapabilities | None = None
    url: ElicitationUrlCapabilities | None = None


class ClientCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    auth: Annotated[AuthCapabilities | None, Field(validate_default=True)] = {
        "terminal": False
    }
    elicitation: ElicitationCapabilities | None = None
    fs: Annotated[FileSystemCapabilities | None, Field(validate_default=True)] = {
        "readTextFile": False,
        "writeTextFile": False,
    }
    session: ClientSessionCapabilities | None = None
    terminal: bool | None = False


class InitializeRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    client_capabilities: Annotated[
        ClientCapabilities | None,
        Field(alias="clientCapabilities", validate_default=True),
    ] = {
        "auth": {"terminal": False},
        "fs": {"readTextFile": False, "writeTextFile": False},
        "terminal": False,
    }
    client_info: Annotated[Implementation | None, Field(alias="clientInfo")] = None
    protocol_version: Annotated[int, Field(alias="protocolVersion", ge=0, le=65535)]


LENIENT_FIELDS: dict[str, Any] = {
    "AuthCapabilities": {"_meta": "default", "terminal": "default"},
    "BooleanConfigOptionCapabilities": {"_meta": "default"},
    "ClientCapabilities": {
        "_meta": "default",
        "auth": "default",
        "elicitation": "default",
        "fs": "default",
        "session": "default",
        "terminal": "default",
    },
    "ClientSessionCapabilities": {
        "_meta": "default",
        "compaction": "default",
        "configOptions": "default",
        "notices": "default",
    },
    "ElicitationCapabilities": {
        "_meta": "default",
        "form": "default",
        "url": "default",
    },
    "ElicitationFormCapabilities": {"_meta": "default"},
    "ElicitationUrlCapabilities": {"_meta": "default"},
    "FileSystemCapabilities": {
        "_meta": "default",
        "readTextFile": "default",
        "writeTextFile": "default",
    },
    "InitializeRequest": {
        "_meta": "default",
        "clientCapabilities": "default",
        "clientInfo": "default",
    },
    "SessionConfigOptionsCapabilities": {"_meta": "default", "boolean": "default"},
}

REJECT_TAGS: dict[str, Any] = {}

register(__name__, LENIENT_FIELDS, REJECT_TAGS)
