"""What a sandboxed command (run with no question under workspace-write) may not touch, through
a real `acp` and a real bwrap: the files the host's git runs (`.git/config`, `.git/hooks`),
other sessions' temp directories wherever TMPDIR points; and what it must still see: the
toolchain PATH names under /tmp. Skipped where bwrap does not work (failed in CI instead)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.tools.sandbox import Engine
from tests.tools.driver import agent, bash, prompt
from tests.tools.test_sandbox import SANDBOX_ON, bwrap, outside, start, text_of

__all__ = ["bwrap", "outside"]  # the fixtures, used by name


def reject(params: dict[str, Any]) -> str:
    return "reject_once"


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_hosts_git_files_are_read_only_in_the_sandbox(tmp_path: Path, bwrap: Engine) -> None:
    attempts = [
        "cat .git/config",
        "echo '[core]' >> .git/config && echo '  fsmonitor = touch PLANTED' >> .git/config",
        "echo 'touch PLANTED' > .git/hooks/pre-commit",
        "git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x",
        "echo fine > tracked.txt",
    ]
    c = agent(tmp_path, [bash(a) for a in attempts], env=SANDBOX_ON)
    sid, cwd = start(c)
    _git(cwd, "init", "-q")
    config = (cwd / ".git" / "config").read_text()
    results: list[dict[str, Any]] = []
    offers: list[dict[str, Any]] = []
    for _ in attempts:
        asked, done = prompt(c, sid, reject)
        offers += asked
        results += done
    assert [r["status"] for r in results] == [
        "completed",
        "failed",
        "failed",
        "failed",
        "completed",
    ]
    assert "[core]" in text_of(results[0])  # readable
    # each refused write is offered once for a run outside, the user's to decide
    assert len(offers) == 3
    assert all("sandboxBlocked" in o["toolCall"]["rawInput"] for o in offers)
    assert (cwd / ".git" / "config").read_text() == config
    assert not (cwd / ".git" / "hooks" / "pre-commit").exists()
    assert _git(cwd, "rev-list", "--all") == ""  # the commit did not happen
    assert (cwd / "tracked.txt").read_text() == "fine\n"
    assert not (cwd / "PLANTED").exists()
    assert c.close() == 0


def test_other_sessions_temp_directories_are_hidden_wherever_tmpdir_points(
    tmp_path: Path, bwrap: Engine, outside: Path
) -> None:
    users = outside / f"reasonix-acp-{os.getuid()}"
    other = users / "another-session"
    other.mkdir(parents=True, mode=0o700)
    users.chmod(0o700)
    (other / "bash-1.log").write_text("TOPSECRET kept output of another session\n")
    attempts = [
        f"cat {other}/bash-1.log",
        f"ls {users}",
        'echo "$TMPDIR" && echo kept > "$TMPDIR/mine.txt" && cat "$TMPDIR/mine.txt"',
    ]
    c = agent(tmp_path, [bash(a) for a in attempts], env={**SANDBOX_ON, "TMPDIR": str(outside)})
    sid, _ = start(c)
    results: list[dict[str, Any]] = []
    for _ in attempts:
        _, done = prompt(c, sid, reject)
        results += done
    assert [r["status"] for r in results[:1]] == ["failed"]
    assert not any("TOPSECRET" in text_of(r) for r in results)
    assert "another-session" not in text_of(results[1])
    own = users / sid
    assert results[2]["status"] == "completed"
    assert text_of(results[2]).split() == [str(own), "kept"]
    assert (own / "mine.txt").read_text() == "kept\n"
    assert c.close() == 0


def test_the_toolchain_path_names_under_tmp_runs_and_the_rest_of_tmp_is_offered(
    tmp_path: Path, bwrap: Engine
) -> None:
    venv = tmp_path / "checkout" / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    tool = venv / "bin" / "project-tool"
    tool.write_text("#!/bin/sh\necho tool-ran\n")
    tool.chmod(0o755)
    private = tmp_path / "elsewhere.txt"
    private.write_text("not on PATH\n")
    attempts = ["project-tool", f"cat {private}"]
    path = f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"
    c = agent(tmp_path, [bash(a) for a in attempts], env={**SANDBOX_ON, "PATH": path})
    sid, _ = start(c)
    asked, done = prompt(c, sid, reject)
    assert asked == [] and done[0]["status"] == "completed" and "tool-ran" in text_of(done[0])
    asked, done = prompt(c, sid, lambda params: "allow_once")
    assert len(asked) == 1, "a path the sandbox hides is offered for a run outside"
    assert f"the sandbox hides {private}" in asked[0]["toolCall"]["rawInput"]["sandboxBlocked"]
    assert done[0]["status"] == "completed" and "not on PATH" in text_of(done[0])
    assert c.close() == 0
