"""A model's reasoning, kept as the provider sent it and sent back where the provider needs it.

Servers stream reasoning in one of three fields of a delta (README "Reasoning round trip"):
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
- A tool-stretch message without reasoning (a session stored before reasoning was kept, a reply
  made with thinking off, another provider's) is sent to a DeepSeek endpoint with a stand-in
  `reasoning_content` (`MISSING`), always the same bytes, so the request is accepted.
"""

from __future__ import annotations

from typing import Any

FIELDS = ("reasoning_content", "reasoning", "reasoning_details")
# What a DeepSeek endpoint is sent for a tool-stretch message whose reasoning was never kept.
MISSING = "(The reasoning of this step was not kept.)"


class Reasoning:
    """The reasoning of one reply, as its deltas bring it."""

    def __init__(self) -> None:
        self.texts: dict[str, list[str]] = {}  # reasoning_content / reasoning → pieces
        self.details: dict[Any, dict[str, Any]] = {}  # reasoning_details by index

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
            said = "".join(self._detail(n, item) for n, item in enumerate(items))
            shown = shown or said
        return shown

    def _detail(self, position: int, item: Any) -> str:
        if not isinstance(item, dict):
            return ""
        index = item.get("index", position)
        kept = self.details.get(index)
        if kept is None:
            self.details[index] = dict(item)
            kept = self.details[index]
        else:
            for key, value in item.items():
                if key in ("text", "summary", "data") and isinstance(value, str):
                    kept[key] = str(kept.get(key) or "") + value
                elif key == "signature" and value:
                    kept[key] = value
                else:
                    kept.setdefault(key, value)
        return "".join(item[key] for key in ("text", "summary") if isinstance(item.get(key), str))

    def kept(self) -> dict[str, Any]:
        """The fields to keep on the assistant message (empty: the reply had no reasoning)."""
        out: dict[str, Any] = {}
        for field in ("reasoning_content", "reasoning"):
            if field in self.texts:
                out[field] = "".join(self.texts[field])
        if self.details:
            out["reasoning_details"] = list(self.details.values())
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
    """The messages as sent to a DeepSeek endpoint: a tool-stretch assistant message without
    `reasoning_content` gets `MISSING` (a copy; the history is not changed). → `messages`
    itself when nothing lacks it (the usual case)."""
    out: list[dict[str, Any]] | None = None
    stretch = False
    for i, message in enumerate(messages):
        role = message.get("role")
        if role == "user":
            stretch = False
        elif role == "tool":
            stretch = True
        elif role == "assistant":
            stretch = stretch or bool(message.get("tool_calls"))
            text = message.get("reasoning_content")
            if stretch and not (isinstance(text, str) and text):
                if out is None:
                    out = list(messages)
                out[i] = _with_stand_in(message)
    return messages if out is None else out


def _with_stand_in(message: dict[str, Any]) -> dict[str, Any]:
    """`message` with `MISSING` as its reasoning, in the place a kept one would have."""
    out: dict[str, Any] = {}
    for key, value in message.items():
        if key == "tool_calls":
            out["reasoning_content"] = MISSING
        if key != "reasoning_content":
            out[key] = value
    out.setdefault("reasoning_content", MISSING)
    return out
