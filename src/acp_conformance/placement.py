"""Which reply of the scripted model's script answers a request: by the request's place in the
conversation, never by the order requests arrive in (agents ask the model on the side, retry,
ask in the background).

The script is cut into turns: a reply that makes a tool call goes on with the same turn, any
other reply ends it. The runner says when it sends a session/prompt (`new_turn`); within the
turn, a request's step is how many more assistant messages it carries than the turn's first
request did (each reply given comes back as one assistant message, its tool results after it).
A search the model made for a tool the agent hides (`detour`) is a step the script does not
count. A retry of the same request gets the same reply; a step past the turn's replies takes the next
ones of the script (a steer's follow-up); past the script's end, or in a turn the script
does not have, the last reply.
"""

from __future__ import annotations

from typing import Any


def _assistant_messages(messages: Any) -> int:
    if not isinstance(messages, list):
        return 0
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")


def turn_starts(script: list[list[dict[str, Any]]]) -> list[int]:
    """The index of each turn's first reply."""
    starts, index = [0], 0
    for index, reply in enumerate(script[:-1]):
        if not any("call" in action for action in reply):
            starts.append(index + 1)
    return starts


class Placement:
    def __init__(self, script: list[list[dict[str, Any]]]) -> None:
        self.last = len(script) - 1
        self.starts = turn_starts(script)
        self.turn = -1  # before the first prompt the runner sent: turn 0 all the same
        self.baseline: int | None = None  # assistant messages in the turn's first request
        self.searched: set[str] = set()  # tools searched for in this turn

    def new_turn(self) -> None:
        self.turn += 1
        self.baseline = None
        self.searched = set()

    def detour(self, wanted: str) -> bool:
        """Whether to search for the tool `wanted` first: once a turn; the search's reply then
        takes no place in the script."""
        if wanted in self.searched:
            return False
        self.searched.add(wanted)
        return True

    def index(self, messages: Any) -> int:
        seen = _assistant_messages(messages)
        if self.baseline is None:
            self.baseline = seen
        if self.turn >= len(self.starts):  # more prompts than the script has turns
            return self.last
        step = max(seen - self.baseline - len(self.searched), 0)
        return min(self.starts[max(self.turn, 0)] + step, self.last)
