"""The turn's side of steering: the desk between a running turn and the steer method
(session/steering.py has the methods).

Rules (machines/steer.py has the full disposition rules):
- A steer is offered only while the turn's admission is open (`SteerDesk.open`); the turn
  closes admission itself before its last model call, and before it decides to end, so
  `steer_accepted` always means a model call of the running turn reads it.
- At a step boundary the turn takes every admitted steer (`take`): consumed in the inbox (the
  durable hand-off) and read by the next model call as a user message after the history.
- When the turn ends (`settle`), consumed steers are acknowledged; admitted ones it never read
  are left uncertain and the inbox pauses for the user to look at.
"""

from __future__ import annotations

from typing import Any

from reasonix_acp.machines.steer import UNAPPLIED_REASON
from reasonix_acp.reasonix_io.inbox import SessionInbox


class SteerDesk:
    """One session's steering state between its running turn and the steer method."""

    def __init__(self) -> None:
        self.open = False  # the running turn still reads steers at its next step boundary
        self.consumed: list[str] = []  # items handed to the running turn, acked when it ends

    def take(self, inbox: SessionInbox, final: bool = False) -> list[str]:
        """At a step boundary: every admitted steer, consumed (durably handed to the turn).
        `final`: the turn is about to end; admission closes first, so what is returned is the
        last of it (the turn takes one more step when it is not empty)."""
        if final:
            self.open = False
        taken = []
        for item in inbox.accepted_steers():
            envelope = inbox.consume_steer(item["id"])
            self.consumed.append(item["id"])
            taken.append(str(envelope["displayText"]))
        return taken

    def settle(self, inbox: SessionInbox) -> None:
        """The turn ended: consumed steers are acknowledged; admitted ones it never read are
        left uncertain (and the inbox pauses) for the user to look at."""
        self.open = False
        for item_id in self.consumed:
            inbox.ack(item_id)
        self.consumed = []
        for item in inbox.accepted_steers():
            inbox.mark_uncertain(item["id"], UNAPPLIED_REASON)


def texts(prompt: list[Any]) -> str:
    parts = []
    for block in prompt:
        data = (
            block.model_dump(mode="json", by_alias=True) if hasattr(block, "model_dump") else block
        )
        if data.get("type") == "text":
            parts.append(data.get("text", ""))
        elif data.get("type") == "resource" and isinstance(data.get("resource"), dict):
            parts.append(data["resource"].get("text") or "")
    return "\n\n".join(p for p in parts if p).strip()
