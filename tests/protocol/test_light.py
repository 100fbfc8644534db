"""The light `session/new` decoder accepts only what the generated model accepts, with the same
values; for everything else it declines and the model decides (errors, fallbacks, extras)."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from pydantic import ValidationError

from reasonix_acp.generated.methods import METHODS, SESSION_NEW
from reasonix_acp.generated.models import NewSessionRequest
from reasonix_acp.protocol import light
from reasonix_acp.protocol.codec import decode_params

SEED = int(os.environ.get("LIGHT_SEED", "20261204"))
VALUES: list[Any] = [
    None, True, 0, 1.5, "", "/w", "rel", [], ["/a"], ["/a", 3], [None], {}, {"k": 1},
    [{"name": "x", "command": "/bin/x", "args": [], "env": []}], {"cwd": "/w"},
]  # fmt: skip
KEYS = ["cwd", "mcpServers", "additionalDirectories", "_meta", "extra"]


def _params(rng: random.Random) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if rng.random() < 0.9:
        params["cwd"] = rng.choice(["/w", "/w/x", *VALUES])
    if rng.random() < 0.9:
        params["mcpServers"] = [] if rng.random() < 0.7 else rng.choice(VALUES)
    for key in KEYS[2:]:
        if rng.random() < 0.4:
            params[key] = rng.choice(VALUES)
    return params


def test_light_decoding_agrees_with_the_model() -> None:
    rng = random.Random(SEED)
    print(f"LIGHT_SEED={SEED}")
    accepted = 0
    for _ in range(3000):
        params = _params(rng)
        got = light.new_session(params)
        if got is None:
            continue
        accepted += 1
        model = NewSessionRequest.model_validate(params)  # must not raise
        assert (got.cwd, got.additional_directories, got.field_meta, got.mcp_servers) == (
            model.cwd,
            model.additional_directories,
            model.field_meta,
            model.mcp_servers,
        ), (params, SEED)
        assert not model.model_extra, (params, SEED)
    assert accepted > 100  # the corpus reaches the light path often


@pytest.mark.parametrize(
    "params",
    [
        {"cwd": "/w"},  # mcpServers missing: the model names the field
        {"cwd": 1, "mcpServers": []},
        {"cwd": "/w", "mcpServers": [], "additionalDirectories": ["/a", 3]},
        {"cwd": "/w", "mcpServers": [], "other": 1},  # an extra field is kept by the model
        {"cwd": "/w", "mcpServers": [], "_meta": []},  # lenient: the model logs the fallback
        {"cwd": "/w", "mcpServers": [{"name": "x", "command": "/x", "args": [], "env": []}]},
    ],
)
def test_other_shapes_go_to_the_model(params: dict[str, Any]) -> None:
    assert light.new_session(params) is None
    spec = METHODS[SESSION_NEW]
    try:
        expected: Any = NewSessionRequest.model_validate(params)
    except ValidationError:
        expected = None
    if expected is None:
        with pytest.raises(Exception, match="session/new: invalid params"):
            decode_params(spec, params)
    else:
        assert isinstance(decode_params(spec, params), NewSessionRequest)


def test_the_plain_shape_is_decoded_lightly() -> None:
    params = {"cwd": "/w", "mcpServers": [], "additionalDirectories": ["/a"], "_meta": {"k": 1}}
    got = decode_params(METHODS[SESSION_NEW], params)
    assert isinstance(got, light.NewSessionParams)
    assert got.additional_directories == ["/a"] and got.field_meta == {"k": 1}
