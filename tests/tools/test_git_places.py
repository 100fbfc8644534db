"""The places a repository's configuration makes git run or read outside `.git`
(tools/git_guard.py, git_designated.py, git_programs.py), each set with the real `git config`
(which writes the quoting and escaping itself), in real repositories git made (a linked
worktree, a submodule): the hooks directory, included files, git directories a `.git` file
or `commondir` names, the files every kind of program key names, from the work tree's top and
PATH, for the repository's configuration, the user's and a repository above the workspace;
what is read again when a file changes, and only then; and a configuration that cannot be read
making every path a place. Beside each place, a path that only looks like one is not."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from reasonix_acp.tools import git_guard
from reasonix_acp.tools.git_guard import protected
from reasonix_acp.tools.sandbox import Engine
from tests.tools.driver import agent, bash, prompt
from tests.tools.test_sandbox import SANDBOX_ON, bwrap, reject, start, text_of

__all__ = ["bwrap"]  # the fixture, used by name

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME of the test's own, for git here and for the reader alike."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(path / "xdg"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    return path


def git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def repository(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("x = 1\n")
    return ws


def why(ws: Path, rel: str, roots: list[Path] | None = None) -> str:
    places = protected([os.path.realpath(r) for r in roots or [ws]])
    path = str(ws / rel)
    return places.why(os.path.normpath(path)) or places.why(os.path.realpath(path))


# (key, value, places in the workspace, paths that only look like one)
ROWS = [
    ("core.hooksPath", ".husky", [".husky", ".husky/pre-commit", ".HUSKY/pre-commit"],
     [".husky-old", "husky/pre-commit"]),
    ("core.hooksPath", "./scripts/../hooks", ["hooks/pre-push"], ["scripts/x"]),
    ("include.path", "../shared.gitconfig", ["shared.gitconfig"], ["shared.gitconfig.bak"]),
    ("includeIf.gitdir:/nowhere/.path", "../other.cfg", ["other.cfg"], []),
    ("includeIf.onbranch:feature.path", "../conf/f.cfg", ["conf/f.cfg"], ["conf/g.cfg"]),
    ("init.templateDir", "tpl", ["tpl/hooks/pre-commit"], ["tpl2"]),
    ("core.fsmonitor", "./tools/fsm.sh", ["tools/fsm.sh"], ["tools/other.sh"]),
    ("core.fsmonitor", "true", [], ["true"]),
    ("core.pager", "less -R", [], ["less", "-R"]),
    ("core.pager", "PAGER=./pg less", ["pg"], ["less"]),
    ("core.editor", '"./my editor" --wait', ["my editor"], ["my", "--wait"]),
    ("sequence.editor", "./ed.sh", ["ed.sh"], []),
    ("core.sshCommand", "ssh -F ./ssh.cfg", ["ssh.cfg"], ["ssh"]),
    ("alias.lint", '!sh scripts/lint.sh "$@"', ["scripts/lint.sh"], ["scripts/other.sh"]),
    ("alias.t", "!cd tools && ./run", ["tools/run", "tools/deeper/x"], ["toolsx"]),
    ("alias.f", '!f() { ./bin/x "$1"; }; f', ["bin/x"], ["f"]),
    ("alias.lg", "log --oneline", [], ["log"]),
    ("filter.x.clean", "./filters/clean %f", ["filters/clean"], []),
    ("filter.x.process", "sh -c './filters/proc'", ["filters/proc"], []),
    ("diff.x.textconv", "tools/conv", ["tools/conv"], []),
    ("diff.external", "./difft", ["difft"], []),
    ("merge.x.driver", "./m.sh %O %A %B", ["m.sh"], []),
    ("credential.helper", "!./cred.sh", ["cred.sh"], []),
    ("credential.https://example.com.helper", "!./c2.sh", ["c2.sh"], []),
    ("credential.helper", "./c3.sh", [], ["c3.sh"]),  # `git credential-./c3.sh`
    ("gpg.program", "./bin/my gpg", ["bin/my gpg"], ["bin/my"]),
    ("gpg.ssh.defaultKeyCommand", "./keys.sh", ["keys.sh"], []),
    ("pager.log", "./p.sh", ["p.sh"], []),
    ("pager.log", "false", [], ["false"]),
    ("difftool.x.path", "./dt", ["dt"], []),
    ("mergetool.x.cmd", "./mt $LOCAL", None, []),  # a variable: cannot be read
    ("submodule.s.update", "!./up.sh", ["up.sh"], []),
    ("remote.origin.uploadpack", "./up-pack", ["up-pack"], []),
    ("uploadpack.packObjectsHook", "./pack-hook", ["pack-hook"], []),
    ("interactive.diffFilter", "./df", ["df"], []),
]  # fmt: skip


@pytest.mark.parametrize(("key", "value", "places", "plain"), ROWS)
def test_the_places_a_key_designates(
    tmp_path: Path, home: Path, key: str, value: str, places: list[str] | None, plain: list[str]
) -> None:
    ws = repository(tmp_path)
    git(ws, "config", key, value)
    if places is None:  # the places cannot be known: every path is one
        assert "cannot be read" in why(ws, "src/a.py")
        return
    for rel in places:
        assert why(ws, rel), (key, value, rel)
        assert key.split(".")[-1].lower() in why(ws, rel).lower() or "hooks" in why(ws, rel)
    for rel in [*plain, "src/a.py"]:
        assert why(ws, rel) == "", (key, value, rel)


SEGMENTS = [".husky", "hooks", "a", "..", ".", "Sub Dir", "x.y", "ü"]


def _value(rng: random.Random, ws: Path) -> str:
    parts = [rng.choice(SEGMENTS) for _ in range(rng.randint(1, 4))]
    head = rng.choice(["", "./", "~/", f"{ws}/", f"{ws}/src/../"])
    return head + "/".join(parts) + rng.choice(["", "/"])


def test_what_git_itself_runs_and_reads_is_a_place(tmp_path: Path, home: Path) -> None:
    """Differential, seeded (`PLACES_SEED=N` replays one): for generated `core.hooksPath` and
    `include.path` values, the hook git would run (`git rev-parse --git-path hooks/…`) and
    every file git reads (`git config --list --show-origin --includes`) in the workspace is a
    place; where git refuses the configuration, every path is one."""
    seed = int(os.environ.get("PLACES_SEED", random.randrange(1 << 30)))
    print(f"\nPLACES_SEED={seed}")
    rng = random.Random(seed)
    ws = repository(tmp_path)
    (home / "ws").symlink_to(ws)  # `~/…` values may lead into the workspace
    for n in range(40):
        git(ws, "config", "core.hooksPath", _value(rng, ws))
        target = ws / rng.choice(["shared.gitconfig", "conf/x.cfg", "Sub Dir/y.cfg", "src/.z"])
        spelled = rng.choice(
            [os.path.relpath(target, ws / ".git"), str(target), f"~/ws/{target.relative_to(ws)}"]
        )
        git(ws, "config", "--add", "include.path", spelled)
        if rng.randrange(4):
            target.parent.mkdir(exist_ok=True)
            target.write_text("[user]\n\tname = n\n")
        done = subprocess.run(
            ["git", "rev-parse", "--git-path", "hooks/pre-commit"],
            cwd=ws, capture_output=True, text=True,
        )  # fmt: skip
        if done.returncode != 0:  # git refuses its configuration (an include of a directory)
            assert "cannot be read" in why(ws, "src/a.py"), (seed, n, done.stderr)
            config = str(ws / ".git" / "config")  # mended outside the repository
            git(tmp_path, "config", "--file", config, "--unset-all", "include.path")
            continue
        hook = os.path.join(ws, done.stdout.rstrip("\n"))
        listed = subprocess.run(
            ["git", "config", "--list", "--show-origin", "--includes", "-z"],
            cwd=ws, capture_output=True, text=True, check=True,
        ).stdout.split("\0")[0:-1:2]  # fmt: skip
        read = [os.path.join(ws, o.removeprefix("file:")) for o in listed]
        places = protected([str(ws)])
        for path in [hook, *read]:
            real = os.path.realpath(path)
            if real.startswith(str(ws) + os.sep):
                assert places.why(real), (seed, n, path)


def test_an_argument_names_a_file_only_where_one_is_and_is_read_again_once_made(
    tmp_path: Path, home: Path
) -> None:
    ws = repository(tmp_path)
    git(ws, "config", "alias.lint", "!sh lint.sh")
    assert why(ws, "lint.sh") == ""  # a word naming nothing there: an option, a subcommand
    (ws / "lint.sh").write_text("exit 0\n")
    assert "alias.lint" in why(ws, "lint.sh")


def test_the_configuration_is_read_again_when_it_changes(tmp_path: Path, home: Path) -> None:
    ws = repository(tmp_path)
    assert why(ws, ".husky/pre-commit") == ""
    git(ws, "config", "core.hooksPath", ".husky")  # within the same tick as the reading
    assert "core.hooksPath" in why(ws, ".husky/pre-commit")
    git(ws, "config", "include.path", "../more.cfg")
    assert why(ws, "hooks2/x") == ""
    (ws / "more.cfg").write_text("[core]\n\thooksPath = hooks2\n")  # a missing include made
    assert "core.hooksPath" in why(ws, "hooks2/x")
    (home / ".gitconfig").write_text("[core]\n\tpager = ./global-pager\n")  # the user's
    assert "core.pager" in why(ws, "global-pager")


def test_nothing_is_read_again_while_nothing_changed(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = repository(tmp_path)
    git(ws, "config", "core.hooksPath", ".husky")
    old = time.time() - 60
    for path in [ws, *ws.rglob("*")]:
        os.utime(path, (old, old), follow_symlinks=False)
    calls = []
    real = git_guard.designated

    def counted(entry: str) -> git_guard.Designated:
        calls.append(entry)
        return real(entry)

    monkeypatch.setattr(git_guard, "designated", counted)
    first = why(ws, ".husky/x")
    assert first and why(ws, ".husky/y") == first and calls == [str(ws / ".git")]
    (ws / ".git" / "config").write_text("[core]\n")  # changed, its time set back: read again
    os.utime(ws / ".git" / "config", (old, old))
    assert why(ws, ".husky/x") == "" and len(calls) == 2


def test_a_git_directory_a_git_file_names_and_its_configuration(tmp_path: Path, home: Path) -> None:
    """A submodule (`.git` file → `.git/modules/sub`, its `core.worktree` back to `sub`) and a
    repository whose git directory is elsewhere in the workspace, not named `.git`."""
    ws = repository(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    git(other, "commit", "-q", "--allow-empty", "-m", "x")
    git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(other), "sub")
    git(ws / "sub", "config", "core.hooksPath", "hooks")
    assert "core.hooksPath" in why(ws, "sub/hooks/pre-commit")
    assert why(ws, "hooks/pre-commit") == ""
    (ws / "plain").mkdir()
    git(ws, "init", "-q", "--separate-git-dir", str(ws / "kept-git"), str(ws / "plain"))
    assert "a .git file" in why(ws, "kept-git/config")
    assert "a .git file" in why(ws, "kept-git/hooks/pre-commit")
    (ws / "mod").mkdir()
    (ws / "mod" / ".git").write_text("gitdir: ../not-yet\n")  # named before it exists
    assert "a .git file" in why(ws, "not-yet/config")


def test_a_linked_worktree_reads_the_common_directory(tmp_path: Path, home: Path) -> None:
    main = tmp_path / "ws" / "main"
    main.mkdir(parents=True)
    git(main, "init", "-q")
    git(main, "commit", "-q", "--allow-empty", "-m", "x")
    git(main, "worktree", "add", "-q", "../wt")
    git(main, "config", "core.hooksPath", ".husky")
    ws = tmp_path / "ws"
    assert "core.hooksPath" in why(ws, "wt/.husky/pre-commit")
    assert "core.hooksPath" in why(ws, "main/.husky/pre-commit")
    assert why(ws, "wt/.husky") and why(ws, "wt/src/a.py") == ""


def test_the_user_s_configuration_and_a_repository_above_the_workspace(
    tmp_path: Path, home: Path
) -> None:
    ws = repository(tmp_path)
    (home / ".gitconfig").write_text("[core]\n\thooksPath = .githooks\n")
    git(ws / "src", "init", "-q")  # a nested repository: its top is src
    assert why(ws, ".githooks/pre-commit") and why(ws, "src/.githooks/pre-commit")
    (home / ".gitconfig").write_text("")
    git(ws, "config", "core.hooksPath", "src/hooks")
    assert "core.hooksPath" in why(ws / "src", "hooks/x", [ws / "src"])  # rooted below the top


def test_a_program_on_a_path_entry_inside_the_workspace(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = repository(tmp_path)
    monkeypatch.setenv("PATH", f"{ws / 'bin'}{os.pathsep}{os.environ['PATH']}")
    git(ws, "config", "core.pager", "mypager -R")
    assert "core.pager" in why(ws, "bin/mypager") and why(ws, "mypager") == ""


def test_links_lead_to_places_and_places_lead_through_links(tmp_path: Path, home: Path) -> None:
    ws = repository(tmp_path)
    (ws / "hooks-real").mkdir()
    (ws / ".husky").symlink_to("hooks-real")
    (ws / "lnk").symlink_to(".husky")
    git(ws, "config", "core.hooksPath", ".husky")
    for rel in (".husky/pre-commit", "hooks-real/pre-commit", "lnk/pre-commit"):
        assert "core.hooksPath" in why(ws, rel), rel


@pytest.mark.parametrize(
    "config",
    [
        "[core]\n\thooksPath = x\n[broken\n",  # a line git refuses
        '[core]\n\tpager = "unclosed\n',
        "[include]\n\tpath = config\n",  # includes itself: deeper than git goes
        "[include]\n\tpath\n",  # an include without a value
        "[alias]\n\tx = !$(cat cmd.txt)\n",  # a program known only when it runs
    ],
)
def test_a_configuration_that_cannot_be_read_makes_every_path_a_place(
    tmp_path: Path, home: Path, config: str
) -> None:
    ws = repository(tmp_path)
    (ws / ".git" / "config").write_text(config)
    for rel in ("src/a.py", "anything", "."):
        assert "cannot be read" in why(ws, rel), config
    assert why(tmp_path / "elsewhere", "x", [ws]) == ""  # the roots only


def test_the_machines_configuration_is_read_where_git_reads_it(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = repository(tmp_path)
    system = tmp_path / "system.cfg"
    system.write_text(f"[core]\n\thooksPath = {ws}/sys-hooks\n")
    monkeypatch.delenv("GIT_CONFIG_NOSYSTEM")
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", str(system))
    assert "core.hooksPath" in why(ws, "sys-hooks/x")
    xdg = home / "xdg" / "git"
    xdg.mkdir(parents=True)
    (xdg / "config").write_text("[include]\n\tpath = ~/inc.cfg\n")
    (home / "inc.cfg").write_text(f"[core]\n\tfsmonitor = {ws}/fsm\n")
    assert "core.fsmonitor" in why(ws, "fsm")


def test_a_sandboxed_command_cannot_write_a_place_it_does_not_name(
    tmp_path: Path, bwrap: Engine
) -> None:
    """Through a real `acp` in a real bwrap, under workspace-write: `python3 plant.py` names no
    place and runs unasked, and its writes into the hooks directory and the included file fail
    (the offer to run it outside refused); a write elsewhere in the workspace succeeds."""
    plant = (
        "import sys\n"
        "failed = 0\n"
        "for path in PATHS:\n"
        "    try:\n"
        "        open(path, 'a').write('touch PLANTED\\n')\n"
        "        print('wrote', path)\n"
        "    except OSError as exc:\n"
        "        print('refused', path, exc.strerror)\n"
        "        failed = 1\n"
        "sys.exit(failed)\n"
    )
    line = "python3 plant.py"
    c = agent(tmp_path, [bash(line)], env=SANDBOX_ON)
    sid, cwd = start(c)
    git(cwd, "init", "-q")
    git(cwd, "config", "core.hooksPath", ".husky")
    git(cwd, "config", "include.path", "../shared.gitconfig")
    (cwd / ".husky").mkdir()
    (cwd / ".husky" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (cwd / "shared.gitconfig").write_text("[alias]\n\tst = status\n")
    paths = [".husky/pre-commit", ".husky/post-merge", "shared.gitconfig", "fine.txt"]
    (cwd / "plant.py").write_text(f"PATHS = {paths!r}\n{plant}")
    asked, done = prompt(c, sid, reject)
    assert [q["toolCall"]["rawInput"].get("sandboxBlocked") for q in asked] != []
    assert all("gitPlaces" not in q["toolCall"]["rawInput"] for q in asked)
    out = text_of(done[0])
    for refused in paths[:3]:
        assert f"refused {refused}" in out, out
    assert "wrote fine.txt" in out
    assert (cwd / ".husky" / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"
    assert not (cwd / ".husky" / "post-merge").exists()
    assert (cwd / "shared.gitconfig").read_text() == "[alias]\n\tst = status\n"
    assert c.close() == 0
