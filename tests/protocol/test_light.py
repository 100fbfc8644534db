"""The light session decoders accept only what the generated models accept, with the same
values; for everything else they decline and the model decides (errors, fallbacks, extras)."""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from reasonix_acp.generated import unstable_models
from reasonix_acp.generated.methods import (
    METHODS,
    SESSION_LIST,
    SESSION_LOAD,
    SESSION_NEW,
    SESSION_PROMPT,
    SESSION_RESUME,
)
from reasonix_acp.protocol import light
from reasonix_acp.protocol.codec import decode_params, model_class
from reasonix_acp.turn.intent import blocks_of

SEED = int(os.environ.get("LIGHT_SEED", "20261204"))
VALUES: list[Any] = [
    None, True, 0, 1.5, "", "/w", "rel", [], ["/a"], ["/a", 3], [None], {}, {"k": 1},
    [{"name": "x", "command": "/bin/x", "args": [], "env": []}], {"cwd": "/w"},
]  # fmt: skip
CASES: list[tuple[str, Callable[[dict[str, Any]], Any], type[BaseModel], list[str]]] = [
    (SESSION_NEW, light.new_session, unstable_models.NewSessionRequest, ["cwd", "mcpServers"]),
    (SESSION_LOAD, light.load_session, unstable_models.LoadSessionRequest, ["cwd", "mcpServers", "sessionId"]),
    (SESSION_RESUME, light.resume_session, unstable_models.ResumeSessionRequest, ["cwd", "mcpServers", "sessionId"]),
    (SESSION_LIST, light.list_sessions, unstable_models.ListSessionsRequest, ["cwd", "cursor"]),
]  # fmt: skip
FIELDS = (
    "cwd", "session_id", "additional_directories", "mcp_servers", "cursor", "field_meta", "archived"
)  # fmt: skip


def _params(rng: random.Random, usual: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for key in usual:
        if rng.random() < 0.85:
            plain = {"cwd": "/w", "mcpServers": [], "sessionId": "s-1", "cursor": "c"}[key]
            params[key] = plain if rng.random() < 0.7 else rng.choice(VALUES)
    for key in ("additionalDirectories", "_meta", "extra", "sessionId"):
        if key not in params and rng.random() < 0.3:
            params[key] = rng.choice(VALUES)
    return params


@pytest.mark.parametrize(("method", "decode", "model", "usual"), CASES, ids=[c[0] for c in CASES])
def test_light_decoding_agrees_with_the_model(
    method: str, decode: Callable[[dict[str, Any]], Any], model: type[BaseModel], usual: list[str]
) -> None:
    rng = random.Random(f"{SEED}-{method}")
    print(f"LIGHT_SEED={SEED}")
    accepted = 0
    for _ in range(3000):
        params = _params(rng, usual)
        got = decode(params)
        if got is None:
            continue
        accepted += 1
        expected = model.model_validate(params)  # must not raise
        for name in FIELDS:
            if hasattr(expected, name):
                assert getattr(got, name) == getattr(expected, name), (name, params, SEED)
        assert not expected.model_extra, (params, SEED)
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
        expected: Any = unstable_models.NewSessionRequest.model_validate(params)
    except ValidationError:
        expected = None
    if expected is None:
        with pytest.raises(Exception, match="session/new: invalid params"):
            decode_params(spec, params)
    else:
        assert isinstance(decode_params(spec, params), unstable_models.NewSessionRequest)


def test_the_plain_shapes_are_decoded_lightly() -> None:
    params = {"cwd": "/w", "mcpServers": [], "additionalDirectories": ["/a"], "_meta": {"k": 1}}
    got = decode_params(METHODS[SESSION_NEW], params)
    assert isinstance(got, light.OpenParams)
    assert got.additional_directories == ["/a"] and got.field_meta == {"k": 1}
    resumed = decode_params(METHODS[SESSION_RESUME], {"sessionId": "s", "cwd": "/w"})
    assert isinstance(resumed, light.OpenParams) and resumed.mcp_servers is None
    listed = decode_params(METHODS[SESSION_LIST], None)
    assert isinstance(listed, light.ListParams) and listed.cwd is None and listed.cursor is None


# -- session/prompt ---------------------------------------------------------------------------

BLOCKS: list[Any] = [
    {"type": "text", "text": "hi"},
    {"type": "text", "text": ""},
    {"type": "text", "text": "é😀\n"},
    {"type": "text", "text": 3},
    {"type": "text"},
    {"type": "text", "text": "x", "annotations": {"priority": 1}},
    {"type": "text", "text": "x", "_meta": {"k": 1}},
    {"type": "text", "text": "x", "other": 1},
    {"type": "image", "data": "AA==", "mimeType": "image/png"},
    {"type": "resource_link", "uri": "file:///w/a.py", "name": "a.py"},
    {"type": "TEXT", "text": "x"},
    "hi",
    None,
]
PROMPT_VALUES: list[Any] = [None, 1, "s-1", [], {}, {"k": 1}, "action", ["x"]]


def _prompt_params(rng: random.Random) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if rng.random() < 0.9:
        params["sessionId"] = "s-1" if rng.random() < 0.8 else rng.choice(PROMPT_VALUES)
    if rng.random() < 0.9:
        plain = rng.random() < 0.6
        pool = BLOCKS[:3] if plain else BLOCKS
        params["prompt"] = [rng.choice(pool) for _ in range(rng.randrange(4))]
        if rng.random() < 0.05:
            params["prompt"] = rng.choice(PROMPT_VALUES)
    for key in ("_meta", "action", "recoveryId", "extra"):
        if rng.random() < 0.15:
            params[key] = rng.choice(PROMPT_VALUES)
    return params


def test_light_prompt_decoding_agrees_with_the_model() -> None:
    rng = random.Random(f"{SEED}-session/prompt")
    print(f"LIGHT_SEED={SEED}")
    model = model_class("ReasonixPromptRequest")
    accepted = 0
    for _ in range(4000):
        params = _prompt_params(rng)
        got = light.prompt_request(params)
        if got is None:
            continue
        accepted += 1
        expected = model.model_validate(params)  # must not raise
        assert not expected.model_extra, (params, SEED)
        for name in ("session_id", "field_meta", "action", "recovery_id"):
            assert getattr(got, name) == getattr(expected, name), (name, params, SEED)
        assert blocks_of(got) == blocks_of(expected), (params, SEED)
    assert accepted > 500


@pytest.mark.parametrize(
    "params",
    [
        {"sessionId": "s", "prompt": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]},
        {"sessionId": "s", "prompt": [{"type": "text", "text": "x", "annotations": {}}]},
        {
            "sessionId": "s",
            "prompt": [{"type": "text", "text": "x"}],
            "action": "protocol_recovery",
        },
        {"sessionId": "s", "prompt": [{"type": "text", "text": 1}]},  # the model names the field
        {"sessionId": 1, "prompt": []},
        {"prompt": [{"type": "text", "text": "x"}]},
        {"sessionId": "s", "prompt": [], "_meta": []},  # lenient: the model logs the fallback
    ],
)
def test_other_prompts_go_to_the_model(params: dict[str, Any]) -> None:
    assert light.prompt_request(params) is None


def test_a_text_prompt_is_decoded_lightly_and_its_blocks_are_copies() -> None:
    block = {"type": "text", "text": "hello"}
    params = {"sessionId": "s", "prompt": [block], "_meta": {"k": 1}}
    got = decode_params(METHODS[SESSION_PROMPT], params)
    assert isinstance(got, light.PromptParams)
    assert (got.session_id, got.field_meta, got.action, got.recovery_id) == (
        "s",
        {"k": 1},
        None,
        None,
    )
    assert blocks_of(got) == [block] and got.prompt[0] is not block
