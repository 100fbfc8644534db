# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# and schema/vendor/*.json (sha256 67c85a3f2ec6232daca7677e0cc9fa9d0d04c2da4f8affb32f7778e1b8234a19) by codegen/ -- DO NOT EDIT.
# Regenerate with `nox -s codegen`; `nox -s codegen_check` fails when this file is stale.
# ruff: noqa
from __future__ import annotations

from typing import Annotated, Any, Literal
from pydantic import ConfigDict, Field, RootModel
from reasonix_acp.protocol.lenient import LenientModel
from reasonix_acp.protocol.lenient import register
from reasonix_acp.generated.models import (
    ContentBlockAudio,
    ContentBlockImage,
    ContentBlockResource,
    ContentBlockResourceLink,
    ContentBlockText,
    PromptRequest,
    PromptResponse,
    SetSessionConfigOptionResponse,
)


class ReasonixExtensionSurfaceActionRef(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    action_id: Annotated[str, Field(alias="actionId")]
    label: str


class ReasonixExtensionSurfaceAgentCapability(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    schema_version: Annotated[int, Field(alias="schemaVersion", ge=1)]
    supported: bool


class ReasonixExtensionSurfaceClientCapability(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    schema_version: Annotated[int | None, Field(alias="schemaVersion")] = None
    supported: bool


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


class ReasonixFailureDiagnostic(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    kind: str
    status: Annotated[int | None, Field(ge=0)] = None
    trace_id: Annotated[str | None, Field(alias="traceId")] = None


class ReasonixFinalReadiness(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    ready_for_review: Annotated[bool, Field(alias="readyForReview")]
    risks: list[str]
    summary: Annotated[str, Field(max_length=16384)]


class ReasonixGoalRuntime(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    budget_extensions: Annotated[int, Field(alias="budgetExtensions", ge=0)]
    last_reason: Annotated[str | None, Field(alias="lastReason")] = None
    no_progress_limit: Annotated[int, Field(alias="noProgressLimit", ge=0)]
    no_progress_turns: Annotated[int, Field(alias="noProgressTurns", ge=0)]
    requests_used: Annotated[int | None, Field(alias="requestsUsed", ge=0)] = None
    stop_cause: Annotated[str | None, Field(alias="stopCause")] = None
    tokens_limit: Annotated[int, Field(alias="tokensLimit", ge=0)]
    tokens_used: Annotated[int, Field(alias="tokensUsed", ge=0)]
    turns_limit: Annotated[int, Field(alias="turnsLimit", ge=0)]
    turns_used: Annotated[int, Field(alias="turnsUsed", ge=0)]
    work_duration_ms: Annotated[int | None, Field(alias="workDurationMs", ge=0)] = None


class ReasonixInboxCapacity(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    bytes: Annotated[int, Field(ge=0)]
    items: Annotated[int, Field(ge=0)]
    max_bytes: Annotated[int, Field(alias="maxBytes", ge=0)]
    max_item_bytes: Annotated[int, Field(alias="maxItemBytes", ge=0)]
    max_items: Annotated[int, Field(alias="maxItems", ge=0)]


class ReasonixInboxDeleteResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    ok: bool


class ReasonixInboxEnqueueResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    disposition: Literal[
        "queued_followup",
        "steer_accepted",
        "idempotent_hit",
        "rejected_closed",
        "rejected_rotating",
    ]
    idempotent: bool
    item_id: Annotated[str, Field(alias="itemId")]
    paused: bool
    position: Annotated[int, Field(ge=0)]


class ReasonixInboxMoveResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    ok: bool


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


class ReasonixInboxRefreshResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    ok: bool


class ReasonixInboxRetryResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    ok: bool


class ReasonixInboxSetPausedResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    paused: bool


class ReasonixMcpInteractionAgentCapability(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    method: Literal["_reasonix.io/mcp/request_interaction"]
    schema_version: Annotated[int, Field(alias="schemaVersion", ge=1)]
    supported: bool


class ReasonixMcpInteractionClientCapability(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    schema_version: Annotated[int, Field(alias="schemaVersion")]
    supported: bool


class ReasonixMcpInteractionResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None


class ReasonixMoney(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    amount: Annotated[str, Field(pattern="^-?(0|[1-9][0-9]*)(\\.[0-9]{0,8}[1-9])?$")]
    currency: str


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


class ReasonixProtocolRecoveryAction(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    id: str


class ReasonixRateSnapshot(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    as_of: Annotated[str, Field(alias="asOf")]
    base: str
    quote: str
    rate: float
    source: str
    stale: bool | None = None


class ReasonixReloadExtensionsResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    queued: bool | None = None


class ReasonixSandboxStatus(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    available: bool
    engine: Literal["bubblewrap", "seatbelt", "none"]
    mode: str
    network_enabled: Annotated[bool, Field(alias="networkEnabled")]
    workspace_root: Annotated[str, Field(alias="workspaceRoot")]
    write_roots: Annotated[list[str], Field(alias="writeRoots")]


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


class ReasonixSessionSteerCapability(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    method: Literal["_reasonix.io/session/steer"]


class ReasonixSetSessionModelResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class ReasonixStatusGoal(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    objective: str | None = None
    runtime: ReasonixGoalRuntime | None = None
    status: Literal["none", "running", "complete", "blocked", "cancelled", "failed"]


class ReasonixSteerResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    disposition: Literal[
        "queued_followup",
        "steer_accepted",
        "idempotent_hit",
        "rejected_closed",
        "rejected_rotating",
    ]
    item_id: Annotated[str | None, Field(alias="itemId")] = None


class ReasonixClientCapabilitiesMeta(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    extension_surface: Annotated[
        ReasonixExtensionSurfaceClientCapability | None, Field(alias="extensionSurface")
    ] = None
    mcp_interaction: Annotated[
        ReasonixMcpInteractionClientCapability | None, Field(alias="mcpInteraction")
    ] = None


class ReasonixClientCapabilitiesMetaEnvelope(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    reasonix_io: Annotated[
        ReasonixClientCapabilitiesMeta | None, Field(alias="reasonix.io")
    ] = None


class ReasonixCostQuote(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    aggregate_mode: Annotated[
        Literal["single_currency", "common_valuation", "currency_buckets"] | None,
        Field(alias="aggregateMode"),
    ] = None
    billing_mode: Annotated[
        Literal["payg", "subscription_equivalent"] | None, Field(alias="billingMode")
    ] = None
    catalog_source: Annotated[str | None, Field(alias="catalogSource")] = None
    complete: bool
    cost_complete: Annotated[bool, Field(alias="costComplete")]
    display_complete: Annotated[bool, Field(alias="displayComplete")]
    display_status: Annotated[
        Literal["matched", "fallback_original", "bucketed", "unavailable"] | None,
        Field(alias="displayStatus"),
    ] = None
    estimated: bool
    incomplete_reason: Annotated[str | None, Field(alias="incompleteReason")] = None
    legacy_estimate: Annotated[bool | None, Field(alias="legacyEstimate")] = None
    model_ref: Annotated[str | None, Field(alias="modelRef")] = None
    original: ReasonixMoney
    original_totals: Annotated[
        list[ReasonixMoney] | None, Field(alias="originalTotals")
    ] = None
    pricing_fingerprint: Annotated[str | None, Field(alias="pricingFingerprint")] = None
    rate_band: Annotated[
        Literal["peak", "off_peak", "mixed"] | None, Field(alias="rateBand")
    ] = None
    rate_date: Annotated[str | None, Field(alias="rateDate")] = None
    rated_at: Annotated[str | None, Field(alias="ratedAt")] = None
    selected: ReasonixMoney | None = None
    usage_source: Annotated[str | None, Field(alias="usageSource")] = None
    valuations: dict[str, Any] | None = None


class ReasonixCostValuation(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    as_of: Annotated[str, Field(alias="asOf")]
    basis: Literal["identity", "official_table", "fx"]
    money: ReasonixMoney
    rate_snapshot: Annotated[
        ReasonixRateSnapshot | None, Field(alias="rateSnapshot")
    ] = None
    source: str
    stale: bool | None = None


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


class ReasonixInboxDeleteRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    item_id: Annotated[str, Field(alias="itemId")]
    session_id: Annotated[str, Field(alias="sessionId")]


class ReasonixInboxEnqueueRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    idempotency_key: Annotated[str | None, Field(alias="idempotencyKey")] = None
    intent: str | None = None
    session_id: Annotated[str, Field(alias="sessionId")]
    text: str


class ReasonixInboxGetRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    item_id: Annotated[str, Field(alias="itemId")]
    session_id: Annotated[str, Field(alias="sessionId")]


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


class ReasonixInboxListRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    session_id: Annotated[str, Field(alias="sessionId")]


class ReasonixInboxMoveRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    item_id: Annotated[str, Field(alias="itemId")]
    session_id: Annotated[str, Field(alias="sessionId")]
    to_index: Annotated[int, Field(alias="toIndex")]


class ReasonixInboxRefreshRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    item_id: Annotated[str, Field(alias="itemId")]
    session_id: Annotated[str, Field(alias="sessionId")]


class ReasonixInboxRetryRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    item_id: Annotated[str, Field(alias="itemId")]
    session_id: Annotated[str, Field(alias="sessionId")]


class ReasonixInboxSetPausedRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    paused: bool
    session_id: Annotated[str, Field(alias="sessionId")]


class ReasonixInboxSnapshot(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    capacity: ReasonixInboxCapacity
    items: list[ReasonixInboxItemMeta]
    paused: bool
    readonly: bool | None = None
    recovered: bool
    recovered_count: Annotated[int | None, Field(alias="recoveredCount", ge=0)] = None
    revision: Annotated[int, Field(ge=0)]
    run_id: Annotated[str | None, Field(alias="runId")] = None
    schema_version: Annotated[int, Field(alias="schemaVersion", ge=1)]
    session_path: Annotated[str | None, Field(alias="sessionPath")] = None


class ReasonixInboxUpdateRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    item_id: Annotated[str, Field(alias="itemId")]
    session_id: Annotated[str, Field(alias="sessionId")]
    text: str


class ReasonixInboxUpdateResponse(ReasonixInboxItemMeta):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )


class ReasonixMcpInteractionRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    elicitation_id: Annotated[str | None, Field(alias="elicitationId")] = None
    message: str
    mode: Literal["form", "url"]
    prompt_id: Annotated[str, Field(alias="promptId")]
    requested_schema: Annotated[
        dict[str, Any] | None, Field(alias="requestedSchema")
    ] = None
    server: str
    session_id: Annotated[str, Field(alias="sessionId")]
    turn_id: Annotated[str, Field(alias="turnId")]
    url: str | None = None


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


class ReasonixPromptResponse(PromptResponse):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    transcript_path: Annotated[str | None, Field(alias="transcriptPath")] = None


class ReasonixReloadExtensionsRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    session_id: Annotated[str, Field(alias="sessionId")]


class ReasonixSessionInboxCapability(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    methods: ReasonixSessionInboxMethods
    schema_version: Annotated[int, Field(alias="schemaVersion", ge=1)]


class ReasonixSessionStatusRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    session_id: Annotated[str, Field(alias="sessionId")]


class ReasonixSetSessionModelRequest(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
    model_id: Annotated[str, Field(alias="modelId")]
    session_id: Annotated[str, Field(alias="sessionId")]


class ReasonixTurnOutcome(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    diagnostic: ReasonixFailureDiagnostic | None = None
    kind: Literal["none", "completed", "paused", "cancelled", "error"]
    reason: Annotated[str | None, Field(max_length=2048)] = None


class ReasonixUsage(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    aggregate_mode: Annotated[
        Literal["single_currency", "common_valuation", "currency_buckets"] | None,
        Field(alias="aggregateMode"),
    ] = None
    cache_hit_ratio: Annotated[
        float | None, Field(alias="cacheHitRatio", ge=0.0, le=1.0)
    ]
    cache_hit_tokens: Annotated[int, Field(alias="cacheHitTokens", ge=0)]
    cache_miss_tokens: Annotated[int, Field(alias="cacheMissTokens", ge=0)]
    completion_tokens: Annotated[int, Field(alias="completionTokens", ge=0)]
    cost_complete: Annotated[bool | None, Field(alias="costComplete")] = None
    cost_quote: Annotated[ReasonixCostQuote | None, Field(alias="costQuote")] = None
    currency: str | None
    display_complete: Annotated[bool | None, Field(alias="displayComplete")] = None
    display_status: Annotated[
        Literal["matched", "fallback_original", "bucketed", "unavailable"] | None,
        Field(alias="displayStatus"),
    ] = None
    estimated: bool | None = None
    estimated_cost: Annotated[float | None, Field(alias="estimatedCost")]
    original_totals: Annotated[
        list[ReasonixMoney] | None, Field(alias="originalTotals")
    ] = None
    prompt_tokens: Annotated[int, Field(alias="promptTokens", ge=0)]
    reasoning_tokens: Annotated[int, Field(alias="reasoningTokens", ge=0)]
    total_tokens: Annotated[int, Field(alias="totalTokens", ge=0)]
    usage_source: Annotated[str, Field(alias="usageSource")]


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


class ReasonixInboxGetResponse(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    envelope: ReasonixPromptEnvelope
    meta: ReasonixInboxItemMeta


class ReasonixInboxListResponse(ReasonixInboxSnapshot):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )


class ReasonixSessionUsage(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    cumulative: ReasonixUsage
    turn: ReasonixUsage


class ReasonixExtensionSurfaceUpdateMeta(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    reasonix_io: Annotated[
        ReasonixExtensionSurfaceUpdateVendorMeta, Field(alias="reasonix.io")
    ]


class ReasonixPromptRequest(PromptRequest):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    action: Literal["final_readiness_recovery", "protocol_recovery"] | None = None
    recovery_id: Annotated[str | None, Field(alias="recoveryId")] = None


class ReasonixSessionStatus(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    effort: str
    final_readiness: Annotated[ReasonixFinalReadiness, Field(alias="finalReadiness")]
    goal: ReasonixStatusGoal
    mode: Literal["normal", "plan", "goal"]
    model: str
    phase: Literal[
        "idle",
        "starting",
        "planning",
        "working",
        "implementing",
        "waiting_permission",
        "waiting_input",
        "checking_readiness",
        "cancelled",
        "review_ready",
        "completed",
        "paused",
        "readiness_paused",
        "recovery_paused",
        "completion_uncertain",
        "error",
    ]
    planner_mode: Annotated[Literal["on", "off"], Field(alias="plannerMode")]
    protocol_recovery: Annotated[
        ReasonixProtocolRecoveryAction | None, Field(alias="protocolRecovery")
    ] = None
    sandbox: ReasonixSandboxStatus
    schema_version: Annotated[int, Field(alias="schemaVersion", ge=1)]
    sequence: Annotated[int, Field(ge=0)]
    session_id: Annotated[str, Field(alias="sessionId")]
    state: Literal["idle", "running"]
    turn_outcome: Annotated[ReasonixTurnOutcome, Field(alias="turnOutcome")]
    usage: ReasonixSessionUsage
    work_mode: Annotated[Literal["standard"], Field(alias="workMode")]


class ReasonixSessionStatusResponse(ReasonixSessionStatus):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )


class ReasonixSessionStatusUpdateNotification(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    event: Literal["phase", "usage", "completion", "pause", "error"]
    schema_version: Annotated[int, Field(alias="schemaVersion", ge=1)]
    sequence: Annotated[int, Field(ge=0)]
    session_id: Annotated[str, Field(alias="sessionId")]
    status: ReasonixSessionStatus


class ReasonixSteerRequest(LenientModel):
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


class ReasonixExtensionSurfaceUpdate(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    field_meta: Annotated[ReasonixExtensionSurfaceUpdateMeta, Field(alias="_meta")]
    session_update: Annotated[
        Literal["_reasonix.io/extension_surface"], Field(alias="sessionUpdate")
    ]


class ReasonixSetSessionConfigOptionResponse(SetSessionConfigOptionResponse):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    deprecated_notice: Annotated[str | None, Field(alias="deprecatedNotice")] = None


LENIENT_FIELDS: dict[str, Any] = {
    "ReasonixClientCapabilitiesMeta": {
        "extensionSurface": "default",
        "mcpInteraction": "default",
    },
    "ReasonixClientCapabilitiesMetaEnvelope": {"reasonix.io": "default"},
    "ReasonixCostQuote": {
        "aggregateMode": "default",
        "billingMode": "default",
        "catalogSource": "default",
        "displayStatus": "default",
        "incompleteReason": "default",
        "legacyEstimate": "default",
        "modelRef": "default",
        "originalTotals": "skip_items",
        "pricingFingerprint": "default",
        "rateBand": "default",
        "rateDate": "default",
        "ratedAt": "default",
        "selected": "default",
        "usageSource": "default",
        "valuations": "default",
    },
    "ReasonixCostValuation": {"rateSnapshot": "default", "stale": "default"},
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
    "ReasonixExtensionSurfaceClientCapability": {"schemaVersion": "default"},
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
    "ReasonixFailureDiagnostic": {"status": "default", "traceId": "default"},
    "ReasonixGoalRuntime": {
        "lastReason": "default",
        "requestsUsed": "default",
        "stopCause": "default",
        "workDurationMs": "default",
    },
    "ReasonixInboxDeleteRequest": {"_meta": "default"},
    "ReasonixInboxEnqueueRequest": {
        "_meta": "default",
        "idempotencyKey": "default",
        "intent": "default",
    },
    "ReasonixInboxGetRequest": {"_meta": "default"},
    "ReasonixInboxItemMeta": {
        "blobName": "default",
        "blockReason": "default",
        "idempotencyKey": "default",
        "refs": "skip_items",
        "runId": "default",
        "sessionId": "default",
        "source": "default",
    },
    "ReasonixInboxListRequest": {"_meta": "default"},
    "ReasonixInboxMoveRequest": {"_meta": "default"},
    "ReasonixInboxRefSummary": {
        "bytes": "default",
        "commit": "default",
        "path": "default",
        "preview": "default",
    },
    "ReasonixInboxRefreshRequest": {"_meta": "default"},
    "ReasonixInboxRetryRequest": {"_meta": "default"},
    "ReasonixInboxSetPausedRequest": {"_meta": "default"},
    "ReasonixInboxSnapshot": {
        "readonly": "default",
        "recoveredCount": "default",
        "runId": "default",
        "sessionPath": "default",
    },
    "ReasonixInboxUpdateRequest": {"_meta": "default"},
    "ReasonixMcpInteractionRequest": {
        "elicitationId": "default",
        "requestedSchema": "default",
        "url": "default",
    },
    "ReasonixMcpInteractionResponse": {"_meta": "default", "content": "default"},
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
    "ReasonixRateSnapshot": {"stale": "default"},
    "ReasonixReloadExtensionsRequest": {"_meta": "default"},
    "ReasonixReloadExtensionsResponse": {"queued": "default"},
    "ReasonixSessionStatus": {"protocolRecovery": "default"},
    "ReasonixSessionStatusRequest": {"_meta": "default"},
    "ReasonixSetSessionModelRequest": {"_meta": "default"},
    "ReasonixSetSessionModelResponse": {"_meta": "default"},
    "ReasonixStatusGoal": {"objective": "default", "runtime": "default"},
    "ReasonixSteerRequest": {"_meta": "default"},
    "ReasonixSteerResponse": {"itemId": "default"},
    "ReasonixTurnOutcome": {"diagnostic": "default", "reason": "default"},
    "ReasonixUsage": {
        "aggregateMode": "default",
        "costComplete": "default",
        "costQuote": "default",
        "displayComplete": "default",
        "displayStatus": "default",
        "estimated": "default",
        "originalTotals": "skip_items",
    },
}

REJECT_TAGS: dict[str, Any] = {}

register(__name__, LENIENT_FIELDS, REJECT_TAGS)
