"""A remembered answer or a deny rule covers the whole shell line, through a real `acp`."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests.tools import driver
from tests.tools.driver import agent, bash
from tests.tools.driver import statuses as prompt


def always(params: dict[str, Any]) -> str:
    return "allow_always"


def reject(params: dict[str, Any]) -> str:
    return "reject_once"


def named(question: dict[str, Any], kind: str) -> str:
    """The name of the question's one option of `kind` (one of each kind is offered)."""
    (name,) = [o["name"] for o in question["options"] if o["kind"] == kind]
    return str(name)


def test_a_grant_for_echo_does_not_cover_a_second_command(tmp_path: Path) -> None:
    c = agent(tmp_path, [bash("echo hi"), bash("echo innocent; touch X")])
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    asked, results = prompt(c, sid, always)
    assert len(asked) == 1 and results == ["completed"]
    assert named(asked[0], "allow_always") == "Allow `echo` commands for this session"
    asked, results = prompt(c, sid, reject)
    assert len(asked) == 1, "the line also runs `touch`: it must be asked"
    shown = asked[0]["toolCall"]
    assert shown["rawInput"]["commands"] == ["echo innocent", "touch X"]
    assert "echo innocent · touch X" in shown["title"]
    assert results == ["failed"] and not (cwd / "X").exists()
    assert c.close() == 0


def test_a_grant_covers_a_line_of_granted_commands_only(tmp_path: Path) -> None:
    turns = [bash("echo a && ls"), bash("ls | echo b; echo c"), bash("echo $(touch Y)")]
    c = agent(tmp_path, turns)
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    asked, _ = prompt(c, sid, always)  # remembers `echo` and `ls`
    assert named(asked[0], "allow_always") == "Allow `echo`, `ls` commands for this session"
    asked, results = prompt(c, sid, reject)
    assert asked == [] and results == ["completed"]
    asked, results = prompt(c, sid, reject)
    assert len(asked) == 1 and asked[0]["toolCall"]["rawInput"]["commands"] == ["touch Y", "echo …"]
    assert not (cwd / "Y").exists()
    assert c.close() == 0


def test_a_write_outside_the_workspace_asks_despite_the_grant(tmp_path: Path) -> None:
    c = agent(tmp_path, [bash("echo hi"), bash("echo x > ../outside.txt")])
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    prompt(c, sid, always)
    asked, results = prompt(c, sid, reject)
    assert len(asked) == 1 and results == ["failed"]
    shown = asked[0]["toolCall"]
    assert shown["rawInput"]["writesOutsideWorkspace"] == ["../outside.txt"]
    assert "writes outside the workspace: ../outside.txt" in shown["title"]
    assert "allow_always" not in [o["optionId"] for o in asked[0]["options"]]
    assert not (cwd.parent / "outside.txt").exists()
    assert c.close() == 0


def test_an_unreadable_line_asks_whatever_was_granted(tmp_path: Path) -> None:
    c = agent(tmp_path, [bash("echo hi"), bash('echo "unclosed; touch Z')])
    sid = c.start()
    prompt(c, sid, always)
    asked, results = prompt(c, sid, reject)
    assert len(asked) == 1 and results == ["failed"]
    assert asked[0]["toolCall"]["rawInput"]["unprovable"] == 'an unclosed `"`'
    assert 'not provably safe: an unclosed `"`' in asked[0]["toolCall"]["title"]
    assert c.close() == 0


def test_a_remembered_rejection_of_one_command_refuses_the_line(tmp_path: Path) -> None:
    turns = [bash("touch A"), bash("echo hi; touch B")]
    c = agent(tmp_path, turns)
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    prompt(c, sid, lambda p: "reject_always")
    asked, results = prompt(c, sid, always)
    assert asked == [] and results == ["failed"]
    assert not (cwd / "A").exists() and not (cwd / "B").exists()
    assert c.close() == 0


def test_deny_commands_match_any_command_in_the_line(tmp_path: Path) -> None:
    config = '[permissions]\ndeny_commands = ["rm"]\n'
    lines = ["ls; rm -rf build", "true && sudo rm -rf build", "bash -c 'rm -rf build'"]
    c = agent(tmp_path, [bash(line) for line in lines], config)
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    (cwd / "build").mkdir()
    for _ in lines:
        asked, results = prompt(c, sid, always)
        assert asked == [] and results == ["failed"]
        assert (cwd / "build").is_dir()
    assert c.close() == 0


def test_a_command_that_leaves_a_background_process_finishes_with_the_shell(
    tmp_path: Path,
) -> None:
    command = "echo started; sleep 31.7 &"
    turn = {
        "steps": [
            {"tool_call": {"name": "bash", "arguments": {"command": command, "timeout_ms": 4000}}}
        ]
    }
    c = agent(tmp_path, [turn])
    sid = c.start()
    try:
        _, finals = driver.prompt(c, sid, lambda p: "allow_once")
        [done] = finals
        text = done["content"][0]["content"]["text"]
        assert done["status"] == "completed", done
        assert text.startswith("started\n") and "a background process is still running" in text
        assert done["rawOutput"] == {"exitCode": 0, "truncated": False, "background": True}
        assert c.close() == 0
    finally:
        subprocess.run(["pkill", "-f", "sleep 31.7"], check=False)
