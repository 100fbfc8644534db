"""A model's reasoning, kept as the provider sent it and sent back where the provider needs it.

Servers stream reasoning in one of three fields of a delta (docs/providers.md, "Reasoning from
other servers"):
`reasoning_content` (DeepSeek, LM Studio, llama.cpp, Moonshot, Qwen on DashScope), `reasoning`
(vLLM >= 0.10, Ollama, OpenRouter) and `reasoning_details` (OpenRouter: a list of typed items,
streamed in pieces by `index`).

Rules:
- What a reply's deltas said is joined per field (strings concatenated; `reasoning_details`
  items merged by `index`, their text joined, other keys as first given, a later `signature`
  winning) and kept on the assistant message under that field, in the order above. The text is
  shown once: `reasoning_content`, else `reasoning`, else the items' text (OpenRouter streams the
  same text in `reasoning` and `reasoning_details`).
- It is sent back on the assistant messages of a *tool stretch*: a message with tool calls, and
  every assistant message after one up to the next user message. DeepSeek refuses (HTTP 400) a
  request in thinking mode that lacks the reasoning of such a message; OpenRouter asks for
  `reasoning_details` back unmodified in tool loops; the others accept it. Elsewhere it is not
  kept in the model's history (the transcript still shows it): DeepSeek ignores it there.
- Whether a message belongs to a tool stretch depends only on it and the messages before it, so
  a message is sent with the same bytes in every later request and the prefix cache holds.
- To a DeepSeek endpoint every assistant message is sent with a `reasoning_content`: where
  none was kept (outside tool stretches; a session stored before reasoning was kept; a reply
  made with thinking off) it is the empty string, which the API accepts (reported by those who
  tested it; some of its checks reject an assistant message without the field, even outside a
  tool stretch). Not a placeholder text: one repeated on every message has been seen to make
  the model answer nothing. Always the same bytes for the same message.
"""

from __future__ import annotations

from typing import Any

FIELDS = ("reasoning_content", "reasoning", "reasoning_details")
# What a DeepSeek endpoint is sent for an assistant message whose reasoning was not kept.
MISSING = ""


class Reasoning:
    """The reasoning of one reply, as its deltas bring it."""

    def __init__(self) -> None:
        self.texts: dict[str, list[str]] = {}  # reasoning_content / reasoning → pieces
        self.details: list[dict[str, Any]] = []  # reasoning_details, pieces merged

    def feed(self, delta: dict[str, Any]) -> str:
        """Take a delta's reasoning; → the text to show of it ("" for none)."""
        shown = ""
        for field in ("reasoning_content", "reasoning"):
            value = delta.get(field)
            if isinstance(value, str) and value:
                self.texts.setdefault(field, []).append(value)
                shown = shown or value
        items = delta.get("reasoning_details")
        if isinstance(items, list):
            said = "".join(self._detail(item) for item in items)
            shown = shown or said
        return shown

    def _detail(self, item: Any) -> str:
        """One streamed `reasoning_details` piece, merged into the item it continues: the last
        one, when the piece names no other `type` or `id` (OpenRouter streams every piece at
        `index` 0, so the index cannot tell items apart). Text is joined, a later `signature`
        or `data` kept, the other keys as first given."""
        if not isinstance(item, dict):
            return ""
        last = self.details[-1] if self.details else None
        same = (
            last is not None
            and item.get("type") in (None, last.get("type"))
            and item.get("id") in (None, last.get("id"))
        )
        if last is None or not same:
            self.details.append(dict(item))
        else:
            for key, value in item.items():
                if key in ("text", "summary") and isinstance(value, str):
                    last[key] = str(last.get(key) or "") + value
                elif key in ("signature", "data") and value:
                    last[key] = value
                else:
                    last.setdefault(key, value)
        return "".join(item[key] for key in ("text", "summary") if isinstance(item.get(key), str))

    def kept(self) -> dict[str, Any]:
        """The fields to keep on the assistant message (empty: the reply had no reasoning)."""
        out: dict[str, Any] = {}
        for field in ("reasoning_content", "reasoning"):
            if field in self.texts:
                out[field] = "".join(self.texts[field])
        if self.details:
            out["reasoning_details"] = list(self.details)
        return out


def in_tool_stretch(history: list[dict[str, Any]], message: dict[str, Any]) -> bool:
    """Whether `message` (an assistant message about to follow `history`) is in a tool
    stretch: it makes tool calls, or one was made since the last user message."""
    if message.get("tool_calls"):
        return True
    for earlier in reversed(history):
        role = earlier.get("role")
        if role == "user":
            return False
        if role == "tool" or (role == "assistant" and earlier.get("tool_calls")):
            return True
    return False


def outgoing(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages as sent to a DeepSeek endpoint: an assistant message without a string
    `reasoning_content` gets `MISSING` (a copy; the history is not changed). → `messages`
    itself when nothing lacks it."""
    out: list[dict[str, Any]] | None = None
    for i, message in enumerate(messages):
        if message.get("role") == "assistant" and not isinstance(
            message.get("reasoning_content"), str
        ):
            if out is None:
                out = list(messages)
            out[i] = _with_empty_reasoning(message)
    return messages if out is None else out


def _with_empty_reasoning(message: dict[str, Any]) -> dict[str, Any]:
    """`message` with `MISSING` as its reasoning, in the place a kept one would have."""
    out: dict[str, Any] = {}
    for key, value in message.items():
        if key == "tool_calls":
            out["reasoning_content"] = MISSING
        if key != "reasoning_content":
            out[key] = value
    out.setdefault("reasoning_content", MISSING)
    return out
