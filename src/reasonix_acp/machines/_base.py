"""House defaults for every machine, the typed refusal, and the table checks tests run.

Machines are plain `transitions.Machine`s (never AsyncMachine: it cancels callbacks in flight
when a new event arrives, which is wrong for `session/cancel`), with `auto_transitions=False` so
the only moves are the ones in the table. A trigger that is illegal in the current state raises
`TransitionRefused` and leaves the state as it was. Machines do no I/O; their callers do.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from enum import Enum

from transitions import Machine, MachineError

from reasonix_acp.protocol.errors import StateError

# transitions logs every refused trigger at INFO before raising; the refusal is ours to report.
logging.getLogger("transitions").setLevel(logging.WARNING)

Row = tuple[str, Sequence[Enum] | Enum, Enum]  # (trigger, source state(s), destination)


class TransitionRefused(StateError):
    """-32600: the method is not allowed in the current state; the message names the state."""

    def __init__(self, message: str, state: Enum, trigger: str) -> None:
        super().__init__(message)
        self.state = state
        self.trigger = trigger


def stay(trigger: str, states: Sequence[Enum]) -> list[Row]:
    """Rows that admit `trigger` in each of `states` and leave the state as it is."""
    return [(trigger, state, state) for state in states]


def _sources(row: Row) -> list[Enum]:
    src = row[1]
    return [src] if isinstance(src, Enum) else list(src)


class StateMachine:
    """Owns one transitions.Machine over itself; subclasses set STATES, TRANSITIONS, INITIAL."""

    STATES: type[Enum]
    TRANSITIONS: list[Row]
    INITIAL: Enum
    NAME: str

    state: Enum

    def __init__(self) -> None:
        Machine(
            model=self,
            states=list(self.STATES),
            transitions=[
                {"trigger": t, "source": _sources((t, src, dst)), "dest": dst}
                for t, src, dst in self.TRANSITIONS
            ],
            initial=self.INITIAL,
            auto_transitions=False,
            ignore_invalid_triggers=False,
            send_event=False,
        )

    def fire(self, trigger: str, refusal: str) -> None:
        """Move by `trigger`, or raise TransitionRefused with `refusal` (formatted with
        {state}) and leave the state unchanged."""
        before = self.state
        try:
            self.trigger(trigger)  # type: ignore[attr-defined]
        except MachineError:
            self.state = before
            raise TransitionRefused(refusal.format(state=before.value), before, trigger) from None

    def can(self, trigger: str) -> bool:
        return any(
            t == trigger and self.state in _sources((t, s, d)) for t, s, d in self.TRANSITIONS
        )


def check_table(states: type[Enum], rows: Iterable[Row], initial: Enum) -> list[str]:
    """Problems with a table: unknown states, unreachable states, duplicate (trigger, source)."""
    problems: list[str] = []
    rows = list(rows)
    seen: set[tuple[str, Enum]] = set()
    edges: dict[Enum, set[Enum]] = {s: set() for s in states}
    for trigger, _src, dst in rows:
        for src in _sources((trigger, _src, dst)):
            if src not in edges or dst not in edges:
                problems.append(f"{trigger}: {src} -> {dst} names an unknown state")
                continue
            if (trigger, src) in seen:
                problems.append(f"{trigger} from {src.value} has two destinations")
            seen.add((trigger, src))
            edges[src].add(dst)
    reached = {initial}
    frontier = [initial]
    while frontier:
        for nxt in edges.get(frontier.pop(), ()):
            if nxt not in reached:
                reached.add(nxt)
                frontier.append(nxt)
    problems += [
        f"{s.value} is unreachable from {initial.value}" for s in states if s not in reached
    ]
    return problems


def mermaid(states: type[Enum], rows: Iterable[Row], initial: Enum) -> str:
    lines = ["stateDiagram-v2", f"    [*] --> {initial.value}"]
    for trigger, src, dst in rows:
        for s in _sources((trigger, src, dst)):
            lines.append(f"    {s.value} --> {dst.value}: {trigger}")
    return "\n".join(lines) + "\n"
