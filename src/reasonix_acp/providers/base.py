"""What a provider is given and what it streams back.

A request carries OpenAI-style chat messages and tool schemas; a provider yields deltas (text,
thought), complete tool calls, and usage, in order. A provider failure is `ProviderError`; its
message is shown to the client (after credential redaction) as the prompt's -32603 cause.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol


# Immutable records as NamedTuples: defining a frozen dataclass compiles its six methods when
# the class is made, ten times the cost, and these classes are defined on every start-up.
class TextDelta(NamedTuple):
    """A piece of the model's answer."""

    text: str


class ThoughtDelta(NamedTuple):
    """A piece of the model's reasoning."""

    text: str


class ReasoningKept(NamedTuple):
    """A reply's reasoning as the provider sent it, by field (providers/reasoning.py): kept on
    the assistant message where the provider needs it back. Sent once, before the tool calls."""

    fields: dict[str, Any]


class ToolCallRequest(NamedTuple):
    """A tool call the model asked for: its id, the tool, the arguments as JSON text."""

    id: str
    name: str
    arguments: str  # JSON text, as the model produced it


class UsageReport(NamedTuple):
    """The tokens a model call used, as the provider counted them."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cache_hit_tokens: int = 0
    cache_miss_tokens: int = 0


class Finish(NamedTuple):
    """Why the model stopped, as the provider said it (`stop`, `tool_calls`, `length`,
    `content_filter`, ...); sent once, after the tool calls, when the provider names a reason."""

    reason: str


ModelEvent = TextDelta | ThoughtDelta | ReasoningKept | ToolCallRequest | Finish | UsageReport


@dataclass
class ModelRequest:
    """One call to a model: the conversation, the tools offered and the reasoning effort.
    `tool_choice` "none": the tools are offered (the same prefix) but may not be called (a
    compaction's summary request); None leaves it to the endpoint's default."""

    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)
    effort: str = "auto"
    tool_choice: str | None = None


class ProviderError(Exception):
    pass


class ContextOverflow(ProviderError):
    """The endpoint refused the request as longer than the model's context (HTTP 413, or 400
    with a context-length message): the turn compacts the history and tries once more."""


class RequestRefused(ProviderError):
    """The endpoint refused a request as malformed (HTTP 400 or 422, not for its length): most
    likely something in the history the session built. A compaction rewrites the history
    without it (turn/compaction.py)."""


class ProviderAuthFailed(ProviderError):
    """The endpoint refused the credentials (HTTP 401 or 403): the client is told to
    authenticate again (-32000), not that the agent failed."""


class Provider(Protocol):
    @property
    def context_window(self) -> int:
        """The model's context size in tokens (config/context.py says where it comes from)."""
        ...

    served: list[str] | None  # the models its endpoint listed when it warmed up, if it did

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]: ...

    def prepare(self) -> None:
        """Load and build what the first request needs, on a worker thread (the prompt path's
        loading ahead runs it); safe to run more than once, from any thread."""
        ...

    async def warm(self) -> str | None:
        """Get ready for the first request (an HTTP provider connects to its endpoint now);
        → why the endpoint could not be reached, or None. Never raises."""
        ...
