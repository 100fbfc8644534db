"""The OpenAI-compatible provider against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from reasonix_acp.config import ProviderConfig
from reasonix_acp.providers.base import (
    ContextOverflow,
    Finish,
    ModelRequest,
    ProviderError,
    ReasoningKept,
    TextDelta,
    ThoughtDelta,
    ToolCallRequest,
    UsageReport,
)
from reasonix_acp.providers.openai import OpenAIProvider
from tests.sse_server import Server, chunk


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
    assert events[4] == ReasoningKept({"reasoning_content": "Let me think."})
    assert events[5] == Finish("stop")
    assert events[6] == UsageReport(
        prompt_tokens=40,
        completion_tokens=7,
        reasoning_tokens=3,
        cache_hit_tokens=32,
        cache_miss_tokens=8,
    )
    body = json.loads(server.bodies[0])
    assert (
        body["stream"] is True
        and body["thinking"] == {"type": "enabled"}
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
        ),
        Finish("tool_calls"),
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


@pytest.mark.parametrize("reason", ["length", "content_filter", "tool_calls"])
async def test_the_finish_reason_is_passed_on_after_the_calls(reason: str) -> None:
    stream = [chunk({"content": "partial"}), chunk({}, finish=reason), b"data: [DONE]\n\n"]
    with Server() as server:
        server.behaviours.append(stream)
        events = await collect(provider(server))
    assert events == [TextDelta("partial"), Finish(reason)]


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (400, "This model's maximum context length is 32768 tokens. However, you requested 40000"),
        (400, "Prompt is too long"),
        (400, "the request exceeds the available context size, try increasing it"),
        (413, "Payload Too Large"),
    ],
)
async def test_a_request_longer_than_the_context_is_an_overflow(status: int, message: str) -> None:
    answer = json.dumps({"error": {"message": message, "code": "context_length_exceeded"}})
    with Server() as server:
        server.behaviours.append((status, answer.encode()))
        with pytest.raises(ContextOverflow) as raised:
            await collect(provider(server))
    assert str(status) in str(raised.value) and "sk-test-secret-value" not in str(raised.value)
    assert len(server.bodies) == 1  # not retried by the provider: the turn compacts first


async def test_other_bad_requests_are_not_overflows() -> None:
    answer = json.dumps({"error": {"message": "unknown field 'tools'"}}).encode()
    with Server() as server:
        server.behaviours.append((400, answer))
        with pytest.raises(ProviderError) as raised:
            await collect(provider(server))
    assert not isinstance(raised.value, ContextOverflow)
