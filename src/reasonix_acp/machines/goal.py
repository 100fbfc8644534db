# The goal of one session: a durable objective goal mode keeps advancing, prompt after prompt,
# until it is complete or blocked.
#
# Rule 1: a goal has an objective exactly when it is past `draft`: `adopt` takes the prompt
#   that was armed for it, and `clear` (normal or plan mode, the legacy modes) forgets it.
# Rule 2: arming never replaces a goal that is not finished. `arm` from none or complete starts
#   a new draft; from draft, running, blocked, paused, cancelled or failed it keeps what there
#   is (the next goal-mode prompt resumes it).
# Rule 3: only a running goal advances. The runner's continuation steps happen while `running`;
#   every way out of it is one trigger: `complete` and `block` (the model's goal_update),
#   `pause` (a limit, the model stopping without reporting, or a restart that found it
#   running), `cancel`, `fail`.
# Rule 4: a model or effort switch is refused while the goal runs (`switch_config` is admitted
#   in every other state), so a continuation never changes model under its own feet.
# Rule 5: no I/O here; the turn's goal loop (turn/goal.py) fires triggers and persists.
#
# Theory of operation:
#   none --arm--> draft --adopt--> running --complete|block|pause|cancel|fail--> ...
#   blocked|paused|cancelled|failed --resume--> running (a goal-mode prompt continues it)
#   any --clear--> none

from __future__ import annotations

from enum import Enum

from reasonix_acp.machines._base import Row, StateMachine, stay


class State(Enum):
    NONE = "none"
    DRAFT = "draft"
    RUNNING = "running"
    COMPLETE = "complete"
    BLOCKED = "blocked"
    PAUSED = "paused"
    CANCELLED = "cancelled"
    FAILED = "failed"


KEPT = (State.BLOCKED, State.PAUSED, State.CANCELLED, State.FAILED)  # resumable, not running

TRANSITIONS: list[Row] = [
    ("arm", (State.NONE, State.COMPLETE), State.DRAFT),
    *stay("arm", [State.DRAFT, State.RUNNING, *KEPT]),
    ("adopt", State.DRAFT, State.RUNNING),
    ("resume", KEPT, State.RUNNING),
    ("complete", State.RUNNING, State.COMPLETE),
    ("block", State.RUNNING, State.BLOCKED),
    ("pause", State.RUNNING, State.PAUSED),
    ("cancel", State.RUNNING, State.CANCELLED),
    ("fail", State.RUNNING, State.FAILED),
    ("clear", list(State), State.NONE),
    *stay("switch_config", [s for s in State if s is not State.RUNNING]),
]


class GoalMachine(StateMachine):
    NAME = "goal"
    STATES = State
    TRANSITIONS = TRANSITIONS
    INITIAL = State.NONE

    def __init__(self, state: State = State.NONE) -> None:
        super().__init__()
        self.state = state
