"""The agent never runs a program the workspace configures, and a repository's `.git` is a
protected place, through a real `acp`:

- a `.git/config` whose `core.fsmonitor` names a program (one that dumps its environment and
  touches a canary outside the workspace) is never run by the agent itself: not when it keeps
  a turn's checkpoint before `bash true` under danger-full-access, nor before a granted line
  under workspace-write, nor after the model made the workspace a repository (the user
  allowing each write); the provider key, in the agent's environment, reaches no program;
- `write` and `edit` into a `.git` (nested, in any case, through a link, the `.git` file of a
  submodule) ask under read-only and workspace-write, naming the place and why, and not under
  danger-full-access;
- shell lines that write into `.git` (a redirection, `tee`, a granted `cp`, `cd .git && …`)
  ask although every name in them is granted;
- the places a repository's configuration (set with the real `git config`) makes git run or
  read outside `.git` are protected the same way: the `core.hooksPath` directory (husky's
  `.husky`), a file `include.path` names (`../shared.gitconfig`, relative to `.git`): a
  `write` there and a granted `cp` there ask, naming the place and why, and the user's own
  `git commit` afterwards (real git, hooks and all) runs nothing the model wrote.

The DeepSeek stand-in (tests/deepseek_server.py) holds the key the agent is configured with
through its environment; the other tests run the offline model (tests/tools/driver.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.client import Client
from tests.deepseek_server import KEY, DeepSeek
from tests.test_deepseek import agent as deepseek_agent
from tests.tools.driver import agent, bash, call, prompt
from tests.transcript import Scenario

WHY = "the repository's configuration and hooks run programs the next time git runs"
Answer = Callable[[dict[str, Any]], str]


def plant(out: Path) -> str:
    """A program that leaves the environment it ran with in `out/env.txt` and a canary."""
    out.mkdir(exist_ok=True)
    script = out / "fsmonitor.sh"
    script.write_text(f'#!/bin/sh\nenv > "{out}/env.txt"\ntouch "{out}/PWNED"\nexit 1\n')
    script.chmod(0o755)
    return str(script)


def repository(script: str) -> dict[str, str]:
    """The files that make a directory a git repository whose config runs `script`."""
    config = f'[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "{script}"\n'
    return {
        ".git/HEAD": "ref: refs/heads/main\n",
        ".git/config": config,
        ".git/objects/info/packs": "\n",
        ".git/refs/heads/.keep": "",
    }


def made_repository(cwd: Path, script: str) -> None:
    for name, text in repository(script).items():
        (cwd / name).parent.mkdir(parents=True, exist_ok=True)
        (cwd / name).write_text(text)


def untouched(out: Path) -> None:
    assert not (out / "PWNED").exists(), "the agent ran the repository's fsmonitor"
    assert not (out / "env.txt").exists(), "a program the workspace names got the environment"


def with_key(tmp_path: Path, server: DeepSeek) -> Client:
    """An agent whose provider key is in its environment (as a user's shell would hold it)."""
    scenario = Scenario(tmp_path)
    scenario.env["DEEPSEEK_API_KEY"] = KEY
    text = (
        f'[providers.deepseek]\nkind = "deepseek"\nbase_url = "{server.url}"\n'
        'api_key_env = "DEEPSEEK_API_KEY"\n'
    )
    return deepseek_agent(tmp_path, text, scenario)


def calls(*pairs: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"thought": "Doing it.", "tool_calls": [{"name": n, "arguments": a} for n, a in pairs]}


def answered(c: Client, sid: str, text: str, answer: Answer) -> list[dict[str, Any]]:
    """One prompt to its end; each permission question answered by `answer`. → the questions."""
    c._id += 1
    rid = c._id
    params = {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
    c.send({"jsonrpc": "2.0", "id": rid, "method": "session/prompt", "params": params})
    asked = []
    while True:
        frame = c.agent.receive()
        if frame.get("method") == "session/request_permission":
            asked.append(frame["params"])
            outcome = {"outcome": "selected", "optionId": answer(frame["params"])}
            c.send({"jsonrpc": "2.0", "id": frame["id"], "result": {"outcome": outcome}})
        elif frame.get("id") == rid:
            assert frame.get("result") == {"stopReason": "end_turn"}, frame
            return asked
        else:
            c.notes.append(frame)


def preset(c: Client, sid: str, value: str) -> None:
    c.result(
        "session/set_config_option",
        {"sessionId": sid, "configId": "tool_approval", "value": value},
    )


def names_git(question: dict[str, Any], place: str) -> None:
    """The question names the `.git` place and says why it asks; no answer in it is kept."""
    title = question["toolCall"]["title"]
    assert place in title and WHY in title, title
    assert {o["kind"] for o in question["options"]} <= {
        "allow_once",
        "reject_once",
        "reject_always",
    }


def test_a_write_into_git_asks_and_a_refused_one_plants_nothing(tmp_path: Path) -> None:
    """The fsmonitor attack on a workspace that is not a repository: the model writes the
    files that make it one, then runs `true` (which runs unasked under workspace-write)."""
    out = tmp_path / "outside"
    script = plant(out)
    files = repository(script)
    with DeepSeek() as server:
        c = with_key(tmp_path, server)
        cwd = Path(c.scenario.vars["CWD"])
        sid = c.start()
        writes = [("write", {"path": p, "content": t}) for p, t in files.items()]
        server.replies.extend(
            [calls(*writes, ("bash", {"command": "true"})), {"thought": "So.", "text": "Done."}]
        )
        asked = answered(c, sid, "make it a repository", lambda q: "reject_once")
        assert len(asked) == len(files)
        for question, path in zip(asked, files, strict=True):
            names_git(question, path)
        assert not (cwd / ".git").exists()
        untouched(out)
        assert c.close() == 0


@pytest.mark.parametrize("how", ["danger-full-access", "granted"])
def test_the_checkpoint_before_a_command_never_runs_the_repository_s_programs(
    tmp_path: Path, how: str
) -> None:
    """The config already on disk (as if the user, or a step the user allowed, had put it
    there): the first command of a turn keeps the workspace's files first, and that runs no
    git; the command's own environment holds no key either."""
    out = tmp_path / "outside"
    with DeepSeek() as server:
        c = with_key(tmp_path, server)
        cwd = Path(c.scenario.vars["CWD"])
        made_repository(cwd, plant(out))
        (cwd / "tracked.txt").write_text("kept\n")
        sid = c.start()
        if how == "granted":  # workspace-write, `ls` granted by an earlier answer
            server.replies.extend(
                [calls(("bash", {"command": "ls"})), {"thought": "So.", "text": "Granted."}]
            )
            assert len(answered(c, sid, "grant ls", lambda q: "allow_always")) == 1
            lines = ["true", "ls > listing.txt"]
        else:
            preset(c, sid, how)
            lines = ["true", "env > env-of-bash.txt"]
        for line in lines:
            server.replies.extend(
                [calls(("bash", {"command": line})), {"thought": "So.", "text": "Ran."}]
            )
            assert answered(c, sid, f"run {line}", lambda q: "reject_once") == []
        if how == "granted":
            assert "tracked.txt" in (cwd / "listing.txt").read_text()
        else:
            seen = (cwd / "env-of-bash.txt").read_text()
            assert KEY not in seen and "PATH=" in seen
        untouched(out)
        assert c.close() == 0


def test_a_repository_the_model_made_with_the_user_s_leave_runs_nothing(tmp_path: Path) -> None:
    out = tmp_path / "outside"
    files = repository(plant(out))
    with DeepSeek() as server:
        c = with_key(tmp_path, server)
        cwd = Path(c.scenario.vars["CWD"])
        sid = c.start()
        writes = [("write", {"path": p, "content": t}) for p, t in files.items()]
        server.replies.extend(
            [calls(*writes, ("bash", {"command": "true"})), {"thought": "So.", "text": "Done."}]
        )
        asked = answered(c, sid, "make it a repository", lambda q: "allow_once")
        assert len(asked) == len(files)
        assert (cwd / ".git" / "config").read_text() == files[".git/config"]
        untouched(out)
        assert c.close() == 0


# -- write and edit ---------------------------------------------------------------------------

TARGETS = [".git/config", "sub/.git/hooks/pre-commit", ".GIT/config", "lnk/config", "mod/.git"]


def _workspace(cwd: Path) -> None:
    (cwd / ".git" / "hooks").mkdir(parents=True)
    (cwd / ".git" / "config").write_text("[core]\n")
    (cwd / "sub" / ".git" / "hooks").mkdir(parents=True)
    (cwd / ".GIT").mkdir()
    (cwd / "lnk").symlink_to(".git")
    (cwd / "mod").mkdir()
    (cwd / "mod" / ".git").write_text("gitdir: ../.git/modules/mod\n")


@pytest.mark.parametrize("value", ["read-only", "workspace-write", "danger-full-access"])
def test_writes_and_edits_into_git_ask_but_under_full_access(tmp_path: Path, value: str) -> None:
    turns = [call("write", path=t, content="planted\n") for t in TARGETS]
    turns.append(call("edit", path=".git/config", edits=[{"old_text": "[core]", "new_text": "x"}]))
    turns.append(call("write", path=".gitignore", content="build/\n"))  # not a `.git` place
    c = agent(tmp_path, turns)
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    _workspace(cwd)
    preset(c, sid, value)
    asked: list[dict[str, Any]] = []
    for _ in turns:
        questions, _ = prompt(c, sid, lambda q: "reject_once")
        asked += questions
    if value == "danger-full-access":
        assert asked == []
        assert (cwd / ".git" / "config").read_text() == "planted\n"
        assert (cwd / "mod" / ".git").read_text() == "planted\n"
    else:
        shown = [".git/config", "sub/.git/hooks/pre-commit", ".GIT/config", ".git/config"]
        shown += ["mod/.git", ".git/config"]
        if value == "read-only":  # a write inside asks there anyway, without the `.git` note
            assert WHY not in asked.pop()["toolCall"]["title"]
        assert len(asked) == len(shown)
        for question, place in zip(asked, shown, strict=True):
            names_git(question, place)
        assert (cwd / ".git" / "config").read_text() == "[core]\n"
        assert not (cwd / "sub" / ".git" / "hooks" / "pre-commit").exists()
        assert not (cwd / ".GIT" / "config").exists()
        assert (cwd / "mod" / ".git").read_text() == "gitdir: ../.git/modules/mod\n"
    assert c.close() == 0


# -- shell lines ------------------------------------------------------------------------------

LINES = [
    ("echo x > .git/hooks/pre-commit", ".git/hooks/pre-commit"),
    ("echo x | tee .git/config", ".git/config"),
    ("cp notes.txt .git/config", ".git/config"),
    ("cd .git && echo x > config", ".git/config"),
]


def test_lines_that_write_into_git_ask_though_every_name_is_granted(tmp_path: Path) -> None:
    grant = "cd . && echo hi | tee t.txt && cp notes.txt copy.txt"
    turns = [bash(grant), bash("echo fine > fine.txt"), *(bash(line) for line, _ in LINES)]
    c = agent(tmp_path, turns)
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    (cwd / ".git" / "hooks").mkdir(parents=True)
    (cwd / ".git" / "config").write_text("[core]\n")
    asked, _ = prompt(c, sid, lambda q: "allow_always")
    assert len(asked) == 1
    asked, done = prompt(c, sid, lambda q: "reject_once")
    assert asked == [] and (cwd / "fine.txt").read_text() == "fine\n"  # the grant holds
    for line, place in LINES:
        asked, done = prompt(c, sid, lambda q: "reject_once")
        assert len(asked) == 1, line
        names_git(asked[0], place)
        assert place in asked[0]["toolCall"]["rawInput"]["gitPlaces"], line
        assert [d["status"] for d in done] == ["failed"]
    assert (cwd / ".git" / "config").read_text() == "[core]\n"
    assert not (cwd / ".git" / "hooks" / "pre-commit").exists()
    assert c.close() == 0


def test_under_full_access_a_line_writes_into_git_unasked(tmp_path: Path) -> None:
    c = agent(tmp_path, [bash("echo x > .git/hooks/pre-commit")])
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    (cwd / ".git" / "hooks").mkdir(parents=True)
    preset(c, sid, "danger-full-access")
    asked, done = prompt(c, sid, lambda q: "reject_once")
    assert asked == [] and [d["status"] for d in done] == ["completed"]
    assert (cwd / ".git" / "hooks" / "pre-commit").read_text() == "x\n"
    assert c.close() == 0


# -- the places the repository's configuration designates --------------------------------------

# (the key set with `git config`, its value, the place the model writes, the question's why)
DESIGNATED = [
    ("core.hooksPath", ".husky", ".husky/pre-commit", "git runs what is here: core.hooksPath"),
    (
        "include.path",
        "../shared.gitconfig",
        "shared.gitconfig",
        "git reads this as its configuration: include.path",
    ),
]


def user_git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The user's own git, hooks and all (no configuration of this machine's)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd.parent / "user-home"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "u",
        "GIT_AUTHOR_EMAIL": "u@example.com",
        "GIT_COMMITTER_NAME": "u",
        "GIT_COMMITTER_EMAIL": "u@example.com",
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)


def planted(key: str, out: Path) -> str:
    """What the model writes: a hook, or configuration, that leaves a canary outside."""
    if key == "core.hooksPath":
        return f'#!/bin/sh\ntouch "{out}/PWNED"\n'
    return f"[core]\n\tfsmonitor = touch {out}/PWNED\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize(("key", "value", "target", "why"), DESIGNATED)
def test_a_place_the_configuration_designates_is_protected_like_git(
    tmp_path: Path, key: str, value: str, target: str, why: str
) -> None:
    out = tmp_path / "outside"
    out.mkdir()
    turns = [
        bash("cp notes.txt copy.txt"),  # granted: `cp` for the session
        call("write", path=target, content=planted(key, out)),
        bash(f"cp evil.txt {target}"),
    ]
    c = agent(tmp_path, turns)
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    assert user_git(cwd, "init", "-q").returncode == 0
    assert user_git(cwd, "config", key, value).returncode == 0
    (cwd / ".husky").mkdir()
    hook = cwd / ".husky" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    (cwd / "evil.txt").write_text(planted(key, out))
    granted, _ = prompt(c, sid, lambda q: "allow_always")
    assert len(granted) == 1
    asked: list[dict[str, Any]] = []
    for _ in turns[1:]:
        questions, _ = prompt(c, sid, lambda q: "reject_once")
        asked += questions
    done = user_git(cwd, "add", "-A")
    done = user_git(cwd, "commit", "-q", "-m", "the user's commit")
    assert done.returncode == 0, done.stderr
    assert not (out / "PWNED").exists(), "the user's git ran what the model wrote unasked"
    assert len(asked) == 2
    for question in asked:
        title = question["toolCall"]["title"]
        assert target in title and why in title, title
        assert target in question["toolCall"]["rawInput"]["gitPlaces"]
        assert "allow_always" not in {o["kind"] for o in question["options"]}
    assert c.close() == 0
