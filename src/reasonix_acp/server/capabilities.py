"""What the agent advertises in `initialize`: exactly what is implemented, nothing more.

Each capability below is switched on in the same change that makes it work end to end; the
golden transcript `initialize_*.ndjson` pins the result.
"""

from __future__ import annotations

import sys
from typing import Any

from reasonix_acp import __version__
from reasonix_acp.generated import methods as m
from reasonix_acp.generated.methods import PROTOCOL_VERSION
from reasonix_acp.protocol.handshake import ClientFeatures

AGENT_NAME = "reasonix-acp"
AGENT_TITLE = "Reasonix"
SETUP_METHOD_ID = "reasonix-setup"


def agent_capabilities(images: bool = False) -> dict[str, Any]:
    """`images`: a configured model takes images (config.Config.any_takes_images)."""
    return {
        "loadSession": True,
        "promptCapabilities": {"image": images, "audio": False, "embeddedContext": True},
        "mcpCapabilities": {"http": True, "sse": True, "acp": True},  # acp: unstable
        "sessionCapabilities": {
            "list": {},
            "resume": {},
            "close": {},
            "delete": {},
            "additionalDirectories": {},
            # unstable in the schema (Session{Fork,Title,Archive,Status,SystemPrompt}Capabilities);
            # systemPrompt without `mode`: append only (session/client_prompt.py)
            "fork": {},
            "title": {},
            "archive": {},
            "status": {},
            "systemPrompt": {},
        },
        "auth": {"logout": {}, "status": {}},  # status: unstable (AuthStatusCapabilities)
        "providers": {},  # unstable (ProvidersCapabilities): server/providers.py
        "_meta": vendor_meta(),
    }


def vendor_meta() -> dict[str, Any]:
    """The `_reasonix.io` entries that work; method names come from the generated table."""
    return {
        m.REASONIX_SESSION_STATUS: {"schemaVersion": 1},
        m.REASONIX_SESSION_STATUS_UPDATE: {"schemaVersion": 1},
        "reasonix.io": {
            "mcpInteraction": {
                "supported": True,
                "schemaVersion": 1,
                "method": m.REASONIX_MCP_REQUEST_INTERACTION,
            },
            "sessionSteer": {"method": m.REASONIX_SESSION_STEER},
            "sessionInbox": {
                "schemaVersion": 1,
                "methods": {
                    "delete": m.REASONIX_SESSION_INBOX_DELETE,
                    "enqueue": m.REASONIX_SESSION_INBOX_ENQUEUE,
                    "get": m.REASONIX_SESSION_INBOX_GET,
                    "list": m.REASONIX_SESSION_INBOX_LIST,
                    "move": m.REASONIX_SESSION_INBOX_MOVE,
                    "refresh": m.REASONIX_SESSION_INBOX_REFRESH,
                    "retry": m.REASONIX_SESSION_INBOX_RETRY,
                    "setPaused": m.REASONIX_SESSION_INBOX_SET_PAUSED,
                    "update": m.REASONIX_SESSION_INBOX_UPDATE,
                },
            },
            "sessionReloadExtensions": {"method": m.REASONIX_SESSION_RELOAD_EXTENSIONS},
            "sessionRewind": {"method": m.REASONIX_SESSION_REWIND},
            "extensionSurface": {"supported": True, "schemaVersion": 1},
        },
    }


def auth_methods(client: ClientFeatures) -> list[dict[str, Any]]:
    """`acp setup` writes the provider configuration. A client that can run terminal auth gets
    the terminal method (it runs us with `setup`); others get the same id as a plain method.
    Both carry `_meta["terminal-auth"]`, the command line to run (this interpreter, so it works
    however the agent was installed: uvx, pipx, a venv)."""
    method: dict[str, Any] = {
        "id": SETUP_METHOD_ID,
        "name": "Reasonix setup",
        "description": "Configure a model provider and its credentials in a terminal (acp setup)",
    }
    if client.auth_terminal:
        method.update({"type": "terminal", "args": ["setup"]})
    # The older convention some clients still read: the full command to run in a terminal.
    method["_meta"] = {
        "terminal-auth": {
            "label": "Reasonix setup",
            "command": sys.executable,
            "args": ["-m", "reasonix_acp", "setup"],
        }
    }
    return [method]


def negotiate(requested: int) -> int:
    """The spec's rule: the client's version if we support it, else our latest. We support one."""
    return requested if requested == PROTOCOL_VERSION else PROTOCOL_VERSION


def initialize_result(client: ClientFeatures, images: bool = False) -> dict[str, Any]:
    return {
        "protocolVersion": negotiate(client.protocol_version),
        "agentCapabilities": agent_capabilities(images),
        "agentInfo": {"name": AGENT_NAME, "title": AGENT_TITLE, "version": __version__},
        "authMethods": auth_methods(client),
    }
