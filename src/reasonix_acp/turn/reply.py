"""One model reply as it streams: its text shown as it comes (goal markers cut), its thoughts,
its tool calls, the reasoning fields the provider needs back, its finish reason; and the
assistant message the history keeps of it, even when the stream failed or was cancelled midway."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reasonix_acp.providers.base import (
    Finish,
    ReasoningKept,
    TextDelta,
    ThoughtDelta,
    ToolCallRequest,
    UsageReport,
)
from reasonix_acp.providers.reasoning import in_tool_stretch
from reasonix_acp.reasonix_io.goal import Markers

Record = Callable[[str, dict[str, Any]], None]


class Reply:
    """The reply of one model call, fed its stream's events (`take`) and closed once (`close`)."""

    def __init__(self, record: Record, markers: Markers | None) -> None:
        self.record = record
        self.markers = markers
        self.text: list[str] = []
        self.calls: list[ToolCallRequest] = []
        self.reasoning: dict[str, Any] = {}
        self.produced = False  # text or thoughts came
        self.finish = ""  # the finish reason, when the provider gave one

    def take(self, event: object) -> bool:
        """Show or keep one stream event; True for a usage report (the caller counts it)."""
        if isinstance(event, TextDelta) and event.text:
            self.text.append(event.text)
            self.produced = True
            shown = event.text if self.markers is None else self.markers.feed(event.text)
            if shown:
                self.record("agent_message", {"text": shown})
        elif isinstance(event, ThoughtDelta) and event.text:
            self.produced = True
            self.record("agent_thought", {"text": event.text})
        elif isinstance(event, ReasoningKept):
            self.reasoning = event.fields
        elif isinstance(event, ToolCallRequest):
            self.calls.append(event)
        elif isinstance(event, Finish):
            self.finish = event.reason
        return isinstance(event, UsageReport)

    def close(self, history: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The held-back marker text shown; the assistant message for `history`, or None when
        the reply had neither text nor calls. Its reasoning is kept where the provider needs
        it back (providers/reasoning.py)."""
        if self.markers is not None and (rest := self.markers.flush()):
            self.record("agent_message", {"text": rest})
        message = assistant_message("".join(self.text) or None, self.calls)
        if message["content"] is None and not self.calls:
            return None
        if self.reasoning and in_tool_stretch(history, message):
            message = assistant_message(message["content"], self.calls, self.reasoning)
        return message


def assistant_message(
    content: str | None, calls: list[ToolCallRequest], reasoning: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A reply as the history keeps it: its text, its reasoning, its tool calls, in that order
    (the order of its bytes in every later request)."""
    message: dict[str, Any] = {"role": "assistant", "content": content, **(reasoning or {})}
    if calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in calls
        ]
    return message
