# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# with session/fork, session/set_title, session/archive, session/unarchive, session/status, auth/status, auth/status_update, providers/list, providers/set, providers/disable, mcp/message, SessionForkCapabilities, SubagentCapabilities, SubagentUpdate, SessionMessage, SessionMessageChunk, SessionTitleCapabilities, SessionArchiveCapabilities, SessionStatusCapabilities, ListSessionsRequest, SessionInfo, NewSessionRequest, LoadSessionRequest, ResumeSessionRequest, SessionSystemPromptCapabilities, AuthStatusCapabilities, PlanUpdate, PlanRemoved, PlanCapabilities, ProvidersCapabilities, McpServer from schema/v1/schema.unstable.json (sha256 ce7881d10c854bcac4f0e7d3a9ce4fb0f612ec0a09e64b572940beec4668c189)
# and schema/vendor/*.json (sha256 d672a756040b1a5b6fe65589ffc86fcc1845182a712edca2bcabb643cbf61a41) by codegen/ -- DO NOT EDIT.
# Regenerate with `nox -s codegen`; `nox -s codegen_check` fails when this file is stale.
# ruff: noqa
"""The generated classes, each in the module of the methods that need it (see
codegen/split.py); a class is imported on first use, so a request loads only its own.
"""

from importlib import import_module
from typing import Any

WHERE: dict[str, Any] = {
    "ReasonixAgentCapabilitiesMeta": "reasonix_extension_surface_agent_capability",
    "ReasonixAgentCapabilitiesMetaEnvelope": "reasonix_extension_surface_agent_capability",
    "ReasonixBackgroundCommand": "reasonix_background_command",
    "ReasonixClientCapabilitiesMeta": "reasonix_extension_surface_client_capability",
    "ReasonixClientCapabilitiesMetaEnvelope": "reasonix_extension_surface_client_capability",
    "ReasonixCostQuote": "reasonix_background_command",
    "ReasonixCostValuation": "reasonix_rate_snapshot",
    "ReasonixEndpointAtOpen": "reasonix_background_command",
    "ReasonixExtensionSurface": "reasonix_extension_surface_action_ref",
    "ReasonixExtensionSurfaceActionRef": "reasonix_extension_surface_action_ref",
    "ReasonixExtensionSurfaceAgentCapability": "reasonix_extension_surface_agent_capability",
    "ReasonixExtensionSurfaceCard": "reasonix_extension_surface_action_ref",
    "ReasonixExtensionSurfaceClientCapability": "reasonix_extension_surface_client_capability",
    "ReasonixExtensionSurfaceForm": "reasonix_extension_surface_action_ref",
    "ReasonixExtensionSurfaceFormField": "reasonix_extension_surface_action_ref",
    "ReasonixExtensionSurfaceKeyValue": "reasonix_extension_surface_action_ref",
    "ReasonixExtensionSurfaceNotification": "reasonix_extension_surface_action_ref",
    "ReasonixExtensionSurfaceStatus": "reasonix_extension_surface_action_ref",
    "ReasonixExtensionSurfaceUpdate": "reasonix_extension_surface_action_ref",
    "ReasonixExtensionSurfaceUpdateMeta": "reasonix_extension_surface_action_ref",
    "ReasonixExtensionSurfaceUpdateVendorMeta": "reasonix_extension_surface_action_ref",
    "ReasonixFailureDiagnostic": "reasonix_background_command",
    "ReasonixFinalReadiness": "reasonix_background_command",
    "ReasonixGoalRuntime": "reasonix_background_command",
    "ReasonixInboxCapacity": "reasonix_inbox_capacity",
    "ReasonixInboxDeleteRequest": "reasonix_inbox_delete_request",
    "ReasonixInboxDeleteResponse": "reasonix_inbox_delete_response",
    "ReasonixInboxEnqueueRequest": "reasonix_inbox_enqueue_request",
    "ReasonixInboxEnqueueResponse": "reasonix_inbox_enqueue_response",
    "ReasonixInboxGetRequest": "reasonix_inbox_get_request",
    "ReasonixInboxGetResponse": "reasonix_prompt_invocation",
    "ReasonixInboxItemMeta": "reasonix_inbox_ref_summary",
    "ReasonixInboxListRequest": "reasonix_inbox_list_request",
    "ReasonixInboxListResponse": "reasonix_inbox_capacity",
    "ReasonixInboxMoveRequest": "reasonix_inbox_move_request",
    "ReasonixInboxMoveResponse": "reasonix_inbox_move_response",
    "ReasonixInboxRefSummary": "reasonix_inbox_ref_summary",
    "ReasonixInboxRefreshRequest": "reasonix_inbox_refresh_request",
    "ReasonixInboxRefreshResponse": "reasonix_inbox_refresh_response",
    "ReasonixInboxRetryRequest": "reasonix_inbox_retry_request",
    "ReasonixInboxRetryResponse": "reasonix_inbox_retry_response",
    "ReasonixInboxSetPausedRequest": "reasonix_inbox_set_paused_request",
    "ReasonixInboxSetPausedResponse": "reasonix_inbox_set_paused_response",
    "ReasonixInboxSnapshot": "reasonix_inbox_capacity",
    "ReasonixInboxUpdateRequest": "reasonix_inbox_update_request",
    "ReasonixInboxUpdateResponse": "reasonix_inbox_update_response",
    "ReasonixLoadSessionResponse": "reasonix_load_session_response",
    "ReasonixMcpInteractionAgentCapability": "reasonix_extension_surface_agent_capability",
    "ReasonixMcpInteractionClientCapability": "reasonix_extension_surface_client_capability",
    "ReasonixMcpInteractionRequest": "reasonix_mcp_interaction_request",
    "ReasonixMcpInteractionResponse": "reasonix_mcp_interaction_response",
    "ReasonixModelInfo": "reasonix_model_info",
    "ReasonixMoney": "reasonix_money",
    "ReasonixNewSessionResponse": "reasonix_new_session_response",
    "ReasonixPromptEnvelope": "reasonix_prompt_invocation",
    "ReasonixPromptInvocation": "reasonix_prompt_invocation",
    "ReasonixPromptRefSnapshot": "reasonix_prompt_invocation",
    "ReasonixPromptRequest": "reasonix_prompt_request",
    "ReasonixPromptResponse": "reasonix_prompt_response",
    "ReasonixProtocolRecoveryAction": "reasonix_background_command",
    "ReasonixRateSnapshot": "reasonix_rate_snapshot",
    "ReasonixReloadExtensionsRequest": "reasonix_reload_extensions_request",
    "ReasonixReloadExtensionsResponse": "reasonix_reload_extensions_response",
    "ReasonixResumeSessionResponse": "reasonix_resume_session_response",
    "ReasonixRewindLeftFile": "reasonix_rewind_left_file",
    "ReasonixRewindSessionRequest": "reasonix_rewind_session_request",
    "ReasonixRewindSessionResponse": "reasonix_rewind_left_file",
    "ReasonixSandboxStatus": "reasonix_background_command",
    "ReasonixSchemaVersionMarker": "reasonix_extension_surface_agent_capability",
    "ReasonixSessionInboxCapability": "reasonix_extension_surface_agent_capability",
    "ReasonixSessionInboxMethods": "reasonix_extension_surface_agent_capability",
    "ReasonixSessionModelState": "reasonix_model_info",
    "ReasonixSessionReloadExtensionsCapability": "reasonix_extension_surface_agent_capability",
    "ReasonixSessionRewindCapability": "reasonix_extension_surface_agent_capability",
    "ReasonixSessionStatus": "reasonix_background_command",
    "ReasonixSessionStatusRequest": "reasonix_session_status_request",
    "ReasonixSessionStatusResponse": "reasonix_session_status_response",
    "ReasonixSessionStatusUpdateNotification": "reasonix_session_status_update_notification",
    "ReasonixSessionSteerCapability": "reasonix_extension_surface_agent_capability",
    "ReasonixSessionUsage": "reasonix_background_command",
    "ReasonixSetSessionConfigOptionResponse": "reasonix_set_session_config_option_response",
    "ReasonixSetSessionModelRequest": "reasonix_set_session_model_request",
    "ReasonixSetSessionModelResponse": "reasonix_set_session_model_response",
    "ReasonixStatusGoal": "reasonix_background_command",
    "ReasonixSteerRequest": "reasonix_steer_request",
    "ReasonixSteerResponse": "reasonix_steer_response",
    "ReasonixSubagent": "reasonix_background_command",
    "ReasonixTurnOutcome": "reasonix_background_command",
    "ReasonixUsage": "reasonix_background_command",
}

__all__ = sorted(WHERE)


def __getattr__(name: str) -> Any:
    module = WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
