"""How far one turn may go: model-call rounds, the task budgets of config.toml (time, tokens,
cost), and the size of tool output in one update."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reasonix_acp.tools.workspace import keep as keep_file
from reasonix_acp.turn.frames import FRAME_BUDGET

# Bytes of tool output text shown in one tool_call_update; leaves room for the frame around it
# under a 60 KB frame budget.
DEFAULT_OUTPUT_CAP = 48 * 1024


@dataclass
class Limits:
    """config.toml: max_steps, [budgets] task_seconds, task_tokens, task_cost."""

    max_steps: int = 25
    seconds: float | None = None
    tokens: int | None = None
    cost: float | None = None
    output_cap: int = DEFAULT_OUTPUT_CAP  # bytes of tool output text in one update
    frame_budget: int = FRAME_BUDGET  # bytes of one frame (turn/frames.py)

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
        if isinstance(text, str) and len(text.encode()) > cap:
            keep = keep_file(*where, text.encode("utf-8", "surrogatepass"))
            head = text.encode()[:cap].decode("utf-8", "ignore")
            text = f"{head}\n[output cut at {cap} bytes; the full output is in {keep}]"
            item = {"type": "content", "content": {"type": "text", "text": text}}
        out.append(item)
    return out
