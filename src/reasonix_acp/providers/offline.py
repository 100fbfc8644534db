"""The built-in offline model: deterministic, no network.

Default behaviour, for a prompt whose last user message starts with the line T (at most 80
characters of it):
- one thought, "Considering: T", streamed word by word;
- if T contains lines starting with "- " (a list), a `todo_write` call with one pending entry per
  line, and after its result the reply "Planned N steps.";
- after any other tool result, the reply "Tool result: <its first line>";
- otherwise the reply "Offline reply: T", streamed word by word.
It takes images: a prompt's images are named on T's line ("[1 image: image/png, 70 bytes]").
Usage is reported as characters / 4: the whole request as sent (messages and tool schemas, as
JSON) for prompt tokens, the reply for completion tokens.

Scripted behaviour (`acp --model offline --script FILE`): FILE is JSON Lines; line k is the
k-th model call of the process (each tool round is one call). A line is an object with a list
of steps, `{"steps": [...]}`, where each step is one of:
  {"thought": "text"}          a thought, streamed in `chunk`-character deltas (default: whole)
  {"text": "text"}             reply text, likewise
  {"tool_call": {"name": "todo_write", "arguments": {...}, "id": "optional"}}
  {"delay_ms": 20}             a pause (cancellation can land here)
  {"error": "message"}         the provider fails with this message
  {"usage": {"prompt_tokens": 10, "completion_tokens": 5, "cache_hit_tokens": 0, ...}}
  {"finish": "length"}         the finish reason the call ends with (`length`: cut at the
                               token limit, `content_filter`: stopped by a filter)
  {"overflow": "message"}      the call is refused as longer than the model's context
and optional `"chunk": n` on a step or on the whole line. Lines starting with `#` are comments. When the script runs out, the
default behaviour applies.

Like the APIs it stands in for (OpenAI-compatible ones, DeepSeek's included, answer HTTP 400),
every request is checked first: each assistant message's tool calls must be answered by tool
messages right after it, and every tool message must answer one of them. A request that breaks
this fails the call with the same kind of error, so tests catch a history the real APIs refuse.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from reasonix_acp.config.context import DEFAULT_WINDOW
from reasonix_acp.providers.base import (
    ContextOverflow,
    Finish,
    ModelEvent,
    ModelRequest,
    ProviderError,
    TextDelta,
    ThoughtDelta,
    ToolCallRequest,
    UsageReport,
)
from reasonix_acp.words import counted


class ScriptError(ValueError):
    pass


def load_script(path: Path) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            call = json.loads(line)
        except ValueError as exc:
            raise ScriptError(f"{path}:{n}: {exc}") from None
        if not isinstance(call, dict) or not isinstance(call.get("steps"), list):
            raise ScriptError(f'{path}:{n}: each line is {{"steps": [...]}}')
        calls.append(call)
    return calls


def unanswered_tool_calls(messages: list[dict[str, Any]]) -> str | None:
    """What is wrong with the tool-call ordering of `messages`, or None."""
    open_ids: list[str] = []
    for i, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in open_ids:
                return f"messages[{i}] answers tool call {call_id!r}, which no assistant message before it made"
            open_ids.remove(call_id)
            continue
        if open_ids:
            return f"tool calls {open_ids} are not answered before messages[{i}] ({role})"
        if role == "assistant":
            open_ids = [str(c.get("id")) for c in message.get("tool_calls") or []]
    if open_ids:
        return f"tool calls {open_ids} are not answered at the end of the messages"
    return None


def _words(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text) or [text]


def _pieces(text: str, chunk: int | None) -> list[str]:
    if not chunk:
        return [text]
    return [text[i : i + chunk] for i in range(0, len(text), chunk)]


def _request_chars(request: ModelRequest) -> int:
    """The request's size as a model reads it: its messages and tool schemas, as JSON."""
    return len(json.dumps(request.messages)) + len(json.dumps(request.tools))


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    """The last user message's text; its images, when it has parts, as a note on its first
    line ("[1 image: image/png, 70 bytes]")."""
    for message in reversed(messages):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return _parts_text(content) if isinstance(content, list) else json.dumps(content)
    return ""


def _parts_text(parts: list[Any]) -> str:
    texts = [p.get("text", "") for p in parts if isinstance(p, dict) and p.get("type") == "text"]
    urls = [
        str((p.get("image_url") or {}).get("url", ""))
        for p in parts
        if isinstance(p, dict) and p.get("type") == "image_url"
    ]
    seen = []
    for url in urls:
        head, _, data = url.partition(";base64,")
        try:
            size = len(base64.b64decode(data))
        except ValueError:
            size = 0
        seen.append(f"{head.removeprefix('data:')}, {size} bytes")
    text = "\n".join(texts)
    if not seen:
        return text
    note = f"[{len(seen)} image{'s' if len(seen) > 1 else ''}: {'; '.join(seen)}]"
    first, _, rest = text.partition("\n")
    return f"{first} {note}".strip() + (f"\n{rest}" if rest else "")


class OfflineProvider:
    served: list[str] | None = None  # no endpoint lists models for it

    def __init__(
        self, script: list[dict[str, Any]] | None = None, window: int = DEFAULT_WINDOW
    ) -> None:
        self._script = list(script or [])
        self._calls = 0
        self.context_window = window  # `[context.windows] "offline/default"` sets it

    def prepare(self) -> None:
        pass  # nothing to load

    async def warm(self) -> str | None:
        return None  # nothing to reach

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self._calls += 1
        problem = unanswered_tool_calls(request.messages)
        if problem is not None:
            raise ProviderError(f"HTTP 400: invalid messages: {problem}")
        if self._script:
            async for event in self._scripted(self._script.pop(0)):
                yield event
        else:
            async for event in self._default(request):
                yield event

    async def _scripted(self, call: dict[str, Any]) -> AsyncIterator[ModelEvent]:
        for step in call["steps"]:
            chunk = step.get("chunk", call.get("chunk"))
            if "thought" in step:
                for piece in _pieces(str(step["thought"]), chunk):
                    yield ThoughtDelta(piece)
            elif "text" in step:
                for piece in _pieces(str(step["text"]), chunk):
                    yield TextDelta(piece)
            elif "tool_call" in step:
                tc = step["tool_call"]
                yield ToolCallRequest(
                    id=str(tc.get("id") or f"call_{self._calls}_{tc['name']}"),
                    name=str(tc["name"]),
                    arguments=json.dumps(tc.get("arguments", {})),
                )
            elif "delay_ms" in step:
                await asyncio.sleep(float(step["delay_ms"]) / 1000)
            elif "error" in step:
                raise ProviderError(str(step["error"]))
            elif "finish" in step:
                yield Finish(str(step["finish"]))
            elif "overflow" in step:
                raise ContextOverflow(f"HTTP 400: {step['overflow']}")
            elif "usage" in step:
                yield UsageReport(**{k: int(v) for k, v in step["usage"].items()})
            await asyncio.sleep(0)

    async def _default(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        last = request.messages[-1] if request.messages else {}
        text = _last_user_text(request.messages)
        first = (text.strip().splitlines() or [""])[0][:80]
        for piece in _words(f"Considering: {first}"):
            yield ThoughtDelta(piece)
        if last.get("role") == "tool":
            try:
                todos = json.loads(last["content"]).get("todos", [])
                reply = f"Planned {counted(len(todos), 'step')}."
            except (ValueError, AttributeError):
                reply = f"Tool result: {str(last.get('content', '')).splitlines()[0][:80] if last.get('content') else '(empty)'}"
        else:
            items = [line[2:].strip() for line in text.splitlines() if line.startswith("- ")]
            if items:
                todos = [{"content": item, "status": "pending"} for item in items]
                yield ToolCallRequest(
                    id=f"call_{self._calls}_todo",
                    name="todo_write",
                    arguments=json.dumps({"todos": todos}),
                )
                yield UsageReport(
                    prompt_tokens=_request_chars(request) // 4 + 1,
                    completion_tokens=len(items) * 4,
                )
                return
            reply = f"Offline reply: {first}"
        for piece in _words(reply):
            yield TextDelta(piece)
            await asyncio.sleep(0)
        yield UsageReport(
            prompt_tokens=_request_chars(request) // 4 + 1, completion_tokens=len(reply) // 4 + 1
        )
