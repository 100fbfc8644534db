"""Three ways past the gate, each through a real `acp` with the sandbox off and the names in the
line granted the way a user grants them (answering a question "allow always"):

- a wrapper carried the command it runs past the rules that command meets standing alone
  (`command test -v 'a[$(…)]'`: bash's `test -v` evaluates the subscript, running what it holds);
- a loop's body was read once, though bash runs it again from where the last pass left the
  shell (`for …; do echo X > F; cd OUTSIDE; done` writes OUTSIDE/F in the second pass);
- `time --` was read as a command named `--`: `deny_commands` missed `time -- rm f`, and a grant
  of `--` ("Allow `--` commands") covered every `time -- X`.

Each must be asked (or denied), with nothing written outside the workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.client import Client
from tests.tools.driver import agent, bash
from tests.tools.driver import statuses as prompt

SANDBOX_OFF = {"REASONIX_ACP_SANDBOX": "off"}


def always(params: dict[str, Any]) -> str:
    return "allow_always"


def reject(params: dict[str, Any]) -> str:
    return "reject_once"


def _granted_then(tmp_path: Path, grant: str, attack: str, config: str = "") -> tuple[Client, str]:
    """An agent whose session answered "allow always" for the names in `grant`, about to run
    `attack` (`OUT` in it: a directory outside the workspace)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    attack = attack.replace("OUT", str(outside))
    c = agent(tmp_path, [bash(grant), bash(attack)], config, env=SANDBOX_OFF)
    sid = c.start()
    asked, results = prompt(c, sid, always)
    assert len(asked) == 1 and results == ["completed"]
    return c, sid


WRAPPED = [
    ("command test -d .", "command test -v 'a[$(touch OUT/made)]'"),
    ("command printf x", "command printf -v 'a[$(touch OUT/made)]' x"),
    ("command command test -d .", "command command test -v 'a[$(touch OUT/made)]'"),
    ("command test -d . && [ -d . ]", "command [ -v 'a[$(touch OUT/made)]' ]"),
]


@pytest.mark.parametrize(("grant", "attack"), WRAPPED, ids=["test", "printf", "nested", "["])
def test_a_wrapped_command_meets_the_rules_it_meets_alone(
    tmp_path: Path, grant: str, attack: str
) -> None:
    c, sid = _granted_then(tmp_path, grant, attack)
    asked, results = prompt(c, sid, reject)
    assert len(asked) == 1, f"{attack!r} ran without a question"
    assert results == ["failed"]
    assert "evaluates a variable name" in asked[0]["toolCall"]["rawInput"]["unprovable"]
    assert not (tmp_path / "outside" / "made").exists()
    assert c.close() == 0


LOOPS = [
    "for i in 1 2; do echo X > F; cd OUT; done",
    "for i in 1 2; do for j in 1; do echo X > F; done; cd OUT; done",
    "until [ -e F ]; do echo X > F; cd OUT; done",
]


@pytest.mark.parametrize("attack", LOOPS, ids=["for", "nested", "until"])
def test_a_loop_is_read_for_every_pass(tmp_path: Path, attack: str) -> None:
    c, sid = _granted_then(tmp_path, "cd . && echo hi && [ -d . ]", attack)
    asked, results = prompt(c, sid, reject)
    assert len(asked) == 1, f"{attack!r} ran without a question"
    assert results == ["failed"]
    assert asked[0]["toolCall"]["rawInput"]["writesOutsideWorkspace"]
    assert not (tmp_path / "outside" / "F").exists()
    assert c.close() == 0


def test_time_dash_dash_is_not_a_command_for_the_deny_rules(tmp_path: Path) -> None:
    c = agent(
        tmp_path,
        [bash("time -- rm f"), bash("time -p -- rm f")],
        '[permissions]\ndeny_commands = ["rm"]\n',
        env=SANDBOX_OFF,
    )
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    (cwd / "f").write_text("kept\n", encoding="utf-8")
    c.result(
        "session/set_config_option",
        {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"},
    )
    for _ in range(2):
        asked, results = prompt(c, sid, always)
        assert asked == [] and results == ["failed"]
        assert (cwd / "f").read_text(encoding="utf-8") == "kept\n"
    assert c.close() == 0


def test_time_dash_dash_is_never_offered_as_a_grant(tmp_path: Path) -> None:
    c = agent(tmp_path, [bash("time -- echo hi"), bash("time -- touch made")], env=SANDBOX_OFF)
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    asked, results = prompt(c, sid, always)
    assert results == ["completed"]
    offered = [o["name"] for o in asked[0]["options"]]
    assert "Allow `echo` commands for this session" in offered, offered
    asked, results = prompt(c, sid, reject)
    assert len(asked) == 1, "`time -- touch` ran under the grant"
    assert results == ["failed"] and not (cwd / "made").exists()
    assert c.close() == 0


@pytest.mark.parametrize(
    "attack",
    ["x=OUT/kept; echo X | tee $x", "echo OUT/kept | xargs tee", "find OUT -exec tee {} \\;"],
    ids=["tee-variable", "xargs-tee", "find-tee"],
)
def test_a_file_written_to_a_path_known_only_when_it_runs_is_checked(
    tmp_path: Path, attack: str
) -> None:
    """Under danger-full-access with deny_paths set, a write whose path the line does not hold
    cannot be checked against them: asked, never run unasked."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kept").write_text("kept\n", encoding="utf-8")
    config = f'[permissions]\ndeny_paths = ["{outside}/**"]\n'
    c = agent(tmp_path, [bash(attack.replace("OUT", str(outside)))], config, env=SANDBOX_OFF)
    sid = c.start()
    c.result(
        "session/set_config_option",
        {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"},
    )
    asked, results = prompt(c, sid, reject)
    assert len(asked) == 1, f"{attack!r} ran without a question"
    assert results == ["failed"]
    assert (outside / "kept").read_text(encoding="utf-8") == "kept\n"
    assert c.close() == 0
