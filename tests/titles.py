"""The titles the agent gives its tool calls and questions, as editors that cut them show them.

CodeCompanion shows a tool call as `Kind: title`, the title cut at its first colon when what
comes before is under 40 characters and no URL follows (`Subagent: read the notes` became
`Think: Subagent`); agent-shell shows a question's title in place of its call's. So a title
puts what matters first, and a colon may come only after it, in a note in parentheses.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def labelled(title: str) -> bool:
    """Whether `title` starts with a label followed by a colon (what such an editor keeps)."""
    head, colon, rest = title.partition(":")
    url = rest.lstrip().startswith(("//", "http://", "https://"))
    return bool(colon) and len(head.strip()) < 40 and "(" not in head and not url


def titles(msg: Any) -> Iterator[str]:
    """The tool-call titles an agent frame carries: its tool calls' and its questions'."""
    params = msg.get("params") if isinstance(msg, dict) else None
    if not isinstance(params, dict):
        return
    for call in (params.get("update"), params.get("toolCall")):
        if isinstance(call, dict) and "toolCallId" in call and isinstance(call.get("title"), str):
            yield call["title"]
