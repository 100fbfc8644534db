"""The OpenAI-compatible provider against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from reasonix_acp.config import ProviderConfig
from reasonix_acp.providers.base import (
    ModelRequest,
    ProviderError,
    TextDelta,
    ThoughtDelta,
    ToolCallRequest,
    UsageReport,
)
from reasonix_acp.providers.openai import OpenAIProvider
from tests.sse_server import Server


def provider(server: Server, kind: str = "deepseek") -> OpenAIProvider:
    return OpenAIProvider(
        ProviderConfig("test", kind, server.url, "sk-test-secret-value"), "m1", timeout=5
    )


async def collect(p: OpenAIProvider, effort: str = "auto") -> list[object]:
    request = ModelRequest(model="m1", messages=[{"role": "user", "content": "hi"}], effort=effort)
    return [e async for e in p.stream(request)]


async def test_stream_of_thoughts_text_and_usage() -> None:
    with Server() as server:
        events = await collect(provider(server), effort="high")
    assert events[:4] == [
        ThoughtDelta("Let me "),
        ThoughtDelta("think."),
        TextDelta("Hello"),
        TextDelta(", world"),
    ]
    assert events[4] == UsageReport(
        prompt_tokens=40,
        completion_tokens=7,
        reasoning_tokens=3,
        cache_hit_tokens=32,
        cache_miss_tokens=8,
    )
    body = json.loads(server.bodies[0])
    assert (
        body["stream"] is True
        and body["reasoning_effort"] == "high"
        and body["messages"][-1]["content"] == "hi"
    )
    assert server.headers[0]["Authorization"] == "Bearer sk-test-secret-value"


async def test_tool_call_pieces_are_joined() -> None:
    with Server() as server:
        server.behaviours.append("tool")
        events = await collect(provider(server))
    assert events == [
        ToolCallRequest(
            id="call_a",
            name="todo_write",
            arguments='{"todos": [{"content": "ship it", "status": "pending"}]}',
        )
    ]


async def test_401_is_a_clear_error_and_not_retried() -> None:
    with Server() as server:
        server.behaviours.append("401")
        with pytest.raises(
            ProviderError,
            match=r"authentication failed \(HTTP 401\): status 401 from the test server",
        ):
            await collect(provider(server))
    assert len(server.bodies) == 1


async def test_429_and_500_are_retried_before_the_first_token() -> None:
    with Server() as server:
        server.behaviours.extend(["429", "500"])
        events = await collect(provider(server))
    assert len(server.bodies) == 3 and TextDelta("Hello") in events


async def test_retries_give_up() -> None:
    with Server() as server:
        server.behaviours.extend(["429", "429", "429"])
        with pytest.raises(ProviderError, match="HTTP 429"):
            await collect(provider(server))


async def test_a_mid_stream_disconnect_is_an_error_after_the_text_so_far() -> None:
    seen: list[object] = []
    with Server() as server:
        server.behaviours.append("disconnect")
        with pytest.raises(ProviderError, match="ended early"):
            async for event in provider(server).stream(ModelRequest(model="m1", messages=[])):
                seen.append(event)
    assert seen == [ThoughtDelta("Let me "), ThoughtDelta("think."), TextDelta("Hello")]
    assert len(server.bodies) == 1  # text was shown: no retry


async def test_a_malformed_chunk_is_skipped_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with Server() as server:
        server.behaviours.append("malformed")
        events = await collect(provider(server))
    assert TextDelta(", world") in events
    assert "not JSON" in caplog.text


async def test_connection_refused_is_a_provider_error() -> None:
    cfg = ProviderConfig("test", "openai", "http://127.0.0.1:9/v1", "")
    with pytest.raises(ProviderError, match="ConnectError"):
        await collect(OpenAIProvider(cfg, "m1", timeout=2))
