# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# with session/fork, session/set_title, session/archive, session/unarchive, session/status, auth/status, auth/status_update, providers/list, providers/set, providers/disable, mcp/message, SessionForkCapabilities, SubagentCapabilities, SubagentUpdate, SessionMessage, SessionMessageChunk, SessionTitleCapabilities, SessionArchiveCapabilities, SessionStatusCapabilities, ListSessionsRequest, SessionInfo, NewSessionRequest, LoadSessionRequest, ResumeSessionRequest, SessionSystemPromptCapabilities, AuthStatusCapabilities, PlanUpdate, PlanRemoved, PlanCapabilities, ProvidersCapabilities, McpServer from schema/v1/schema.unstable.json (sha256 ce7881d10c854bcac4f0e7d3a9ce4fb0f612ec0a09e64b572940beec4668c189)
# and schema/vendor/*.json (sha256 d672a756040b1a5b6fe65589ffc86fcc1845182a712edca2bcabb643cbf61a41) by codegen/ -- DO NOT EDIT.
# Regenerate with `nox -s codegen`; `nox -s codegen_check` fails when this file is stale.
# ruff: noqa
from typing import Annotated, Any, Literal
from pydantic import ConfigDict, Field, RootModel
from reasonix_acp.protocol.lenient import LenientModel
from reasonix_acp.protocol.lenient import register


class ReasonixExtensionSurfaceActionRef(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    action_id: Annotated[str, Field(alias="actionId")]
    label: str


class ReasonixExtensionSurfaceFormField(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    default: Any | None = None
    key: str
    kind: str | None = None
    label: str | None = None
    options: list[str] | None = None
    required: bool | None = None


class ReasonixExtensionSurfaceKeyValue(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    key: str
    value: str


class ReasonixExtensionSurfaceNotification(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    body: str | None = None
    severity: str | None = None
    title: str


class ReasonixExtensionSurfaceStatus(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    detail: str | None = None
    label: str
    progress: float | None = None
    severity: str | None = None


class ReasonixExtensionSurfaceCard(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    actions: list[ReasonixExtensionSurfaceActionRef] | None = None
    fields: list[ReasonixExtensionSurfaceKeyValue] | None = None
    markdown: str | None = None
    progress: float | None = None
    text: str | None = None
    title: str | None = None


class ReasonixExtensionSurfaceForm(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    fields: list[ReasonixExtensionSurfaceFormField]
    message: str | None = None
    title: str | None = None


class ReasonixExtensionSurface(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    card: ReasonixExtensionSurfaceCard | None = None
    form: ReasonixExtensionSurfaceForm | None = None
    generation: Annotated[int | None, Field(ge=0)] = None
    kind: Literal["status", "card", "form", "notification"]
    notification: ReasonixExtensionSurfaceNotification | None = None
    plugin_id: Annotated[str, Field(alias="pluginId")]
    session_id: Annotated[str | None, Field(alias="sessionId")] = None
    status: ReasonixExtensionSurfaceStatus | None = None
    surface_id: Annotated[str, Field(alias="surfaceId")]


class ReasonixExtensionSurfaceUpdateVendorMeta(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    extension_surface: Annotated[
        ReasonixExtensionSurface, Field(alias="extensionSurface")
    ]


class ReasonixExtensionSurfaceUpdateMeta(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    reasonix_io: Annotated[
        ReasonixExtensionSurfaceUpdateVendorMeta, Field(alias="reasonix.io")
    ]


class ReasonixExtensionSurfaceUpdate(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[ReasonixExtensionSurfaceUpdateMeta, Field(alias="_meta")]
    session_update: Annotated[
        Literal["_reasonix.io/extension_surface"], Field(alias="sessionUpdate")
    ]


LENIENT_FIELDS: dict[str, Any] = {
    "ReasonixExtensionSurface": {
        "card": "default",
        "form": "default",
        "generation": "default",
        "notification": "default",
        "sessionId": "default",
        "status": "default",
    },
    "ReasonixExtensionSurfaceCard": {
        "actions": "skip_items",
        "fields": "skip_items",
        "markdown": "default",
        "progress": "default",
        "text": "default",
        "title": "default",
    },
    "ReasonixExtensionSurfaceForm": {"message": "default", "title": "default"},
    "ReasonixExtensionSurfaceFormField": {
        "default": "default",
        "kind": "default",
        "label": "default",
        "options": "default",
        "required": "default",
    },
    "ReasonixExtensionSurfaceNotification": {"body": "default", "severity": "default"},
    "ReasonixExtensionSurfaceStatus": {
        "detail": "default",
        "progress": "default",
        "severity": "default",
    },
}

REJECT_TAGS: dict[str, Any] = {}

register(__name__, LENIENT_FIELDS, REJECT_TAGS)
