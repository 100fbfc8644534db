"""Compaction: the oldest part of the model's history replaced by a summary the model writes.

Rules:
- It happens before a model request that would fill more than `compact_at` of the context (the
  gauge counts the request before it is sent), when the provider still refuses a request as
  too long (once, then the same request again), and on `/compact [instructions]`.
- What stays word for word: the system message, the tool schemas and their order (the summary
  request sends the same ones, so it reads the cached prefix), and the newest `keep_turns`
  prompts with everything after them; when those alone would take more than 30 % of what may
  be sent, the kept part starts later, at a message the model wrote (a tool call stays with its
  results). The rest becomes one user message, the summary (session/history.py).
- The summary request forbids tool calls (`tool_choice: "none"`, sent after the messages, so
  the prefix holds): a model that calls a tool whenever it may writes the summary. A reply
  that calls one anyway (an endpoint that ignores the choice) is summarised by its text; with
  no text the compaction fails, saying which tool the model called.
- It is one `compaction` event in the transcript, stored only when the summary is whole: a
  process that dies before has not compacted, and a load rebuilds the same history after it.
  Since the history otherwise only grows at its end, a compaction is the only change of the
  request prefix, and it happens rarely.
- On the wire: `compaction_update` in_progress, the summary as `compaction_summary_chunk`s, then
  completed (failed, cancelled) to clients that advertise `session.compaction`; the others get
  one agent message when it is done. A cancel cancels it (the history stays as it was) and the
  turn answers `cancelled`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, NoReturn

from reasonix_acp.ids import uuid4
from reasonix_acp.providers.base import (
    ModelRequest,
    Provider,
    ProviderError,
    RequestRefused,
    TextDelta,
    ToolCallRequest,
    UsageReport,
)
from reasonix_acp.session.gauge import Gauge
from reasonix_acp.session.history import SUMMARY_NOTE, message_digest

SUMMARY_REQUEST = (
    "[Compaction] Summarise the conversation above for your own later use: it replaces those "
    "messages, which you will no longer see. Keep what the work needs: the user's requests and "
    "goals, decisions and their reasons, the files read or changed (with paths), commands run "
    "and what they showed, errors met and how they were solved, what is done and what remains. "
    "Write notes, specific and complete but short; do not call tools and do not address the user."
)
COMPACTED = "compacted"
OVERFLOW_HELP = (
    "The conversation no longer fits the model's context even after a compaction: run "
    "/compact with what to keep, start a new session, or switch to a model with a larger context"
)
KEPT_SHARE = 0.3  # of what may be sent, the most the kept newest messages may take


@dataclass(frozen=True)
class CompactionSettings:
    """When a session compacts and what it keeps (from `[context]` and the model's window)."""

    window: int  # the model's context, in tokens
    compact_at: float = 0.8
    keep_turns: int = 2

    @property
    def limit(self) -> int:
        """Tokens a request may take before the history is compacted first."""
        return int(self.window * self.compact_at)


class CompactionFailed(Exception):
    """The summary could not be written: the history stays as it was."""


@dataclass
class Done:
    """A summary written: what it replaces and what stays after it."""

    compaction_id: str
    summary: str
    compacted: int  # messages replaced by the summary
    kept: int  # messages kept word for word after it

    def event(self, history: list[dict[str, Any]]) -> dict[str, Any]:
        """The `compaction` event of it, for `history` as it was summarised: what it keeps
        is named by identity too (`keptFirst`, session/history.py)."""
        body: dict[str, Any] = {
            "compactionId": self.compaction_id,
            "summary": self.summary,
            "compacted": self.compacted,
            "kept": self.kept,
        }
        if self.kept:
            body["keptFirst"] = message_digest(history[len(history) - self.kept])
        return body


def cut_point(
    history: list[dict[str, Any]], settings: CompactionSettings, gauge: Gauge
) -> int | None:
    """Where the kept part of `history` starts, or None when nothing older can be compacted."""
    points = [i for i, m in enumerate(history) if i and m.get("role") in ("user", "assistant")]
    prompts = [i for i in points if history[i].get("role") == "user"]
    first = 2 if _is_summary(history[0] if history else {}) else 1  # something new to summarise
    if not points:
        return None
    if settings.keep_turns and len(prompts) >= settings.keep_turns:
        cut = prompts[-settings.keep_turns]
    elif settings.keep_turns:
        cut = points[0]
    else:
        cut = points[-1]
    room = int(settings.limit * KEPT_SHARE / gauge.per_byte)
    sizes = gauge.sizes(history)
    tail = [0] * (len(history) + 1)  # tail[i]: bytes of history[i:]
    for i in range(len(history) - 1, -1, -1):
        tail[i] = tail[i + 1] + sizes[i]
    later = [p for p in points if p >= cut]
    cut = next((p for p in later if tail[p] <= room), later[-1])
    return cut if cut >= first else None


def _is_summary(message: dict[str, Any]) -> bool:
    content = message.get("content")
    return (
        message.get("role") == "user"
        and isinstance(content, str)
        and content.startswith(SUMMARY_NOTE)
    )


class Compactor:
    """One compaction for a turn's runner: the summary request, its updates, its outcome."""

    def __init__(
        self,
        settings: CompactionSettings,
        gauge: Gauge,
        emit: Callable[[dict[str, Any]], None],
        usage: Callable[[UsageReport], None],
    ) -> None:
        self.settings = settings
        self.gauge = gauge
        self.emit = emit  # live updates only: the outcome is stored as an event by the runner
        self.usage = usage  # the summary request's tokens and cost count like any model call

    async def summarise(
        self,
        provider: Provider,
        request: ModelRequest,
        history: list[dict[str, Any]],
        instructions: str = "",
        whole: bool = False,
    ) -> Done | None:
        """The summary of the history before its cut point; None when there is nothing to
        compact. `whole`, or an endpoint that refuses the history as it is (RequestRefused):
        all of it is summarised from its text, and nothing is kept after the summary. Raises
        CompactionFailed (the history unchanged), and passes a cancel on."""
        cut = len(history) if whole and history else cut_point(history, self.settings, self.gauge)
        if cut is None:
            return None
        compaction_id = uuid4()
        self.emit(_update(compaction_id, "in_progress"))
        ask = SUMMARY_REQUEST + (f"\n\nThe user asks: {instructions}" if instructions else "")
        request = replace(request, tool_choice="none")  # the same tools, none of them called
        system = request.messages[0]
        if not whole:
            older = self._fitting(history[:cut], [system], request.tools)
            messages = [system, *older, {"role": "user", "content": ask}]
            try:
                summary = await self._written(
                    provider, replace(request, messages=messages), compaction_id, True
                )
                return Done(compaction_id, summary, cut, len(history) - cut)
            except RequestRefused:
                cut = len(history)
        text = self._as_text(history, system, request.tools)
        messages = [system, {"role": "user", "content": f"{text}\n\n{ask}"}]
        summary = await self._written(provider, replace(request, messages=messages), compaction_id)
        return Done(compaction_id, summary, cut, 0)

    async def _written(
        self, provider: Provider, request: ModelRequest, compaction_id: str, retry: bool = False
    ) -> str:
        """The summary the model writes for `request`. `retry`: a RequestRefused is passed on
        (the caller tries the history's text instead) rather than failing the compaction."""
        parts: list[str] = []
        called: list[str] = []  # tools called anyway (an endpoint that ignores `tool_choice`)
        try:
            async for event in provider.stream(request):
                if isinstance(event, TextDelta) and event.text:
                    parts.append(event.text)
                    self.emit(_chunk(compaction_id, event.text))
                elif isinstance(event, ToolCallRequest):
                    called.append(event.name)
                elif isinstance(event, UsageReport):
                    self.usage(event)
        except asyncio.CancelledError:
            self.emit(_update(compaction_id, "cancelled"))
            raise
        except RequestRefused as exc:
            if retry and not parts:
                raise
            self._failed(compaction_id, str(exc))
        except ProviderError as exc:
            self._failed(compaction_id, str(exc))
        summary = "".join(parts).strip()
        if not summary and called:
            names = ", ".join(dict.fromkeys(called))
            self._failed(
                compaction_id, f"the model called a tool ({names}) instead of writing a summary"
            )
        if not summary:
            self._failed(compaction_id, "the model wrote no summary")
        return summary

    def _failed(self, compaction_id: str, why: str) -> NoReturn:
        self.emit(_update(compaction_id, "failed", error=why))
        raise CompactionFailed(why) from None

    def _as_text(
        self, history: list[dict[str, Any]], system: dict[str, Any], tools: list[dict[str, Any]]
    ) -> str:
        """The history as plain text for a summary request (no tool calls, no reasoning: what
        the endpoint refused cannot be in it), its oldest lines left out past what fits."""
        room = max(
            int(self.settings.limit / self.gauge.per_byte) - self.gauge.size([system], tools), 0
        )
        lines = [HISTORY_TEXT]
        for message in history:
            lines.append(_line(message))
        text = "\n\n".join(lines)
        if len(text.encode()) > room:
            text = (
                HISTORY_TEXT
                + "\n\n[... older part left out: it did not fit]\n"
                + text[-room // 2 :]
            )
        return text

    def _fitting(
        self,
        older: list[dict[str, Any]],
        system: list[dict[str, Any]],
        tools: list[dict[str, Any]],
    ) -> list[dict[str, Any]]:
        """The part to summarise, its oldest messages left out while the summary request would
        not fit what may be sent (a session switched to a model with a smaller context); a
        summary from an earlier compaction is always kept."""
        head = older[:1] if older and _is_summary(older[0]) else []
        rest = older[len(head) :]
        starts = [i for i, m in enumerate(rest) if i and m.get("role") in ("user", "assistant")]
        for start in [0, *starts]:
            part = [*head, *rest[start:]]
            if self.gauge.tokens(self.gauge.size([*system, *part], tools)) <= self.settings.limit:
                if start:
                    note = f"[{start} older messages were left out: they did not fit]"
                    return [*head, {"role": "user", "content": note}, *rest[start:]]
                return part
        return [*head, *rest[starts[-1] :]] if starts else older


HISTORY_TEXT = "[The conversation so far, as text:]"


def _line(message: dict[str, Any]) -> str:
    """One message of the history as a line of text: who said it, what it said or called."""
    role = str(message.get("role") or "?")
    content = message.get("content")
    if isinstance(content, list):  # a prompt with images: its text parts
        content = " ".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
    text = str(content or "")
    for call in message.get("tool_calls") or []:
        fn = call.get("function") or {}
        text += f"\n[called {fn.get('name')} with {fn.get('arguments')}]"
    return f"{role}: {text}".rstrip()


def _update(compaction_id: str, status: str, error: str | None = None) -> dict[str, Any]:
    update: dict[str, Any] = {
        "sessionUpdate": "compaction_update",
        "compactionId": compaction_id,
        "status": status,
    }
    if error is not None:
        update["error"] = error
    return update


def _chunk(compaction_id: str, text: str) -> dict[str, Any]:
    return {
        "sessionUpdate": "compaction_summary_chunk",
        "compactionId": compaction_id,
        "content": {"type": "text", "text": text},
    }
