"""Every machine's table: known states, everything reachable, one destination per trigger and
source, no auto transitions; its Mermaid drawing is pinned and docs/machines.md is current."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.machines import inbox, session, steer, turn
from reasonix_acp.machines._base import StateMachine, check_table, mermaid

MACHINES: list[type[StateMachine]] = [
    session.SessionMachine,
    turn.TurnMachine,
    inbox.InboxMachine,
    inbox.ItemMachine,
    steer.SteerMachine,
]
DOCS = Path(__file__).resolve().parents[2] / "docs" / "machines.md"


def render_docs() -> str:
    parts = [
        "# State machines\n\nGenerated from the TRANSITIONS tables by `python -m tests.machines.test_tables`.\n"
    ]
    for m in MACHINES:
        parts.append(
            f"\n## {m.NAME}\n\n```mermaid\n{mermaid(m.STATES, m.TRANSITIONS, m.INITIAL)}```\n"
        )
    return "".join(parts)


@pytest.mark.parametrize("machine", MACHINES, ids=lambda m: m.NAME)
def test_table_is_sound(machine: type[StateMachine]) -> None:
    assert check_table(machine.STATES, machine.TRANSITIONS, machine.INITIAL) == []


@pytest.mark.parametrize("machine", MACHINES, ids=lambda m: m.NAME)
def test_no_auto_transitions(machine: type[StateMachine]) -> None:
    instance = machine()
    assert not [n for n in dir(instance) if n.startswith("to_")]


@pytest.mark.parametrize("machine", MACHINES, ids=lambda m: m.NAME)
def test_diagram(machine: type[StateMachine], snapshot: Any) -> None:
    assert mermaid(machine.STATES, machine.TRANSITIONS, machine.INITIAL) == snapshot


def test_docs_are_current() -> None:
    assert DOCS.read_text(encoding="utf-8") == render_docs(), (
        "run python -m tests.machines.test_tables"
    )


def test_check_table_finds_problems() -> None:
    from enum import Enum

    class S(Enum):
        A = "a"
        B = "b"
        C = "c"

    rows = [("go", S.A, S.B), ("go", S.A, S.C)]
    problems = check_table(S, rows, S.A)
    assert "go from a has two destinations" in problems


if __name__ == "__main__":
    DOCS.parent.mkdir(exist_ok=True)
    DOCS.write_text(render_docs(), encoding="utf-8")
