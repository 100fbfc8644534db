"""The transcript in the model's words: prompt content flattened to text, and the chat history
rebuilt from a stored transcript.

Prompt content: `text`; `resource` with embedded text; `resource_link` (a `file://` link to a
regular file inside the workspace is read, without blocking (safe_read.py); any other is passed
to the model as a note naming it and why).

Invariant: every tool call in a history sent to a model is answered. A stored call whose end
was never stored (a process that died mid-call, before the repair at opening) gets a tool reply
saying it was interrupted, so OpenAI-compatible APIs accept the history.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any
from urllib.parse import unquote, urlparse

from reasonix_acp import digests
from reasonix_acp.safe_read import NotRegular, read_regular

log = logging.getLogger("reasonix_acp.session.history")

MAX_LINKED_FILE = 256 * 1024


def _inside(path: str, roots: list[str]) -> bool:
    real = os.path.realpath(path)
    return any(
        os.path.commonpath([real, os.path.realpath(r)]) == os.path.realpath(r) for r in roots
    )


def flatten(blocks: list[dict[str, Any]], roots: list[str], images: bool = False) -> str:
    """The text the model reads of a prompt. `images`: image resource blobs go to the model as
    images (session/images.py), so they are left out here; else each is a note naming it."""
    parts: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            parts.append(block["text"])
        elif kind == "resource":
            res = block["resource"]
            if images and "blob" in res and str(res.get("mimeType") or "").startswith("image/"):
                continue
            if "text" in res:
                parts.append(f'<resource uri="{res["uri"]}">\n{res["text"]}\n</resource>')
            else:
                parts.append(
                    f"[attached binary resource {res['uri']} ({res.get('mimeType') or 'unknown type'}), not shown]"
                )
        elif kind == "resource_link":
            parts.append(_linked(block, roots))
    return "\n\n".join(p for p in parts if p).strip()


def _linked(block: dict[str, Any], roots: list[str]) -> str:
    uri = block["uri"]
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        path = unquote(parsed.path)
        if not _inside(path, roots):
            return f"[linked file {uri} is outside the workspace; not read]"
        try:  # the real path, its links checked above: a FIFO or device is never opened to wait
            _, data = read_regular(os.path.realpath(path), MAX_LINKED_FILE + 1, follow=False)
        except NotRegular as exc:
            return f"[linked file {uri} is {exc.strerror}; not read]"
        except OSError as exc:
            return f"[linked file {uri} could not be read: {exc.strerror}]"
        text = data[:MAX_LINKED_FILE].decode("utf-8", "replace")
        cut = "\n[... cut at 256 KiB]" if len(data) > MAX_LINKED_FILE else ""
        return f'<file uri="{uri}">\n{text}{cut}\n</file>'
    name = block.get("title") or block.get("name") or ""
    return f"[linked resource {uri}{f' ({name})' if name else ''}: not readable by the agent]"


def typed_at(blocks: list[dict[str, Any]]) -> int | None:
    """Where what the user typed is, told apart from the context an editor sends with it:
    editors put context (a rules file, a shared buffer) before the user's words, so the index
    of the prompt's last text block (None: it has none)."""
    texts = [i for i, block in enumerate(blocks) if block.get("type") == "text"]
    return texts[-1] if texts else None


def typed_text(blocks: list[dict[str, Any]]) -> str:
    """What the user typed (`typed_at`), "" when no text block holds it."""
    at = typed_at(blocks)
    return "" if at is None else str(blocks[at].get("text", ""))


def flatten_for_history(blocks: list[dict[str, Any]]) -> str:
    """Stored prompts, as the model saw them (links are not re-read on reload)."""
    return flatten([b for b in blocks if b.get("type") != "resource_link"], []) or " ".join(
        str(b.get("uri", "")) for b in blocks
    )


def history_starts() -> tuple[str, dict[str, Any]]:
    """An empty `history` event, stored before what a turn shows that is not the model's (an
    agent command and its answer, `/compact`'s words): a transcript still read from what it
    showed (`history_from_events`) stops being read that way there, so those never enter the
    history a load rebuilds, as they never entered the live one."""
    return ("history", {"messages": []})


def history_from_events(events: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The model's chat history rebuilt from a stored transcript: exactly the messages the turns
    added (`history` events) and the compactions that replaced the oldest of them. A transcript
    written before `history` events existed has its earlier part read from what it showed (up
    to its first `history` event: every turn stores one before the events read here, an empty
    one where what it shows is not the model's, `history_starts`)."""
    history: list[dict[str, Any]] = []
    answered: dict[str, bool] = {}  # tool call id → its end was stored
    exact = False  # a `history` event was read: from here on only those build the history
    for kind, body in events:
        if kind == "history":
            exact = True
            history.extend(_messages(body))
        elif kind == "compaction":
            history = compacted(history, body)
        elif exact:
            continue
        elif kind == "user_message":
            content = flatten_for_history(body.get("content", []))
            history.append({"role": "user", "content": content})
        elif kind == "goal_continuation":  # a goal's note to the model, never shown
            history.append({"role": "user", "content": str(body.get("text", ""))})
        elif kind == "agent_message":
            if history and history[-1]["role"] == "assistant" and "tool_calls" not in history[-1]:
                history[-1]["content"] = (history[-1]["content"] or "") + body["text"]
            else:
                history.append({"role": "assistant", "content": body["text"]})
        elif kind == "tool_call":
            call_id = body["toolCallId"]
            answered[call_id] = False
            name = str(body.get("x-tool") or body.get("title", ""))
            entry = {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(body.get("rawInput", {}))},
            }
            if history and history[-1]["role"] == "assistant":
                history[-1].setdefault("tool_calls", []).append(entry)
            else:
                history.append({"role": "assistant", "content": None, "tool_calls": [entry]})
        elif (
            kind == "tool_call_update"
            and answered.get(body.get("toolCallId", "")) is False
            and body.get("status") in ("completed", "failed")
        ):
            answered[body["toolCallId"]] = True
            history.append(
                {
                    "role": "tool",
                    "tool_call_id": body["toolCallId"],
                    "content": str(body.get("x-model-text", "")),
                }
            )
    return answer_open_calls(history)


def _messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A `history` event's messages; its body may still be the stored text (session/store.py
    defers it), and a damaged one is skipped with a warning."""
    decoded = body.decoded() if hasattr(body, "decoded") else body
    messages = decoded.get("messages") if decoded is not None else None
    if not isinstance(messages, list):
        log.warning("a stored history event is damaged; its messages are skipped")
        return []
    return [m for m in messages if isinstance(m, dict)]


def compacted(history: list[dict[str, Any]], body: dict[str, Any]) -> list[dict[str, Any]]:
    """The history after a stored compaction: its summary, then the messages it kept, from
    the one `keptFirst` names (by its digest, `message_digest`) to the end; by the count
    `kept` where the event names none (one stored before it did) or that message is not
    found. The kept part never starts with a tool reply: its call would be summarised away."""
    kept = body.get("kept")
    summary = body.get("summary")
    if type(kept) is not int or not isinstance(summary, str) or not 0 <= kept <= len(history):
        return history  # a damaged row: the history stays as it was
    start = len(history) - kept
    first = body.get("keptFirst")
    if kept and isinstance(first, str) and message_digest(history[start]) != first:
        found = [i for i in range(len(history)) if message_digest(history[i]) == first]
        if found:
            log.warning("a compaction's kept part was found by its first message, not its count")
            start = found[-1]
    while start < len(history) and history[start].get("role") == "tool":
        start += 1
    return [summary_message(summary), *history[start:]]


def message_digest(message: dict[str, Any]) -> str:
    """What names a message of the history: a digest of its canonical JSON."""
    text = json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return digests.sha256_hex(text.encode())[:24]


SUMMARY_NOTE = (
    "[The earlier part of this conversation was compacted to save context. "
    "Summary of it, written then:]\n\n"
)


def summary_message(summary: str) -> dict[str, Any]:
    """The message that stands for the compacted part of the history."""
    return {"role": "user", "content": SUMMARY_NOTE + summary}


INTERRUPTED = "interrupted: the call did not finish (the turn was cancelled or stopped)"


def answer_open_calls(
    history: list[dict[str, Any]], reply: str = INTERRUPTED
) -> list[dict[str, Any]]:
    """`history` with a tool reply right after the replies of every assistant message whose
    tool calls are not all answered. Changes `history` in place and returns it."""
    i = 0
    while i < len(history):
        message = history[i]
        i += 1
        if message.get("role") != "assistant" or not message.get("tool_calls"):
            continue
        seen: set[str] = set()
        while i < len(history) and history[i].get("role") == "tool":
            seen.add(str(history[i].get("tool_call_id")))
            i += 1
        missing = [c["id"] for c in message["tool_calls"] if c["id"] not in seen]
        for call_id in missing:
            history.insert(i, {"role": "tool", "tool_call_id": call_id, "content": reply})
            i += 1
    return history
