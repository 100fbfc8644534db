"""One error hierarchy; each class carries its JSON-RPC code.

`PeerError`s are the peer's fault (bad JSON, unknown method, invalid params, a call that is illegal
in the current state); they are answered and the connection goes on. `InternalError` is ours: a
failure while serving a valid request. Its message is bounded so a huge cause never becomes a
huge frame. Error objects carry `code` and `message` only (no `data`).
"""

from __future__ import annotations

from typing import Any, ClassVar

# An error message is cut to this many UTF-8 bytes (on a character boundary).
MAX_MESSAGE_BYTES = 2048


def clip(text: str, limit: int = MAX_MESSAGE_BYTES) -> str:
    raw = text.encode("utf-8", "replace")
    if len(raw) <= limit:
        return text
    return raw[: limit - 3].decode("utf-8", "ignore") + "..."


class AcpError(Exception):
    """An error that becomes a JSON-RPC error object."""

    CODE: ClassVar[int]
    MESSAGE: ClassVar[str]

    def __init__(self, message: str | None = None) -> None:
        self.message = clip(message if message is not None else self.MESSAGE)
        super().__init__(self.message)

    def to_error(self) -> dict[str, Any]:
        return {"code": self.CODE, "message": self.message}


class PeerError(AcpError):
    """The peer sent something we cannot serve."""


class ParseError(PeerError):
    CODE = -32700
    MESSAGE = "parse error"


class InvalidRequest(PeerError):
    CODE = -32600
    MESSAGE = "invalid request"


class StateError(InvalidRequest):
    """A method that is illegal in the current state; the message names the state."""


class MethodNotFound(PeerError):
    CODE = -32601
    MESSAGE = "method not found"

    def __init__(self, method: str) -> None:
        super().__init__(f"method not found: {method}")
        self.method = method


class InvalidParams(PeerError):
    CODE = -32602
    MESSAGE = "invalid params"


class AuthRequired(PeerError):
    CODE = -32000
    MESSAGE = "authentication required"


class ResourceNotFound(PeerError):
    CODE = -32002
    MESSAGE = "resource not found"


class RequestCancelled(PeerError):
    CODE = -32800
    MESSAGE = "request cancelled"


class InternalError(AcpError):
    """Our failure while serving a well-formed request."""

    CODE = -32603
    MESSAGE = "internal error"


class RemoteError(Exception):
    """The client answered one of our requests with an error object."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message


class ConnectionClosed(Exception):
    """The peer went away while we were waiting for its answer."""
