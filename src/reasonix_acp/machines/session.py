# The life of one session in this process.
#
# Rule 1: everything that decides whether a session method may run now lives in this table.
#   Handlers fire a trigger first and do the work after; a refused trigger becomes -32600 naming
#   the state, and the state is left as it was.
# Rule 2: the machine knows nothing of SQLite, models or frames. It is told what happened.
#
# Theory of operation:
#   `opening` covers new/load/resume until the response is ready (replay happens here, so a prompt
#   cannot interleave with a load's replay). `idle` ⇄ `prompting` is one turn at a time: a second
#   `session/prompt` finds `prompting` and is refused ("session already has an active prompt").
#   `rebuilding` swaps the controller after a model or effort change; prompts wait for idle.
#   A change requested while `prompting` is queued by the caller and applied at `end_prompt`.
#   `closing` stops a live turn and releases the lease; `closed` keeps the stored history.
#   `deleting` stops everything and removes every stored trace; `deleted` is final.
#   Close and delete are accepted from every live state, so an editor can always get out.

from __future__ import annotations

from enum import Enum

from reasonix_acp.machines._base import Row, StateMachine


class State(Enum):
    OPENING = "opening"
    IDLE = "idle"
    PROMPTING = "prompting"
    REBUILDING = "rebuilding"
    CLOSING = "closing"
    CLOSED = "closed"
    DELETING = "deleting"
    DELETED = "deleted"


LIVE = (State.OPENING, State.IDLE, State.PROMPTING, State.REBUILDING)

TRANSITIONS: list[Row] = [
    ("opened", State.OPENING, State.IDLE),
    ("begin_prompt", State.IDLE, State.PROMPTING),
    ("end_prompt", State.PROMPTING, State.IDLE),
    ("begin_rebuild", State.IDLE, State.REBUILDING),
    ("end_rebuild", State.REBUILDING, State.IDLE),
    ("close", LIVE, State.CLOSING),
    ("closed", State.CLOSING, State.CLOSED),
    ("delete", (*LIVE, State.CLOSING, State.CLOSED), State.DELETING),
    ("deleted", State.DELETING, State.DELETED),
]


class SessionMachine(StateMachine):
    NAME = "session"
    STATES = State
    TRANSITIONS = TRANSITIONS
    INITIAL = State.OPENING
