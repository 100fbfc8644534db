# The disposition of one steer request (`_reasonix.io/session/steer`, or an inbox enqueue with
# intent steer), from the moment its item is durably stored until the turn has used it or not.
#
# Rule 1: commit first, then admit. The item is in the inbox (`committed`) before any turn hears
#   of it, so a crash at any later point leaves it recoverable; the reply is sent after the
#   disposition is fixed, never before the commit.
# Rule 2: `steer_accepted` is a promise that a model call of the running turn will read the
#   steer. It may only be given while the turn's admission is open, and admission is closed by
#   the turn itself before its last allowed model call and before it decides to end (the event
#   loop is the lock: the offer and the closing never interleave).
# Rule 3 (the admission race): a steer can arrive after the turn's last model call but before
#   the turn has ended. If admission is still open the offer wins the lock first and the item is
#   admitted; the turn then closes admission, re-reads its accepted steers and must either take
#   one more step to consume them or report them `unapplied` (the item becomes uncertain and the
#   inbox pauses). If the turn closed admission first, the offer is refused and the steer is
#   reported `queued_followup`: it stays in the inbox for the next prompt. Either way the client
#   is never told "accepted" for a steer no turn will read without someone noticing.
# Rule 4: a refusal is final for this request and carries a reason; closed and rotating sessions
#   report `rejected_closed` and `rejected_rotating`, every other reason `queued_followup`.
# Rule 5: this machine lives for one steer request: what happens to an admitted steer after
#   the reply (consumed at a step boundary, left uncertain when unapplied, deleted) is the inbox
#   item's machine (machines/inbox.py), which is stored.
# Rule 6: no I/O here; the steer handler fires triggers as it asks the session and turn machines.
#
# Theory of operation:
#   committed --offer--> offered (a turn is running and its admission is open)
#   offered --admit--> admitted (the item is now durably steer_accepted)
#   committed|offered --refuse--> refused (closed, rotating, no turn, turn finishing, paused,
#   images)

from __future__ import annotations

from enum import Enum

from reasonix_acp.machines._base import Row, StateMachine


class State(Enum):
    COMMITTED = "committed"
    OFFERED = "offered"
    ADMITTED = "admitted"
    REFUSED = "refused"


class Refusal(Enum):
    NO_TURN = "no_turn"
    TURN_FINISHING = "turn_finishing"
    PAUSED = "paused"
    HAS_IMAGES = "has_images"
    CLOSED = "closed"
    ROTATING = "rotating"


# The wire disposition of a refused steer, by reason (Rule 4).
REFUSED_DISPOSITION: dict[Refusal, str] = {
    Refusal.NO_TURN: "queued_followup",
    Refusal.TURN_FINISHING: "queued_followup",
    Refusal.PAUSED: "queued_followup",
    Refusal.HAS_IMAGES: "queued_followup",
    Refusal.CLOSED: "rejected_closed",
    Refusal.ROTATING: "rejected_rotating",
}

# The block reason an unapplied steer's item is left uncertain with.
UNAPPLIED_REASON = "steer accepted but unapplied before turn exit"

TRANSITIONS: list[Row] = [
    ("offer", State.COMMITTED, State.OFFERED),
    ("admit", State.OFFERED, State.ADMITTED),
    ("refuse", (State.COMMITTED, State.OFFERED), State.REFUSED),
]


class SteerMachine(StateMachine):
    NAME = "steer"
    STATES = State
    TRANSITIONS = TRANSITIONS
    INITIAL = State.COMMITTED

    def __init__(self) -> None:
        super().__init__()
        self.refusal: Refusal | None = None

    def decline(self, reason: Refusal) -> str:
        """Refuse admission for `reason`; returns the disposition to report."""
        self.fire("refuse", "steer is {state}; it can no longer be refused")
        self.refusal = reason
        return REFUSED_DISPOSITION[reason]
