"""`initialize` params decoded without pydantic, so the handshake is answered before it loads.

The first frame itself goes through `messages.decode` like every later one, so the synchronous
handshake keeps the same frame rules (strict UTF-8 JSON: no byte order mark, no `NaN` or
`Infinity`; null ids; lone surrogates); tests/test_protocol_robustness.py sends such first frames.

The rules are the generated `InitializeRequest` model's, field by field: the schema marks every
field under `clientCapabilities` and `clientInfo` default-on-error, so a malformed value there
turns the feature off (and is logged), never fails the handshake. Only `protocolVersion` can make
`initialize` fail. tests/protocol/test_handshake.py runs a corpus through both this decoder and
the generated model and requires the same features from each.

One deliberate difference: a legacy string `protocolVersion` ("2024-11-05", sent by some early
clients) is read as version 0 instead of failing; the agent then answers with its own version.

`clientCapabilities._meta.terminal_output: true` (Zed) asks for command output as display-only
`_meta.terminal_info` / `terminal_output` / `terminal_exit` on tool calls.

Vendor opt-ins under `clientCapabilities._meta["reasonix.io"]`:
- `extensionSurface.supported` must be the JSON boolean true;
- `statusUpdates.supported` must be the JSON boolean true: the session status is then pushed as
  `_reasonix.io/session/status_update` notifications (`_reasonix.io/session/status` answers
  every client);
- `mcpInteraction` must be `{"supported": true, "schemaVersion": 1}`; any other shape is "off".
"""

from __future__ import annotations

import logging
from typing import Any

from reasonix_acp.protocol.errors import InvalidParams

log = logging.getLogger("reasonix_acp.handshake")

VENDOR_KEY = "reasonix.io"
MAX_PROTOCOL_VERSION = 65535


class ClientFeatures:
    """What the client said it can do, as plain facts."""

    __slots__ = (
        "auth_terminal",
        "capabilities",
        "client_info",
        "compaction",
        "config_boolean",
        "elicitation_form",
        "elicitation_url",
        "extension_surface",
        "fs_read",
        "fs_write",
        "mcp_interaction",
        "notices",
        "plan",
        "protocol_version",
        "status_updates",
        "subagents",
        "terminal",
        "terminal_meta",
    )

    def __init__(self, protocol_version: int = 0) -> None:
        self.protocol_version = protocol_version
        self.capabilities: dict[str, Any] = {}
        self.client_info: dict[str, str] | None = None
        self.fs_read = False
        self.fs_write = False
        self.terminal = False
        self.auth_terminal = False
        self.config_boolean = False
        self.compaction = False  # `session.compaction`: compaction_update and its chunks
        self.notices = False  # `session.notices`: notice updates
        self.elicitation_form = False
        self.elicitation_url = False
        self.extension_surface = False
        self.mcp_interaction = False
        self.status_updates = False  # `_reasonix.io/session/status_update` notifications wanted
        self.terminal_meta = False  # Zed's display-only `_meta.terminal_*` convention
        self.subagents = False  # unstable `subagents`: children as sessions of their own
        self.plan = False  # unstable `plan`: plans by id (plan_update, plan_removed)

    def facts(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__ if name != "capabilities"}


def _obj(parent: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = parent.get(key)
    if value is None or isinstance(value, dict):
        return value or {}
    log.warning("%s.%s: malformed value replaced by its default (not an object)", where, key)
    return {}


def _flag(parent: dict[str, Any], key: str, where: str) -> bool:
    value = parent.get(key)
    if value is None or isinstance(value, bool):
        return bool(value)
    log.warning("%s.%s: malformed value replaced by its default (not a boolean)", where, key)
    return False


def _marker(parent: dict[str, Any], key: str, where: str) -> bool:
    """A capability that is supported when present as an object (`{}`)."""
    value = parent.get(key)
    if value is not None and not isinstance(value, dict):
        log.warning("%s.%s: malformed value replaced by its default (not an object)", where, key)
    return isinstance(value, dict)


def _protocol_version(params: dict[str, Any]) -> int:
    if "protocolVersion" not in params:
        raise InvalidParams("initialize: invalid params at protocolVersion: Field required")
    value = params["protocolVersion"]
    if isinstance(value, str):
        return 0
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidParams(
            "initialize: invalid params at protocolVersion: Input should be a valid integer"
        )
    if not 0 <= value <= MAX_PROTOCOL_VERSION:
        raise InvalidParams(
            f"initialize: invalid params at protocolVersion: must be between 0 and {MAX_PROTOCOL_VERSION}"
        )
    return value


def _client_info(params: dict[str, Any]) -> dict[str, str] | None:
    info = params.get("clientInfo")
    if info is None:
        return None
    if (
        not isinstance(info, dict)
        or not isinstance(info.get("name"), str)
        or not isinstance(info.get("version"), str)
    ):
        log.warning("InitializeRequest.clientInfo: malformed value replaced by its default")
        return None
    out = {"name": info["name"], "version": info["version"]}
    if isinstance(info.get("title"), str):
        out["title"] = info["title"]
    return out


def _vendor_opt_ins(features: ClientFeatures, caps: dict[str, Any]) -> None:
    meta = caps.get("_meta")
    features.terminal_meta = isinstance(meta, dict) and meta.get("terminal_output") is True
    vendor = meta.get(VENDOR_KEY) if isinstance(meta, dict) else None
    if not isinstance(vendor, dict):
        return
    surface = vendor.get("extensionSurface")
    features.extension_surface = isinstance(surface, dict) and surface.get("supported") is True
    status = vendor.get("statusUpdates")
    features.status_updates = isinstance(status, dict) and status.get("supported") is True
    mcp = vendor.get("mcpInteraction")
    version = mcp.get("schemaVersion") if isinstance(mcp, dict) else None
    features.mcp_interaction = (
        isinstance(mcp, dict)
        and mcp.get("supported") is True
        and isinstance(version, int)
        and not isinstance(version, bool)
        and version == 1
    )


def decode_initialize(params: dict[str, Any]) -> ClientFeatures:
    features = ClientFeatures(_protocol_version(params))
    features.client_info = _client_info(params)
    caps = _obj(params, "clientCapabilities", "InitializeRequest")
    features.capabilities = caps
    fs = _obj(caps, "fs", "ClientCapabilities")
    features.fs_read = _flag(fs, "readTextFile", "FileSystemCapabilities")
    features.fs_write = _flag(fs, "writeTextFile", "FileSystemCapabilities")
    features.terminal = _flag(caps, "terminal", "ClientCapabilities")
    features.auth_terminal = _flag(
        _obj(caps, "auth", "ClientCapabilities"), "terminal", "AuthCapabilities"
    )
    session = _obj(caps, "session", "ClientCapabilities")
    config = _obj(session, "configOptions", "ClientSessionCapabilities")
    features.config_boolean = _marker(config, "boolean", "SessionConfigOptionsCapabilities")
    features.compaction = _marker(session, "compaction", "ClientSessionCapabilities")
    features.notices = _marker(session, "notices", "ClientSessionCapabilities")
    elicitation = _obj(caps, "elicitation", "ClientCapabilities")
    features.elicitation_form = _marker(elicitation, "form", "ElicitationCapabilities")
    features.elicitation_url = _marker(elicitation, "url", "ElicitationCapabilities")
    features.subagents = _marker(caps, "subagents", "ClientCapabilities")
    features.plan = _marker(caps, "plan", "ClientCapabilities")
    _vendor_opt_ins(features, caps)
    return features
