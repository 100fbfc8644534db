# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# with session/fork, session/set_title, session/archive, session/unarchive, session/status, auth/status, auth/status_update, providers/list, providers/set, providers/disable, mcp/message, SessionForkCapabilities, SubagentCapabilities, SubagentUpdate, SessionMessage, SessionMessageChunk, SessionTitleCapabilities, SessionArchiveCapabilities, SessionStatusCapabilities, ListSessionsRequest, SessionInfo, NewSessionRequest, LoadSessionRequest, ResumeSessionRequest, SessionSystemPromptCapabilities, AuthStatusCapabilities, PlanUpdate, PlanRemoved, PlanCapabilities, ProvidersCapabilities, McpServer from schema/v1/schema.unstable.json (sha256 ce7881d10c854bcac4f0e7d3a9ce4fb0f612ec0a09e64b572940beec4668c189)
# and schema/vendor/*.json (sha256 d672a756040b1a5b6fe65589ffc86fcc1845182a712edca2bcabb643cbf61a41) by codegen/ -- DO NOT EDIT.
# Regenerate with `nox -s codegen`; `nox -s codegen_check` fails when this file is stale.
# ruff: noqa
from typing import Annotated, Any, Literal
from pydantic import ConfigDict, Field, RootModel
from reasonix_acp.protocol.lenient import LenientModel
from reasonix_acp.protocol.lenient import register
from reasonix_acp.generated.models.blob_resource_contents import (
    ContentBlockAudio,
    ContentBlockImage,
    ContentBlockResource,
    ContentBlockResourceLink,
    ContentBlockText,
)
from reasonix_acp.generated.models.diff import (
    ToolCallContentContent,
    ToolCallContentDiff,
    ToolCallContentTerminal,
    ToolCallLocation,
    ToolCallUpdate,
)
from reasonix_acp.generated.models.session_config_boolean import (
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
)


class Cost(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    amount: float
    currency: str


class SessionInfoUpdate(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    title: str | None = None
    updated_at: Annotated[str | None, Field(alias="updatedAt")] = None


class SessionUpdateSessionInfoUpdate(SessionInfoUpdate):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_update: Annotated[
        Literal["session_info_update"], Field(alias="sessionUpdate")
    ]


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


class AvailableCommandInput(RootModel[UnstructuredCommandInput]):
    root: UnstructuredCommandInput


class CurrentModeUpdate(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    current_mode_id: Annotated[str, Field(alias="currentModeId")]


class Notice(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    description: str | None = None
    severity: Literal["info"] | Literal["warning"] | Literal["error"] | str
    title: Annotated[str, Field(min_length=1)]


class PlanEntry(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    content: str
    priority: Literal["high", "medium", "low"]
    status: Literal["pending", "in_progress", "completed"]


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


class Plan(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    entries: list[PlanEntry]


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
    "AvailableCommand": {"_meta": "default", "input": "default"},
    "AvailableCommandsUpdate": {"_meta": "default", "availableCommands": "skip_items"},
    "CompactionSummaryChunk": {"_meta": "default"},
    "CompactionUpdate": {
        "_meta": "default",
        "error": "default",
        "summary": "skip_items",
    },
    "ConfigOptionUpdate": {"_meta": "default", "configOptions": "skip_items"},
    "ContentChunk": {"_meta": "default", "messageId": "default"},
    "Cost": {"_meta": "default"},
    "CurrentModeUpdate": {"_meta": "default"},
    "Notice": {"_meta": "default", "description": "default"},
    "Plan": {"_meta": "default", "entries": "skip_items"},
    "PlanEntry": {"_meta": "default"},
    "SessionInfoUpdate": {
        "_meta": "default",
        "title": "default",
        "updatedAt": "default",
    },
    "SessionNotification": {"_meta": "default"},
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
    "UnstructuredCommandInput": {"_meta": "default"},
    "UsageUpdate": {"_meta": "default", "cost": "default"},
}

REJECT_TAGS: dict[str, Any] = {}

register(__name__, LENIENT_FIELDS, REJECT_TAGS)
