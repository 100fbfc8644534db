"""What a sandboxed command (run with no question under workspace-write) may not touch, through
a real `acp` and a real bwrap: the files the host's git runs (`.git/config`, `.git/hooks`, in
nested repositories too; a line naming them is asked first),
other sessions' temp directories wherever TMPDIR points; and what it must still see: the
toolchain PATH names under /tmp. Skipped where bwrap does not work (failed in CI instead)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
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


def _planted(cwd: Path) -> None:
    """An archive whose members are hooks, in the repository and in a nested one."""
    with tarfile.open(cwd / "planted.tar", "w") as tar:
        for name in (".git/hooks/post-commit", "sub/.git/hooks/post-commit"):
            data = b"#!/bin/sh\ntouch PLANTED\n"
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o755
            tar.addfile(info, io.BytesIO(data))


def _allow_git_refuse_outside(params: dict[str, Any]) -> str:
    """The `.git` question allowed once; the offer to run outside the sandbox refused."""
    return "reject_once" if "sandboxBlocked" in params["toolCall"]["rawInput"] else "allow_once"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_hosts_git_files_are_read_only_in_the_sandbox(tmp_path: Path, bwrap: Engine) -> None:
    """A line that names a `.git` is asked first, sandbox or not; allowed, it still runs where
    every `.git` under the writable roots is read-only (nested repositories and a submodule's
    `.git` file too), as does a line that writes one without naming it (an archive, git)."""
    attempts = [
        "cat .git/config",
        "echo '[core]' >> .git/config && echo '  fsmonitor = touch PLANTED' >> .git/config",
        "echo 'touch PLANTED' > .git/hooks/pre-commit",
        "echo '[core]' >> sub/.git/config",
        "echo 'gitdir: /tmp/elsewhere' > mod/.git",
        "git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x",
        "tar -xf planted.tar",
        "echo fine > tracked.txt",
    ]
    c = agent(tmp_path, [bash(a) for a in attempts], env=SANDBOX_ON)
    sid, cwd = start(c)
    _git(cwd, "init", "-q")
    (cwd / "sub").mkdir()
    _git(cwd / "sub", "init", "-q")
    (cwd / "mod").mkdir()
    (cwd / "mod" / ".git").write_text("gitdir: ../.git/modules/mod\n")
    _planted(cwd)
    config, nested = (
        (cwd / ".git" / "config").read_text(),
        (cwd / "sub" / ".git" / "config").read_text(),
    )
    results: list[dict[str, Any]] = []
    asked: list[dict[str, Any]] = []
    for _ in attempts:
        questions, done = prompt(c, sid, _allow_git_refuse_outside)
        asked += questions
        results += done
    assert [r["status"] for r in results] == ["completed", *["failed"] * 6, "completed"]
    assert "[core]" in text_of(results[0])  # readable, once allowed
    offers = [q for q in asked if "sandboxBlocked" in q["toolCall"]["rawInput"]]
    named = [q for q in asked if "gitPlaces" in q["toolCall"]["rawInput"]]
    assert len(named) == 5 and len(offers) == 6 and len(asked) == 11
    assert (cwd / ".git" / "config").read_text() == config
    assert (cwd / "sub" / ".git" / "config").read_text() == nested
    assert (cwd / "mod" / ".git").read_text() == "gitdir: ../.git/modules/mod\n"
    assert not (cwd / ".git" / "hooks" / "pre-commit").exists()
    assert not (cwd / ".git" / "hooks" / "post-commit").exists()
    assert not (cwd / "sub" / ".git" / "hooks" / "post-commit").exists()
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
