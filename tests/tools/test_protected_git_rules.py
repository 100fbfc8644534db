"""`.git` as a protected place, unit by unit: which names a file system takes for `.git`, what
`needs_permission` asks, the gate's question for every tool that writes files, the line
verdicts (every way a line in the provable language can write or name a `.git`, each asked
with every name granted, in the sandbox too, none under danger-full-access; the lines that only
look alike run), and the read-only mounts of every `.git` under the sandbox's writable roots.
The same for the places a repository's configuration designates outside `.git` (its hooks
directory, an included file: tools/git_guard.py), the question saying why.

Each row is a way the same mistake could come back: a write target kind the proof knows, a
word shape (quoted, an option's value, a link, a pattern, a variable, braces, a `cd` before
it), a program that takes names from elsewhere."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.command_proof.command_line import parse
from reasonix_acp.config.sandbox import SandboxSettings
from reasonix_acp.tools.base import ToolContext
from reasonix_acp.tools.files import FILE_TOOLS
from reasonix_acp.tools.sandbox import Engine, Sandbox
from reasonix_acp.tools.workspace import GIT_WHY, Workspace, dot_git, in_git, needs_permission
from reasonix_acp.turn.gate import Gate
from reasonix_acp.turn.line_verdict import Rules, granted_names, judge_line

PRESETS = ("read-only", "workspace-write")


@pytest.mark.parametrize(
    ("name", "taken"),
    [
        (".git", True), (".GIT", True), (".Git", True), (".git.", True), (".git ", True),
        (".git::$INDEX_ALLOCATION", True), ("GIT~1", True), (".g\u200cit", True),
        (".\ufeffgit", True), (".gitignore", False), (".github", False), ("git", False),
        ("x.git", False), (".git.bak", False), (".gitmodules", False), ("", False),
    ],
)  # fmt: skip
def test_the_names_a_file_system_takes_for_dot_git(name: str, taken: bool) -> None:
    assert dot_git(name) is taken
    assert in_git(f"/ws/{name}/config") is taken


def test_a_write_into_git_asks_under_every_preset_but_full_access() -> None:
    for preset in PRESETS:
        assert needs_permission(preset, "write", inside=True, git=True)
        assert not needs_permission(preset, "read", inside=True, git=True)
    assert not needs_permission("workspace-write", "write", inside=True, git=False)
    assert not needs_permission("danger-full-access", "write", inside=True, git=True)


def _workspace(tmp_path: Path) -> Workspace:
    ws = tmp_path / "ws"
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n")
    (ws / "sub" / "nested" / ".git").mkdir(parents=True)
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("x = 1\n")
    (ws / "lnk").symlink_to(".git")
    (ws / "sub" / "up").symlink_to("../.git")
    (ws / "notes.txt").write_text("n\n")
    return Workspace(str(ws), temp=str(tmp_path / "temp"))


def test_every_tool_that_writes_files_asks_for_a_git_target(tmp_path: Path) -> None:
    """Every file tool with `write` access (so a new one too), under workspace-write: a `.git`
    target asks, naming the place and why, offering no answer that would cover the next one;
    an answer "always" given for the same directory before does not cover it either."""
    workspace = _workspace(tmp_path)
    writers = [t for t in FILE_TOOLS if getattr(t, "access", None) == "write"]
    assert {t.name for t in writers} >= {"write", "edit"}
    args = {
        "path": "lnk/config",
        "content": "[core]\n\tfsmonitor = x\n",
        "edits": [{"old_text": "[core]", "new_text": "[core]\n\tfsmonitor = x"}],
    }
    for tool in writers:
        asked: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
        ask = _asking(asked)
        grants = [("write", str(Path(workspace.cwd) / ".git") + os.sep + "**", True)]
        gate = Gate(ask=ask, grants=grants)
        context = ToolContext(workspace.cwd, "s", workspace=workspace)
        shown = {"title": tool.title(args, context), "rawInput": args}
        assert asyncio.run(gate.permitted(tool, args, shown, context)) is False, tool.name
        assert len(asked) == 1, tool.name
        question, options = asked[0]
        assert ".git/config" in question["title"] and GIT_WHY in question["title"]
        assert question["rawInput"]["gitPlaces"] == [".git/config"]
        assert "allow_always" not in {o["optionId"] for o in options}
    assert (Path(workspace.cwd) / ".git" / "config").read_text() == "[core]\n"


def _asking(asked: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> Any:
    async def ask(shown: dict[str, Any], options: list[dict[str, Any]]) -> str:
        asked.append((shown, options))
        return "reject_once"

    return ask


GRANTED = "workspace-write"
# Lines that write into a `.git`, or name one, in every shape the proof reads.
NAMING = [
    "echo x > .git/hooks/pre-commit",
    "echo x >> .git/config",
    "echo x >| .git/config",
    "echo x &> .git/config",
    "echo x &>> .git/config",
    "echo x 2> .git/config",
    "{ echo x; } > .git/config",
    "(echo x) > .git/config",
    "echo x | tee .git/config",
    "echo x | tee -a .git/config",
    "find . -maxdepth 0 -fprint .git/config",
    "find . -maxdepth 0 -fprint0 .git/config",
    "find . -maxdepth 0 -fprintf .git/config x",
    "find . -maxdepth 0 -fls .git/config",
    "cp notes.txt .git/config",
    "cp notes.txt .GIT/config",
    "cp notes.txt sub/nested/.git/config",
    "cp notes.txt '.g'\"it\"/config",
    "cp notes.txt \\.git/config",
    "cp -t.git/hooks notes.txt",
    "cp -t .git/hooks notes.txt",
    "cp --target-directory=.git/hooks notes.txt",
    "cp notes.txt lnk/config",
    "cp notes.txt sub/up/config",
    "cd .git && echo x > config",
    "cd .git && cp ../notes.txt config",
    "cd sub && cp ../notes.txt up/config",
    "cd sub && cd up && cp ../notes.txt config",
    "cd src/.. && cp notes.txt lnk/config",
    "x=.gi; cp notes.txt ${x}t/config",
    "export D=.git && cp notes.txt $D/config",
    "for d in .git; do cp notes.txt $d/config; done",
    "for d in *; do cp notes.txt $d/config; done",
    "cp notes.txt .gi?/config",
    "cp notes.txt .g*/config",
    "cp notes.txt */config",
    "cp notes.txt {.gi,x}t/config",
    "cp notes.txt .{g..g}it/config",
    "mv .git .git-old",
    "ln -s .git l2",
    "env -C lnk cp ../notes.txt config",
    "git config core.fsmonitor x",
    "git config --add core.hooksPath x",
    "git -C . config --global alias.x '!sh'",
    "find . -name config -exec cp notes.txt '{}' +",
    "ls | xargs cp notes.txt",
]
# Lines that look alike and name no `.git`: they run with their names granted.
PLAIN = [
    "cat .gitignore",
    "echo x > .github/workflow.yml",
    "echo x >> .gitattributes",
    "cp notes.txt .gitmodules",
    "git status",
    "git config --get core.bare",
    "git config user.name",
    "git config --list",
    "git add -A && git commit -m 'fix: typo'",
    "ls src/*.py",
    "for f in src/*.py; do echo $f; done",
    "cd src && cp a.py b.py",
    "ls | xargs echo",
    "find src -name '*.py' -exec cat '{}' +",
    'echo "$HOME"',
    "cp notes.txt x.git",
]


def _verdict(workspace: Workspace, line: str, preset: str, sandboxed: bool = False) -> Any:
    parsed = parse(line)
    assert parsed.proof is not None, (line, parsed.unprovable)
    grants = [("execute", f"command {n}", True) for n in granted_names(parsed.proof)]
    grants.append(("execute", f"exact {line}", True))
    return judge_line(parsed, preset, grants, Rules(), workspace, sandboxed)


@pytest.mark.parametrize("line", NAMING)
def test_a_line_naming_a_git_place_asks_whatever_was_granted(tmp_path: Path, line: str) -> None:
    workspace = _workspace(tmp_path)
    for preset in PRESETS:
        for sandboxed in (False, True):
            verdict = _verdict(workspace, line, preset, sandboxed)
            assert verdict.decision == "ask" and verdict.git, (line, preset, sandboxed)
    assert _verdict(workspace, line, "danger-full-access").decision == "allow"


@pytest.mark.parametrize("line", PLAIN)
def test_a_line_that_only_looks_alike_runs_granted(tmp_path: Path, line: str) -> None:
    workspace = _workspace(tmp_path)
    verdict = _verdict(workspace, line, GRANTED)
    assert (verdict.decision, verdict.git) == ("allow", ()), line


def test_an_unprovable_line_naming_git_asks_in_the_sandbox_too(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    line = parse("echo $(date) > .git/config")
    assert line.proof is None
    verdict = judge_line(line, GRANTED, [], Rules(), workspace, sandboxed=True)
    assert verdict.decision == "ask" and verdict.git == (".git/config",)
    other = judge_line(parse("echo $(date) > out.txt"), GRANTED, [], Rules(), workspace, True)
    assert other.decision == "allow"


BWRAP = Engine("bubblewrap", "/usr/bin/bwrap", ("--unshare-all",))


def test_every_git_under_the_writable_roots_is_mounted_read_only(tmp_path: Path) -> None:
    """Nested repositories, a submodule's `.git` file, a `.git` that is a link (where it
    leads), the session temp too; a `.git` made after a command is found before the next."""
    workspace = _workspace(tmp_path)
    ws = Path(workspace.cwd)
    (ws / "mod").mkdir()
    (ws / "mod" / ".git").write_text("gitdir: ../.git/modules/mod\n")
    elsewhere = tmp_path / "elsewhere.git"
    elsewhere.mkdir()
    (ws / "linked").mkdir()
    (ws / "linked" / ".git").symlink_to(elsewhere)
    box = Sandbox(lambda: workspace, lambda: GRANTED, lambda: SandboxSettings(), lambda: BWRAP)
    argv = box.argv(["true"], workspace.cwd)
    expected = {
        str(ws / ".git"),
        str(ws / "sub" / "nested" / ".git"),
        str(ws / "mod" / ".git"),
        str(elsewhere),
    }
    assert _read_only(argv) >= expected
    assert str(ws / "lnk") not in _read_only(argv)  # a link elsewhere named: not a `.git`
    bound = argv.index(str(ws), argv.index("--bind"))  # the workspace, writable
    assert argv[bound - 1] == "--bind" and argv.index(str(ws / ".git")) > bound  # then read-only
    time.sleep(0.01)
    (ws / "later" / ".GIT").mkdir(parents=True)
    assert str(ws / "later" / ".GIT") in _read_only(box.argv(["true"], workspace.cwd))
    full = Sandbox(
        lambda: workspace, lambda: "danger-full-access", lambda: SandboxSettings(), lambda: BWRAP
    )
    assert full.argv(["true"], workspace.cwd) == ["true"]


def _read_only(argv: list[str]) -> set[str]:
    return {
        argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind" and argv[i + 1] == argv[i + 2]
    }


# -- the places the configuration designates -----------------------------------------------------

HOOKS_WHY = "git runs what is here: core.hooksPath"
INCLUDE_WHY = "git reads this as its configuration: include.path"


def _designated(tmp_path: Path) -> Workspace:
    """The workspace of `_workspace`, its repository's hooks in `.husky` and `shared.gitconfig`
    included (set with the real `git config`)."""
    workspace = _workspace(tmp_path)
    ws = Path(workspace.cwd)
    config = str(ws / ".git" / "config")
    for key, value in (("core.hooksPath", ".husky"), ("include.path", "../shared.gitconfig")):
        subprocess.run(["git", "config", "--file", config, key, value], check=True)
    (ws / ".husky").mkdir()
    (ws / ".husky" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (ws / "shared.gitconfig").write_text("[alias]\n\tst = status\n")
    (ws / "lnkh").symlink_to(".husky")
    return workspace


NAMING_DESIGNATED = [
    ("echo x > .husky/pre-commit", HOOKS_WHY),
    ("echo x | tee -a .husky/pre-commit", HOOKS_WHY),
    ("cp notes.txt .husky/pre-commit", HOOKS_WHY),
    ("cp notes.txt .HUSKY/pre-commit", HOOKS_WHY),
    ("cp notes.txt ./src/../.husky/pre-push", HOOKS_WHY),
    ("cp -t.husky notes.txt", HOOKS_WHY),
    ("cp --target-directory=.husky notes.txt", HOOKS_WHY),
    ("cd .husky && echo x > pre-commit", HOOKS_WHY),
    ("x=.hus; cp notes.txt ${x}ky/pre-commit", HOOKS_WHY),
    ("cp notes.txt .hus?y/pre-commit", HOOKS_WHY),
    ("cp notes.txt .hus*", HOOKS_WHY),
    ("cp notes.txt lnkh/pre-commit", HOOKS_WHY),
    ("cd src && cp ../notes.txt ../.husky/post-merge", HOOKS_WHY),
    ("cp notes.txt shared.gitconfig", INCLUDE_WHY),
    ("echo '[core]' >> shared.gitconfig", INCLUDE_WHY),
    ("cp notes.txt ./shared.gitconfig", INCLUDE_WHY),
]
PLAIN_DESIGNATED = [
    "cp notes.txt .husky-old",
    "cat shared.gitconfig.bak",
    "echo x > husky/pre-commit",
    "cp notes.txt src/shared.gitconfig",
    "ls src",
]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize(("line", "why"), NAMING_DESIGNATED)
def test_a_line_naming_a_designated_place_asks_and_says_why(
    tmp_path: Path, line: str, why: str
) -> None:
    workspace = _designated(tmp_path)
    for preset in PRESETS:
        for sandboxed in (False, True):
            verdict = _verdict(workspace, line, preset, sandboxed)
            assert verdict.decision == "ask" and verdict.git, (line, preset, sandboxed)
            assert why in verdict.why, (line, verdict.why)
    assert _verdict(workspace, line, "danger-full-access").decision == "allow"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("line", PLAIN_DESIGNATED)
def test_a_line_only_like_a_designated_place_runs_granted(tmp_path: Path, line: str) -> None:
    verdict = _verdict(_designated(tmp_path), line, GRANTED)
    assert (verdict.decision, verdict.git) == ("allow", ()), line


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_every_tool_that_writes_files_asks_for_a_designated_place(tmp_path: Path) -> None:
    """As for `.git`: each write asks, whatever was granted for the directory, saying why."""
    workspace = _designated(tmp_path)
    writers = [t for t in FILE_TOOLS if getattr(t, "access", None) == "write"]
    targets = [("lnkh/pre-commit", ".husky/pre-commit", HOOKS_WHY)]
    targets += [("shared.gitconfig", "shared.gitconfig", INCLUDE_WHY)]
    for tool in writers:
        for given, place, why in targets:
            args = {
                "path": given,
                "content": "x\n",
                "edits": [{"old_text": "#!/bin/sh", "new_text": "#!/bin/bash"}],
            }
            if place == "shared.gitconfig":
                args["edits"] = [{"old_text": "[alias]", "new_text": "[core]"}]
            asked: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
            grants = [("write", str(Path(workspace.cwd)) + os.sep + "**", True)]
            gate = Gate(ask=_asking(asked), grants=grants)
            context = ToolContext(workspace.cwd, "s", workspace=workspace)
            shown = {"title": tool.title(args, context), "rawInput": args}
            assert asyncio.run(gate.permitted(tool, args, shown, context)) is False
            question, options = asked[0]
            assert why in question["title"] and GIT_WHY not in question["title"], tool.name
            assert question["rawInput"]["gitPlaces"] == [place], tool.name
            assert "allow_always" not in {o["optionId"] for o in options}
    full = Gate(ask=_asking([]), preset=lambda: "danger-full-access")
    context = ToolContext(workspace.cwd, "s", workspace=workspace)
    args = {"path": ".husky/pre-commit", "content": "x\n"}
    assert asyncio.run(full.permitted(writers[0], args, {"title": "w"}, context)) is True


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_designated_places_are_mounted_read_only(tmp_path: Path) -> None:
    """What exists of them, where it leads; a `.git` file's git directory too."""
    workspace = _designated(tmp_path)
    ws = Path(workspace.cwd)
    (ws / "mod").mkdir()
    (ws / "kept-git").mkdir()
    (ws / "mod" / ".git").write_text("gitdir: ../kept-git\n")
    box = Sandbox(lambda: workspace, lambda: GRANTED, lambda: SandboxSettings(), lambda: BWRAP)
    argv = box.argv(["true"], workspace.cwd)
    expected = {str(ws / ".husky"), str(ws / "shared.gitconfig"), str(ws / "kept-git")}
    assert _read_only(argv) >= expected
    bound = argv.index(str(ws), argv.index("--bind"))
    assert all(argv.index(p) > bound for p in expected)  # after the writable workspace
    assert str(ws / "lnkh") not in _read_only(argv)  # a link to a place: where it leads
