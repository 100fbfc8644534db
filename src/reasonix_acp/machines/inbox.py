# The durable session inbox: the inbox as a whole, and each item in it.
#
# Rule 1: every change of an item's state or of the inbox's pause state is a trigger in one of
#   these tables. `SessionInbox` rebuilds a machine at the stored state (`at`), fires, and writes
#   the new state in the same SQLite transaction; a refused trigger raises `TransitionRefused`,
#   which the inbox reports as "inbox item state does not allow this operation" (or, for the
#   inbox machine's `dispatch`, "inbox is paused"). Nothing is written after a refusal.
# Rule 2: `pending = {queued, blocked, uncertain}`. Only pending items are edited, moved,
#   refreshed or deleted; the one exception is an accepted steer the turn has not consumed yet,
#   which may still be deleted (the turn then finds it gone at its next step boundary).
# Rule 3: an item that might have been applied, but is not known to have been, becomes
#   `uncertain`, never `queued`: replaying it silently could run an instruction twice. Leaving
#   `uncertain` takes a person (`retry`, `update`, `delete`) or a repeated steer (`accept_steer`).
# Rule 4: anything that makes an item uncertain or blocked also pauses the inbox, so nothing is
#   dispatched past it until someone looks. An inbox that becomes empty drains back to `running`.
# Rule 5: no I/O here; the inbox store fires triggers inside its transactions.
#
# Theory of operation (items):
#   enqueue creates `queued`. A follow-up is claimed (`running`) by the turn that runs it and
#   acknowledged (`removed`) once the turn's transcript is committed; `unclaim` puts it back when
#   the submission failed before anything ran. A steer is admitted (`steer_accepted`) by the
#   active turn, consumed (`steer_consumed`, the durable hand-off) when the turn loads it at a
#   step boundary, and acknowledged at the turn's end. A refused steer stays `queued` (its intent
#   becomes followup). `mark_uncertain` covers a crash found at open, an accepted steer the turn
#   never read, and a turn whose commit or acknowledgement failed.
#
# Theory of operation (inbox):
#   `running` dispatches; `paused` does not (setPaused, or an item became uncertain/blocked);
#   `recovered_paused` is paused because items were carried over from a process that is gone
#   (recovered/recoveredCount on the wire). `resume` (setPaused false) clears both, as does
#   `drain` (the inbox emptied). `read_only` is a file of a newer schema: final, nothing moves.

from __future__ import annotations

from enum import Enum
from typing import Self

from reasonix_acp.machines._base import Row, StateMachine


class State(Enum):
    QUEUED = "queued"
    RUNNING = "running"
    STEER_ACCEPTED = "steer_accepted"
    STEER_CONSUMED = "steer_consumed"
    BLOCKED = "blocked"
    UNCERTAIN = "uncertain"
    REMOVED = "removed"


PENDING = (State.QUEUED, State.BLOCKED, State.UNCERTAIN)
IN_FLIGHT = (State.RUNNING, State.STEER_ACCEPTED, State.STEER_CONSUMED)

TRANSITIONS: list[Row] = [
    ("claim", State.QUEUED, State.RUNNING),
    ("unclaim", State.RUNNING, State.QUEUED),
    ("accept_steer", (State.QUEUED, State.UNCERTAIN), State.STEER_ACCEPTED),
    ("refuse_steer", State.QUEUED, State.QUEUED),
    ("consume_steer", State.STEER_ACCEPTED, State.STEER_CONSUMED),
    ("ack", (State.RUNNING, State.STEER_CONSUMED), State.REMOVED),
    ("block", (State.QUEUED, State.BLOCKED, State.UNCERTAIN), State.BLOCKED),
    ("mark_uncertain", IN_FLIGHT, State.UNCERTAIN),
    ("retry", (State.UNCERTAIN, State.BLOCKED), State.QUEUED),
    # An edit or a successful re-freeze unblocks; an uncertain item stays uncertain (Rule 3).
    ("update", (State.QUEUED, State.BLOCKED), State.QUEUED),
    ("update", State.UNCERTAIN, State.UNCERTAIN),
    ("refresh", (State.QUEUED, State.BLOCKED), State.QUEUED),
    ("refresh", State.UNCERTAIN, State.UNCERTAIN),
    ("move", State.QUEUED, State.QUEUED),
    ("move", State.BLOCKED, State.BLOCKED),
    ("move", State.UNCERTAIN, State.UNCERTAIN),
    ("delete", (*PENDING, State.STEER_ACCEPTED), State.REMOVED),
]


class ItemMachine(StateMachine):
    NAME = "inbox_item"
    STATES = State
    TRANSITIONS = TRANSITIONS
    INITIAL = State.QUEUED

    @classmethod
    def at(cls, stored: str) -> Self:
        """A machine standing at a state read back from the store."""
        machine = cls()
        machine.state = State(stored)
        return machine


class InboxState(Enum):
    RUNNING = "running"
    PAUSED = "paused"
    RECOVERED_PAUSED = "recovered_paused"
    READ_ONLY = "read_only"


WRITABLE = (InboxState.RUNNING, InboxState.PAUSED, InboxState.RECOVERED_PAUSED)

INBOX_TRANSITIONS: list[Row] = [
    # Pausing a paused inbox is a no-op and keeps the recovered flag.
    ("pause", (InboxState.RUNNING, InboxState.PAUSED), InboxState.PAUSED),
    ("pause", InboxState.RECOVERED_PAUSED, InboxState.RECOVERED_PAUSED),
    ("resume", WRITABLE, InboxState.RUNNING),
    ("recover", WRITABLE, InboxState.RECOVERED_PAUSED),
    ("drain", WRITABLE, InboxState.RUNNING),
    # Claiming or admitting an item: only a running inbox hands work out.
    ("dispatch", InboxState.RUNNING, InboxState.RUNNING),
    ("open_read_only", WRITABLE, InboxState.READ_ONLY),
]


class InboxMachine(StateMachine):
    NAME = "inbox"
    STATES = InboxState
    TRANSITIONS = INBOX_TRANSITIONS
    INITIAL = InboxState.RUNNING

    @classmethod
    def at(cls, *, paused: bool, recovered: bool, readonly: bool = False) -> Self:
        """A machine standing at the state the stored flags describe."""
        machine = cls()
        machine.state = cls.state_for(paused=paused, recovered=recovered, readonly=readonly)
        return machine

    @staticmethod
    def state_for(*, paused: bool, recovered: bool, readonly: bool = False) -> InboxState:
        if readonly:
            return InboxState.READ_ONLY
        if recovered:
            return InboxState.RECOVERED_PAUSED
        return InboxState.PAUSED if paused else InboxState.RUNNING

    @property
    def paused(self) -> bool:
        return self.state is not InboxState.RUNNING

    @property
    def recovered(self) -> bool:
        return self.state is InboxState.RECOVERED_PAUSED
