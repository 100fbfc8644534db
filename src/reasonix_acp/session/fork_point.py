"""Where a fork starts: a point in the conversation named by a message id.

`session/fork` takes `_meta["reasonix.io"].messageId` (until the schema has a field: the draft
RFD "Forking sessions at a specific message" names `messageId`, inclusive; the later draft
"Session cursors" would name the point by a cursor instead). The ids are those the agent sends
on message chunks, live and replayed.

Inclusive, as the draft says: the fork holds every message up to and including the named one.
Only a message that ends a finished turn's reply is such a point: the model's history is kept
turn by turn, so a fork there holds exactly the turns before and sends the provider the same
bytes the source sent for them (its cached prefix holds). An agent message followed in its turn
by a tool call or another message, a user message (the fork would end on a question with no
answer: fork at the reply before it and send the edited prompt), a thought, or the turn still
running are not points; each is refused -32602 saying why, and nothing is created.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reasonix_acp.protocol.errors import InvalidParams
from reasonix_acp.session.store_rows import StoredEvent

# Events that are part of what a turn says or does: the last of these in a turn must be the
# named message for the turn to end on it.
SAID = ("agent_message", "agent_thought", "tool_call", "tool_call_update", "user_message")


def message_id(method: str, meta: Any) -> str | None:
    """The message id a request's `_meta["reasonix.io"]` names, if any (a bad one: -32602)."""
    ours = meta.get("reasonix.io") if isinstance(meta, dict) else None
    if not isinstance(ours, dict) or "messageId" not in ours:
        return None
    given = ours["messageId"]
    if type(given) is not str or not given:
        raise InvalidParams(f'{method}: _meta["reasonix.io"].messageId must be a message id')
    return given


def turn_ending_at(
    method: str, events: Iterable[StoredEvent], given: str, busy: bool, to: str = "fork at"
) -> int:
    """The turn whose reply ends with message `given`: the fork keeps turns up to it. `busy`:
    the source is open here with a turn running (its last turn is not finished). `to`: what a
    refusal tells the user to do instead ("rewind to" for a rewind)."""
    said: dict[int, StoredEvent] = {}
    found: StoredEvent | None = None
    for event in events:
        if event.kind in SAID:
            said[event.turn] = event
        if found is None and event.body.get("messageId") == given:
            found = event
    if found is None:
        raise InvalidParams(f"{method}: no message {given} in this session")
    where = f"{method}: message {given}"
    if found.kind != "agent_message":
        what = "the user's prompt" if found.kind == "user_message" else "a thought"
        raise InvalidParams(
            f"{where} is {what}, not a reply: {to} the reply that ends the turn before it"
        )
    if busy and found.turn == max(said):
        raise InvalidParams(f"{where} is in the turn still running")
    last = said.get(found.turn)
    if last is None or last.body.get("messageId") != given:
        raise InvalidParams(f"{where} does not end its turn's reply: {to} the reply's end")
    return found.turn
