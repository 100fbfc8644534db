"""`_reasonix.io/session/steer` and the nine `_reasonix.io/session/inbox/*` methods.

Rules:
- Commit first, then admit: every steer is stored in the inbox sidecar before it is offered to
  a turn, and its reply is written after its disposition is fixed.
- Admission is decided by the machines, in this order: the session admits `steer` while it is
  opening, idle or prompting (else `rejected_rotating` while it rebuilds, `rejected_closed`
  once it is going away); a steer with images is not offered (the model call that would read
  it takes text: `queued_followup`); the turn admits `admit_steer` while it runs (else there is no
  turn, or it is cancelling or finishing: `queued_followup`); the turn's desk is still open
  (else it is finishing: `queued_followup`); the inbox is not paused (else `queued_followup`).
  A refused steer stays in the inbox as a follow-up for the next prompt.
- Follow-ups never start a turn by themselves: `session/prompt` runs them after its own turn,
  inside the same request, while the inbox is not paused.
- Errors: unknown session -32602 "unknown session"; the inbox's sentinels -32600 as they are;
  empty enqueue text -32602 "<method>: empty text"; empty steer -32602 "<method>: empty prompt".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reasonix_acp.generated import methods as m
from reasonix_acp.machines._base import TransitionRefused
from reasonix_acp.machines.session import State as SessionState
from reasonix_acp.machines.steer import Refusal, SteerMachine
from reasonix_acp.machines.turn import State as TurnState
from reasonix_acp.protocol.errors import InvalidParams, InvalidRequest
from reasonix_acp.protocol.router import Call
from reasonix_acp.reasonix_io.inbox import InboxEmptyText, InboxError, SessionInbox
from reasonix_acp.reasonix_io.steering import texts
from reasonix_acp.session.live import Session
from reasonix_acp.session.service import Sessions

InboxCall = Callable[[SessionInbox, Any], Any]


class Steering:
    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions
        self._handlers: dict[str, Callable[[Call, Any], Any]] = {
            m.REASONIX_SESSION_STEER: self.steer
        }
        inbox: dict[str, InboxCall] = {
            m.REASONIX_SESSION_INBOX_ENQUEUE: lambda s, p: self.enqueue(s, p),
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
            self._handlers[method] = self._inbox_call(method, handler)

    def handle(self, method: str, call: Call, params: Any) -> Any:
        return self._handlers[method](call, params)

    def _session(self, session_id: str) -> Session:
        session = self.sessions.live.get(session_id)
        if session is None:
            raise InvalidParams("unknown session")
        return session

    def _inbox_call(self, method: str, handler: InboxCall) -> Callable[[Call, Any], Any]:
        def call(c: Call, params: Any) -> Any:
            session = self._session(params.session_id)
            try:
                return handler(session.inbox, params)
            except InboxEmptyText:
                raise InvalidParams(f"{method}: empty text") from None

        return call

    def enqueue(self, inbox: SessionInbox, params: Any) -> dict[str, Any]:
        result: dict[str, Any] = inbox.enqueue(params.text, params.intent, params.idempotency_key)
        if result["disposition"] == "queued_followup" and (params.intent or "").lower() == "steer":
            session = self._session(params.session_id)
            result["disposition"] = offer(session, result["itemId"])
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
            images = any(getattr(b, "type", None) == "image" for b in params.prompt)
            disposition = offer(session, stored["itemId"], images)
        except InboxError as exc:
            raise InvalidRequest(f"{method}: {exc.message}") from None
        return {"itemId": stored["itemId"], "disposition": disposition}


def offer(session: Session, item_id: str, images: bool = False) -> str:
    """Admit a stored steer into the running turn, or leave it queued; the disposition."""
    machine = SteerMachine()
    refusal = _refusal(session, images)
    if refusal is None:
        machine.fire("offer", "steer is {state}")
        session.inbox.accept_steer(item_id)
        machine.fire("admit", "steer is {state}")
        return "steer_accepted"
    disposition = machine.decline(refusal)
    session.inbox.refuse_steer(item_id)
    return disposition


def _refusal(session: Session, images: bool) -> Refusal | None:
    """Why the running turn cannot read this steer, asked of the machines; None: it can."""
    try:
        session.machine.fire("steer", "session is {state}")
    except TransitionRefused as exc:
        return Refusal.ROTATING if exc.state is SessionState.REBUILDING else Refusal.CLOSED
    if images:
        return Refusal.HAS_IMAGES
    before = session.turn.state
    try:
        session.turn.fire("admit_steer", "turn is {state}")
    except TransitionRefused:
        return Refusal.NO_TURN if before is TurnState.IDLE else Refusal.TURN_FINISHING
    if not session.desk.open:
        return Refusal.TURN_FINISHING
    if session.inbox.list()["paused"]:
        return Refusal.PAUSED
    return None
