"""A command line's programs are never the workspace's: with a relative entry on the agent's
PATH (`.`, `bin`, an empty one, which the kernel reads against the directory a command runs
in: the workspace), a granted `ls` would run the workspace's `./ls`, a program the model can
write without a question. Commands get PATH with its absolute entries only, so a name means
the program the user granted. Through a real `acp`, the sandbox off, `ls` granted the way a
user grants it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.tools.driver import agent, bash
from tests.tools.driver import statuses as prompt

SHADOW = "#!/bin/sh\necho shadow > {canary}\n"


def always(params: dict[str, Any]) -> str:
    return "allow_always"


@pytest.mark.parametrize("entry", [".", "", "bin"], ids=["dot", "empty", "relative"])
def test_a_relative_path_entry_never_chooses_a_commands_program(tmp_path: Path, entry: str) -> None:
    canary = tmp_path / "outside" / "ran"
    canary.parent.mkdir()
    path = os.pathsep.join([entry, os.environ.get("PATH", os.defpath)])
    c = agent(
        tmp_path,
        [bash("ls"), bash("ls -a")],
        env={"REASONIX_ACP_SANDBOX": "off", "PATH": path},
    )
    cwd = Path(c.scenario.vars["CWD"])
    where = cwd / "bin" if entry == "bin" else cwd
    where.mkdir(parents=True, exist_ok=True)
    shadow = where / "ls"
    shadow.write_text(SHADOW.format(canary=canary), encoding="utf-8")
    shadow.chmod(0o755)
    sid = c.start()
    asked, results = prompt(c, sid, always)  # the grant of `ls`, asked once
    assert len(asked) == 1 and results == ["completed"]
    asked, results = prompt(c, sid, always)  # covered by the grant: runs unasked
    assert asked == [] and results == ["completed"]
    assert not canary.exists(), "the workspace's ls ran"
    assert c.close() == 0
