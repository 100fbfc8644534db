"""Checks on a conversation taken from a point named by a message id (a fork or a rewind at a
reply): what the agent sends the scripted model afterwards, and what the session list shows.

A prompt's request is the first request to the scripted model whose last user message holding
the prompt's text (`prompt`) is its prompt; where the agent offers its model tools, only the
requests that offer them count (a title asked beside the turn is not the turn's). The history
is what comes before that user message.

Turn kinds (`await` steps, on the model's requests so far): `history_kept` (every text of
`kept` is in a message of the history: the turn up to and including the message named),
`history_cut` (no text of `cut` is: nothing after it), `history_same` (the history is, message
for message, the one the request of the prompt `source` had: the agent sends the turns it kept
as it sent them then). Each is SKIP where no request holds the prompt (the agent never asked the
model for it). On a response: `only_these` (every item of the list at `path` has its `key` among
`values`: no session the client was not told of).

`capture_from` (an await step's `{"name": "reply_id" | "user_message_id"}`): the messageId of the
step's last agent_message_chunk (the reply that ends the turn) or of its first
user_message_chunk (a load's replay of the first prompt); SKIP for the rest of the scenario
where no such chunk carried one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from acp_conformance.checks import NotApplicable, at, brief, obj
from acp_conformance.results import Skip
from acp_conformance.turn_checks import Turn


def _text(message: dict[str, Any]) -> str:
    """A message's text: a string content, or the text of its parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "\n".join(str(obj(p).get("text", "")) for p in parts)


def _turn_requests(turn: Turn) -> list[list[dict[str, Any]]]:
    """The messages of each request to the scripted model that may be a turn's, in order."""
    if turn.model is None:
        return []
    requests = list(turn.model.requests)
    tooled = [r for r in requests if isinstance(r.get("tools"), list) and r["tools"]]
    found = []
    for request in tooled or requests:
        messages = request.get("messages")
        if isinstance(messages, list):
            found.append([obj(m) for m in messages])
    return found


def history(turn: Turn, prompt: str) -> list[dict[str, Any]]:
    """The messages before the prompt `prompt` in the first request that holds it as its last
    user message (NotApplicable where none does)."""
    for messages in _turn_requests(turn):
        users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
        if users and prompt in _text(messages[users[-1]]):
            return messages[: users[-1]]
    raise NotApplicable(f"the agent never asked the scripted model with the prompt {prompt!r}")


def _said(messages: list[dict[str, Any]]) -> list[str]:
    return [_text(m) for m in messages if m.get("role") != "system"]


def _history_kept(turn: Turn, args: dict[str, Any]) -> str:
    said = _said(history(turn, args["prompt"]))
    lacking = [text for text in args["kept"] if not any(text in s for s in said)]
    if lacking:
        return f"the request for {args['prompt']!r} lacks {lacking} before it: {brief(said)}"
    return ""


def _history_cut(turn: Turn, args: dict[str, Any]) -> str:
    said = _said(history(turn, args["prompt"]))
    kept = [text for text in args["cut"] if any(text in s for s in said)]
    if kept:
        return f"the request for {args['prompt']!r} still holds {kept}, from after the point"
    return ""


def _history_same(turn: Turn, args: dict[str, Any]) -> str:
    now, then = history(turn, args["prompt"]), history(turn, args["source"])
    if now == then:
        return ""
    for index, (got, had) in enumerate(zip(now, then, strict=False)):
        if got != had:
            return f"message {index} of the history differs: {brief(got)}, was {brief(had)}"
    return f"the history has {len(now)} messages, the source sent {len(then)}"


def _only_these(frame: dict[str, Any], args: dict[str, Any]) -> str:
    try:
        items = at(frame, args["path"])
    except KeyError:
        return f"{args['path']} is missing"
    keys = [obj(i).get(args["key"]) for i in items] if isinstance(items, list) else []
    others = [k for k in keys if k not in args["values"]]
    return f"{args['path']} also lists {args['key']} {brief(others)}" if others else ""


CHECKS: dict[str, Callable[[Turn, dict[str, Any]], str]] = {
    "history_kept": _history_kept,
    "history_cut": _history_cut,
    "history_same": _history_same,
}

ON_RESPONSE: dict[str, Callable[[dict[str, Any], dict[str, Any]], str]] = {
    "only_these": _only_these,
}


def _chunk_id(notes: list[dict[str, Any]], kind: str, last: bool) -> str:
    """The messageId of the last (or first) chunk of `kind` among `notes`; Skip where none."""
    ids = [
        obj(obj(n.get("params")).get("update")).get("messageId")
        for n in notes
        if n.get("method") == "session/update"
        and obj(obj(n.get("params")).get("update")).get("sessionUpdate") == kind
    ]
    if not ids:
        raise Skip(f"no {kind} came: no message id to name")
    found = ids[-1] if last else ids[0]
    if not isinstance(found, str) or not found:
        which = "last" if last else "first"
        raise Skip(f"the {which} {kind} carried no messageId ({json.dumps(found)}) to name")
    return found


# What `capture_from` may keep of a step: (its response, its notifications) → a value.
CAPTURES: dict[str, Callable[[dict[str, Any], list[dict[str, Any]]], Any]] = {
    "reply_id": lambda response, notes: _chunk_id(notes, "agent_message_chunk", True),
    "user_message_id": lambda response, notes: _chunk_id(notes, "user_message_chunk", False),
}
