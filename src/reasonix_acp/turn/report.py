"""What a turn runs with (`TurnSettings`, built by the prompt's admission in turn/wiring.py)
and how it ended (`TurnReport`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from reasonix_acp.machines.turn import Outcome
from reasonix_acp.providers.base import Provider, UsageReport
from reasonix_acp.reasonix_io.readiness import Obligations
from reasonix_acp.session.gauge import Gauge
from reasonix_acp.tools.base import Tool, ToolContext
from reasonix_acp.turn.compaction import CompactionSettings
from reasonix_acp.turn.gate import Gate
from reasonix_acp.turn.limits import Limits
from reasonix_acp.turn.transcript import Persist

Emit = Callable[[dict[str, Any]], None]


@dataclass
class TurnReport:
    """How a turn ended: the outcome, why when it failed or paused, and the tokens it used."""

    outcome: Outcome
    cause: str | None = None  # FAILED: what went wrong
    auth: bool = False  # FAILED because the endpoint refused the credentials
    refused: bool = False  # FAILED because the endpoint refused the request (RequestRefused)
    warning: str | None = None  # a pause: the text of the [warning] chunk
    usage: UsageReport = field(default_factory=UsageReport)


@dataclass
class TurnSettings:
    """Everything one turn runs with; built by the prompt's admission (turn/wiring.py)."""

    turn: int
    provider: Provider
    model: str
    tools: list[Tool]
    history: list[dict[str, Any]]
    context: ToolContext
    emit: Emit
    persist: Persist
    effort: str = "auto"
    mode: str = "normal"
    instructions: str = ""  # the project's, for the system message (project/instructions.py)
    limits: Limits = field(default_factory=Limits)
    gate: Gate = field(default_factory=Gate)
    price: Callable[[UsageReport], float | None] = lambda usage: None
    # MCP tools, asked before every model call; (warn) → tools, `warn` shows a warning chunk
    more_tools: Callable[[Callable[[str], None]], Awaitable[list[Any]]] | None = None
    switch_mode: Callable[[str], None] | None = None  # a tool changed the session's mode
    steers: Callable[[bool], list[str]] | None = None  # (final) → steers since the last step
    readiness: Obligations | None = None  # what the turn still owes the readiness gate
    # Whether the client advertised a session capability ("notices", "compaction")
    supports: Callable[[str], bool] = lambda capability: False
    gauge: Gauge = field(default_factory=Gauge)  # the session's: counts a request's tokens
    compaction: CompactionSettings | None = None  # None: the history is never compacted
    # Awaited between streamed events: returns at once unless the client has stopped reading,
    # so a turn streams at the client's pace instead of piling updates up in memory.
    pace: Callable[[], Awaitable[None]] | None = None
    notices: list[str] = field(default_factory=list)  # warnings shown after the prompt


# The notice titles of the turn's pauses (their descriptions say why and what to do).
PAUSED = {
    Outcome.READINESS_PAUSED: "Paused: a check is owed",
    Outcome.BUDGET_PAUSED: "Paused: the task's budget is used up",
    Outcome.MAX_TURN_REQUESTS: "Paused: the step limit",
}


def notice_title(text: str) -> str:
    """A notice's title for a warning that has none: its first clause, at most 80 characters."""
    head = text.split(";", 1)[0].split(". ", 1)[0].split(" (", 1)[0].strip() or "Warning"
    head = head[0].upper() + head[1:]
    return head if len(head) <= 80 else head[:79] + "…"
