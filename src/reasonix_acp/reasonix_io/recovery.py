"""Protocol recovery: resuming a turn the agent process did not live to finish.

The rule:
- A turn saves its status (`running`) before it starts; if the process goes away before the
  turn ends (a crash, a kill, a power loss), the saved status still says `running`. When the
  session is opened again its status shows phase `recovery_paused` and
  `protocolRecovery: {"id": ...}`; the id names that interruption (`recovery_id`).
- The transcript is repaired when such a session opens: a tool call that was stored without
  an end gets a `failed` update saying it was interrupted, so a reload shows it ended and the
  model's next request is well formed (every tool call answered).
- The offer is resumed by `session/prompt` with `action: "protocol_recovery"` and that
  `recoveryId` (prompt text optional: guidance for the model), or by a prompt that is only
  `/recover-context [id [guidance]]` (no id: the session's offer). The resumed turn tells the
  model the previous turn was cut off and to check before redoing anything.
- The offer is one-shot: the recovery turn, or any other prompt the model answers, ends it.
  The agent's own slash commands (`/help`, `/status`, `/mcp`) leave it. A recovery naming an
  offer that is gone, or another id, answers -32600 with no status published and nothing
  stored; without `recoveryId` the action answers -32602.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reasonix_acp import digests

DEFAULT_GUIDANCE = "Continue the interrupted task."
INTERRUPTED = "interrupted: the agent stopped before this call finished"
STALE = "protocol recovery is unavailable or stale"


@dataclass
class Offer:
    """A pending recovery: its id, and the tool calls the interruption left without an end."""

    id: str
    calls: list[str] = field(default_factory=list)

    def note(self, guidance: str) -> str:
        """What the model is told before the guidance."""
        cut = f" (cut off: {', '.join(self.calls)})" if self.calls else ""
        return (
            "[The previous turn was interrupted before it finished: the agent stopped"
            f"{cut}. Work from that turn may be partly done. Continue the task from where it "
            "stopped; check the current state before redoing anything.]\n" + guidance
        )


def recovery_id(session_id: str, sequence: object) -> str:
    """The same interruption gets the same id however often the session is reopened.
    `sequence` is the saved status's, as stored (a damaged one that is not a number still
    makes an id)."""
    return digests.sha256_hex(f"{session_id}:{sequence}".encode())[:16]


def unfinished_calls(events: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The `tool_call` bodies of a transcript that no `completed`/`failed` update ended."""
    open_calls: dict[str, dict[str, Any]] = {}
    for kind, body in events:
        if kind == "tool_call":
            open_calls[str(body.get("toolCallId"))] = body
        elif kind == "tool_call_update" and body.get("status") in ("completed", "failed"):
            open_calls.pop(str(body.get("toolCallId")), None)
    return list(open_calls.values())


def closing_updates(calls: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The transcript events that end the unfinished calls, as the turn's sweep would have."""
    return [
        (
            "tool_call_update",
            {
                "toolCallId": body["toolCallId"],
                "status": "failed",
                "content": [{"type": "content", "content": {"type": "text", "text": INTERRUPTED}}],
                "x-model-text": INTERRUPTED,
            },
        )
        for body in calls
    ]


def parse_command(rest: str) -> tuple[str, str]:
    """`/recover-context [id] [guidance]` → (id, guidance); the first word is the id, and an
    empty id means the session's own offer."""
    word, _, more = rest.strip().partition(" ")
    return word, more.strip()
