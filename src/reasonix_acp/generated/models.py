# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# and schema/vendor/*.json (sha256 67c85a3f2ec6232daca7677e0cc9fa9d0d04c2da4f8affb32f7778e1b8234a19) by codegen/ -- DO NOT EDIT.
# Regenerate with `nox -s codegen`; `nox -s codegen_check` fails when this file is stale.
# ruff: noqa
from __future__ import annotations

from typing import Annotated, Any, Literal
from pydantic import ConfigDict, Field, RootModel
from reasonix_acp.protocol.lenient import LenientModel
from reasonix_acp.protocol.lenient import register


class AuthCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    terminal: bool | None = False


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


class AuthenticateRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    method_id: Annotated[str, Field(alias="methodId")]


class AuthenticateResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class BlobResourceContents(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    blob: str
    mime_type: Annotated[str | None, Field(alias="mimeType")] = None
    uri: str


class BooleanConfigOptionCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class BooleanPropertySchema(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    default: bool | None = None
    description: str | None = None
    title: str | None = None


class CloseSessionResponse(LenientModel):
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


class Cost(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    amount: float
    currency: str


class CreateElicitationRequestOther(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    message: str
    mode: str


class CreateElicitationResponseAccept(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    action: Literal["accept"]
    content: dict[str, Any] | None = None


class CreateElicitationResponseCancel(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    action: Literal["cancel"]


class CreateElicitationResponseDecline(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    action: Literal["decline"]


class CreateElicitationResponseOther(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    action: str


class DeleteSessionResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class Diff(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    new_text: Annotated[str, Field(alias="newText")]
    old_text: Annotated[str | None, Field(alias="oldText")] = None
    path: str


class ElicitationAcceptAction(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    content: dict[str, Any] | None = None


class ElicitationContentValue(RootModel[str | int | float | bool | list[str]]):
    root: str | int | float | bool | list[str]


class ElicitationFormCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class ElicitationPropertySchemaBoolean(BooleanPropertySchema):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["boolean"]


class ElicitationPropertySchemaOther(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: str


class ElicitationUrlCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class EnumOption(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    const: str
    description: str | None = None
    title: str


class EnvVariable(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    name: str
    value: str


class ExtNotification(RootModel[Any]):
    root: Any


class ExtRequest(RootModel[Any]):
    root: Any


class ExtResponse(RootModel[Any]):
    root: Any


class FileSystemCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    read_text_file: Annotated[bool | None, Field(alias="readTextFile")] = False
    write_text_file: Annotated[bool | None, Field(alias="writeTextFile")] = False


class HttpHeader(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    name: str
    value: str


class Implementation(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    name: str
    title: str | None = None
    version: str


class IntegerPropertySchema(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    default: int | None = None
    description: str | None = None
    maximum: int | None = None
    minimum: int | None = None
    title: str | None = None


class KillTerminalResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class ListSessionsRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    cursor: str | None = None
    cwd: str | None = None


class LogoutCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class LogoutRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class LogoutResponse(LenientModel):
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


class McpServerHttp(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    headers: list[HttpHeader]
    name: str
    url: str


class McpServerSse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    headers: list[HttpHeader]
    name: str
    url: str


class McpServerStdio(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    args: list[str]
    command: str
    env: list[EnvVariable]
    name: str


class MultiSelectItemsOther(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: str


class NoticeCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )


class NumberPropertySchema(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    default: float | None = None
    description: str | None = None
    maximum: float | None = None
    minimum: float | None = None
    title: str | None = None


class PromptCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    audio: bool | None = False
    embedded_context: Annotated[bool | None, Field(alias="embeddedContext")] = False
    image: bool | None = False


class ReadTextFileResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    content: str


class ReleaseTerminalResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class RequestPermissionOutcomeCancelled(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    outcome: Literal["cancelled"]


class SelectedPermissionOutcome(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    option_id: Annotated[str, Field(alias="optionId")]


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


class SessionConfigBoolean(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    current_value: Annotated[bool, Field(alias="currentValue")]


class SessionConfigOptionsCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    boolean: BooleanConfigOptionCapabilities | None = None


class SessionDeleteCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class SessionInfo(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    additional_directories: Annotated[
        list[str] | None, Field(alias="additionalDirectories")
    ] = None
    cwd: str
    session_id: Annotated[str, Field(alias="sessionId")]
    title: str | None = None
    updated_at: Annotated[str | None, Field(alias="updatedAt")] = None


class SessionInfoUpdate(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    title: str | None = None
    updated_at: Annotated[str | None, Field(alias="updatedAt")] = None


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


class SessionUpdateSessionInfoUpdate(SessionInfoUpdate):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_update: Annotated[
        Literal["session_info_update"], Field(alias="sessionUpdate")
    ]


class SetSessionConfigOptionRequestBoolean(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    config_id: Annotated[str, Field(alias="configId")]
    session_id: Annotated[str, Field(alias="sessionId")]
    type: Literal["boolean"]
    value: bool


class SetSessionConfigOptionRequestSelect(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    config_id: Annotated[str, Field(alias="configId")]
    session_id: Annotated[str, Field(alias="sessionId")]
    value: str


class SetSessionModeRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    mode_id: Annotated[str, Field(alias="modeId")]
    session_id: Annotated[str, Field(alias="sessionId")]


class SetSessionModeResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class StringMultiSelectItems(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    enum: list[str]


class StringPropertySchema(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    default: str | None = None
    description: str | None = None
    enum: list[str] | None = None
    format: Literal["email", "uri", "date", "date-time"] | None = None
    max_length: Annotated[int | None, Field(alias="maxLength", ge=0)] = None
    min_length: Annotated[int | None, Field(alias="minLength", ge=0)] = None
    one_of: Annotated[list[EnumOption] | None, Field(alias="oneOf")] = None
    pattern: str | None = None
    title: str | None = None


class TerminalExitStatus(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    exit_code: Annotated[int | None, Field(alias="exitCode", ge=0)] = None
    signal: str | None = None


class TerminalOutputRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    session_id: Annotated[str, Field(alias="sessionId")]
    terminal_id: Annotated[str, Field(alias="terminalId")]


class TerminalOutputResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    exit_status: Annotated[TerminalExitStatus | None, Field(alias="exitStatus")] = None
    output: str
    truncated: bool


class TextResourceContents(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    mime_type: Annotated[str | None, Field(alias="mimeType")] = None
    text: str
    uri: str


class TitledMultiSelectItems(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    any_of: Annotated[list[EnumOption], Field(alias="anyOf")]


class ToolCallContentDiff(Diff):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["diff"]


class ToolCallLocation(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    line: Annotated[int | None, Field(ge=0)] = None
    path: str


class UnstructuredCommandInput(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    hint: str


class UsageUpdate(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    cost: Cost | None = None
    size: Annotated[int, Field(ge=0)]
    used: Annotated[int, Field(ge=0)]


class WaitForTerminalExitRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    session_id: Annotated[str, Field(alias="sessionId")]
    terminal_id: Annotated[str, Field(alias="terminalId")]


class WaitForTerminalExitResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    exit_code: Annotated[int | None, Field(alias="exitCode", ge=0)] = None
    signal: str | None = None


class WriteTextFileRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    content: str
    path: str
    session_id: Annotated[str, Field(alias="sessionId")]


class WriteTextFileResponse(LenientModel):
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


class Annotations(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    audience: list[Literal["assistant", "user"]] | None = None
    last_modified: Annotated[str | None, Field(alias="lastModified")] = None
    priority: float | None = None


class AudioContent(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    annotations: Annotations | None = None
    data: str
    mime_type: Annotated[str, Field(alias="mimeType")]


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


class AvailableCommandInput(RootModel[UnstructuredCommandInput]):
    root: UnstructuredCommandInput


class CancelNotification(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    session_id: Annotated[str, Field(alias="sessionId")]


class CancelRequestNotification(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    request_id: Annotated[int | str | None, Field(alias="requestId")]


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


class CloseSessionRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    session_id: Annotated[str, Field(alias="sessionId")]


class CompleteElicitationNotification(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    elicitation_id: Annotated[str, Field(alias="elicitationId")]


class ContentBlockAudio(AudioContent):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["audio"]


class CreateElicitationRequestUrlRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    elicitation_id: Annotated[str, Field(alias="elicitationId")]
    message: str
    mode: Literal["url"]
    request_id: Annotated[int | str | None, Field(alias="requestId")]
    url: str


class CreateElicitationRequestUrlSession(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    elicitation_id: Annotated[str, Field(alias="elicitationId")]
    message: str
    mode: Literal["url"]
    session_id: Annotated[str, Field(alias="sessionId")]
    tool_call_id: Annotated[str | None, Field(alias="toolCallId")] = None
    url: str


class CreateElicitationResponse(
    RootModel[
        CreateElicitationResponseAccept
        | CreateElicitationResponseDecline
        | CreateElicitationResponseCancel
        | CreateElicitationResponseOther
    ]
):
    root: (
        CreateElicitationResponseAccept
        | CreateElicitationResponseDecline
        | CreateElicitationResponseCancel
        | CreateElicitationResponseOther
    )


class CreateTerminalRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    args: list[str] | None = None
    command: str
    cwd: str | None = None
    env: list[EnvVariable] | None = None
    output_byte_limit: Annotated[int | None, Field(alias="outputByteLimit", ge=0)] = (
        None
    )
    session_id: Annotated[str, Field(alias="sessionId")]


class CreateTerminalResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    terminal_id: Annotated[str, Field(alias="terminalId")]


class CurrentModeUpdate(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    current_mode_id: Annotated[str, Field(alias="currentModeId")]


class DeleteSessionRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    session_id: Annotated[str, Field(alias="sessionId")]


class ElicitationCapabilities(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    form: ElicitationFormCapabilities | None = None
    url: ElicitationUrlCapabilities | None = None


class ElicitationPropertySchemaString(StringPropertySchema):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["string"]


class ElicitationPropertySchemaNumber(NumberPropertySchema):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["number"]


class ElicitationPropertySchemaInteger(IntegerPropertySchema):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["integer"]


class ElicitationRequestScope(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    request_id: Annotated[int | str | None, Field(alias="requestId")]


class ElicitationSessionScope(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_id: Annotated[str, Field(alias="sessionId")]
    tool_call_id: Annotated[str | None, Field(alias="toolCallId")] = None


class ElicitationUrlModeRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    elicitation_id: Annotated[str, Field(alias="elicitationId")]
    request_id: Annotated[int | str | None, Field(alias="requestId")]
    url: str


class ElicitationUrlModeSession(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    elicitation_id: Annotated[str, Field(alias="elicitationId")]
    session_id: Annotated[str, Field(alias="sessionId")]
    tool_call_id: Annotated[str | None, Field(alias="toolCallId")] = None
    url: str


class Error(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    code: (
        Literal[-32700]
        | Literal[-32600]
        | Literal[-32601]
        | Literal[-32602]
        | Literal[-32603]
        | Literal[-32800]
        | Literal[-32000]
        | Literal[-32002]
        | int
    )
    data: Any | None = None
    message: str


class ImageContent(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    annotations: Annotations | None = None
    data: str
    mime_type: Annotated[str, Field(alias="mimeType")]
    uri: str | None = None


class KillTerminalRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    session_id: Annotated[str, Field(alias="sessionId")]
    terminal_id: Annotated[str, Field(alias="terminalId")]


class ListSessionsResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    next_cursor: Annotated[str | None, Field(alias="nextCursor")] = None
    sessions: list[SessionInfo]


class McpServerHttpModel(McpServerHttp):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["http"]


class McpServerSseModel(McpServerSse):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["sse"]


class MultiSelectItemsString(StringMultiSelectItems):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["string"]


class MultiSelectPropertySchema(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    default: list[str] | None = None
    description: str | None = None
    items: MultiSelectItemsString | MultiSelectItemsOther | TitledMultiSelectItems
    max_items: Annotated[int | None, Field(alias="maxItems", ge=0)] = None
    min_items: Annotated[int | None, Field(alias="minItems", ge=0)] = None
    title: str | None = None


class NewSessionRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    additional_directories: Annotated[
        list[str] | None, Field(alias="additionalDirectories")
    ] = None
    cwd: str
    mcp_servers: Annotated[
        list[McpServerHttpModel | McpServerSseModel | McpServerStdio],
        Field(alias="mcpServers"),
    ]


class Notice(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    description: str | None = None
    severity: Literal["info"] | Literal["warning"] | Literal["error"] | str
    title: Annotated[str, Field(min_length=1)]


class PermissionOption(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    kind: Literal["allow_once", "allow_always", "reject_once", "reject_always"]
    name: str
    option_id: Annotated[str, Field(alias="optionId")]


class PlanEntry(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    content: str
    priority: Literal["high", "medium", "low"]
    status: Literal["pending", "in_progress", "completed"]


class PromptResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    stop_reason: Annotated[
        Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"],
        Field(alias="stopReason"),
    ]


class ReadTextFileRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    limit: Annotated[int | None, Field(ge=0)] = None
    line: Annotated[int | None, Field(ge=0)] = None
    path: str
    session_id: Annotated[str, Field(alias="sessionId")]


class ReleaseTerminalRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    session_id: Annotated[str, Field(alias="sessionId")]
    terminal_id: Annotated[str, Field(alias="terminalId")]


class RequestPermissionOutcomeSelected(SelectedPermissionOutcome):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    outcome: Literal["selected"]


class RequestPermissionResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    outcome: Annotated[
        RequestPermissionOutcomeCancelled | RequestPermissionOutcomeSelected,
        Field(discriminator="outcome"),
    ]


class ResourceLink(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    annotations: Annotations | None = None
    description: str | None = None
    mime_type: Annotated[str | None, Field(alias="mimeType")] = None
    name: str
    size: int | None = None
    title: str | None = None
    uri: str


class ResumeSessionRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    additional_directories: Annotated[
        list[str] | None, Field(alias="additionalDirectories")
    ] = None
    cwd: str
    mcp_servers: Annotated[
        list[McpServerHttpModel | McpServerSseModel | McpServerStdio] | None,
        Field(alias="mcpServers"),
    ] = None
    session_id: Annotated[str, Field(alias="sessionId")]


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


class SessionConfigOptionBoolean(SessionConfigBoolean):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    category: (
        Literal["mode"]
        | Literal["model"]
        | Literal["model_config"]
        | Literal["thought_level"]
        | str
        | None
    ) = None
    description: str | None = None
    id: str
    name: str
    type: Literal["boolean"]


class SessionConfigSelectOption(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    description: str | None = None
    name: str
    value: str


class SessionMode(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    description: str | None = None
    id: str
    name: str


class SessionModeState(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    available_modes: Annotated[list[SessionMode], Field(alias="availableModes")]
    current_mode_id: Annotated[str, Field(alias="currentModeId")]


class SessionUpdateCurrentModeUpdate(CurrentModeUpdate):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_update: Annotated[
        Literal["current_mode_update"], Field(alias="sessionUpdate")
    ]


class SessionUpdateUsageUpdate(UsageUpdate):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_update: Annotated[Literal["usage_update"], Field(alias="sessionUpdate")]


class SessionUpdateNotice(Notice):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_update: Annotated[Literal["notice"], Field(alias="sessionUpdate")]


class SetSessionConfigOptionRequest(
    RootModel[
        SetSessionConfigOptionRequestBoolean | SetSessionConfigOptionRequestSelect
    ]
):
    root: SetSessionConfigOptionRequestBoolean | SetSessionConfigOptionRequestSelect


class Terminal(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    terminal_id: Annotated[str, Field(alias="terminalId")]


class TextContent(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    annotations: Annotations | None = None
    text: str


class ToolCallContentTerminal(Terminal):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["terminal"]


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


class AvailableCommand(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    description: str
    input: AvailableCommandInput | None = None
    name: str


class AvailableCommandsUpdate(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    available_commands: Annotated[
        list[AvailableCommand], Field(alias="availableCommands")
    ]


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


class ContentBlockText(TextContent):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["text"]


class ContentBlockImage(ImageContent):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["image"]


class ContentBlockResourceLink(ResourceLink):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["resource_link"]


class ElicitationPropertySchemaArray(MultiSelectPropertySchema):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["array"]


class ElicitationSchema(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    description: str | None = None
    properties: Annotated[
        dict[
            str,
            ElicitationPropertySchemaString
            | ElicitationPropertySchemaNumber
            | ElicitationPropertySchemaInteger
            | ElicitationPropertySchemaBoolean
            | ElicitationPropertySchemaArray
            | ElicitationPropertySchemaOther,
        ]
        | None,
        Field(validate_default=True),
    ] = {}
    required: list[str] | None = None
    title: str | None = None
    type: Literal["object"] | None = "object"


class ElicitationUrlMode(
    RootModel[ElicitationUrlModeSession | ElicitationUrlModeRequest]
):
    root: ElicitationUrlModeSession | ElicitationUrlModeRequest


class EmbeddedResource(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    annotations: Annotations | None = None
    resource: TextResourceContents | BlobResourceContents


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


class LoadSessionRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    additional_directories: Annotated[
        list[str] | None, Field(alias="additionalDirectories")
    ] = None
    cwd: str
    mcp_servers: Annotated[
        list[McpServerHttpModel | McpServerSseModel | McpServerStdio],
        Field(alias="mcpServers"),
    ]
    session_id: Annotated[str, Field(alias="sessionId")]


class Plan(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    entries: list[PlanEntry]


class SessionConfigSelectGroup(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    group: str
    name: str
    options: list[SessionConfigSelectOption]


class SessionUpdatePlan(Plan):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_update: Annotated[Literal["plan"], Field(alias="sessionUpdate")]


class SessionUpdateAvailableCommandsUpdate(AvailableCommandsUpdate):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_update: Annotated[
        Literal["available_commands_update"], Field(alias="sessionUpdate")
    ]


class ContentBlockResource(EmbeddedResource):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["resource"]


class ContentChunk(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    content: Annotated[
        ContentBlockText
        | ContentBlockImage
        | ContentBlockAudio
        | ContentBlockResourceLink
        | ContentBlockResource,
        Field(discriminator="type"),
    ]
    message_id: Annotated[str | None, Field(alias="messageId")] = None


class CreateElicitationRequestFormRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    message: str
    mode: Literal["form"]
    request_id: Annotated[int | str | None, Field(alias="requestId")]
    requested_schema: Annotated[ElicitationSchema, Field(alias="requestedSchema")]


class CreateElicitationRequestFormSession(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    message: str
    mode: Literal["form"]
    requested_schema: Annotated[ElicitationSchema, Field(alias="requestedSchema")]
    session_id: Annotated[str, Field(alias="sessionId")]
    tool_call_id: Annotated[str | None, Field(alias="toolCallId")] = None


class ElicitationFormModeRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    request_id: Annotated[int | str | None, Field(alias="requestId")]
    requested_schema: Annotated[ElicitationSchema, Field(alias="requestedSchema")]


class ElicitationFormModeSession(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    requested_schema: Annotated[ElicitationSchema, Field(alias="requestedSchema")]
    session_id: Annotated[str, Field(alias="sessionId")]
    tool_call_id: Annotated[str | None, Field(alias="toolCallId")] = None


class PromptRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    prompt: list[
        Annotated[
            ContentBlockText
            | ContentBlockImage
            | ContentBlockAudio
            | ContentBlockResourceLink
            | ContentBlockResource,
            Field(discriminator="type"),
        ]
    ]
    session_id: Annotated[str, Field(alias="sessionId")]


class SessionConfigSelect(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    current_value: Annotated[str, Field(alias="currentValue")]
    options: list[SessionConfigSelectOption] | list[SessionConfigSelectGroup]


class SessionUpdateUserMessageChunk(ContentChunk):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_update: Annotated[
        Literal["user_message_chunk"], Field(alias="sessionUpdate")
    ]


class SessionUpdateAgentMessageChunk(ContentChunk):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_update: Annotated[
        Literal["agent_message_chunk"], Field(alias="sessionUpdate")
    ]


class SessionUpdateAgentThoughtChunk(ContentChunk):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_update: Annotated[
        Literal["agent_thought_chunk"], Field(alias="sessionUpdate")
    ]


class CompactionSummaryChunk(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    compaction_id: Annotated[str, Field(alias="compactionId")]
    content: Annotated[
        ContentBlockText
        | ContentBlockImage
        | ContentBlockAudio
        | ContentBlockResourceLink
        | ContentBlockResource,
        Field(discriminator="type"),
    ]


class CompactionUpdate(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    compaction_id: Annotated[str, Field(alias="compactionId")]
    error: str | None = None
    status: (
        Literal["in_progress"]
        | Literal["completed"]
        | Literal["failed"]
        | Literal["cancelled"]
        | str
    )
    summary: (
        list[
            Annotated[
                ContentBlockText
                | ContentBlockImage
                | ContentBlockAudio
                | ContentBlockResourceLink
                | ContentBlockResource,
                Field(discriminator="type"),
            ]
        ]
        | None
    ) = None


class Content(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    content: Annotated[
        ContentBlockText
        | ContentBlockImage
        | ContentBlockAudio
        | ContentBlockResourceLink
        | ContentBlockResource,
        Field(discriminator="type"),
    ]


class CreateElicitationRequest(
    RootModel[
        CreateElicitationRequestFormSession
        | CreateElicitationRequestFormRequest
        | CreateElicitationRequestUrlSession
        | CreateElicitationRequestUrlRequest
        | CreateElicitationRequestOther
    ]
):
    root: (
        CreateElicitationRequestFormSession
        | CreateElicitationRequestFormRequest
        | CreateElicitationRequestUrlSession
        | CreateElicitationRequestUrlRequest
        | CreateElicitationRequestOther
    )


class ElicitationFormMode(
    RootModel[ElicitationFormModeSession | ElicitationFormModeRequest]
):
    root: ElicitationFormModeSession | ElicitationFormModeRequest


class SessionConfigOptionSelect(SessionConfigSelect):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    category: (
        Literal["mode"]
        | Literal["model"]
        | Literal["model_config"]
        | Literal["thought_level"]
        | str
        | None
    ) = None
    description: str | None = None
    id: str
    name: str
    type: Literal["select"]


class SessionUpdateCompactionUpdate(CompactionUpdate):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_update: Annotated[
        Literal["compaction_update"], Field(alias="sessionUpdate")
    ]


class SessionUpdateCompactionSummaryChunk(CompactionSummaryChunk):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_update: Annotated[
        Literal["compaction_summary_chunk"], Field(alias="sessionUpdate")
    ]


class SetSessionConfigOptionResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    config_options: Annotated[
        list[
            Annotated[
                SessionConfigOptionSelect | SessionConfigOptionBoolean,
                Field(discriminator="type"),
            ]
        ],
        Field(alias="configOptions"),
    ]


class ToolCallContentContent(Content):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    type: Literal["content"]


class ToolCallUpdate(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    content: (
        list[
            Annotated[
                ToolCallContentContent | ToolCallContentDiff | ToolCallContentTerminal,
                Field(discriminator="type"),
            ]
        ]
        | None
    ) = None
    kind: (
        Literal[
            "read",
            "edit",
            "delete",
            "move",
            "search",
            "execute",
            "think",
            "fetch",
            "switch_mode",
            "other",
        ]
        | None
    ) = None
    locations: list[ToolCallLocation] | None = None
    name: str | None = None
    raw_input: Annotated[Any | None, Field(alias="rawInput")] = None
    raw_output: Annotated[Any | None, Field(alias="rawOutput")] = None
    status: Literal["pending", "in_progress", "completed", "failed"] | None = None
    title: str | None = None
    tool_call_id: Annotated[str, Field(alias="toolCallId")]


class ConfigOptionUpdate(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    config_options: Annotated[
        list[
            Annotated[
                SessionConfigOptionSelect | SessionConfigOptionBoolean,
                Field(discriminator="type"),
            ]
        ],
        Field(alias="configOptions"),
    ]


class LoadSessionResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    config_options: Annotated[
        list[
            Annotated[
                SessionConfigOptionSelect | SessionConfigOptionBoolean,
                Field(discriminator="type"),
            ]
        ]
        | None,
        Field(alias="configOptions"),
    ] = None
    modes: SessionModeState | None = None


class NewSessionResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    config_options: Annotated[
        list[
            Annotated[
                SessionConfigOptionSelect | SessionConfigOptionBoolean,
                Field(discriminator="type"),
            ]
        ]
        | None,
        Field(alias="configOptions"),
    ] = None
    modes: SessionModeState | None = None
    session_id: Annotated[str, Field(alias="sessionId")]


class RequestPermissionRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    options: list[PermissionOption]
    session_id: Annotated[str, Field(alias="sessionId")]
    tool_call: Annotated[ToolCallUpdate, Field(alias="toolCall")]


class ResumeSessionResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    config_options: Annotated[
        list[
            Annotated[
                SessionConfigOptionSelect | SessionConfigOptionBoolean,
                Field(discriminator="type"),
            ]
        ]
        | None,
        Field(alias="configOptions"),
    ] = None
    modes: SessionModeState | None = None


class SessionUpdateToolCallUpdate(ToolCallUpdate):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_update: Annotated[Literal["tool_call_update"], Field(alias="sessionUpdate")]


class SessionUpdateConfigOptionUpdate(ConfigOptionUpdate):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_update: Annotated[
        Literal["config_option_update"], Field(alias="sessionUpdate")
    ]


class ToolCall(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    content: (
        list[
            Annotated[
                ToolCallContentContent | ToolCallContentDiff | ToolCallContentTerminal,
                Field(discriminator="type"),
            ]
        ]
        | None
    ) = None
    kind: (
        Literal[
            "read",
            "edit",
            "delete",
            "move",
            "search",
            "execute",
            "think",
            "fetch",
            "switch_mode",
            "other",
        ]
        | None
    ) = None
    locations: list[ToolCallLocation] | None = None
    name: str | None = None
    raw_input: Annotated[Any | None, Field(alias="rawInput")] = None
    raw_output: Annotated[Any | None, Field(alias="rawOutput")] = None
    status: Literal["pending", "in_progress", "completed", "failed"] | None = None
    title: str
    tool_call_id: Annotated[str, Field(alias="toolCallId")]


class SessionUpdateToolCall(ToolCall):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_update: Annotated[Literal["tool_call"], Field(alias="sessionUpdate")]


class SessionNotification(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    session_id: Annotated[str, Field(alias="sessionId")]
    update: Annotated[
        SessionUpdateUserMessageChunk
        | SessionUpdateAgentMessageChunk
        | SessionUpdateAgentThoughtChunk
        | SessionUpdateToolCall
        | SessionUpdateToolCallUpdate
        | SessionUpdatePlan
        | SessionUpdateAvailableCommandsUpdate
        | SessionUpdateCurrentModeUpdate
        | SessionUpdateConfigOptionUpdate
        | SessionUpdateSessionInfoUpdate
        | SessionUpdateUsageUpdate
        | SessionUpdateNotice
        | SessionUpdateCompactionUpdate
        | SessionUpdateCompactionSummaryChunk,
        Field(discriminator="session_update"),
    ]


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
    "Annotations": {
        "_meta": "default",
        "audience": "skip_items",
        "lastModified": "default",
        "priority": "default",
    },
    "AudioContent": {"_meta": "default", "annotations": "default"},
    "AuthCapabilities": {"_meta": "default", "terminal": "default"},
    "AuthMethodAgent": {"_meta": "default", "description": "default"},
    "AuthMethodTerminal": {
        "_meta": "default",
        "args": "default_on_null",
        "description": "default",
        "env": "default_on_null",
    },
    "AuthenticateRequest": {"_meta": "default"},
    "AuthenticateResponse": {"_meta": "default"},
    "AvailableCommand": {"_meta": "default", "input": "default"},
    "AvailableCommandsUpdate": {"_meta": "default", "availableCommands": "skip_items"},
    "BlobResourceContents": {"_meta": "default", "mimeType": "default"},
    "BooleanConfigOptionCapabilities": {"_meta": "default"},
    "BooleanPropertySchema": {
        "_meta": "default",
        "default": "default",
        "description": "default",
        "title": "default",
    },
    "CancelNotification": {"_meta": "default"},
    "CancelRequestNotification": {"_meta": "default"},
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
    "CloseSessionRequest": {"_meta": "default"},
    "CloseSessionResponse": {"_meta": "default"},
    "CompactionSummaryChunk": {"_meta": "default"},
    "CompactionUpdate": {
        "_meta": "default",
        "error": "default",
        "summary": "skip_items",
    },
    "CompleteElicitationNotification": {"_meta": "default"},
    "ConfigOptionUpdate": {"_meta": "default", "configOptions": "skip_items"},
    "Content": {"_meta": "default"},
    "ContentChunk": {"_meta": "default", "messageId": "default"},
    "Cost": {"_meta": "default"},
    "CreateElicitationRequestFormRequest": {"_meta": "default"},
    "CreateElicitationRequestFormSession": {
        "_meta": "default",
        "toolCallId": "default",
    },
    "CreateElicitationRequestOther": {"_meta": "default"},
    "CreateElicitationRequestUrlRequest": {"_meta": "default"},
    "CreateElicitationRequestUrlSession": {"_meta": "default", "toolCallId": "default"},
    "CreateElicitationResponseAccept": {"_meta": "default"},
    "CreateElicitationResponseCancel": {"_meta": "default"},
    "CreateElicitationResponseDecline": {"_meta": "default"},
    "CreateElicitationResponseOther": {"_meta": "default"},
    "CreateTerminalRequest": {
        "_meta": "default",
        "args": "default_on_null",
        "env": "default_on_null",
    },
    "CreateTerminalResponse": {"_meta": "default"},
    "CurrentModeUpdate": {"_meta": "default"},
    "DeleteSessionRequest": {"_meta": "default"},
    "DeleteSessionResponse": {"_meta": "default"},
    "Diff": {"_meta": "default", "oldText": "default"},
    "ElicitationCapabilities": {
        "_meta": "default",
        "form": "default",
        "url": "default",
    },
    "ElicitationFormCapabilities": {"_meta": "default"},
    "ElicitationFormModeSession": {"toolCallId": "default"},
    "ElicitationSchema": {
        "_meta": "default",
        "description": "default",
        "title": "default",
        "type": "default",
    },
    "ElicitationSessionScope": {"toolCallId": "default"},
    "ElicitationUrlCapabilities": {"_meta": "default"},
    "ElicitationUrlModeSession": {"toolCallId": "default"},
    "EmbeddedResource": {"_meta": "default", "annotations": "default"},
    "EnumOption": {"_meta": "default", "description": "default"},
    "EnvVariable": {"_meta": "default"},
    "Error": {"data": "default"},
    "FileSystemCapabilities": {
        "_meta": "default",
        "readTextFile": "default",
        "writeTextFile": "default",
    },
    "HttpHeader": {"_meta": "default"},
    "ImageContent": {"_meta": "default", "annotations": "default", "uri": "default"},
    "Implementation": {"_meta": "default", "title": "default"},
    "InitializeRequest": {
        "_meta": "default",
        "clientCapabilities": "default",
        "clientInfo": "default",
    },
    "InitializeResponse": {
        "_meta": "default",
        "agentCapabilities": "default",
        "agentInfo": "default",
        "authMethods": "skip_items",
    },
    "IntegerPropertySchema": {
        "_meta": "default",
        "default": "default",
        "description": "default",
        "title": "default",
    },
    "KillTerminalRequest": {"_meta": "default"},
    "KillTerminalResponse": {"_meta": "default"},
    "ListSessionsRequest": {"_meta": "default"},
    "ListSessionsResponse": {
        "_meta": "default",
        "nextCursor": "default",
        "sessions": "skip_items",
    },
    "LoadSessionRequest": {
        "_meta": "default",
        "additionalDirectories": "default_on_null",
        "mcpServers": "default_on_null",
    },
    "LoadSessionResponse": {
        "_meta": "default",
        "configOptions": "skip_items",
        "modes": "default",
    },
    "LogoutCapabilities": {"_meta": "default"},
    "LogoutRequest": {"_meta": "default"},
    "LogoutResponse": {"_meta": "default"},
    "McpCapabilities": {"_meta": "default", "http": "default", "sse": "default"},
    "McpServerHttp": {"_meta": "default", "headers": "default_on_null"},
    "McpServerSse": {"_meta": "default", "headers": "default_on_null"},
    "McpServerStdio": {
        "_meta": "default",
        "args": "default_on_null",
        "env": "default_on_null",
    },
    "MultiSelectPropertySchema": {
        "_meta": "default",
        "default": "skip_items",
        "description": "default",
        "title": "default",
    },
    "NewSessionRequest": {
        "_meta": "default",
        "additionalDirectories": "default_on_null",
        "mcpServers": "default_on_null",
    },
    "NewSessionResponse": {
        "_meta": "default",
        "configOptions": "skip_items",
        "modes": "default",
    },
    "Notice": {"_meta": "default", "description": "default"},
    "NumberPropertySchema": {
        "_meta": "default",
        "default": "default",
        "description": "default",
        "title": "default",
    },
    "PermissionOption": {"_meta": "default"},
    "Plan": {"_meta": "default", "entries": "skip_items"},
    "PlanEntry": {"_meta": "default"},
    "PromptCapabilities": {
        "_meta": "default",
        "audio": "default",
        "embeddedContext": "default",
        "image": "default",
    },
    "PromptRequest": {"_meta": "default"},
    "PromptResponse": {"_meta": "default"},
    "ReadTextFileRequest": {"_meta": "default"},
    "ReadTextFileResponse": {"_meta": "default"},
    "ReleaseTerminalRequest": {"_meta": "default"},
    "ReleaseTerminalResponse": {"_meta": "default"},
    "RequestPermissionRequest": {"_meta": "default"},
    "RequestPermissionResponse": {"_meta": "default"},
    "ResourceLink": {
        "_meta": "default",
        "annotations": "default",
        "description": "default",
        "mimeType": "default",
        "size": "default",
        "title": "default",
    },
    "ResumeSessionRequest": {
        "_meta": "default",
        "additionalDirectories": "default_on_null",
        "mcpServers": "default_on_null",
    },
    "ResumeSessionResponse": {
        "_meta": "default",
        "configOptions": "skip_items",
        "modes": "default",
    },
    "SelectedPermissionOutcome": {"_meta": "default"},
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
    "SessionConfigOptionsCapabilities": {"_meta": "default", "boolean": "default"},
    "SessionConfigSelectGroup": {"_meta": "default", "options": "skip_items"},
    "SessionConfigSelectOption": {"_meta": "default", "description": "default"},
    "SessionDeleteCapabilities": {"_meta": "default"},
    "SessionInfo": {
        "_meta": "default",
        "additionalDirectories": "skip_items",
        "title": "default",
        "updatedAt": "default",
    },
    "SessionInfoUpdate": {
        "_meta": "default",
        "title": "default",
        "updatedAt": "default",
    },
    "SessionListCapabilities": {"_meta": "default"},
    "SessionMode": {"_meta": "default", "description": "default"},
    "SessionModeState": {"_meta": "default", "availableModes": "skip_items"},
    "SessionNotification": {"_meta": "default"},
    "SessionResumeCapabilities": {"_meta": "default"},
    "SetSessionConfigOptionRequestBoolean": {"_meta": "default"},
    "SetSessionConfigOptionRequestSelect": {"_meta": "default"},
    "SetSessionConfigOptionResponse": {
        "_meta": "default",
        "configOptions": "skip_items",
    },
    "SetSessionModeRequest": {"_meta": "default"},
    "SetSessionModeResponse": {"_meta": "default"},
    "StringMultiSelectItems": {"_meta": "default"},
    "StringPropertySchema": {
        "_meta": "default",
        "default": "default",
        "description": "default",
        "title": "default",
    },
    "Terminal": {"_meta": "default"},
    "TerminalExitStatus": {
        "_meta": "default",
        "exitCode": "default",
        "signal": "default",
    },
    "TerminalOutputRequest": {"_meta": "default"},
    "TerminalOutputResponse": {"_meta": "default", "exitStatus": "default"},
    "TextContent": {"_meta": "default", "annotations": "default"},
    "TextResourceContents": {"_meta": "default", "mimeType": "default"},
    "TitledMultiSelectItems": {"_meta": "default"},
    "ToolCall": {
        "_meta": "default",
        "content": "skip_items",
        "kind": "default",
        "locations": "skip_items",
        "name": "default",
        "rawInput": "default",
        "rawOutput": "default",
        "status": "default",
    },
    "ToolCallLocation": {"_meta": "default", "line": "default"},
    "ToolCallUpdate": {
        "_meta": "default",
        "content": "skip_items",
        "kind": "default",
        "locations": "skip_items",
        "name": "default",
        "rawInput": "default",
        "rawOutput": "default",
        "status": "default",
        "title": "default",
    },
    "UnstructuredCommandInput": {"_meta": "default"},
    "UsageUpdate": {"_meta": "default", "cost": "default"},
    "WaitForTerminalExitRequest": {"_meta": "default"},
    "WaitForTerminalExitResponse": {
        "_meta": "default",
        "exitCode": "default",
        "signal": "default",
    },
    "WriteTextFileRequest": {"_meta": "default"},
    "WriteTextFileResponse": {"_meta": "default"},
}

REJECT_TAGS: dict[str, Any] = {
    "CreateElicitationRequestOther": {"mode": ["form", "url"]},
    "CreateElicitationResponseOther": {"action": ["accept", "cancel", "decline"]},
    "ElicitationPropertySchemaOther": {
        "type": ["array", "boolean", "integer", "number", "string"]
    },
    "MultiSelectItemsOther": {"type": ["string"]},
}

register(__name__, LENIENT_FIELDS, REJECT_TAGS)
