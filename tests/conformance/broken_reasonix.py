"""A small agent over stdio with the `_reasonix.io` surface (status, steer, inbox, reload, rewind) that
the conformance runner's `reasonix` suite is calibrated against: correct by default, and wrong
in the ways BREAK (a comma-separated list) names, so every reasonix check is seen failing at
least once (tests/conformance/test_runner.py). A turn is a status update, a thought, the
scripted model asked (broken_history.py, beside the main loop), a pause a steer can land in, and
the model's reply as one chunk. Sessions fork, load (replaying each turn's prompt and reply) and are listed,
and a fork or rewind takes the point a message id names (broken_history.py).

Faults:
  meta           advertises inbox methods under other names
  status         a status of the wrong shape, for another session, running, schemaVersion 2
  codes          refuses with -32603 and error objects without a message
  no-updates     no status_update in a turn
  sequence       status_update sequences that fall and differ from their status's
  turn           ends turns with refusal and leaves the status running, outcome none
  inbox          enqueue, list and get answers of the wrong shape and values; text untrimmed
  active         an enqueued follow-up starts a turn at once
  queue-empty    an empty enqueue is refused but queued all the same
  no-idempotency idempotency keys ignored
  edit           update, move and delete answer wrongly and change nothing
  pause          setPaused answers {} and changes nothing
  steer          steers refused into the running turn, accepted (mis-spelt) when idle, never
                 queued; a steered turn ends cancelled
  reload         reloadExtensions answers {"queued": "no"}
  rewind         rewinds past the prompts there are, by 0 too, and answers in the wrong shape
and broken_history.py's (fork-msg-broken, fork-msg-unserved, msg-all, msg-none, msg-lax,
msg-reworded).
"""

from __future__ import annotations

import json
import os
import select
import sys
import threading
import time
import uuid

from broken_history import Conversation, Refused, Sessions, Turn

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a start-up
if TYPE_CHECKING:
    from typing import Any

BREAK = {b.strip() for b in os.environ.get("BREAK", "").split(",") if b.strip()}
M = "_reasonix.io/session/inbox/"
UPDATE = "_reasonix.io/session/status_update"
METHODS = ["delete", "enqueue", "get", "list", "move", "refresh", "retry", "setPaused", "update"]


def send(frame: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(frame) + "\n")
    sys.stdout.flush()


def capabilities() -> dict[str, Any]:
    names = {m: M + m for m in METHODS}
    if "meta" in BREAK:
        names["enqueue"] = "_reasonix.io/inbox/add"
    marker = {"schemaVersion": 1}
    return {
        "_reasonix.io/session/status": marker,
        "_reasonix.io/session/status_update": marker,
        "reasonix.io": {
            "sessionSteer": {"method": "_reasonix.io/session/steer"},
            "sessionInbox": {"schemaVersion": 1, "methods": names},
            "sessionReloadExtensions": {"method": "_reasonix.io/session/reloadExtensions"},
            "sessionRewind": {"method": "_reasonix.io/session/rewind"},
        },
    }


class Session:
    def __init__(self, sid: str, cwd: str) -> None:
        self.id, self.cwd = sid, cwd
        self.sequence = 0
        self.state, self.outcome = "idle", "none"
        self.items: list[dict[str, Any]] = []
        self.keys: dict[str, tuple[str, str]] = {}  # idempotency key → (item id, text)
        self.revision = 0
        self.paused = False
        self.turn: tuple[Any, float] | None = None  # (prompt request id, when it ends)
        self.conversation = Conversation()
        self.asking: threading.Thread | None = None  # the turn's model requests
        self.answer: Turn | None = None  # what they made of the turn
        self.steered = False
        self.kick = False  # a turn to start once the current request is answered
        self.prompts = 0  # turns ended: what a rewind can go back over

    def status(self) -> dict[str, Any]:
        usage = {"totalTokens": 0, "promptTokens": 0, "completionTokens": 0,
                 "reasoningTokens": 0, "cacheHitTokens": 0, "cacheMissTokens": 0,
                 "cacheHitRatio": None, "estimatedCost": None, "currency": None,
                 "usageSource": "executor"}  # fmt: skip
        body = {
            "schemaVersion": 1, "sequence": self.sequence, "sessionId": self.id,
            "state": self.state, "model": "small/model", "effort": "auto", "mode": "normal",
            "workMode": "standard", "plannerMode": "off", "goal": {"status": "none"},
            "phase": "idle" if self.state == "idle" else "working",
            "turnOutcome": {"kind": self.outcome},
            "finalReadiness": {"readyForReview": False, "summary": "", "risks": []},
            "sandbox": {"mode": "off", "engine": "none", "available": False,
                        "workspaceRoot": self.cwd, "writeRoots": [self.cwd],
                        "networkEnabled": True},
            "usage": {"turn": usage, "cumulative": usage},
        }  # fmt: skip
        if "status" in BREAK:
            body.update(schemaVersion=2, sessionId="someone-else", state="running")
            del body["model"]
        return body

    def publish(self, event: str) -> None:
        if "no-updates" in BREAK:
            return
        self.sequence += 1
        params = {"schemaVersion": 1, "sequence": self.sequence, "sessionId": self.id,
                  "event": event, "status": self.status()}  # fmt: skip
        if "sequence" in BREAK:
            params["sequence"] = 100 - self.sequence
        send({"jsonrpc": "2.0", "method": UPDATE, "params": params})

    def start(self, request_id: Any, prompt: str | None = None) -> None:
        self.state, self.steered = "running", False
        self.publish("phase")
        thought = {"sessionUpdate": "agent_thought_chunk", "messageId": str(uuid.uuid4()),
                   "content": {"type": "text", "text": "Considering it."}}  # fmt: skip
        send({"jsonrpc": "2.0", "method": "session/update",
              "params": {"sessionId": self.id, "update": thought}})  # fmt: skip

        def ask() -> None:
            self.answer = self.conversation.ask(prompt)

        self.answer = None
        self.asking = threading.Thread(target=ask, daemon=True)
        self.asking.start()
        self.turn = (request_id, time.monotonic() + 0.8)

    def due(self) -> float | None:
        """Seconds until the turn may end (its pause over, its model requests done)."""
        if self.turn is None:
            return None
        if self.asking is not None and self.asking.is_alive():
            return max(0.02, self.turn[1] - time.monotonic())
        return max(0.0, self.turn[1] - time.monotonic())

    def finish(self) -> None:
        assert self.turn is not None and self.asking is not None and self.answer is not None
        request_id, _ = self.turn
        self.turn, self.asking = None, None
        self.prompts += 1
        self.conversation.turns.append(self.answer)
        chunk = {"sessionUpdate": "agent_message_chunk", "messageId": self.answer.reply_id,
                 "content": {"type": "text", "text": self.answer.reply}}  # fmt: skip
        send({"jsonrpc": "2.0", "method": "session/update",
              "params": {"sessionId": self.id, "update": chunk}})  # fmt: skip
        stop = "refusal" if "turn" in BREAK else "end_turn"
        if "steer" in BREAK and self.steered:
            stop = "cancelled"
        if "turn" not in BREAK:
            self.state, self.outcome = "idle", "completed"
        self.publish("completion")
        if request_id is not None:
            send({"jsonrpc": "2.0", "id": request_id, "result": {"stopReason": stop}})


class Inbox:
    """The inbox methods over one session's items."""

    def __init__(self, session: Session) -> None:
        self.s = session

    def enqueue(self, p: dict[str, Any]) -> dict[str, Any]:
        text = p.get("text", "")
        trimmed = text if "inbox" in BREAK else text.strip()
        key = p.get("idempotencyKey")
        if key and key in self.s.keys and "no-idempotency" not in BREAK:
            item, before = self.s.keys[key]
            if before != trimmed:
                raise Refused(-32600, "idempotency key was already used for different input")
            position = 1 + [i["id"] for i in self.s.items].index(item)
            return {"disposition": "idempotent_hit", "idempotent": True, "itemId": item,
                    "paused": self.s.paused, "position": position}  # fmt: skip
        if not trimmed.strip():
            if "queue-empty" in BREAK:
                self._add(trimmed, None)
            raise Refused(-32602, f"{M}enqueue: empty text")
        item = self._add(trimmed, key)
        if "active" in BREAK:
            self.s.kick = True
        answer = {"disposition": "queued_followup", "idempotent": False, "itemId": item,
                  "paused": self.s.paused, "position": len(self.s.items)}  # fmt: skip
        if "inbox" in BREAK:
            answer.update(disposition="steer_accepted", idempotent=True, position="0")
        return answer

    def _add(self, text: str, key: str | None) -> str:
        item = str(uuid.uuid4())
        self.s.revision += 1
        stamp = "2026-01-01T00:00:00Z"
        self.s.items.append({
            "id": item, "sessionId": self.s.id, "intent": "followup", "state": "queued",
            "revision": self.s.revision, "source": "acp", "createdAt": stamp, "updatedAt": stamp,
            "preview": text[:120], "byteSize": len(text), "checksum": "0" * 64, "text": text,
        })  # fmt: skip
        if key:
            self.s.keys[key] = (item, text)
        return item

    def _meta(self, item: dict[str, Any]) -> dict[str, Any]:
        meta = {k: v for k, v in item.items() if k != "text"}
        if "inbox" in BREAK:
            meta["state"] = "running"
        return meta

    def list(self, p: dict[str, Any]) -> dict[str, Any]:
        items = [] if "inbox" in BREAK else [self._meta(i) for i in self.s.items]
        return {
            "schemaVersion": 1 if "inbox" in BREAK else 2,
            "revision": "x" if "inbox" in BREAK else self.s.revision,
            "paused": self.s.paused, "recovered": False, "items": items,
            "capacity": {"items": len(items), "maxItems": 64,
                         "bytes": sum(i["byteSize"] for i in items), "maxBytes": 64 << 20,
                         "maxItemBytes": 4 << 20},
        }  # fmt: skip

    def _item(self, item_id: str) -> dict[str, Any]:
        for item in self.s.items:
            if item["id"] == item_id:
                return item
        raise Refused(-32600, "inbox item not found")

    def get(self, p: dict[str, Any]) -> dict[str, Any]:
        item = self._item(p["itemId"])
        text = item["text"]
        envelope = {"displayText": text, "rawText": text, "submitText": text}
        if "inbox" in BREAK:
            envelope = {"text": text}
        return {"envelope": envelope, "meta": self._meta(item)}

    def update(self, p: dict[str, Any]) -> dict[str, Any]:
        item = self._item(p["itemId"])
        if "edit" in BREAK:
            return {"id": item["id"], "revision": "same"}
        self.s.revision += 1
        item.update(text=p["text"].strip(), revision=self.s.revision)
        return self._meta(item)

    def move(self, p: dict[str, Any]) -> dict[str, Any]:
        item = self._item(p["itemId"])
        if "edit" in BREAK:
            return {}
        self.s.items.remove(item)
        self.s.items.insert(max(0, min(int(p["toIndex"]), len(self.s.items))), item)
        return {"ok": True}

    def delete(self, p: dict[str, Any]) -> dict[str, Any]:
        if "edit" in BREAK:
            raise Refused(-32600, "inbox item not found")
        self.s.items = [i for i in self.s.items if i["id"] != p["itemId"]]
        return {"ok": True}

    def setPaused(self, p: dict[str, Any]) -> dict[str, Any]:
        if "pause" in BREAK:
            return {}
        self.s.paused = bool(p["paused"])
        return {"paused": self.s.paused}


class Agent(Sessions):
    def make(self, cwd: str) -> Session:
        return Session(str(uuid.uuid4()), cwd)

    def session(self, method: str, p: dict[str, Any]) -> Session:
        found = self.sessions.get(p.get("sessionId", ""))
        if found is None:
            raise Refused(-32602, f"{method}: unknown session {p.get('sessionId')}")
        return found

    def handle(self, method: str, p: dict[str, Any], request_id: Any) -> Any:
        if method == "initialize":
            sessions = {"fork": {}, "list": {}}
            caps = {"_meta": capabilities(), "loadSession": True, "sessionCapabilities": sessions}
            return {"protocolVersion": 1, "agentCapabilities": caps}
        if method in ("session/new", "session/list"):
            return self.new(p) if method == "session/new" else self.listed(p)
        session = self.session(method, p)
        if method == "session/prompt":
            session.start(request_id, " ".join(b.get("text", "") for b in p.get("prompt", [])))
            return None  # answered when the turn ends
        if method in ("session/fork", "session/load"):
            return self.fork(session, p) if method == "session/fork" else self.load(session, send)
        if method == "_reasonix.io/session/status":
            return session.status()
        if method == "_reasonix.io/session/steer":
            return self.steer(session, p)
        if method == "_reasonix.io/session/reloadExtensions":
            return {"queued": "no"} if "reload" in BREAK else {}
        if method == "_reasonix.io/session/rewind":
            return self.rewind(session, p)
        if method.startswith(M):
            return getattr(Inbox(session), method[len(M) :])(p)
        raise Refused(-32601, f"{method}: unknown method")

    def rewind(self, session: Session, p: dict[str, Any]) -> dict[str, Any]:
        prompts = 1 if p.get("prompts") is None else p["prompts"]
        if "rewind" in BREAK:
            return {"sessionId": "someone-else", "prompts": str(prompts), "restored": "none"}
        if p.get("messageId") is not None:
            done = session.conversation.rewind("_reasonix.io/session/rewind", p["messageId"])
            session.prompts -= done["prompts"]
            return {"sessionId": session.id, **done}
        if type(prompts) is not int or prompts < 1:
            raise Refused(-32602, "_reasonix.io/session/rewind: prompts must be at least 1")
        if prompts > session.prompts:
            raise Refused(-32602, f"cannot go back {prompts}: the session has {session.prompts}")
        session.prompts -= prompts
        turns = session.conversation.turns
        session.conversation.put_back(turns[len(turns) - prompts :])
        del turns[max(0, len(turns) - prompts) :]
        return {"sessionId": session.id, "keptAs": str(uuid.uuid4()), "prompts": prompts,
                "restored": [], "removed": [], "left": [], "untracked": []}  # fmt: skip

    def steer(self, session: Session, p: dict[str, Any]) -> dict[str, Any]:
        text = " ".join(b.get("text", "") for b in p.get("prompt", [])).strip()
        if not text:
            raise Refused(-32602, "_reasonix.io/session/steer: empty prompt")
        running = session.turn is not None
        if "steer" in BREAK:
            session.steered = running
            answer = "queued_followup" if running else "accepted"
            return {"itemId": str(uuid.uuid4()), "disposition": answer}
        item = Inbox(session)._add(text, None)
        if running:
            session.steered = True
            session.items = [i for i in session.items if i["id"] != item]
            return {"itemId": item, "disposition": "steer_accepted"}
        return {"itemId": item, "disposition": "queued_followup"}

    def serve(self, line: str) -> None:
        frame = json.loads(line)
        method, request_id = frame.get("method"), frame.get("id")
        if "id" not in frame:
            return  # notifications: nothing to do
        try:
            result = self.handle(method, frame.get("params") or {}, request_id)
        except Refused as refused:
            error: dict[str, Any] = {"code": refused.code, "message": str(refused)}
            if "codes" in BREAK:
                error = {"code": -32603}
            send({"jsonrpc": "2.0", "id": request_id, "error": error})
            return
        if result is not None:
            send({"jsonrpc": "2.0", "id": request_id, "result": result})
        for session in self.sessions.values():
            if session.kick:
                session.kick = False
                session.start(None)

    def due(self) -> float | None:
        ends = [d for s in self.sessions.values() if (d := s.due()) is not None]
        return min(ends) if ends else None

    def finish_due(self) -> None:
        for session in list(self.sessions.values()):
            if session.due() == 0.0:
                session.finish()


def main() -> None:
    agent = Agent()
    buffered = b""
    while True:
        ready, _, _ = select.select([sys.stdin.buffer], [], [], agent.due())
        if ready:
            data = os.read(sys.stdin.fileno(), 65536)
            if not data:
                return
            buffered += data
            *lines, buffered = buffered.split(b"\n")
            for line in lines:
                if line.strip():
                    agent.serve(line.decode())
        agent.finish_due()


if __name__ == "__main__":
    main()
