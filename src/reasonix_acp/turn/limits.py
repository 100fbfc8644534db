"""How far one turn may go: model-call rounds, the task budgets of config.toml (time, tokens,
cost), and the size of tool output in one update.

A text is cut only after it is scrubbed of every secret the agent holds (`cap_output`,
`cap_for_model` scrub what they cut, whatever their caller did): a cut made first could end in
half of a secret, or begin with its other half, which no scrub of the cut text would find. The
file that keeps the whole text is scrubbed too (workspace.keep)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reasonix_acp.redact import scrub_known
from reasonix_acp.tools.workspace import keep as keep_file
from reasonix_acp.turn.frames import FRAME_BUDGET

# Bytes of tool output text shown in one tool_call_update; leaves room for the frame around it
# under a 60 KB frame budget.
DEFAULT_OUTPUT_CAP = 48 * 1024
# Bytes of one tool result the model reads, at most; a smaller context takes less (`model_cap`).
DEFAULT_RESULT_CAP = 32 * 1024
# Of a result cut for the model, the share kept from its start; the rest comes from its end,
# where a command's errors and summary usually are.
HEAD_SHARE = 0.6


@dataclass
class Limits:
    """config.toml: max_steps, [budgets] task_seconds, task_tokens, task_cost."""

    max_steps: int = 25
    seconds: float | None = None
    tokens: int | None = None
    cost: float | None = None
    output_cap: int = DEFAULT_OUTPUT_CAP  # bytes of tool output text in one update
    result_cap: int = DEFAULT_RESULT_CAP  # bytes of one tool result in the model's history
    frame_budget: int = FRAME_BUDGET  # bytes of one frame (turn/frames.py)

    def model_cap(self, window: int) -> int:
        """Bytes of one tool result in the model's history: `result_cap`, and no more than about
        a seventh of a `window`-token context (half a byte per token of it), so that no single
        result can fill the context; never under 2 KiB."""
        return max(2048, min(self.result_cap, window // 2))

    def exceeded(self, elapsed: float, tokens: int, cost: float | None) -> str | None:
        """The warning a turn pauses with, once a budget is used up; None while within."""
        if self.seconds is not None and elapsed > self.seconds:
            return f"paused after reaching this task's time budget ({self.seconds:g} s); send a prompt to continue"
        if self.cost is not None and cost is not None and cost > self.cost:
            return f"paused after reaching this task's cost budget ({self.cost:g}); send a prompt to continue"
        if self.tokens is not None and tokens > self.tokens:
            return f"paused after reaching this task's token budget ({self.tokens} tokens); send a prompt to continue"
        return None


def cap_output(
    content: list[dict[str, Any]], cap: int, where: tuple[str, str]
) -> list[dict[str, Any]]:
    """Text content past `cap` bytes is cut, and kept whole (0600) in the file `where` (directory,
    name) the cut names, so no frame grows past what clients accept (some stop at 64 KB)."""
    out = []
    for item in content:
        inner = item.get("content") if item.get("type") == "content" else None
        text = (
            inner.get("text") if isinstance(inner, dict) and inner.get("type") == "text" else None
        )
        if isinstance(text, str):
            shown, data = _over(text, cap)
            if data is not None:
                keep = keep_file(*where, data)
                head = data[:cap].decode("utf-8", "ignore")
                shown = f"{head}\n[output cut at {cap} bytes; the full output is in {keep}]"
            if shown != text:
                item = {"type": "content", "content": {"type": "text", "text": shown}}
        out.append(item)
    return out


def cap_for_model(text: str, cap: int, where: tuple[str, str]) -> str:
    """`text`, or when longer than `cap` bytes its start and its end around a note naming the
    file `where` (directory, name) that keeps the whole text (0600)."""
    text, data = _over(text, cap)
    if data is None:
        return text
    keep = keep_file(*where, data)
    head = int(cap * HEAD_SHARE)
    tail = cap - head
    first = data[:head].decode("utf-8", "ignore")
    last = data[len(data) - tail :].decode("utf-8", "ignore")
    cut = len(data) - head - tail
    return f"{first}\n[... {cut} bytes cut here; the whole result is in {keep}]\n{last}"


def _over(text: str, cap: int) -> tuple[str, bytes | None]:
    """(`text`, None) when it fits in `cap` bytes; else (it scrubbed, its bytes when they are
    still longer than `cap`: the bytes to cut)."""
    if len(text.encode("utf-8", "surrogatepass")) <= cap:
        return text, None
    text = scrub_known(text)
    data = text.encode("utf-8", "surrogatepass")
    return text, data if len(data) > cap else None
