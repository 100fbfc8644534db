# One prompt turn of one session.
#
# Rule 1: a turn ends exactly once, with exactly one outcome; `release` (trigger `conclude`) is the only way out of
#   `finishing` and the outcome decides the stop reason (or the JSON-RPC error) of the prompt.
# Rule 2: a cancel wins. Once `cancelling`, whatever the runner reports (success, failure,
#   a budget pause) the outcome is `cancelled`, because the client must get `cancelled`.
# Rule 3: every `start` has its release in a `finally` (`end`): whatever is raised between the
#   start and the answer (a failed store, a cancelled hook, a bug), the turn goes back to idle,
#   settled as failed unless a cancel came first, and the next prompt finds it idle.
# Rule 4: a steer is read only by a turn that is running (or waiting for a permission answer):
#   `admit_steer` is refused once the turn is cancelling or finishing, or when there is none.
#   The runner also closes its steer window itself before its last model call; that window is a
#   flag on the session's steer desk, not a state here, because it closes inside a running
#   step (the turn is `running` on both sides of it) and only the runner knows which step.
# Rule 5: no I/O here; the turn runner fires triggers as things happen.
#
# Theory of operation:
#   idle --start--> running. A prompt's whole work runs in the turn: a plugin action and its
#   form, the agent's own commands, the model turn, the turn_end hooks; so a cancel reaches each.
#   While running the runner may ask the client for permission (running ⇄ awaiting_permission).
#   `cancel` from either moves to cancelling (a pending permission request is then answered as
#   cancelled by the runner). `finish` moves running or cancelling to finishing, where the
#   outcome is fixed; `conclude` returns to idle.
#   Outcomes: end_turn, max_turn_requests (step limit), max_tokens (a reply cut at the model's
#   output limit), refusal (the provider's content filter), budget_paused and readiness_paused (both
#   answered `end_turn` with a warning chunk), cancelled, failed (answered with -32603).

from __future__ import annotations

from enum import Enum

from reasonix_acp.machines._base import Row, StateMachine, stay


class State(Enum):
    IDLE = "idle"
    RUNNING = "running"
    AWAITING_PERMISSION = "awaiting_permission"
    CANCELLING = "cancelling"
    FINISHING = "finishing"


class Outcome(Enum):
    END_TURN = "end_turn"
    MAX_TURN_REQUESTS = "max_turn_requests"
    MAX_TOKENS = "max_tokens"  # the model's reply was cut at its output token limit
    REFUSAL = "refusal"  # the provider's content filter stopped the reply
    BUDGET_PAUSED = "budget_paused"
    READINESS_PAUSED = "readiness_paused"
    CANCELLED = "cancelled"
    FAILED = "failed"


# The ACP stop reason each outcome answers with; FAILED has none (it is a JSON-RPC error).
STOP_REASON: dict[Outcome, str | None] = {
    Outcome.END_TURN: "end_turn",
    Outcome.MAX_TURN_REQUESTS: "max_turn_requests",
    Outcome.MAX_TOKENS: "max_tokens",
    Outcome.REFUSAL: "refusal",
    Outcome.BUDGET_PAUSED: "end_turn",
    Outcome.READINESS_PAUSED: "end_turn",
    Outcome.CANCELLED: "cancelled",
    Outcome.FAILED: None,
}

TRANSITIONS: list[Row] = [
    ("start", State.IDLE, State.RUNNING),
    ("ask_permission", State.RUNNING, State.AWAITING_PERMISSION),
    ("permission_answered", State.AWAITING_PERMISSION, State.RUNNING),
    ("cancel", (State.RUNNING, State.AWAITING_PERMISSION), State.CANCELLING),
    *stay("admit_steer", (State.RUNNING, State.AWAITING_PERMISSION)),
    ("finish", (State.RUNNING, State.CANCELLING), State.FINISHING),
    ("conclude", State.FINISHING, State.IDLE),
]


class TurnMachine(StateMachine):
    NAME = "turn"
    STATES = State
    TRANSITIONS = TRANSITIONS
    INITIAL = State.IDLE

    def __init__(self) -> None:
        super().__init__()
        self.outcome: Outcome | None = None

    def request_cancel(self) -> bool:
        """Cancel if the turn can still be cancelled; False when it is idle or already ending."""
        if self.can("cancel"):
            self.fire("cancel", "turn is {state}")
            return True
        return False

    def settle(self, reported: Outcome) -> Outcome:
        """Fix the outcome: the runner's report, unless a cancel came first (Rule 2)."""
        cancelled = self.state is State.CANCELLING
        if self.state is State.AWAITING_PERMISSION:
            self.fire("permission_answered", "turn is {state}")
        self.fire("finish", "turn is {state}; it cannot finish")
        self.outcome = Outcome.CANCELLED if cancelled else reported
        return self.outcome

    def release(self) -> Outcome:
        outcome = self.outcome
        assert outcome is not None, "a turn is released once, after settle"
        self.fire("conclude", "turn is {state}")
        self.outcome = None
        return outcome

    def end(self) -> None:
        """Rule 3, the `finally` of every started turn: settled as failed if nothing settled
        it (a cancel still wins), then released. Does nothing on an idle turn."""
        if self.state is State.IDLE:
            return
        if self.outcome is None:
            self.settle(Outcome.FAILED)
        self.release()
