"""The inbox's errors. The message of each is the wire sentinel, answered as-is: a caller maps
InboxEmptyText to -32602 and every other InboxError to -32600."""

from __future__ import annotations

from reasonix_acp.protocol.errors import PeerError


class InboxError(PeerError):
    """-32600 with the raw message; every inbox failure but InboxEmptyText."""

    CODE = -32600
    MESSAGE = "inbox error"


class InboxEmptyText(InboxError):
    """-32602: enqueue got no text. The caller answers `<method>: empty text`."""

    CODE = -32602
    MESSAGE = "empty text"


class InboxItemLimit(InboxError):
    MESSAGE = "session inbox item limit reached"


class InboxByteLimit(InboxError):
    MESSAGE = "session inbox byte limit reached"


class InboxItemTooLarge(InboxError):
    MESSAGE = "inbox item exceeds single-item size limit"


class InboxNotFound(InboxError):
    MESSAGE = "inbox item not found"


class InboxInvalidState(InboxError):
    MESSAGE = "inbox item state does not allow this operation"


class InboxReadOnly(InboxError):
    MESSAGE = "inbox schema is newer and is read-only"


class InboxClosed(InboxError):
    MESSAGE = "inbox is closed"


class InboxBodyEmpty(InboxError):
    MESSAGE = "inbox item body is empty"


class InboxPaused(InboxError):
    MESSAGE = "inbox is paused"


class InboxIdempotencyConflict(InboxError):
    MESSAGE = "idempotency key was already used for different input"


class InboxInvalidKey(InboxError):
    MESSAGE = "sessioninbox: invalid idempotency key"
