# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# with session/fork, session/set_title, session/archive, session/unarchive, session/status, auth/status, auth/status_update, providers/list, providers/set, providers/disable, mcp/message, SessionForkCapabilities, SubagentCapabilities, SubagentUpdate, SessionMessage, SessionMessageChunk, SessionTitleCapabilities, SessionArchiveCapabilities, SessionStatusCapabilities, ListSessionsRequest, SessionInfo, NewSessionRequest, LoadSessionRequest, ResumeSessionRequest, SessionSystemPromptCapabilities, AuthStatusCapabilities, PlanUpdate, PlanRemoved, PlanCapabilities, ProvidersCapabilities, McpServer from schema/v1/schema.unstable.json (sha256 ce7881d10c854bcac4f0e7d3a9ce4fb0f612ec0a09e64b572940beec4668c189)
# and schema/vendor/*.json (sha256 d672a756040b1a5b6fe65589ffc86fcc1845182a712edca2bcabb643cbf61a41) by codegen/ -- DO NOT EDIT.
# Regenerate with `nox -s codegen`; `nox -s codegen_check` fails when this file is stale.
# ruff: noqa
from typing import Annotated, Any, Literal
from pydantic import ConfigDict, Field, RootModel
from reasonix_acp.protocol.lenient import LenientModel
from reasonix_acp.protocol.lenient import register


class ReasonixInboxRefSummary(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    bytes: Annotated[int | None, Field(ge=0)] = None
    commit: str | None = None
    kind: str
    path: str | None = None
    preview: str | None = None


class ReasonixInboxItemMeta(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    blob_name: Annotated[str | None, Field(alias="blobName")] = None
    block_reason: Annotated[str | None, Field(alias="blockReason")] = None
    byte_size: Annotated[int, Field(alias="byteSize", ge=0)]
    checksum: Annotated[str, Field(pattern="^[0-9a-f]{64}$")]
    created_at: Annotated[str, Field(alias="createdAt")]
    id: str
    idempotency_key: Annotated[str | None, Field(alias="idempotencyKey")] = None
    intent: Literal["followup", "steer"]
    preview: str
    refs: list[ReasonixInboxRefSummary] | None = None
    revision: Annotated[int, Field(ge=0)]
    run_id: Annotated[str | None, Field(alias="runId")] = None
    session_id: Annotated[str | None, Field(alias="sessionId")] = None
    source: str | None = None
    state: Literal[
        "queued", "running", "steer_accepted", "steer_consumed", "blocked", "uncertain"
    ]
    updated_at: Annotated[str, Field(alias="updatedAt")]


LENIENT_FIELDS: dict[str, Any] = {
    "ReasonixInboxItemMeta": {
        "blobName": "default",
        "blockReason": "default",
        "idempotencyKey": "default",
        "refs": "skip_items",
        "runId": "default",
        "sessionId": "default",
        "source": "default",
    },
    "ReasonixInboxRefSummary": {
        "bytes": "default",
        "commit": "default",
        "path": "default",
        "preview": "default",
    },
}

REJECT_TAGS: dict[str, Any] = {}

register(__name__, LENIENT_FIELDS, REJECT_TAGS)
