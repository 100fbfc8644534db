# The life of one session in this process.
#
# Rule 1: every decision whether a session method may run now is a trigger in this table:
#   prompt, load/resume of a live session, control changes, reload, steer, a client's title,
#   close (which archiving a live session is), delete.
#   Handlers fire a trigger first and do the work after; a refused trigger becomes -32600
#   naming the state, and the state is left as it was.
# Rule 2: every trigger that starts work has its release in a `finally`: begin_prompt →
#   end_prompt, begin_rebuild → end_rebuild, reopen → opened. A release is accepted where a
#   close or delete has taken over (the self-loops on closing and deleting), so a `finally`
#   never needs to look at the state first.
# Rule 3: close and delete are accepted from every live state, so an editor can always get out,
#   and again while they run: a second close (or delete) joins the one in progress. Their work
#   runs shielded, so a cancelled close or delete still finishes (nothing stays `closing`).
# Rule 4: updates flow only while `publishing`: nothing is sent for a session after its close
#   or delete response.
# Rule 5: the machine knows nothing of SQLite, models or frames. It is told what happened.
#
# Theory of operation:
#   `opening` covers new/load/resume until the response is ready (replay happens here, so a
#   prompt cannot interleave with a load's replay). A live session is opened again (`reopen`)
#   only when idle: a load or resume while a turn runs is refused, since its replay could not
#   show what the turn has not stored yet and its mcpServers would restart under the turn.
#   `idle` ⇄ `prompting` is one prompt at a time; `continue_prompt` admits each queued
#   follow-up the prompt runs after its own turn (refused once a close or delete took over).
#   `configure` admits a mode or config change; whether it applies at once (idle) or is queued
#   until the prompt ends (prompting) is how it is done, read from the state it was admitted in.
#   `rebuilding` swaps the model controller or reloads the runtime; `queue_reload` answers a
#   reload asked for while a turn or another rebuild runs, drained when that ends. `steer` is
#   admitted while the session is opening, idle or prompting (the turn machine then decides
#   whether a turn reads it); refused while rebuilding (`rejected_rotating`) and once the
#   session is going away (`rejected_closed`).
#   `retitle` admits a title the client sets (session/set_title) until a delete takes over.
#   `closing` stops a live turn and releases the lease; `closed` keeps the stored history;
#   session/archive of a live session is a close, then the archive.
#   `deleting` stops everything and removes every stored trace; `deleted` is final.

from __future__ import annotations

from enum import Enum

from reasonix_acp.machines._base import Row, StateMachine, stay


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
ENDING = (State.CLOSING, State.DELETING)

TRANSITIONS: list[Row] = [
    ("opened", State.OPENING, State.IDLE),
    *stay("opened", ENDING),
    ("reopen", State.IDLE, State.OPENING),
    ("begin_prompt", State.IDLE, State.PROMPTING),
    *stay("continue_prompt", (State.PROMPTING,)),
    ("end_prompt", State.PROMPTING, State.IDLE),
    *stay("end_prompt", ENDING),
    *stay("configure", (State.IDLE, State.PROMPTING)),
    ("begin_rebuild", State.IDLE, State.REBUILDING),
    ("end_rebuild", State.REBUILDING, State.IDLE),
    *stay("end_rebuild", ENDING),
    *stay("queue_reload", (State.PROMPTING, State.REBUILDING)),
    *stay("steer", (State.OPENING, State.IDLE, State.PROMPTING)),
    *stay("retitle", (*LIVE, State.CLOSING)),
    ("close", LIVE, State.CLOSING),
    *stay("close", (State.CLOSING,)),
    ("closed", State.CLOSING, State.CLOSED),
    *stay("closed", (State.DELETING,)),
    ("delete", (*LIVE, State.CLOSING, State.CLOSED), State.DELETING),
    *stay("delete", (State.DELETING,)),
    ("deleted", State.DELETING, State.DELETED),
]


PUBLISHING = frozenset((*LIVE, State.CLOSING, State.DELETING))  # asked once per update sent


class SessionMachine(StateMachine):
    NAME = "session"
    STATES = State
    TRANSITIONS = TRANSITIONS
    INITIAL = State.OPENING

    @property
    def publishing(self) -> bool:
        """Rule 4: updates for this session may still be sent."""
        return self.state in PUBLISHING
