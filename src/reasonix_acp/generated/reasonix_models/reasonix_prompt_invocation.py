# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# with session/fork, session/set_title, session/archive, session/unarchive, session/status, auth/status, auth/status_update, providers/list, providers/set, providers/disable, mcp/message, SessionForkCapabilities, SubagentCapabilities, SubagentUpdate, SessionMessage, SessionMessageChunk, SessionTitleCapabilities, SessionArchiveCapabilities, SessionStatusCapabilities, ListSessionsRequest, SessionInfo, NewSessionRequest, LoadSessionRequest, ResumeSessionRequest, SessionSystemPromptCapabilities, AuthStatusCapabilities, PlanUpdate, PlanRemoved, PlanCapabilities, ProvidersCapabilities, McpServer from schema/v1/schema.unstable.json (sha256 ce7881d10c854bcac4f0e7d3a9ce4fb0f612ec0a09e64b572940beec4668c189)
# and schema/vendor/*.json (sha256 d672a756040b1a5b6fe65589ffc86fcc1845182a712edca2bcabb643cbf61a41) by codegen/ -- DO NOT EDIT.
# Regenerate with `nox -s codegen`; `nox -s codegen_check` fails when this file is stale.
# ruff: noqa
from typing import Annotated, Any, Literal
from pydantic import ConfigDict, Field, RootModel
from reasonix_acp.protocol.lenient import LenientModel
from reasonix_acp.protocol.lenient import register
from reasonix_acp.generated.reasonix_models.reasonix_inbox_ref_summary import (
    ReasonixInboxItemMeta,
)


class ReasonixPromptInvocation(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    args: dict[str, Any] | None = None
    display: str | None = None
    kind: str | None = None
    name: str | None = None
    offset: Annotated[int | None, Field(ge=0)] = None


class ReasonixPromptRefSnapshot(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    commit: str | None = None
    content: Annotated[
        str | None, Field(json_schema_extra={"contentEncoding": "base64"})
    ] = None
    content_sha: Annotated[str | None, Field(alias="contentSha")] = None
    display_path: Annotated[str | None, Field(alias="displayPath")] = None
    kind: str
    path: str | None = None
    range_end: Annotated[int | None, Field(alias="rangeEnd", ge=0)] = None
    range_start: Annotated[int | None, Field(alias="rangeStart", ge=0)] = None
    repo_identity: Annotated[str | None, Field(alias="repoIdentity")] = None
    server: str | None = None
    truncated: bool | None = None
    uri: str | None = None


class ReasonixPromptEnvelope(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    attachments: list[str] | None = None
    display_text: Annotated[str, Field(alias="displayText")]
    explicit_refs: Annotated[list[str] | None, Field(alias="explicitRefs")] = None
    extra: dict[str, Any] | None = None
    format: str | None = None
    frozen_images: Annotated[list[str] | None, Field(alias="frozenImages")] = None
    frozen_ref_block: Annotated[str | None, Field(alias="frozenRefBlock")] = None
    idempotency_key: Annotated[str | None, Field(alias="idempotencyKey")] = None
    invocation: ReasonixPromptInvocation | None = None
    invocations: list[ReasonixPromptInvocation] | None = None
    raw_text: Annotated[str, Field(alias="rawText")]
    reference_errors: Annotated[list[str] | None, Field(alias="referenceErrors")] = None
    refs: list[ReasonixPromptRefSnapshot] | None = None
    source: str | None = None
    submit_text: Annotated[str, Field(alias="submitText")]


class ReasonixInboxGetResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    envelope: ReasonixPromptEnvelope
    meta: ReasonixInboxItemMeta


LENIENT_FIELDS: dict[str, Any] = {
    "ReasonixPromptEnvelope": {
        "attachments": "default",
        "explicitRefs": "default",
        "extra": "default",
        "format": "default",
        "frozenImages": "default",
        "frozenRefBlock": "default",
        "idempotencyKey": "default",
        "invocation": "default",
        "invocations": "skip_items",
        "referenceErrors": "default",
        "refs": "skip_items",
        "source": "default",
    },
    "ReasonixPromptInvocation": {
        "args": "default",
        "display": "default",
        "kind": "default",
        "name": "default",
        "offset": "default",
    },
    "ReasonixPromptRefSnapshot": {
        "commit": "default",
        "content": "default",
        "contentSha": "default",
        "displayPath": "default",
        "path": "default",
        "rangeEnd": "default",
        "rangeStart": "default",
        "repoIdentity": "default",
        "server": "default",
        "truncated": "default",
        "uri": "default",
    },
}

REJECT_TAGS: dict[str, Any] = {}

register(__name__, LENIENT_FIELDS, REJECT_TAGS)
