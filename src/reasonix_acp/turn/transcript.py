"""What a turn shows and keeps: every event is sent as its live updates at once and stored in
batches (`flush`), each batch after the messages the model's history gained meanwhile.

Rules:
- Live updates and stored events come from the same projector (session/projector.py), so a
  reload shows what the turn showed (the user's words only in replays).
- Consecutive deltas of one kind (a run of reply or thought text) are one stored event, joined
  once when the run ends (joining as they come would copy the text once per delta).
- A message is one `messageId` from its first delta to its last: a new kind, any other event
  or `end_message` starts another. A flush in the middle of a message stores what came so far
  as one event and the rest as another, both with its id, so replay and live agree.
- A message the agent says itself (`said`: a question, the plan, a warning) starts its own
  paragraph: a blank line goes before it when the turn's text so far does not end with one
  (editors that append every chunk to one reply, as CodeCompanion does, glued it on).
- Every batch starts with a `history` event holding the messages the model's history gained
  since the last one: a load rebuilds the history from these, exactly as it was sent
  (session/history.py).
- With debug checks on, a `tool_call_update` names a call this turn started, and a call that
  finished gets no further update.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reasonix_acp.ids import uuid4
from reasonix_acp.session import projector
from reasonix_acp.session.history import compacted, history_starts

Emit = Callable[[dict[str, Any]], None]
Persist = Callable[[list[tuple[str, dict[str, Any]]]], None]


class Transcript:
    def __init__(
        self, emit: Emit, persist: Persist, history: list[dict[str, Any]], debug: bool = False
    ) -> None:
        self.emit = emit
        self.persist = persist
        self.history = history  # the model's; changed in place by the turn
        self.debug = debug
        self._stored = len(history)  # the history's messages a `history` event has stored
        self._pending: list[tuple[str, dict[str, Any]]] = []
        self._started: set[str] = set()
        self._ended: set[str] = set()
        self._run_kind: str | None = None
        self._run_parts: list[str] = []
        self._message: tuple[str, str] | None = None  # the streamed message: (kind, messageId)
        self._tail = ""  # the end of the agent's text shown so far in the turn

    def record(self, kind: str, body: dict[str, Any]) -> None:
        # What a load keeps: an event without its kind's shape is skipped when it is read back.
        assert not self.debug or projector.well_formed(kind, body), f"a malformed {kind}: {body}"
        if self.debug and kind == "tool_call_update":
            self._check_update(body)
        if kind == "tool_call":
            self._started.add(body["toolCallId"])
        if kind in projector.RUN_UPDATES:
            if kind != self._run_kind:
                self._close_run()
                self._run_kind = kind
            if self._message is None or self._message[0] != kind:
                self._message = (kind, uuid4())
            self.emit(projector.chunk(kind, body["text"], self._message[1]))
            self._run_parts.append(body["text"])
            if kind == "agent_message":
                self._tail = (self._tail + body["text"])[-2:]
            return
        self.end_message()
        body = projector.named(kind, body)
        for update in projector.live_updates(kind, body):
            self.emit(update)
        self._pending.append((kind, dict(body)))

    def _check_update(self, body: dict[str, Any]) -> None:
        call_id = body["toolCallId"]
        assert call_id in self._started, f"update for unknown tool call {call_id}"
        assert call_id not in self._ended, f"update after the end of {call_id}"
        if body.get("status") in ("completed", "failed"):
            self._ended.add(call_id)

    def _close_run(self) -> None:
        if self._run_kind is not None and self._message is not None:
            text = "".join(self._run_parts)
            self._pending.append((self._run_kind, {"text": text, "messageId": self._message[1]}))
            self._run_kind, self._run_parts = None, []

    def said(self, text: str) -> None:
        """An agent message of the agent's own, a paragraph apart from the text before it."""
        self.record("agent_message", {"text": self.paragraph(text)})
        self.end_message()

    def propose(self, text: str, said: str) -> None:
        """The plan `present_plan` puts to the user, once: the plan `proposal` for a client that
        takes plans by id, else the message `said` (kept with it: `x-said`)."""
        said = self.paragraph(said)
        body = {"planId": projector.PROPOSAL_PLAN, "content": text, "x-said": said}
        self.record("plan_proposal", {**body, "x-message": uuid4()})

    def paragraph(self, text: str) -> str:
        """`text` as an agent message of its own shows it after the turn's text so far: the
        blank line it needs before it, the message before it ended. For an event that shows it
        as a message to some clients only (the plan `proposal`) and for `said`."""
        self.end_message()
        if self._tail:
            breaks = (
                len(self._tail) - len(self._tail.rstrip("\n")) + len(text) - len(text.lstrip("\n"))
            )
            text = "\n" * max(2 - breaks, 0) + text
        self._tail = (self._tail + text)[-2:]
        return text

    def end_message(self) -> None:
        """The message being streamed is over: the next delta starts another (a new id)."""
        self._close_run()
        self._message = None

    def keep(self, kind: str, body: dict[str, Any]) -> None:
        """An event stored with the next flush and not shown now (what a subagent showed
        itself: turn/subagents.py)."""
        self._close_run()
        self._pending.append((kind, body))

    def history_starts(self) -> None:
        """An empty `history` event: a transcript still read from what it showed (one stored
        before `history` events existed) stops being read that way here."""
        self._pending.append(history_starts())

    def compacted(self, body: dict[str, Any]) -> None:
        """The history after a `compaction` event (recorded before): its oldest messages are
        the summary now, and what it holds is stored (the event rebuilds it on load)."""
        self.history[:] = compacted(self.history, body)
        self._stored = len(self.history)

    def flush(self) -> None:
        """Store what the turn showed since the last flush, after the messages the model's
        history gained meanwhile."""
        self._close_run()
        batch, self._pending = self._pending, []
        fresh = self.history[self._stored :]
        if fresh:
            batch.insert(0, ("history", {"messages": fresh}))
            self._stored = len(self.history)
        if batch:
            self.persist(batch)
