"""A grant covers a command inside the workspace only, through a real `acp` with the sandbox off
(what every user without bubblewrap gets) and the names in the line granted the way a user
grants them (answering a question "allow always"): a granted program's arguments that name a
place outside the session's roots (an outside directory to `rm`, an outside target to `cp`, a
key under the home directory to `cat`, a `..` after `cd`, a link the line makes to outside)
are asked, the question naming those places, and nothing outside changes or is shown."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.client import Client
from tests.tools.driver import agent, bash
from tests.tools.driver import statuses as prompt

SANDBOX_OFF = {"REASONIX_ACP_SANDBOX": "off"}
CANARY = "canary-private-key-7f3a"


def always(params: dict[str, Any]) -> str:
    return "allow_always"


def reject(params: dict[str, Any]) -> str:
    return "reject_once"


def _outside(tmp_path: Path) -> Path:
    """A directory outside the workspace holding a file, and a home directory with a key."""
    outside = tmp_path / "outside"
    (outside / "project-elsewhere").mkdir(parents=True)
    (outside / "project-elsewhere" / "kept").write_text("kept\n", encoding="utf-8")
    (tmp_path / "home" / ".ssh").mkdir(parents=True)
    (tmp_path / "home" / ".ssh" / "id_ed25519").write_text(CANARY + "\n", encoding="utf-8")
    return outside


def _snapshot(root: Path, skip: Path) -> dict[str, bytes]:
    """Every path under `root` but `skip` (the workspace, the agent's data), with its bytes."""
    found: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        if skip in path.parents or path == skip or "data" in path.relative_to(root).parts:
            continue
        found[str(path)] = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
    return found


CASES = [
    ("rm -f scratch", "rm -rf OUT/project-elsewhere"),
    ("cp notes.txt copy.txt", "cp notes.txt OUT/project-elsewhere/f"),
    ("cat notes.txt", "cat HOME/.ssh/id_ed25519"),
    ("cd . && touch made", "cd .. && touch f"),
    ("ln -s notes.txt l0 && touch made", "ln -s OUT l && touch l/f"),
]


@pytest.mark.parametrize(("grant", "attack"), CASES, ids=["rm", "cp", "cat", "cd", "ln"])
def test_a_granted_command_naming_a_place_outside_is_asked(
    tmp_path: Path, grant: str, attack: str
) -> None:
    outside = _outside(tmp_path)
    home = tmp_path / "home"
    line = attack.replace("OUT", str(outside)).replace("HOME", str(home))
    c = agent(tmp_path, [bash(grant), bash(line)], env={**SANDBOX_OFF, "HOME": str(home)})
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    asked, results = prompt(c, sid, always)
    assert len(asked) == 1 and results == ["completed"], (asked, results)
    before = _snapshot(tmp_path, cwd)
    asked, results = prompt(c, sid, reject)
    assert len(asked) == 1, f"{line!r} ran without a question under the grant of {grant!r}"
    assert results == ["failed"]
    shown = asked[0]["toolCall"]
    named = shown["rawInput"]["namesOutsideWorkspace"]
    assert named and "names places outside the workspace: " in shown["title"], shown
    offered = [o["name"] for o in asked[0]["options"]]
    assert not any("commands for this session" in o and "Allow" in o for o in offered), offered
    assert _snapshot(tmp_path, cwd) == before
    _never_shown(c, tmp_path)
    assert c.close() == 0


def _never_shown(c: Client, tmp_path: Path) -> None:
    """The key's bytes reached neither the client nor the stored session the model reads."""
    assert CANARY not in repr(c.notes)
    for root, _, files in os.walk(tmp_path / "data"):
        for name in files:
            assert CANARY.encode() not in (Path(root) / name).read_bytes(), name


def test_the_same_commands_inside_still_run_under_their_grants(tmp_path: Path) -> None:
    """What the grants were given for: the same programs on places in the workspace."""
    lines = [
        "rm -rf build",
        "cp notes.txt build2/f || cp notes.txt f2",
        "cat notes.txt",
        "cd sub && touch f",
        "ln -s notes.txt l && touch l",
    ]
    grant = "rm -f x; cp notes.txt y; cat notes.txt; cd . && touch z; ln -s notes.txt w"
    c = agent(tmp_path, [bash(grant), *(bash(line) for line in lines)], env=SANDBOX_OFF)
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    (cwd / "build").mkdir()
    (cwd / "sub").mkdir()
    asked, _ = prompt(c, sid, always)
    assert len(asked) == 1
    for line in lines:
        asked, results = prompt(c, sid, reject)
        assert asked == [], f"{line!r} was asked: {asked[0]['toolCall']['title']}"
        assert results == ["completed"], line
    assert not (cwd / "build").exists() and (cwd / "sub" / "f").exists()
    assert c.close() == 0
