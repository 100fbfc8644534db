"""A git configuration the agent cannot judge completely (here the user's own alias whose
command has a word known only when it runs, `$(git branch --show-current)`) makes every write
in the workspace ask: git might run a file of it. The user can answer once for the session:
"Allow while git's configuration stays as it is", which covers every write and command line
asked for that reason alone — never a write into a `.git` or a place the configuration names,
and never after the configuration changed (the reason names what it could not read). Through a
real `acp` (the offline model), workspace-write."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from tests.tools.driver import agent, bash, call, prompt

ALIAS = "!git push -u origin $(git branch --show-current)"


def choose(option: str, seen: list[dict[str, Any]]) -> Any:
    def answer(params: dict[str, Any]) -> str:
        seen.append(params)
        ids = [o["optionId"] for o in params["options"]]
        return option if option in ids else "reject_once"

    return answer


def test_a_config_that_cannot_be_judged_asks_once_for_the_session(tmp_path: Path) -> None:
    home = tmp_path / "user-home"
    home.mkdir()
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / "xdg"), "GIT_CONFIG_NOSYSTEM": "1"}
    turns = [
        call("write", path="a.txt", content="one\n"),
        call("write", path="b.txt", content="two\n"),
        bash("echo three > c.txt"),
        call("write", path=".git/hooks/pre-commit", content="#!/bin/sh\ntouch PWNED\n"),
    ]
    c = agent(tmp_path, turns, env={**env, "REASONIX_ACP_SANDBOX": "off"})
    cwd = Path(c.scenario.vars["CWD"])
    git_env = {**os.environ, **env}
    subprocess.run(["git", "init", "-q", str(cwd)], check=True, env=git_env)
    subprocess.run(["git", "config", "--global", "alias.pb", ALIAS], check=True, env=git_env)
    sid = c.start()
    seen: list[dict[str, Any]] = []
    asked, _ = prompt(c, sid, choose("allow_always_unjudged", seen))
    assert len(asked) == 1 and (cwd / "a.txt").read_text() == "one\n"
    (question,) = seen
    assert "git's configuration cannot be read" in str(question["toolCall"])
    asked, _ = prompt(c, sid, choose("reject_once", seen))
    assert asked == [] and (cwd / "b.txt").read_text() == "two\n"
    asked, _ = prompt(c, sid, choose("allow_always", seen))  # `echo` itself is asked
    assert len(asked) == 1
    assert "allow_always_unjudged" not in [o["optionId"] for o in asked[0]["options"]]
    asked, _ = prompt(c, sid, choose("allow_always_unjudged", seen))
    assert len(asked) == 1, "a write into .git was covered by the session's answer"
    assert "allow_always_unjudged" not in [o["optionId"] for o in asked[0]["options"]]
    assert not (cwd / ".git" / "hooks" / "pre-commit").exists()
    assert c.close() == 0
