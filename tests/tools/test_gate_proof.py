"""Lines that ran with no question although the user had not approved what they run, each
through a real `acp` with the sandbox off: the gate now reads a line completely (the provable
language, command_proof/proof.py) in the shell that runs it, or asks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.client import Client
from tests.tools.driver import agent, bash, prompt


def always(params: dict[str, Any]) -> str:
    return "allow_always"


def reject(params: dict[str, Any]) -> str:
    return "reject_once"


def full_access(c: Client, sid: str) -> None:
    c.result(
        "session/set_config_option",
        {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"},
    )


def _granted_then(tmp_path: Path, line: str, config: str = "") -> tuple[Client, str, Path]:
    """An agent whose session allowed `echo` always, about to run `line`."""
    c = agent(tmp_path, [bash("echo hi"), bash(line)], config)
    sid = c.start()
    asked, _ = prompt(c, sid, always)
    assert len(asked) == 1
    return c, sid, Path(c.scenario.vars["CWD"])


def _asked_and_refused(c: Client, sid: str) -> dict[str, Any]:
    asked, results = prompt(c, sid, reject)
    assert len(asked) == 1, "the line runs more than `echo`: it must be asked"
    assert [r["status"] for r in results] == ["failed"]
    question: dict[str, Any] = asked[0]["toolCall"]
    return question


def test_a_line_dash_reads_differently_is_asked(tmp_path: Path) -> None:
    """`$'…'` is one `echo` to bash's grammar and three commands to dash: the line runs in
    bash now, and an ANSI-C string is outside the provable language anyway."""
    c, sid, cwd = _granted_then(tmp_path, "echo $'\\' ; touch X ; echo \\'' #'")
    question = _asked_and_refused(c, sid)
    assert question["rawInput"]["unprovable"].startswith("an expansion (`$`)")
    assert not (cwd / "X").exists()
    assert c.close() == 0


def test_a_path_through_dev_fd_is_judged_where_it_leads(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = f"/dev/fd/../../..{outside}/planted"
    c, sid, _ = _granted_then(tmp_path, f"echo x > {target}")
    question = _asked_and_refused(c, sid)
    assert question["rawInput"]["writesOutsideWorkspace"] == [target]
    assert not (outside / "planted").exists()
    assert c.close() == 0


BASH_ONLY = [
    ("echo x > ~+/../above", "above"),
    ("x='a[$(touch ran)]'; echo $((x))", "ran"),
    ("x='a[$(touch ran)]'; echo a; [[ $x -eq 0 ]]", "ran"),
    ("x='a[$(touch ran)]'; echo a; (( x ))", "ran"),
    ("echo a; test -v 'a[$(touch ran)]'", "ran"),
    ("x='$(touch ran)'; echo ${x@P}", "ran"),
]


@pytest.mark.parametrize(("line", "made"), BASH_ONLY)
def test_bash_expansions_that_run_a_hidden_command_are_asked(
    tmp_path: Path, line: str, made: str
) -> None:
    c = agent(tmp_path, [bash("echo hi"), bash(line)], 'shell = "/bin/bash"\n')
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    asked, _ = prompt(c, sid, always)  # `echo` allowed for the session
    assert len(asked) == 1
    _asked_and_refused(c, sid)
    assert not (cwd / made).exists() and not (cwd.parent / made).exists()
    assert c.close() == 0


LATER = [
    "trap 'touch X' EXIT",
    "alias x=touch\nx X",
    "echo $'\\' ; touch X ; echo \\'' #'",
    'c=tou; trap "${c}ch X" EXIT',
    "c=tou; alias x=${c}ch\nx X",
]


@pytest.mark.parametrize("line", LATER)
def test_deny_commands_hold_for_what_the_shell_runs_later(tmp_path: Path, line: str) -> None:
    """Under danger-full-access a line the gate cannot read completely is refused when it
    names a denied command anywhere, and asked otherwise (it cannot be checked against the
    rule): never run without a question."""
    c = agent(tmp_path, [bash(line)], '[permissions]\ndeny_commands = ["touch"]\n')
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    full_access(c, sid)
    asked, results = prompt(c, sid, reject)
    assert [r["status"] for r in results] == ["failed"]
    text = results[0]["content"][0]["content"]["text"]
    if "touch" in line:
        assert asked == [] and "`touch` is in deny_commands" in text
    else:
        assert len(asked) == 1
        reason = asked[0]["toolCall"]["rawInput"]["unprovable"]
        assert reason.startswith("cannot be checked against deny_commands: ")
    assert not (cwd / "X").exists()
    assert c.close() == 0


def test_a_provable_line_under_full_access_with_deny_rules_runs(tmp_path: Path) -> None:
    c = agent(tmp_path, [bash("echo ok > out.txt && cat out.txt")], 'deny_commands = ["rm"]\n')
    sid = c.start()
    full_access(c, sid)
    asked, results = prompt(c, sid, reject)
    assert asked == [] and [r["status"] for r in results] == ["completed"]
    assert c.close() == 0


def test_an_unprovable_line_offers_no_always(tmp_path: Path) -> None:
    """An "always" answer could only cover the line by its text; for a line the gate cannot
    read, that would be a grant of whatever it does next time: only once, and reject."""
    c = agent(tmp_path, [bash("select f in a b; do echo $f; done")])
    sid = c.start()
    asked, _ = prompt(c, sid, reject)
    kinds = [o["optionId"] for o in asked[0]["options"]]
    assert kinds == ["allow_once", "reject_once", "reject_always"]
    title = asked[0]["toolCall"]["title"]
    assert "not provably safe: the reserved word `select` where a command should be" in title
    assert c.close() == 0


def test_another_shell_makes_every_line_ask(tmp_path: Path) -> None:
    """The gate reads bash only: with `shell = "/bin/sh"` a grant covers nothing, and the
    question says why."""
    c = agent(tmp_path, [bash("echo hi"), bash("echo hi")], 'shell = "/bin/sh"\n')
    sid = c.start()
    asked, results = prompt(c, sid, lambda params: "allow_once")
    assert len(asked) == 1 and [r["status"] for r in results] == ["completed"]
    assert [o["optionId"] for o in asked[0]["options"]] == [
        "allow_once",
        "reject_once",
        "reject_always",
    ]
    asked, results = prompt(c, sid, reject)
    assert len(asked) == 1 and [r["status"] for r in results] == ["failed"]
    assert asked[0]["toolCall"]["rawInput"]["unprovable"] == "commands run in /bin/sh, not bash"
    assert c.close() == 0
