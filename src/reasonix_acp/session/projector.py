"""Transcript events → `session/update` payloads. The live turn and `session/load` replay both
go through `updates`, so what a reload shows is what the turn showed, with one exception: the
user's own words (`user_message`) are replayed but never echoed live, since the client already
shows what its user typed (`live_updates`).

Transcript events (kind, body), as stored:
  user_message      {"content": [ContentBlock, ...]}
  agent_thought     {"text": str}            a run of thought deltas (live: one event per delta)
  agent_message     {"text": str}            a run of reply deltas
  tool_call         {"toolCallId", "title", "kind", "status": "pending", "locations"?, "rawInput"?}
  tool_call_update  {"toolCallId", "status", "content"?, "rawOutput"?, "title"?, "locations"?}
  plan              {"entries": [PlanEntry, ...]}
  extension_surface {"surface": ReasonixExtensionSurface}   (extension_surface.py)
Keys starting with `x-` are kept in the store for the model's history (the tool's name, the text
the model saw) and never sent. Everything the projector emits is a shape of the pinned schema; golden transcripts validate it.
"""

from __future__ import annotations

from typing import Any

REPLAYED = (
    "user_message",
    "agent_thought",
    "agent_message",
    "tool_call",
    "tool_call_update",
    "plan",
    "extension_surface",
)


def updates(kind: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    if kind == "user_message":
        return [
            {"sessionUpdate": "user_message_chunk", "content": block}
            for block in body.get("content", [])
        ]
    if kind in RUN_UPDATES:
        text = body["text"]
        if isinstance(text, str):
            return [chunk(kind, text)]
        return [{"sessionUpdate": RUN_UPDATES[kind], "content": {"type": "text", "text": text}}]
    if kind in ("tool_call", "tool_call_update"):
        return [
            {"sessionUpdate": kind, **{k: v for k, v in body.items() if not k.startswith("x-")}}
        ]
    if kind == "plan":
        return [{"sessionUpdate": "plan", "entries": body.get("entries", [])}]
    if kind == "extension_surface":
        # lazy: start-up
        from reasonix_acp.plugins import surface as extension_surface

        return extension_surface.updates(body["surface"])
    return []


def live_updates(kind: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """What a live turn sends for an event: as replayed, without the user's own words."""
    return [] if kind == "user_message" else updates(kind, body)


# Kinds whose consecutive deltas form one stored event, and the update each delta becomes.
RUN_UPDATES = {"agent_thought": "agent_thought_chunk", "agent_message": "agent_message_chunk"}


class Delta(dict[str, Any]):
    """A text delta's update: a plain dict to everything that reads it, and a type the sender
    recognises at once to write it from a template (service.Sessions.send)."""

    __slots__ = ("text",)
    text: str


def chunk(kind: str, text: str) -> Delta:
    """The update for one delta (the streaming hot path calls this directly)."""
    update = Delta(sessionUpdate=RUN_UPDATES[kind], content={"type": "text", "text": text})
    update.text = text
    return update
