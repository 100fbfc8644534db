# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# with session/fork, session/set_title, session/archive, session/unarchive, session/status, auth/status, auth/status_update, providers/list, providers/set, providers/disable, mcp/message, SessionForkCapabilities, SubagentCapabilities, SubagentUpdate, SessionMessage, SessionMessageChunk, SessionTitleCapabilities, SessionArchiveCapabilities, SessionStatusCapabilities, ListSessionsRequest, SessionInfo, NewSessionRequest, LoadSessionRequest, ResumeSessionRequest, SessionSystemPromptCapabilities, AuthStatusCapabilities, PlanUpdate, PlanRemoved, PlanCapabilities, ProvidersCapabilities, McpServer from schema/v1/schema.unstable.json (sha256 ce7881d10c854bcac4f0e7d3a9ce4fb0f612ec0a09e64b572940beec4668c189)
# and schema/vendor/*.json (sha256 d672a756040b1a5b6fe65589ffc86fcc1845182a712edca2bcabb643cbf61a41) by codegen/ -- DO NOT EDIT.
# Regenerate with `nox -s codegen`; `nox -s codegen_check` fails when this file is stale.
# ruff: noqa
from typing import Annotated, Any, Literal
from pydantic import ConfigDict, Field, RootModel
from reasonix_acp.protocol.lenient import LenientModel
from reasonix_acp.protocol.lenient import register
from reasonix_acp.generated.reasonix_models.reasonix_money import ReasonixMoney


class ReasonixBackgroundCommand(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    command: str
    id: str


class ReasonixEndpointAtOpen(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    error: str
    reachable: Literal[False]


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


class ReasonixProtocolRecoveryAction(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    id: str


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


class ReasonixStatusGoal(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    objective: str | None = None
    runtime: ReasonixGoalRuntime | None = None
    status: Literal["none", "running", "complete", "blocked", "cancelled", "failed"]


class ReasonixSubagent(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    session_id: Annotated[str, Field(alias="sessionId")]
    title: str


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


class ReasonixSessionUsage(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    cumulative: ReasonixUsage
    turn: ReasonixUsage


class ReasonixSessionStatus(LenientModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )
    background_commands: Annotated[
        list[ReasonixBackgroundCommand] | None, Field(alias="backgroundCommands")
    ] = None
    effort: str
    endpoint_at_open: Annotated[
        ReasonixEndpointAtOpen | None, Field(alias="endpointAtOpen")
    ] = None
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
    subagents: list[ReasonixSubagent] | None = None
    turn_outcome: Annotated[ReasonixTurnOutcome, Field(alias="turnOutcome")]
    usage: ReasonixSessionUsage
    work_mode: Annotated[Literal["standard"], Field(alias="workMode")]


LENIENT_FIELDS: dict[str, Any] = {
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
    "ReasonixFailureDiagnostic": {"status": "default", "traceId": "default"},
    "ReasonixGoalRuntime": {
        "lastReason": "default",
        "requestsUsed": "default",
        "stopCause": "default",
        "workDurationMs": "default",
    },
    "ReasonixSessionStatus": {"protocolRecovery": "default"},
    "ReasonixStatusGoal": {"objective": "default", "runtime": "default"},
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
