"""The pydantic-free handshake decoder against the generated InitializeRequest model."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from reasonix_acp.generated.models import InitializeRequest, InitializeResponse
from reasonix_acp.protocol.errors import InvalidParams
from reasonix_acp.protocol.handshake import decode_initialize
from reasonix_acp.server.capabilities import initialize_result
from tests import wire

VALUES: list[Any] = [None, True, False, 0, 1, "yes", "", [], {}, {"x": 1}, 1.5]


def facts_from_model(model: InitializeRequest) -> dict[str, Any]:
    caps = model.client_capabilities
    fs = caps.fs if caps else None
    session = caps.session if caps else None
    config = session.config_options if session else None
    elicitation = caps.elicitation if caps else None
    meta = (caps.field_meta or {}) if caps else {}
    vendor = meta.get("reasonix.io") if isinstance(meta, dict) else None
    surface = vendor.get("extensionSurface") if isinstance(vendor, dict) else None
    status = vendor.get("statusUpdates") if isinstance(vendor, dict) else None
    mcp = vendor.get("mcpInteraction") if isinstance(vendor, dict) else None
    info = model.client_info
    return {
        "auth_terminal": bool(caps and caps.auth and caps.auth.terminal),
        "client_info": info.model_dump(exclude_none=True, exclude={"field_meta"}) if info else None,
        "compaction": bool(session and session.compaction is not None),
        "config_boolean": bool(config and config.boolean is not None),
        "elicitation_form": bool(elicitation and elicitation.form is not None),
        "elicitation_url": bool(elicitation and elicitation.url is not None),
        "extension_surface": isinstance(surface, dict) and surface.get("supported") is True,
        "fs_read": bool(fs and fs.read_text_file),
        "fs_write": bool(fs and fs.write_text_file),
        "mcp_interaction": isinstance(mcp, dict)
        and mcp.get("supported") is True
        and type(mcp.get("schemaVersion")) is int
        and mcp.get("schemaVersion") == 1,
        "notices": bool(session and session.notices is not None),
        "protocol_version": model.protocol_version,
        "status_updates": isinstance(status, dict) and status.get("supported") is True,
        # unstable: not in the stable model, kept among its extra fields
        "subagents": isinstance(((caps.model_extra or {}) if caps else {}).get("subagents"), dict),
        "plan": isinstance(((caps.model_extra or {}) if caps else {}).get("plan"), dict),
        "terminal": bool(caps and caps.terminal),
        "terminal_meta": isinstance(meta, dict) and meta.get("terminal_output") is True,
    }


def corpus() -> list[dict[str, Any]]:
    base: dict[str, Any] = {
        "protocolVersion": 1,
        "clientCapabilities": {
            "fs": {"readTextFile": True, "writeTextFile": True},
            "terminal": True,
            "auth": {"terminal": True},
            "session": {"configOptions": {"boolean": {}}, "compaction": {}, "notices": {}},
            "elicitation": {"form": {}, "url": {}},
            "subagents": {},
            "plan": {},
            "_meta": {
                "reasonix.io": {
                    "extensionSurface": {"supported": True},
                    "statusUpdates": {"supported": True},
                    "mcpInteraction": {"supported": True, "schemaVersion": 1},
                }
            },
        },
        "clientInfo": {"name": "zed", "title": "Zed", "version": "1"},
    }
    cases = [base, {"protocolVersion": 1}, {"protocolVersion": 0, "clientCapabilities": None}]
    paths = [
        ("clientCapabilities",),
        ("clientCapabilities", "fs"),
        ("clientCapabilities", "fs", "readTextFile"),
        ("clientCapabilities", "fs", "writeTextFile"),
        ("clientCapabilities", "terminal"),
        ("clientCapabilities", "auth"),
        ("clientCapabilities", "auth", "terminal"),
        ("clientCapabilities", "session"),
        ("clientCapabilities", "session", "configOptions"),
        ("clientCapabilities", "session", "configOptions", "boolean"),
        ("clientCapabilities", "session", "compaction"),
        ("clientCapabilities", "session", "notices"),
        ("clientCapabilities", "elicitation", "form"),
        ("clientCapabilities", "elicitation", "url"),
        ("clientCapabilities", "subagents"),
        ("clientCapabilities", "plan"),
        ("clientCapabilities", "_meta"),
        ("clientCapabilities", "_meta", "reasonix.io"),
        ("clientCapabilities", "_meta", "terminal_output"),
        ("clientCapabilities", "_meta", "reasonix.io", "extensionSurface"),
        ("clientCapabilities", "_meta", "reasonix.io", "extensionSurface", "supported"),
        ("clientCapabilities", "_meta", "reasonix.io", "statusUpdates"),
        ("clientCapabilities", "_meta", "reasonix.io", "statusUpdates", "supported"),
        ("clientCapabilities", "_meta", "reasonix.io", "mcpInteraction"),
        ("clientCapabilities", "_meta", "reasonix.io", "mcpInteraction", "schemaVersion"),
        ("clientInfo",),
        ("clientInfo", "name"),
        ("clientInfo", "title"),
        ("_meta",),
    ]
    for path, value in itertools.product(paths, VALUES):
        case: dict[str, Any] = __import__("copy").deepcopy(base)
        node = case
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        cases.append(case)
    return cases


CORPUS = corpus()


@pytest.mark.parametrize("params", CORPUS, ids=[str(i) for i in range(len(CORPUS))])
def test_light_decoder_matches_the_generated_model(params: dict[str, Any]) -> None:
    light = decode_initialize(params)
    model = InitializeRequest.model_validate(params)
    assert light.facts() == facts_from_model(model)


@pytest.mark.parametrize("version", [1.0, True, None, -1, 65536, [1]])
def test_bad_protocol_versions_fail_in_both(version: Any) -> None:
    with pytest.raises(InvalidParams, match="protocolVersion"):
        decode_initialize({"protocolVersion": version})
    with pytest.raises(ValueError):
        InitializeRequest.model_validate({"protocolVersion": version})


def test_missing_protocol_version() -> None:
    with pytest.raises(InvalidParams, match="protocolVersion: Field required"):
        decode_initialize({})


def test_legacy_string_version_is_read_as_zero() -> None:
    assert decode_initialize({"protocolVersion": "2024-11-05"}).protocol_version == 0


@pytest.mark.parametrize("params", CORPUS[:30])
def test_result_is_a_valid_initialize_response(params: dict[str, Any]) -> None:
    result = initialize_result(decode_initialize(params))
    assert result["protocolVersion"] == 1
    assert wire.errors(result, "InitializeResponse") == []
    dumped = InitializeResponse.model_validate(result).model_dump(
        mode="json", by_alias=True, exclude_unset=True
    )
    assert dumped == result
