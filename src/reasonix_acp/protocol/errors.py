"""One error hierarchy; each class carries its JSON-RPC code.

`PeerError`s are the peer's fault (bad JSON, unknown method, invalid params, a call that is illegal
in the current state); they are answered and the connection goes on. `InternalError` is ours: a
failure while serving a valid request. Its message is bounded so a huge cause never becomes a
huge frame. Error objects carry `code` and `message` only, except -32603: it also carries
`data: {"details": <the same text>}`, since some hosts show only `data.details`; and an
unknown session's -32002 (`SessionNotFound`), which carries `data: {"sessionId": ...}`. An internal
error's text is bounded and has its credentials redacted: the server installs
`reasonix_acp.redact.redact` with `install_scrubber` (that module sits above this layer).

`RemoteError` is the other direction: the client's error object for one of our requests, `data`
included, so that what the client said (`data.details`) reaches the tool result and the model.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, ClassVar

# An error message is cut to this many UTF-8 bytes (on a character boundary).
MAX_MESSAGE_BYTES = 2048
# A client's `data.details` is cut to this many bytes where we repeat it.
MAX_DETAILS_BYTES = 1024


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


class SessionNotFound(ResourceNotFound):
    """-32002 for a session the agent does not know, with `data: {"sessionId": ...}` (what the
    unstable session methods answer: set_title, archive, unarchive, status)."""

    def __init__(self, method: str, session_id: str) -> None:
        super().__init__(f"{method}: unknown session {session_id}")
        self.session_id = session_id

    def to_error(self) -> dict[str, Any]:
        return {**super().to_error(), "data": {"sessionId": self.session_id}}


class RequestCancelled(PeerError):
    CODE = -32800
    MESSAGE = "request cancelled"


_scrubber: Callable[[str], str] = clip


def install_scrubber(scrub: Callable[[str], str]) -> None:
    """How internal error causes are cleaned before they leave (bounded, credentials redacted)."""
    global _scrubber
    _scrubber = scrub


class InternalError(AcpError):
    """Our failure while serving a well-formed request; the cause is also `data.details`."""

    CODE = -32603
    MESSAGE = "internal error"

    def __init__(self, message: str | None = None) -> None:
        super().__init__(_scrubber(message if message is not None else self.MESSAGE))

    def to_error(self) -> dict[str, Any]:
        return {"code": self.CODE, "message": self.message, "data": {"details": self.message}}


def _details(data: Any) -> str | None:
    """What a client's error `data` says: `data.details` when it is a string, else `data` as
    compact JSON; bounded."""
    if data is None:
        return None
    if isinstance(data, dict) and isinstance(data.get("details"), str):
        text: str = data["details"]
    elif isinstance(data, str):
        text = data
    else:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return clip(text.strip(), MAX_DETAILS_BYTES) or None


class RemoteError(Exception):
    """The client answered one of our requests with an error object. Its text is
    `<message> (code <code>)`, followed by `: <details>` when the client gave `data`."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        self.code = code
        self.message = message
        self.data = data
        self.details = _details(data)
        text = f"{message} (code {code})"
        if self.details and self.details != message:
            text += f": {self.details}"
        super().__init__(text)


class ConnectionClosed(Exception):
    """The peer went away while we were waiting for its answer."""
