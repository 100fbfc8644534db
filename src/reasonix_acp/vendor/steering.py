"""`_reasonix.io/session/steer` and the nine `_reasonix.io/session/inbox/*` methods, and the
turn's side of steering.

Rules:
- Every item is committed to the inbox sidecar before its reply is written (inbox.py).
- Steer: the guidance is stored as a steer item, then offered to the running turn. The turn
  admits steers while its admission is open (`SteerDesk.open`); it closes admission itself when
  it is about to end, then takes one more step if steers were admitted meanwhile, so
  `steer_accepted` always means the running turn will read it. Otherwise the item stays queued
  as a follow-up (`queued_followup`) for the next prompt.
- The model reads an applied steer as a user message after the history (system prompt, tool
  schemas and their order are untouched); the transcript keeps the user's own words.
- Follow-ups never start a turn by themselves: `session/prompt` runs them after its own turn,
  inside the same request, while the inbox is not paused.
- Errors: unknown session -32602 "unknown session"; the inbox's sentinels -32600 as they are;
  empty enqueue text -32602 "<method>: empty text"; empty steer -32602 "<method>: empty prompt".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reasonix_acp.generated import methods as m
from reasonix_acp.machines.steer import Refusal, SteerMachine
from reasonix_acp.protocol.errors import InvalidParams, InvalidRequest
from reasonix_acp.protocol.router import Call, Router
from reasonix_acp.vendor.inbox import InboxEmptyText, InboxError

# The inbox and the steer machine load with the first session, not at start-up.
UNAPPLIED = "steer accepted but unapplied before turn exit"


class SteerDesk:
    """One session's steering state between its running turn and the steer method."""

    def __init__(self) -> None:
        self.open = False  # the running turn still reads steers at its next step boundary
        self.consumed: list[str] = []  # items handed to the running turn, acked when it ends

    def take(self, inbox: Any, final: bool = False) -> list[str]:
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

    def settle(self, inbox: Any) -> None:
        """The turn ended: consumed steers are acknowledged; admitted ones it never read are
        left uncertain (and the inbox pauses) for the user to look at."""
        self.open = False
        for item_id in self.consumed:
            inbox.ack(item_id)
        self.consumed = []
        for item in inbox.accepted_steers():
            inbox.mark_uncertain(item["id"], UNAPPLIED)


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


class Steering:
    def __init__(self, sessions: Callable[[], Any]) -> None:
        self._sessions = sessions

    @property
    def sessions(self) -> Any:
        return self._sessions()

    def register(self, router: Router) -> None:
        router.add(m.REASONIX_SESSION_STEER, self.steer)
        inbox = {
            m.REASONIX_SESSION_INBOX_ENQUEUE: self.enqueue,
            m.REASONIX_SESSION_INBOX_LIST: lambda s, p: s.list(),
            m.REASONIX_SESSION_INBOX_GET: lambda s, p: s.get(p.item_id),
            m.REASONIX_SESSION_INBOX_UPDATE: lambda s, p: s.update(p.item_id, p.text),
            m.REASONIX_SESSION_INBOX_DELETE: lambda s, p: s.delete(p.item_id),
            m.REASONIX_SESSION_INBOX_MOVE: lambda s, p: s.move(p.item_id, p.to_index),
            m.REASONIX_SESSION_INBOX_SET_PAUSED: lambda s, p: {"paused": s.set_paused(p.paused)},
            m.REASONIX_SESSION_INBOX_RETRY: lambda s, p: s.retry(p.item_id),
            m.REASONIX_SESSION_INBOX_REFRESH: lambda s, p: s.refresh(p.item_id),
        }
        for method, handler in inbox.items():
            router.add(method, self._inbox_call(method, handler))

    def _session(self, session_id: str) -> Any:
        session = self.sessions.live.get(session_id)
        if session is None:
            raise InvalidParams("unknown session")
        return session

    def _inbox_call(self, method: str, handler: Any) -> Any:
        def call(c: Call, params: Any) -> Any:

            session = self._session(params.session_id)
            try:
                return handler(session.inbox, params)
            except InboxEmptyText:
                raise InvalidParams(f"{method}: empty text") from None

        return call

    def enqueue(self, inbox: Any, params: Any) -> dict[str, Any]:
        result: dict[str, Any] = inbox.enqueue(params.text, params.intent, params.idempotency_key)
        if result["disposition"] == "queued_followup" and (params.intent or "").lower() == "steer":
            session = self._session(params.session_id)
            result["disposition"] = self._offer(session, result["itemId"])
        return result

    def steer(self, call: Call, params: Any) -> dict[str, Any]:
        method = m.REASONIX_SESSION_STEER
        session = self.sessions.live.get(params.session_id)
        if session is None:
            raise InvalidParams(f"{method}: unknown session {params.session_id}")

        text = texts(params.prompt)
        if not text:
            raise InvalidParams(f"{method}: empty prompt")
        try:
            stored = session.inbox.enqueue(text, "steer")
            disposition = self._offer(session, stored["itemId"])
        except InboxError as exc:
            raise InvalidRequest(f"{method}: {exc.message}") from None
        return {"itemId": stored["itemId"], "disposition": disposition}

    def _offer(self, session: Any, item_id: str) -> str:
        """Admit a stored steer into the running turn, or leave it queued as a follow-up."""

        machine = SteerMachine()
        desk: SteerDesk = session.desk
        if not desk.open:
            disposition = machine.refuse(Refusal.NO_TURN)
        elif session.inbox.list()["paused"]:
            disposition = machine.refuse(Refusal.PAUSED)
        else:
            machine.fire("offer", "steer is {state}")
            session.inbox.accept_steer(item_id)
            machine.fire("admit", "steer is {state}")
            return "steer_accepted"
        session.inbox.refuse_steer(item_id)
        return disposition
