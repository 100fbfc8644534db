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
    "ArchiveSessionRequest": "archive_session_request",
    "ArchiveSessionResponse": "archive_session_response",
    "AuthAccount": "auth_account",
    "AuthStatusCapabilities": "auth_status_capabilities",
    "AuthStatusRequest": "auth_status_request",
    "AuthStatusResponse": "auth_status_response",
    "AuthStatusUpdateNotification": "auth_status_update_notification",
    "DisableProviderRequest": "disable_provider_request",
    "DisableProviderResponse": "disable_provider_response",
    "ErrorStopReason": "error_stop_reason",
    "ForkSessionRequest": "fork_session_request",
    "ForkSessionResponse": "fork_session_response",
    "IdleStateUpdate": "idle_state_update_cancelled",
    "IdleStateUpdateCancelled": "idle_state_update_cancelled",
    "IdleStateUpdateEndTurn": "idle_state_update_cancelled",
    "IdleStateUpdateError": "idle_state_update_cancelled",
    "IdleStateUpdateMaxTokens": "idle_state_update_cancelled",
    "IdleStateUpdateMaxTurnRequests": "idle_state_update_cancelled",
    "IdleStateUpdateNone": "idle_state_update_cancelled",
    "IdleStateUpdateOther": "idle_state_update_cancelled",
    "IdleStateUpdateRefusal": "idle_state_update_cancelled",
    "ListProvidersRequest": "list_providers_request",
    "ListProvidersResponse": "provider_current_config",
    "ListSessionsRequest": "list_sessions_request",
    "LoadSessionRequest": "load_session_request",
    "McpError": "mcp_error",
    "McpServerAcp": "mcp_server_acp",
    "McpServerAcpModel": "mcp_server_acp",
    "MessageMcpNotification": "message_mcp_notification",
    "MessageMcpRequest": "message_mcp_request",
    "MessageMcpResponse": "mcp_error",
    "MessageMcpResponseError": "mcp_error",
    "MessageMcpResponseResult": "mcp_error",
    "NewSessionRequest": "new_session_request",
    "PlanCapabilities": "plan_capabilities",
    "PlanFile": "plan_file",
    "PlanItems": "plan_items",
    "PlanMarkdown": "plan_markdown",
    "PlanRemoved": "plan_removed",
    "PlanUpdate": "plan_update",
    "ProviderCurrentConfig": "provider_current_config",
    "ProviderInfo": "provider_current_config",
    "ProvidersCapabilities": "providers_capabilities",
    "RequiresActionStateUpdate": "requires_action_state_update",
    "ResumeSessionRequest": "resume_session_request",
    "RunningStateUpdate": "running_state_update",
    "SessionArchiveCapabilities": "session_archive_capabilities",
    "SessionCancelCapabilities": "session_cancel_capabilities",
    "SessionForkCapabilities": "session_fork_capabilities",
    "SessionInfo": "session_info",
    "SessionMessage": "session_message",
    "SessionMessageChunk": "session_message_chunk",
    "SessionStatusCapabilities": "session_status_capabilities",
    "SessionStatusRequest": "session_status_request",
    "SessionStatusResponse": "session_status_response",
    "SessionSystemPromptCapabilities": "session_system_prompt_override_capabilities",
    "SessionSystemPromptModeCapabilities": "session_system_prompt_override_capabilities",
    "SessionSystemPromptOverrideCapabilities": "session_system_prompt_override_capabilities",
    "SessionTitleCapabilities": "session_title_capabilities",
    "SetProviderRequest": "set_provider_request",
    "SetProviderResponse": "set_provider_response",
    "SetSessionTitleRequest": "set_session_title_request",
    "SetSessionTitleResponse": "set_session_title_response",
    "StateUpdateIdleCancelled": "session_cancel_capabilities",
    "StateUpdateIdleEndTurn": "session_cancel_capabilities",
    "StateUpdateIdleError": "session_cancel_capabilities",
    "StateUpdateIdleMaxTokens": "session_cancel_capabilities",
    "StateUpdateIdleMaxTurnRequests": "session_cancel_capabilities",
    "StateUpdateIdleNone": "session_cancel_capabilities",
    "StateUpdateIdleOther": "session_cancel_capabilities",
    "StateUpdateIdleRefusal": "session_cancel_capabilities",
    "StateUpdateOther": "session_cancel_capabilities",
    "StateUpdateRequiresAction": "session_cancel_capabilities",
    "StateUpdateRunning": "session_cancel_capabilities",
    "StateUpdateUnknown": "session_cancel_capabilities",
    "SubagentCapabilities": "subagent_capabilities",
    "SubagentSessionCapabilities": "session_cancel_capabilities",
    "SubagentUpdate": "session_cancel_capabilities",
    "SystemPrompt": "mcp_server_acp",
    "UnarchiveSessionRequest": "unarchive_session_request",
    "UnarchiveSessionResponse": "unarchive_session_response",
    "UnknownStateUpdate": "unknown_state_update",
    "Usage": "usage",
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
