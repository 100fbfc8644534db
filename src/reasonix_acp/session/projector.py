"""Transcript events → `session/update` payloads. The live turn and `session/load` replay both
go through `updates`, so what a reload shows is what the turn showed, with one exception: the
user's own words (`user_message`) are replayed but never echoed live, since the client already
shows what its user typed (`live_updates`).

Transcript events (kind, body), as stored:
  user_message      {"content": [ContentBlock, ...], "messageId"?}
  agent_thought     {"text": str, "messageId"?}   a run of thought deltas (live: one per delta)
  agent_message     {"text": str, "messageId"?}   a run of reply deltas
                    `messageId` names the message its chunks belong to, live and replayed alike;
                    one message's run may be stored as consecutive events with the same id.
                    Events stored before ids were kept replay without one.
  tool_call         {"toolCallId", "title", "name", "kind", "status": "pending", "locations"?,
                     "rawInput"?}
  tool_call_update  {"toolCallId", "status", "content"?, "rawOutput"?, "title"?, "locations"?}
  plan              {"entries": [PlanEntry, ...]}   the todo list as it is now; shown as the
                    plan `todo` (`plan_update` of its items, `plan_removed` once empty) to
                    clients that advertise the unstable `plan`, as a `plan` update to the others
  plan_proposal     {"planId": "proposal", "content": str,   the plan `present_plan` puts to
                     "x-said": str, "x-message": str}       the user, in markdown: a `plan_update`
                    for clients that advertise `plan`, else the message `x-said` (id `x-message`;
                    one stored without them was said as an `agent_message` of its own)
  extension_surface {"surface": ReasonixExtensionSurface}   (extension_surface.py)
  subagent          {"sessionId"?: str, "update": SessionUpdate} an update of the unstable
                    subagent wire (turn/subagents.py), on the child's session or (no
                    sessionId) the parent's; or {"sessionId", "kind", "body"}: an event of the
                    child's own transcript, replayed on its session. Both only to clients that
                    advertise `subagents` (`Elsewhere`).
  compaction        {"compactionId", "summary": str, "compacted": int, "kept": int,
                    "keptFirst": the digest of the first message kept, when any}
                    the history's oldest `compacted` messages replaced by the summary
                    (turn/compaction.py); shown as `compaction_update` to clients that
                    advertise `session.compaction`, as a short agent message to the others
Not replayed: `history` (the model's messages), `context`, `status` and other bookkeeping.
Keys starting with `x-` are kept in the store for the model's history (the tool's name, the text
the model saw) and never sent. Everything the projector emits is a shape of the pinned schema; golden transcripts validate it.
"""

from __future__ import annotations

from typing import Any

from reasonix_acp.generated.methods import SESSION_UPDATE
from reasonix_acp.ids import uuid4
from reasonix_acp.protocol.framing import Template, notification
from reasonix_acp.session.verbatim import Verbatim, update_of
from reasonix_acp.words import counted

REPLAYED = (
    "user_message",
    "agent_thought",
    "agent_message",
    "tool_call",
    "tool_call_update",
    "plan",
    "plan_proposal",
    "extension_surface",
    "compaction",
    "subagent",
)
# The ids of the plans a session shows by id (the unstable `plan` capability): its todo list,
# and the plan proposed in plan mode, each replaced by its next update.
TODO_PLAN = "todo"
PROPOSAL_PLAN = "proposal"
# The capability a gated update needs (`session.compaction`, `session.notices`): the sender
# drops it for a client without it, and a `Fallback` for that capability for one with it.
GATED = {
    "compaction_update": "compaction",
    "compaction_summary_chunk": "compaction",
    "notice": "notices",
    "subagent_update": "subagents",
    "session_message": "subagents",
    "session_message_chunk": "subagents",
    "plan_update": "plan",
    "plan_removed": "plan",
}


class Fallback(dict[str, Any]):
    """An update only for clients without the capability `instead_of` (they cannot show the
    structured update that says the same)."""

    __slots__ = ("instead_of",)
    instead_of: str


class Elsewhere(dict[str, Any]):
    """An update only for clients that advertise `subagents`: on `session_id` (a child's), or
    on the session it is sent for when None."""

    __slots__ = ("session_id",)
    session_id: str | None


def elsewhere(update: dict[str, Any], session_id: str | None) -> Elsewhere:
    shown = Elsewhere(update)
    shown.session_id = session_id
    return shown


def fallback(instead_of: str, text: str, message_id: str) -> Fallback:
    update = Fallback(
        sessionUpdate="agent_message_chunk",
        content={"type": "text", "text": text},
        messageId=message_id,
    )
    update.instead_of = instead_of
    return update


def _todo_plan(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The todo list: by id for a client that advertises `plan` (an empty list removes it),
    as the whole `plan` for the others."""
    by_id: dict[str, Any]
    if entries:
        items = {"type": "items", "planId": TODO_PLAN, "entries": entries}
        by_id = {"sessionUpdate": "plan_update", "plan": items}
    else:
        by_id = {"sessionUpdate": "plan_removed", "planId": TODO_PLAN}
    whole = Fallback(sessionUpdate="plan", entries=entries)
    whole.instead_of = "plan"
    return [by_id, whole]


def compacted_text(body: dict[str, Any]) -> str:
    count = body.get("compacted", 0)
    return f"\n\n[compacted {counted(count, 'earlier message')} to save context]\n\n"


# Events shown as chunks of a message: each gets a `messageId` when it is recorded (an
# extension surface's text is a message of its own).
MESSAGES = ("user_message", "agent_thought", "agent_message", "extension_surface")


def named(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """A message event with its `messageId`: a new one when it has none yet."""
    if kind in MESSAGES and "messageId" not in body:
        return {**body, "messageId": uuid4()}
    return body


def updates(kind: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    message_id = body.get("messageId")
    if kind == "user_message":
        named = {"messageId": message_id} if type(message_id) is str else {}
        return [
            {"sessionUpdate": "user_message_chunk", "content": block, **named}
            for block in body.get("content", [])
        ]
    if kind in RUN_UPDATES:  # a whole message: a plain update, encoded once (no template)
        update = {
            "sessionUpdate": RUN_UPDATES[kind],
            "content": {"type": "text", "text": body["text"]},
        }
        return [update | {"messageId": message_id} if type(message_id) is str else update]
    if type(body) is Verbatim:  # a stored tool_call_update sent as stored
        return [update_of(body)]
    if kind in ("tool_call", "tool_call_update"):
        update = {
            "sessionUpdate": kind,
            **{k: v for k, v in body.items() if not k.startswith("x-")},
        }
        if kind == "tool_call" and "name" not in body and type(body.get("x-tool")) is str:
            update["name"] = body["x-tool"]  # stored before calls carried their name
        return [update]
    if kind == "plan":
        return _todo_plan(body.get("entries", []))
    if kind == "plan_proposal":
        content = {"type": "markdown", "planId": body["planId"], "content": body["content"]}
        shown: list[dict[str, Any]] = [{"sessionUpdate": "plan_update", "plan": content}]
        said, message = body.get("x-said"), body.get("x-message")
        if type(said) is str and type(message) is str:  # (an older event's message is its own)
            shown.append(fallback("plan", said, message))
        return shown
    if kind == "subagent":
        return _subagent(body)
    if kind == "compaction":
        summary = {"type": "text", "text": body["summary"]}
        done = {
            "sessionUpdate": "compaction_update",
            "compactionId": body["compactionId"],
            "status": "completed",
            "summary": [summary],
        }
        # The fallback text is a message of its own, named after the compaction (the same id
        # live and replayed).
        return [done, fallback("compaction", compacted_text(body), body["compactionId"])]
    if kind == "extension_surface":
        # lazy: start-up
        from reasonix_acp.plugins import surface as extension_surface

        shown = extension_surface.updates(body["surface"])
        if type(message_id) is str:  # its text, named like any message
            shown = [
                {**u, "messageId": message_id} if u["sessionUpdate"] == "agent_message_chunk" else u
                for u in shown
            ]
        return shown
    return []


def _subagent(body: dict[str, Any]) -> list[dict[str, Any]]:
    child = body.get("sessionId")
    if "update" in body:
        return [elsewhere(body["update"], child)]
    inner, event = body["kind"], body["body"]
    if inner == "user_message" or not well_formed(inner, event):
        return []  # the task reached the child as a session_message, kept before it
    return [elsewhere(u, child) for u in updates(inner, event)]


def well_formed(kind: str, body: dict[str, Any]) -> bool:
    """Whether a stored event has, with their types, the fields a replay sends and the model's
    history reads (see the table above). Only a damaged or hand-edited row fails: the turn
    writes every event in these shapes. Kinds not listed are not checked here."""
    check = _SHAPES.get(kind)
    return check is None or check(body)


def _text(body: dict[str, Any]) -> bool:
    return type(body.get("text")) is str and _optional(body, "messageId", str)


def _blocks(body: dict[str, Any]) -> bool:
    content = body.get("content")
    return (
        type(content) is list
        and _optional(body, "messageId", str)
        and all(
            type(block) is dict
            and type(block.get("type")) is str
            and (block["type"] != "text" or type(block.get("text")) is str)
            for block in content
        )
    )


def _optional(body: dict[str, Any], key: str, kind: type) -> bool:
    value = body.get(key, _ABSENT)
    return value is _ABSENT or type(value) is kind


_ABSENT = object()


def _tool_call(body: dict[str, Any]) -> bool:
    return type(body.get("title")) is str and _tool_call_update(body)


def _tool_call_update(body: dict[str, Any]) -> bool:
    return (
        type(body.get("toolCallId")) is str
        and _optional(body, "status", str)
        and _optional(body, "title", str)
        and _optional(body, "kind", str)
        and _optional(body, "content", list)
        and _optional(body, "locations", list)
    )


def _plan(body: dict[str, Any]) -> bool:
    entries = body.get("entries")
    return type(entries) is list and all(
        type(entry) is dict
        and all(type(entry.get(key)) is str for key in ("content", "priority", "status"))
        for entry in entries
    )


def _proposal(body: dict[str, Any]) -> bool:
    return type(body.get("planId")) is str and type(body.get("content")) is str


def _compaction(body: dict[str, Any]) -> bool:
    return (
        type(body.get("compactionId")) is str
        and type(body.get("summary")) is str
        and type(body.get("kept")) is int
    )


def _subagent_shape(body: dict[str, Any]) -> bool:
    if "update" in body:
        update = body["update"]
        return (
            type(update) is dict
            and type(update.get("sessionUpdate")) is str
            and _optional(body, "sessionId", str)
        )
    return (
        type(body.get("sessionId")) is str
        and body.get("kind") in REPLAYED
        and body.get("kind") != "subagent"
        and type(body.get("body")) is dict
    )


_SHAPES = {
    "subagent": _subagent_shape,
    "compaction": _compaction,
    "user_message": _blocks,
    "agent_thought": _text,
    "agent_message": _text,
    "goal_continuation": _text,
    "tool_call": _tool_call,
    "tool_call_update": _tool_call_update,
    "plan": _plan,
    "plan_proposal": _proposal,
}


def live_updates(kind: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """What a live turn sends for an event: as replayed, without the user's own words."""
    return [] if kind == "user_message" else updates(kind, body)


# Kinds whose consecutive deltas form one stored event, and the update each delta becomes.
RUN_UPDATES = {"agent_thought": "agent_thought_chunk", "agent_message": "agent_message_chunk"}


class Delta(dict[str, Any]):
    """A text delta's update: a plain dict to everything that reads it, and a type the sender
    recognises at once to write it from a template (service.Sessions.send)."""

    __slots__ = ("message_id", "text")
    text: str
    message_id: str | None


def chunk(kind: str, text: str, message_id: str | None) -> Delta:
    """The update for one delta (the streaming hot path calls this directly)."""
    update = Delta(sessionUpdate=RUN_UPDATES[kind], content={"type": "text", "text": text})
    if message_id is not None:
        update["messageId"] = message_id
    update.text = text
    update.message_id = message_id
    return update


def delta_frame(
    templates: dict[str, tuple[str | None, Template]], session_id: str, update: Delta
) -> bytes:
    """A text delta's frame (the streaming hot path): the same bytes as encoding it, from the
    session's template for its kind, made once per message and kept in `templates`."""
    kind = update["sessionUpdate"]
    known = templates.get(kind)
    if known is None or known[0] != update.message_id:  # once per message
        slot = dict(update, content={"type": "text", "text": Template.SLOT})
        params = {"sessionId": session_id, "update": slot}
        known = (update.message_id, Template(notification(SESSION_UPDATE, params)))
        templates[kind] = known
    return known[1].fill(update.text)


def per_client(update: dict[str, Any], surface: str) -> bool:
    """Whether a client gets `update` depends on what it advertised (`surface`: the extension
    surface's kind; Sessions._shown decides)."""
    kind = update.get("sessionUpdate")
    return type(update) in (Fallback, Elsewhere) or kind == surface or kind in GATED
