# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# with session/fork, session/set_title, session/archive, session/unarchive, session/status, auth/status, auth/status_update, providers/list, providers/set, providers/disable, mcp/message, SessionForkCapabilities, SubagentCapabilities, SubagentUpdate, SessionMessage, SessionMessageChunk, SessionTitleCapabilities, SessionArchiveCapabilities, SessionStatusCapabilities, ListSessionsRequest, SessionInfo, NewSessionRequest, LoadSessionRequest, ResumeSessionRequest, SessionSystemPromptCapabilities, AuthStatusCapabilities, PlanUpdate, PlanRemoved, PlanCapabilities, ProvidersCapabilities, McpServer from schema/v1/schema.unstable.json (sha256 ce7881d10c854bcac4f0e7d3a9ce4fb0f612ec0a09e64b572940beec4668c189)
# and schema/vendor/*.json (sha256 d672a756040b1a5b6fe65589ffc86fcc1845182a712edca2bcabb643cbf61a41) by codegen/ -- DO NOT EDIT.
# Regenerate with `nox -s codegen`; `nox -s codegen_check` fails when this file is stale.
# ruff: noqa
from typing import Literal, NamedTuple

PROTOCOL_VERSION = 1

CANCEL_REQUEST = "$/cancel_request"
REASONIX_MCP_REQUEST_INTERACTION = "_reasonix.io/mcp/request_interaction"
REASONIX_SESSION_INBOX_DELETE = "_reasonix.io/session/inbox/delete"
REASONIX_SESSION_INBOX_ENQUEUE = "_reasonix.io/session/inbox/enqueue"
REASONIX_SESSION_INBOX_GET = "_reasonix.io/session/inbox/get"
REASONIX_SESSION_INBOX_LIST = "_reasonix.io/session/inbox/list"
REASONIX_SESSION_INBOX_MOVE = "_reasonix.io/session/inbox/move"
REASONIX_SESSION_INBOX_REFRESH = "_reasonix.io/session/inbox/refresh"
REASONIX_SESSION_INBOX_RETRY = "_reasonix.io/session/inbox/retry"
REASONIX_SESSION_INBOX_SET_PAUSED = "_reasonix.io/session/inbox/setPaused"
REASONIX_SESSION_INBOX_UPDATE = "_reasonix.io/session/inbox/update"
REASONIX_SESSION_RELOAD_EXTENSIONS = "_reasonix.io/session/reloadExtensions"
REASONIX_SESSION_REWIND = "_reasonix.io/session/rewind"
REASONIX_SESSION_STATUS = "_reasonix.io/session/status"
REASONIX_SESSION_STATUS_UPDATE = "_reasonix.io/session/status_update"
REASONIX_SESSION_STEER = "_reasonix.io/session/steer"
AUTH_STATUS = "auth/status"
AUTH_STATUS_UPDATE = "auth/status_update"
AUTHENTICATE = "authenticate"
ELICITATION_COMPLETE = "elicitation/complete"
ELICITATION_CREATE = "elicitation/create"
FS_READ_TEXT_FILE = "fs/read_text_file"
FS_WRITE_TEXT_FILE = "fs/write_text_file"
INITIALIZE = "initialize"
LOGOUT = "logout"
MCP_MESSAGE = "mcp/message"
PROVIDERS_DISABLE = "providers/disable"
PROVIDERS_LIST = "providers/list"
PROVIDERS_SET = "providers/set"
SESSION_ARCHIVE = "session/archive"
SESSION_CANCEL = "session/cancel"
SESSION_CLOSE = "session/close"
SESSION_DELETE = "session/delete"
SESSION_FORK = "session/fork"
SESSION_LIST = "session/list"
SESSION_LOAD = "session/load"
SESSION_NEW = "session/new"
SESSION_PROMPT = "session/prompt"
SESSION_REQUEST_PERMISSION = "session/request_permission"
SESSION_RESUME = "session/resume"
SESSION_SET_CONFIG_OPTION = "session/set_config_option"
SESSION_SET_MODE = "session/set_mode"
SESSION_SET_MODEL = "session/set_model"
SESSION_SET_TITLE = "session/set_title"
SESSION_STATUS = "session/status"
SESSION_UNARCHIVE = "session/unarchive"
SESSION_UPDATE = "session/update"
TERMINAL_CREATE = "terminal/create"
TERMINAL_KILL = "terminal/kill"
TERMINAL_OUTPUT = "terminal/output"
TERMINAL_RELEASE = "terminal/release"
TERMINAL_WAIT_FOR_EXIT = "terminal/wait_for_exit"


class MethodSpec(NamedTuple):
    method: str
    side: Literal["agent", "client", "protocol"]
    kind: Literal["request", "notification"]
    params: str
    result: str | None


METHODS: dict[str, MethodSpec] = {
    CANCEL_REQUEST: MethodSpec(
        CANCEL_REQUEST, "protocol", "notification", "CancelRequestNotification", None
    ),
    REASONIX_MCP_REQUEST_INTERACTION: MethodSpec(
        REASONIX_MCP_REQUEST_INTERACTION,
        "client",
        "request",
        "ReasonixMcpInteractionRequest",
        "ReasonixMcpInteractionResponse",
    ),
    REASONIX_SESSION_INBOX_DELETE: MethodSpec(
        REASONIX_SESSION_INBOX_DELETE,
        "agent",
        "request",
        "ReasonixInboxDeleteRequest",
        "ReasonixInboxDeleteResponse",
    ),
    REASONIX_SESSION_INBOX_ENQUEUE: MethodSpec(
        REASONIX_SESSION_INBOX_ENQUEUE,
        "agent",
        "request",
        "ReasonixInboxEnqueueRequest",
        "ReasonixInboxEnqueueResponse",
    ),
    REASONIX_SESSION_INBOX_GET: MethodSpec(
        REASONIX_SESSION_INBOX_GET,
        "agent",
        "request",
        "ReasonixInboxGetRequest",
        "ReasonixInboxGetResponse",
    ),
    REASONIX_SESSION_INBOX_LIST: MethodSpec(
        REASONIX_SESSION_INBOX_LIST,
        "agent",
        "request",
        "ReasonixInboxListRequest",
        "ReasonixInboxListResponse",
    ),
    REASONIX_SESSION_INBOX_MOVE: MethodSpec(
        REASONIX_SESSION_INBOX_MOVE,
        "agent",
        "request",
        "ReasonixInboxMoveRequest",
        "ReasonixInboxMoveResponse",
    ),
    REASONIX_SESSION_INBOX_REFRESH: MethodSpec(
        REASONIX_SESSION_INBOX_REFRESH,
        "agent",
        "request",
        "ReasonixInboxRefreshRequest",
        "ReasonixInboxRefreshResponse",
    ),
    REASONIX_SESSION_INBOX_RETRY: MethodSpec(
        REASONIX_SESSION_INBOX_RETRY,
        "agent",
        "request",
        "ReasonixInboxRetryRequest",
        "ReasonixInboxRetryResponse",
    ),
    REASONIX_SESSION_INBOX_SET_PAUSED: MethodSpec(
        REASONIX_SESSION_INBOX_SET_PAUSED,
        "agent",
        "request",
        "ReasonixInboxSetPausedRequest",
        "ReasonixInboxSetPausedResponse",
    ),
    REASONIX_SESSION_INBOX_UPDATE: MethodSpec(
        REASONIX_SESSION_INBOX_UPDATE,
        "agent",
        "request",
        "ReasonixInboxUpdateRequest",
        "ReasonixInboxUpdateResponse",
    ),
    REASONIX_SESSION_RELOAD_EXTENSIONS: MethodSpec(
        REASONIX_SESSION_RELOAD_EXTENSIONS,
        "agent",
        "request",
        "ReasonixReloadExtensionsRequest",
        "ReasonixReloadExtensionsResponse",
    ),
    REASONIX_SESSION_REWIND: MethodSpec(
        REASONIX_SESSION_REWIND,
        "agent",
        "request",
        "ReasonixRewindSessionRequest",
        "ReasonixRewindSessionResponse",
    ),
    REASONIX_SESSION_STATUS: MethodSpec(
        REASONIX_SESSION_STATUS,
        "agent",
        "request",
        "ReasonixSessionStatusRequest",
        "ReasonixSessionStatusResponse",
    ),
    REASONIX_SESSION_STATUS_UPDATE: MethodSpec(
        REASONIX_SESSION_STATUS_UPDATE,
        "client",
        "notification",
        "ReasonixSessionStatusUpdateNotification",
        None,
    ),
    REASONIX_SESSION_STEER: MethodSpec(
        REASONIX_SESSION_STEER,
        "agent",
        "request",
        "ReasonixSteerRequest",
        "ReasonixSteerResponse",
    ),
    AUTH_STATUS: MethodSpec(
        AUTH_STATUS, "agent", "request", "AuthStatusRequest", "AuthStatusResponse"
    ),
    AUTH_STATUS_UPDATE: MethodSpec(
        AUTH_STATUS_UPDATE,
        "client",
        "notification",
        "AuthStatusUpdateNotification",
        None,
    ),
    AUTHENTICATE: MethodSpec(
        AUTHENTICATE, "agent", "request", "AuthenticateRequest", "AuthenticateResponse"
    ),
    ELICITATION_COMPLETE: MethodSpec(
        ELICITATION_COMPLETE,
        "client",
        "notification",
        "CompleteElicitationNotification",
        None,
    ),
    ELICITATION_CREATE: MethodSpec(
        ELICITATION_CREATE,
        "client",
        "request",
        "CreateElicitationRequest",
        "CreateElicitationResponse",
    ),
    FS_READ_TEXT_FILE: MethodSpec(
        FS_READ_TEXT_FILE,
        "client",
        "request",
        "ReadTextFileRequest",
        "ReadTextFileResponse",
    ),
    FS_WRITE_TEXT_FILE: MethodSpec(
        FS_WRITE_TEXT_FILE,
        "client",
        "request",
        "WriteTextFileRequest",
        "WriteTextFileResponse",
    ),
    INITIALIZE: MethodSpec(
        INITIALIZE, "agent", "request", "InitializeRequest", "InitializeResponse"
    ),
    LOGOUT: MethodSpec(LOGOUT, "agent", "request", "LogoutRequest", "LogoutResponse"),
    MCP_MESSAGE: MethodSpec(
        MCP_MESSAGE, "client", "request", "MessageMcpRequest", "MessageMcpResponse"
    ),
    PROVIDERS_DISABLE: MethodSpec(
        PROVIDERS_DISABLE,
        "agent",
        "request",
        "DisableProviderRequest",
        "DisableProviderResponse",
    ),
    PROVIDERS_LIST: MethodSpec(
        PROVIDERS_LIST,
        "agent",
        "request",
        "ListProvidersRequest",
        "ListProvidersResponse",
    ),
    PROVIDERS_SET: MethodSpec(
        PROVIDERS_SET, "agent", "request", "SetProviderRequest", "SetProviderResponse"
    ),
    SESSION_ARCHIVE: MethodSpec(
        SESSION_ARCHIVE,
        "agent",
        "request",
        "ArchiveSessionRequest",
        "ArchiveSessionResponse",
    ),
    SESSION_CANCEL: MethodSpec(
        SESSION_CANCEL, "agent", "notification", "CancelNotification", None
    ),
    SESSION_CLOSE: MethodSpec(
        SESSION_CLOSE, "agent", "request", "CloseSessionRequest", "CloseSessionResponse"
    ),
    SESSION_DELETE: MethodSpec(
        SESSION_DELETE,
        "agent",
        "request",
        "DeleteSessionRequest",
        "DeleteSessionResponse",
    ),
    SESSION_FORK: MethodSpec(
        SESSION_FORK, "agent", "request", "ForkSessionRequest", "ForkSessionResponse"
    ),
    SESSION_LIST: MethodSpec(
        SESSION_LIST, "agent", "request", "ListSessionsRequest", "ListSessionsResponse"
    ),
    SESSION_LOAD: MethodSpec(
        SESSION_LOAD,
        "agent",
        "request",
        "LoadSessionRequest",
        "ReasonixLoadSessionResponse",
    ),
    SESSION_NEW: MethodSpec(
        SESSION_NEW,
        "agent",
        "request",
        "NewSessionRequest",
        "ReasonixNewSessionResponse",
    ),
    SESSION_PROMPT: MethodSpec(
        SESSION_PROMPT,
        "agent",
        "request",
        "ReasonixPromptRequest",
        "ReasonixPromptResponse",
    ),
    SESSION_REQUEST_PERMISSION: MethodSpec(
        SESSION_REQUEST_PERMISSION,
        "client",
        "request",
        "RequestPermissionRequest",
        "RequestPermissionResponse",
    ),
    SESSION_RESUME: MethodSpec(
        SESSION_RESUME,
        "agent",
        "request",
        "ResumeSessionRequest",
        "ReasonixResumeSessionResponse",
    ),
    SESSION_SET_CONFIG_OPTION: MethodSpec(
        SESSION_SET_CONFIG_OPTION,
        "agent",
        "request",
        "SetSessionConfigOptionRequest",
        "ReasonixSetSessionConfigOptionResponse",
    ),
    SESSION_SET_MODE: MethodSpec(
        SESSION_SET_MODE,
        "agent",
        "request",
        "SetSessionModeRequest",
        "SetSessionModeResponse",
    ),
    SESSION_SET_MODEL: MethodSpec(
        SESSION_SET_MODEL,
        "agent",
        "request",
        "ReasonixSetSessionModelRequest",
        "ReasonixSetSessionModelResponse",
    ),
    SESSION_SET_TITLE: MethodSpec(
        SESSION_SET_TITLE,
        "agent",
        "request",
        "SetSessionTitleRequest",
        "SetSessionTitleResponse",
    ),
    SESSION_STATUS: MethodSpec(
        SESSION_STATUS,
        "agent",
        "request",
        "SessionStatusRequest",
        "SessionStatusResponse",
    ),
    SESSION_UNARCHIVE: MethodSpec(
        SESSION_UNARCHIVE,
        "agent",
        "request",
        "UnarchiveSessionRequest",
        "UnarchiveSessionResponse",
    ),
    SESSION_UPDATE: MethodSpec(
        SESSION_UPDATE, "client", "notification", "SessionNotification", None
    ),
    TERMINAL_CREATE: MethodSpec(
        TERMINAL_CREATE,
        "client",
        "request",
        "CreateTerminalRequest",
        "CreateTerminalResponse",
    ),
    TERMINAL_KILL: MethodSpec(
        TERMINAL_KILL,
        "client",
        "request",
        "KillTerminalRequest",
        "KillTerminalResponse",
    ),
    TERMINAL_OUTPUT: MethodSpec(
        TERMINAL_OUTPUT,
        "client",
        "request",
        "TerminalOutputRequest",
        "TerminalOutputResponse",
    ),
    TERMINAL_RELEASE: MethodSpec(
        TERMINAL_RELEASE,
        "client",
        "request",
        "ReleaseTerminalRequest",
        "ReleaseTerminalResponse",
    ),
    TERMINAL_WAIT_FOR_EXIT: MethodSpec(
        TERMINAL_WAIT_FOR_EXIT,
        "client",
        "request",
        "WaitForTerminalExitRequest",
        "WaitForTerminalExitResponse",
    ),
}

AGENT_SIDE: dict[str, MethodSpec] = {
    MCP_MESSAGE: MethodSpec(
        MCP_MESSAGE, "agent", "notification", "MessageMcpNotification", None
    ),
}
