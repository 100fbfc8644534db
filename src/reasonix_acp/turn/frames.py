"""Every frame the agent sends stays under the frame budget (60 KB unless config.toml's
`frame_budget_bytes` says otherwise): some clients drop a longer line, some stop reading.

A tool call or update over the budget has its longest strings cut (a 200 KB `write` shows a
cut `rawInput.content` and a cut diff), each cut saying so and naming the file in the session's
temp directory that keeps the whole text (0600). What the model sees is not cut here: `x-` keys,
which never reach the wire, are left alone and not counted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from reasonix_acp.tools.workspace import keep

FRAME_BUDGET = 60 * 1024
ENVELOPE = 1024  # the JSON-RPC notification and session id around an update
NOTE_ROOM = 400  # bytes a cut's note may take


def size(node: Any) -> int:
    return len(json.dumps(node, ensure_ascii=False, separators=(",", ":")).encode())


def _strings(node: Any) -> Iterator[tuple[Any, Any, str]]:
    """(container, key, value) for every string in `node`."""
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, value in items:
        if isinstance(value, str):
            yield node, key, value
        elif isinstance(value, dict | list):
            yield from _strings(value)


def fit(update: dict[str, Any], budget: int, where: tuple[str, str]) -> dict[str, Any]:
    """`update` as sent: unchanged when its wire part fits in `budget` bytes with the envelope,
    else a copy with its longest strings cut, each kept whole in `where` (directory, name
    prefix)."""
    wire = {k: v for k, v in update.items() if not k.startswith("x-")}
    limit = max(budget - ENVELOPE, 2 * NOTE_ROOM)
    over = size(wire) - limit
    if over <= 0:
        return update
    wire = json.loads(json.dumps(wire))  # a copy: the caller's objects stay whole
    leaves = sorted(_strings(wire), key=lambda leaf: -len(leaf[2]))
    directory, prefix = where
    for n, (container, key, value) in enumerate(leaves):
        if over <= 0:
            break
        encoded = size(value)
        if encoded <= NOTE_ROOM:
            break
        path = keep(directory, f"{prefix}-{n}.txt", value.encode("utf-8", "surrogatepass"))
        kept = int(len(value) * max(encoded - over - NOTE_ROOM, 0) / encoded)
        while True:  # escapes and wide characters make the first guess a little long
            cut = value[:kept] + (
                f"\n[cut at {kept} of {len(value)} characters to fit a frame; "
                f"the whole text is in {path}]"
            )
            if encoded - size(cut) >= over or kept == 0:
                break
            kept = kept * 3 // 4
        container[key] = cut
        over -= encoded - size(cut)
    return {**wire, **{k: v for k, v in update.items() if k.startswith("x-")}}
