"""A file or search tool touches the real path the permission gate judged, the one its question
names (in its title and its locations, a link in its path followed): a link that leads elsewhere by the time the gate judges the call fails it unasked, and
one swapped after the gate judged it (while the question was open, or even unasked, inside the
workspace) fails the run, nothing read, listed or written (tools/base.py `judged_target`). The
same through a real `acp`, the link swapped while the user reads the question:
tests/hostile/test_known.py."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.tools.base import ToolContext, ToolFailed
from reasonix_acp.tools.files import FILE_TOOLS
from reasonix_acp.tools.workspace import Workspace
from reasonix_acp.turn.gate import Gate

TOOLS = {tool.name: tool for tool in FILE_TOOLS}
CALLS = {
    "list": {"path": "keys"},
    "glob": {"pattern": "keys/*"},
    "grep": {"pattern": ".", "path": "keys"},
    "read": {"path": "keys/secret"},
    "write": {"path": "keys/secret", "content": "the model's\n"},
    "edit": {"path": "keys/secret", "edits": [{"old_text": "\n", "new_text": " (edited)\n"}]},
}


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(the workspace, a folder inside it, a private folder outside), each with a `secret`."""
    ws, private = tmp_path / "ws", tmp_path / "private"
    for folder in (ws / "sub", tmp_path / "shared", private):
        folder.mkdir(parents=True)
        (folder / "secret").write_text(f"the text of {folder.name}\n")
    return ws, ws / "sub", private


def swap(link: Path, to: Path) -> None:
    link.unlink(missing_ok=True)
    link.symlink_to(to)


def started(tool: Any, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    """The call as the turn shows it when it starts (turn/tool_calls.py)."""
    return {"title": tool.title(args, context), "locations": tool.locations(args, context)}


@pytest.mark.parametrize("name", CALLS)
def test_the_question_names_in_its_title_the_real_place_a_link_leads_to(
    world: tuple[Path, Path, Path], name: str
) -> None:
    ws, _, private = world
    swap(ws / "keys", private)
    tool, args = TOOLS[name], CALLS[name]
    context = ToolContext(cwd=str(ws), session_id="s", workspace=Workspace(str(ws)))
    real = tool.target(args, context)
    assert real.startswith(str(private)), real
    assert real in tool.title(args, context)
    assert [loc["path"] for loc in tool.locations(args, context)] == [real]


@pytest.mark.parametrize("name", CALLS)
async def test_a_link_swapped_between_the_start_and_the_question_fails_the_call_unasked(
    world: tuple[Path, Path, Path], name: str
) -> None:
    ws, _, private = world
    swap(ws / "keys", ws.parent / "shared")
    asked: list[dict[str, Any]] = []

    async def ask(shown: dict[str, Any], options: list[dict[str, Any]]) -> str:
        asked.append(shown)
        return "allow_once"

    tool, args = TOOLS[name], CALLS[name]
    context = ToolContext(cwd=str(ws), session_id="s", workspace=Workspace(str(ws)))
    shown = started(tool, args, context)
    swap(ws / "keys", private)
    with pytest.raises(ToolFailed, match="a link changed"):
        await Gate(ask=ask).permitted(tool, args, shown, context)
    assert asked == []


@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize("first", ["inside", "outside"])
async def test_a_link_swapped_after_the_gate_judged_the_call_fails_its_run(
    world: tuple[Path, Path, Path], name: str, first: str
) -> None:
    ws, sub, private = world
    swap(ws / "keys", sub if first == "inside" else ws.parent / "shared")
    tool, args = TOOLS[name], CALLS[name]
    context = ToolContext(cwd=str(ws), session_id="s", workspace=Workspace(str(ws)))

    async def ask(shown: dict[str, Any], options: list[dict[str, Any]]) -> str:
        return "allow_once"

    assert await Gate(ask=ask).permitted(tool, args, started(tool, args, context), context)
    swap(ws / "keys", private)  # a background command, between the answer and the run
    with pytest.raises(ToolFailed, match="a link changed"):
        await tool.run(args, context)
    assert (private / "secret").read_text() == "the text of private\n"
    os.unlink(ws / "keys")
