"""OpenAI-compatible Chat Completions over httpx, streaming (DeepSeek, Ollama, vLLM, llama.cpp,
OpenRouter ...).

- Reasoning deltas (`reasoning_content`, `reasoning`, `reasoning_details`) become thought deltas,
  and the whole of it is passed on once (`ReasoningKept`) to be sent back where the provider
  needs it (providers/reasoning.py); `content` deltas become text deltas.
- DeepSeek's API (`dialect`): thinking on (`thinking`, `reasoning_effort` from the session's
  effort; `off` turns it off), every assistant message sent with a `reasoning_content`
  (providers/reasoning.py).
- The stream is read by the SSE rules (multi-line `data:` events included); tool calls arrive
  in pieces by `index`, or by `id` when a server sends no index (or null), and are yielded
  whole, in the order they began, when the stream ends.
- `tool_choice`, when a request sets one (a summary request's "none"), comes last in the body.
- Usage is read from the final chunk (`stream_options.include_usage`), including DeepSeek's
  `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens` and OpenAI's `cached_tokens`.
- 429 and 5xx are retried with backoff, but only before the first delta; after that a failure
  is a `ProviderError` (a retry would repeat text the client has already shown).
- The finish reason is passed on (`Finish`); an error answer is classified by refusals.py (a
  request too long for the context is `ContextOverflow`: the turn compacts and tries again).
- A chunk that is not JSON is skipped with a warning; a stream that ends without `[DONE]` or a
  finish reason is an error ("the stream ended early").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

from reasonix_acp.config import ProviderConfig
from reasonix_acp.config.context import DEFAULT_WINDOW
from reasonix_acp.config.mcp_entries import shown_url
from reasonix_acp.providers.base import (
    Finish,
    ModelEvent,
    ModelRequest,
    ProviderError,
    ReasoningKept,
    TextDelta,
    ThoughtDelta,
    ToolCallRequest,
    UsageReport,
)
from reasonix_acp.providers.discovery import (
    local_kind,
    models_url,
    parse_models,
    parse_vision,
    parse_windows,
    probe_window,
)
from reasonix_acp.providers.reasoning import Reasoning, outgoing
from reasonix_acp.providers.refusals import refusal, unreachable
from reasonix_acp.redact import scrub_known

log = logging.getLogger("reasonix_acp.providers.openai")

RETRY_STATUS = {429, 500, 502, 503, 504}
# DeepSeek's thinking efforts (the API maps others onto these); `off` disables thinking.
THINKING_EFFORTS = ("low", "high", "max")
MAX_ATTEMPTS = 3
BACKOFF_SECONDS = (0.25, 1.0)
DRAIN_SECONDS = 0.5  # reading past `[DONE]` to the end of the body (`_drain`)
WARM_TIMEOUT = 5.0  # the connection made when a session opens (`warm`)
WARM_WAIT = 1.0  # how long a request waits for that connection when it is still being made
ANYIO_FIRST_USE = (
    "connect_tcp",
    "create_memory_object_stream",
    "fail_after",
    "Lock",
    "Event",
    "Semaphore",
    "CancelScope",
)


def _endpoint(base_url: str) -> str:
    base = base_url.rstrip("/")
    return base if base.endswith("/chat/completions") else base + "/chat/completions"


def _usage(data: dict[str, Any]) -> UsageReport:
    prompt = int(data.get("prompt_tokens") or 0)
    details = data.get("prompt_tokens_details") or {}
    hit = int(data.get("prompt_cache_hit_tokens") or details.get("cached_tokens") or 0)
    miss = int(data.get("prompt_cache_miss_tokens") or max(prompt - hit, 0))
    reasoning = int((data.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0)
    return UsageReport(prompt, int(data.get("completion_tokens") or 0), reasoning, hit, miss)


class OpenAIProvider:
    def __init__(
        self,
        config: ProviderConfig,
        model: str,
        timeout: float = 120.0,
        window: Callable[[], int] = lambda: DEFAULT_WINDOW,
    ) -> None:
        self.config = config
        self.model = model
        self.timeout = timeout
        self._window = window  # the model's context size, as config.toml and the endpoint say
        self._client: Any = None
        self._building = threading.Lock()
        self._closed = False  # aclose() ran: a warm-up still under way gives up
        self._warming: asyncio.Future[None] | None = None  # done when the warm-up has ended
        self.served: list[str] | None = None  # the models the endpoint listed at the warm-up

    @property
    def context_window(self) -> int:
        return self._window()

    def prepare(self) -> None:
        """Import httpx and build the connection pool (its TLS set-up alone is 20 to 40 ms of
        CPU), unless the provider is closed. Meant for a worker thread: the prompt path's
        loading ahead runs it before pydantic, and the warm-up waits for it there."""
        if self._closed:
            return
        self._http()
        # anyio loads its parts when first used: the ones httpx's first request uses load
        # here rather than on the event loop (best effort: the request loads what is missing).
        with contextlib.suppress(Exception):
            import anyio.abc
            import anyio.streams.tls

            for name in ANYIO_FIRST_USE:
                getattr(anyio, name, None)

    def _http(self) -> Any:
        with self._building:  # one pool, whichever thread builds it first
            if self._client is None:
                import httpx

                timeout = httpx.Timeout(self.timeout, connect=10.0)
                self._client = httpx.AsyncClient(timeout=timeout)
            return self._client

    async def warm(self) -> str | None:
        """Connect to the endpoint before the first prompt needs it (DNS, TCP and TLS cost a
        remote provider 100-300 ms): the pool is built off the event loop (`prepare`), then a
        `GET <base>/models` (free, and answered by every OpenAI-compatible server) leaves a
        live connection in it, and the models it lists are kept in `served`. → why the
        endpoint could not be reached, or None."""
        url = models_url(self.config.base_url)
        if not url.lower().startswith(("http://", "https://")):
            return None  # the first request names this problem itself
        headers = {"Accept": "application/json"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        warming = self._warming = asyncio.get_running_loop().create_future()
        try:
            await asyncio.to_thread(self.prepare)
            if self._closed:
                await self.aclose()  # retired or closed meanwhile: built for nothing
                return None
            httpx = sys.modules["httpx"]
            try:
                response = await self._http().get(url, headers=headers, timeout=WARM_TIMEOUT)
            except httpx.TransportError as exc:
                return f"{shown_url(url)}: {type(exc).__name__}: {exc}"
            if response.status_code == 200:
                with contextlib.suppress(ValueError):
                    answer = json.loads(response.text)
                    self.served = parse_models(answer)
                    await self._learn_window(answer)
        except Exception as exc:  # never fatal: the first request reports its own failure
            log.debug("warming %s failed: %s", self.config.name, exc)
        finally:
            warming.set_result(None)
        return None

    async def _learn_window(self, answer: Any) -> None:
        """Keep the context sizes the /models answer gives; a llama.cpp or Ollama server that
        gives none for this model is asked its own way (`probe_window`)."""
        self.config.reported.update(parse_windows(answer))
        self.config.sees.update(parse_vision(answer))
        kind = local_kind(answer)
        if self.model not in self.config.reported and kind is not None:
            size = await probe_window(self._http(), self.config.base_url, kind, self.model)
            if size is not None:
                self.config.reported[self.model] = size

    async def _connected(self) -> None:
        """A request made while the warm-up is still connecting waits for its connection (a
        second handshake would cost what the warm-up saves), up to WARM_WAIT; a cancel of the
        request leaves the warm-up running."""
        warming = self._warming
        if warming is not None and not warming.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(warming), WARM_WAIT)

    async def aclose(self) -> None:
        """Close the connection pool (a replaced or closed session's provider)."""
        self._closed = True
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    def body(self, request: ModelRequest) -> dict[str, Any]:
        """The request body. Key order is part of prefix-cache stability: everything that stays
        the same for the session (model, tools) comes first and the growing `messages` last, so
        each request's bytes start with the previous request's minus its closing brackets."""
        body: dict[str, Any] = {
            "model": self.model,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            body["tools"] = request.tools
        if self.config.dialect == "deepseek":
            if request.effort == "off":
                body["thinking"] = {"type": "disabled"}
            else:
                body["thinking"] = {"type": "enabled"}
                effort = request.effort if request.effort in THINKING_EFFORTS else "high"
                body["reasoning_effort"] = effort
            body["messages"] = outgoing(request.messages)
        else:
            body["messages"] = request.messages
        if request.tool_choice and request.tools:  # after the messages: the prefix holds
            body["tool_choice"] = request.tool_choice
        return body

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        import httpx

        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        payload = json.dumps(self.body(request), ensure_ascii=False, separators=(",", ":")).encode()
        url = _endpoint(self.config.base_url)
        if not url.lower().startswith(("http://", "https://")):
            raise ProviderError(
                f"{self.config.name}: the base URL {shown_url(self.config.base_url)!r} does not "
                "start with http:// or https://; fix it in config.toml or OPENAI_BASE_URL"
            )
        await self._connected()
        for attempt in range(1, MAX_ATTEMPTS + 1):
            produced = False
            try:
                async with self._http().stream(
                    "POST", url, content=payload, headers=headers
                ) as response:
                    if response.status_code != 200:
                        body = (await response.aread()).decode("utf-8", "replace")
                        text = scrub_known(body)[:500]  # cut once scrubbed: no half of a key
                        if response.status_code in RETRY_STATUS and attempt < MAX_ATTEMPTS:
                            await asyncio.sleep(_delay(response, attempt))
                            continue
                        c = self.config
                        status = response.status_code
                        raise refusal(c.name, c.kind, self.model, status, text, self.served)
                    async for event in self._events(response):
                        produced = True
                        yield event
                    return
            except httpx.HTTPError as exc:
                unanswered = not produced and isinstance(exc, httpx.TransportError)
                if unanswered and attempt < MAX_ATTEMPTS:
                    await asyncio.sleep(BACKOFF_SECONDS[min(attempt - 1, len(BACKOFF_SECONDS) - 1)])
                    continue
                c, cause = self.config, f"{type(exc).__name__}: {exc}"
                if unanswered:
                    raise unreachable(c.name, c.kind, shown_url(url), cause) from None
                raise ProviderError(f"{c.name} at {shown_url(url)}: {cause}") from None

    async def _events(self, response: Any) -> AsyncIterator[ModelEvent]:
        calls = ToolCalls()
        reasoning = Reasoning()
        finished = False
        reason = ""
        usage: UsageReport | None = None
        events = sse_data(response.aiter_lines())
        async for data in events:
            if data == "[DONE]":
                finished = True
                await _drain(events)
                break
            for chunk in self._chunks(data):
                if isinstance(chunk.get("error"), dict):
                    raise ProviderError(
                        f"{self.config.name}: {chunk['error'].get('message', chunk['error'])}"
                    )
                if isinstance(chunk.get("usage"), dict):
                    usage = _usage(chunk["usage"])
                for choice in chunk.get("choices") or []:
                    delta = choice.get("delta") or {}
                    if thought := reasoning.feed(delta):
                        yield ThoughtDelta(thought)
                    if delta.get("content"):
                        yield TextDelta(str(delta["content"]))
                    for part in delta.get("tool_calls") or []:
                        if isinstance(part, dict):
                            calls.add(part)
                    if choice.get("finish_reason"):
                        finished = True
                        reason = str(choice["finish_reason"])
        if not finished:
            raise ProviderError(f"{self.config.name}: the stream ended early (no finish reason)")
        if kept := reasoning.kept():
            yield ReasoningKept(kept)
        for call in calls.whole():
            yield call
        if reason:
            yield Finish(reason)
        if usage is not None:
            yield usage

    def _chunks(self, data: str) -> list[dict[str, Any]]:
        """The JSON objects of one event's data: one, or, from a server that sends no blank
        line between events, one per line. What is not JSON is skipped with a warning."""
        for candidates in ([data], data.split("\n")):
            try:
                parsed = [json.loads(c) for c in candidates if c.strip()]
            except ValueError:
                continue
            return [c for c in parsed if isinstance(c, dict)]
        log.warning("%s: skipped a stream chunk that is not JSON: %.200s", self.config.name, data)
        return []


async def _drain(events: AsyncIterator[str]) -> None:
    """Read what follows `[DONE]` (the end of a chunked body, usually already here): a response
    read to its end leaves its connection in the pool for the next request, one closed early
    takes it down (and the next prompt pays DNS, TCP and TLS again). A server that keeps the
    stream open after `[DONE]` costs each model call up to DRAIN_SECONDS, then loses the
    connection as before."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(DRAIN_SECONDS):  # in this task: no task made per model call
            async for _ in events:
                pass


async def sse_data(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """The data of each server-sent event (the SSE rules: `data:` lines joined with newlines,
    one leading space dropped, an event ended by a blank line or the end of the stream;
    comments and other fields ignored)."""
    buffer: list[str] = []
    async for line in lines:
        if not line:
            if buffer:
                yield "\n".join(buffer)
                buffer = []
            continue
        field, _, value = line.partition(":")
        if field == "data":
            buffer.append(value[1:] if value.startswith(" ") else value)
    if buffer:
        yield "\n".join(buffer)


class ToolCalls:
    """Tool calls as they stream in pieces. A piece belongs to the call of its `index`; with no
    index (absent or null), to the call of its `id`, else to the latest call. A piece with a new
    `id` at an index already taken by another id starts a call of its own (servers that stream
    parallel calls all at index 0)."""

    def __init__(self) -> None:
        self.slots: dict[tuple[str, Any], dict[str, str]] = {}
        self.last: tuple[str, Any] | None = None

    def add(self, part: dict[str, Any]) -> None:
        index, call_id = part.get("index"), part.get("id") or ""
        if isinstance(index, int) and not isinstance(index, bool):
            key: tuple[str, Any] = ("index", index)
            taken = self.slots.get(key)
            if taken is not None and call_id and taken["id"] and taken["id"] != call_id:
                key = ("id", call_id)
        elif call_id:
            key = ("id", call_id)
        else:
            key = self.last or ("index", 0)
        slot = self.slots.setdefault(key, {"id": "", "name": "", "arguments": ""})
        given = part.get("function")
        fn: dict[str, Any] = given if isinstance(given, dict) else {}
        slot["id"] = call_id or slot["id"]
        slot["name"] += str(fn.get("name") or "")
        slot["arguments"] += str(fn.get("arguments") or "")
        self.last = key

    def whole(self) -> list[ToolCallRequest]:
        return [
            ToolCallRequest(slot["id"] or f"call_{n}", slot["name"], slot["arguments"] or "{}")
            for n, slot in enumerate(self.slots.values())
        ]


def _delay(response: Any, attempt: int) -> float:
    retry_after = response.headers.get("retry-after")
    try:
        return min(float(retry_after), 5.0) if retry_after else BACKOFF_SECONDS[min(attempt - 1, 1)]
    except ValueError:
        return BACKOFF_SECONDS[min(attempt - 1, 1)]
