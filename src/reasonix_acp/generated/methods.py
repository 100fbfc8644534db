# GENERATED FROM @agentclientprotocol/sdk@2.4.0 schema/v1/schema.json (sha256 0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a)
# and schema/vendor/*.json (sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855) by codegen/ -- DO NOT EDIT.
# Regenerate with `nox -s codegen`; `nox -s codegen_check` fails when this file is stale.
# ruff: noqa
from typing import Literal, NamedTuple

PROTOCOL_VERSION = 1

CANCEL_REQUEST = "$/cancel_request"
AUTHENTICATE = "authenticate"
ELICITATION_COMPLETE = "elicitation/complete"
ELICITATION_CREATE = "elicitation/create"
FS_READ_TEXT_FILE = "fs/read_text_file"
FS_WRITE_TEXT_FILE = "fs/write_text_file"
INITIALIZE = "initialize"
LOGOUT = "logout"
SESSION_CANCEL = "session/cancel"
SESSION_CLOSE = "session/close"
SESSION_DELETE = "session/delete"
SESSION_LIST = "session/list"
SESSION_LOAD = "session/load"
SESSION_NEW = "session/new"
SESSION_PROMPT = "session/prompt"
SESSION_REQUEST_PERMISSION = "session/request_permission"
SESSION_RESUME = "session/resume"
SESSION_SET_CONFIG_OPTION = "session/set_config_option"
SESSION_SET_MODE = "session/set_mode"
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
    SESSION_LIST: MethodSpec(
        SESSION_LIST, "agent", "request", "ListSessionsRequest", "ListSessionsResponse"
    ),
    SESSION_LOAD: MethodSpec(
        SESSION_LOAD, "agent", "request", "LoadSessionRequest", "LoadSessionResponse"
    ),
    SESSION_NEW: MethodSpec(
        SESSION_NEW, "agent", "request", "NewSessionRequest", "NewSessionResponse"
    ),
    SESSION_PROMPT: MethodSpec(
        SESSION_PROMPT, "agent", "request", "PromptRequest", "PromptResponse"
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
        "ResumeSessionResponse",
    ),
    SESSION_SET_CONFIG_OPTION: MethodSpec(
        SESSION_SET_CONFIG_OPTION,
        "agent",
        "request",
        "SetSessionConfigOptionRequest",
        "SetSessionConfigOptionResponse",
    ),
    SESSION_SET_MODE: MethodSpec(
        SESSION_SET_MODE,
        "agent",
        "request",
        "SetSessionModeRequest",
        "SetSessionModeResponse",
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
