# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# and schema/vendor/*.json (sha256 67c85a3f2ec6232daca7677e0cc9fa9d0d04c2da4f8affb32f7778e1b8234a19) by codegen/ -- DO NOT EDIT.
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
    "ReasonixClientCapabilitiesMeta": "reasonix_extension_surface_client_capability",
    "ReasonixClientCapabilitiesMetaEnvelope": "reasonix_extension_surface_client_capability",
    "ReasonixCostQuote": "reasonix_failure_diagnostic",
    "ReasonixCostValuation": "reasonix_rate_snapshot",
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
    "ReasonixFailureDiagnostic": "reasonix_failure_diagnostic",
    "ReasonixFinalReadiness": "reasonix_failure_diagnostic",
    "ReasonixGoalRuntime": "reasonix_failure_diagnostic",
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
    "ReasonixMcpInteractionAgentCapability": "reasonix_extension_surface_agent_capability",
    "ReasonixMcpInteractionClientCapability": "reasonix_extension_surface_client_capability",
    "ReasonixMcpInteractionRequest": "reasonix_mcp_interaction_request",
    "ReasonixMcpInteractionResponse": "reasonix_mcp_interaction_response",
    "ReasonixMoney": "reasonix_money",
    "ReasonixPromptEnvelope": "reasonix_prompt_invocation",
    "ReasonixPromptInvocation": "reasonix_prompt_invocation",
    "ReasonixPromptRefSnapshot": "reasonix_prompt_invocation",
    "ReasonixPromptRequest": "reasonix_prompt_request",
    "ReasonixPromptResponse": "reasonix_prompt_response",
    "ReasonixProtocolRecoveryAction": "reasonix_failure_diagnostic",
    "ReasonixRateSnapshot": "reasonix_rate_snapshot",
    "ReasonixReloadExtensionsRequest": "reasonix_reload_extensions_request",
    "ReasonixReloadExtensionsResponse": "reasonix_reload_extensions_response",
    "ReasonixSandboxStatus": "reasonix_failure_diagnostic",
    "ReasonixSchemaVersionMarker": "reasonix_extension_surface_agent_capability",
    "ReasonixSessionInboxCapability": "reasonix_extension_surface_agent_capability",
    "ReasonixSessionInboxMethods": "reasonix_extension_surface_agent_capability",
    "ReasonixSessionReloadExtensionsCapability": "reasonix_extension_surface_agent_capability",
    "ReasonixSessionStatus": "reasonix_failure_diagnostic",
    "ReasonixSessionStatusRequest": "reasonix_session_status_request",
    "ReasonixSessionStatusResponse": "reasonix_session_status_response",
    "ReasonixSessionStatusUpdateNotification": "reasonix_session_status_update_notification",
    "ReasonixSessionSteerCapability": "reasonix_extension_surface_agent_capability",
    "ReasonixSessionUsage": "reasonix_failure_diagnostic",
    "ReasonixSetSessionConfigOptionResponse": "reasonix_set_session_config_option_response",
    "ReasonixSetSessionModelRequest": "reasonix_set_session_model_request",
    "ReasonixSetSessionModelResponse": "reasonix_set_session_model_response",
    "ReasonixStatusGoal": "reasonix_failure_diagnostic",
    "ReasonixSteerRequest": "reasonix_steer_request",
    "ReasonixSteerResponse": "reasonix_steer_response",
    "ReasonixTurnOutcome": "reasonix_failure_diagnostic",
    "ReasonixUsage": "reasonix_failure_diagnostic",
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
