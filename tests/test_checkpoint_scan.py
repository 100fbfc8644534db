"""The files a checkpoint watches are found without running any program (checkpoints/scan.py):
against git itself (run here by the test, with no configuration of its own), on generated
repositories with ignore files at every level, `info/exclude` and a global excludes file,
tracked files that are ignored, files deleted since they were added, a nested repository, links,
and index versions 2, 3 and 4, listed from the top and from a subdirectory: the same files as
`git ls-files --cached --others --exclude-standard`. The seed is printed (`SCAN_SEED=N`
replays one). And a repository whose configuration names a program is listed without it
running; an index that names a path outside the tree is not read."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from reasonix_acp.checkpoints import git_index
from reasonix_acp.checkpoints.scan import TooMany, listed, work_tree

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

NAMES = ["a", "b", "build", "doc", "sub", "tmp", "x y", "Ünï"]
FILES = ["f.txt", "g.log", "h.c", "keep.log", "#hash", "trail ", ".hidden", "1.txt", "z.h"]
PATTERNS = [
    "*.log", "!keep.log", "build/", "/a", "b/*.c", "**/tmp", "doc/**", "a/**/f.txt", "[fg].*",
    "?.c", "\\#hash", "trail\\ ", "!*.txt", "sub/", "!sub/", ".hidden", "[!a-f]*.c", "x*y",
    "doc/*", "/sub/g.log", "*.[ch]", "[[:digit:]]*", "# a comment", "", "!/b", "tmp",
    "Ünï/", "**/f.txt", "*.txt  ", "z.h/",
]  # fmt: skip


def git(cwd: Path, *args: str, home: Path) -> str:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "xdg"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=True)
    return done.stdout.decode("utf-8", "surrogateescape")


def generated(rng: random.Random, top: Path, home: Path) -> None:
    for _ in range(rng.randint(10, 60)):
        depth = rng.randint(0, 3)
        where = top.joinpath(*(rng.choice(NAMES) for _ in range(depth)))
        where.mkdir(parents=True, exist_ok=True)
        (where / rng.choice(FILES)).write_text("x\n")
    dirs = [top, *(p for p in top.rglob("*") if p.is_dir())]
    for directory in rng.sample(dirs, k=min(len(dirs), rng.randint(1, 5))):
        lines = rng.sample(PATTERNS, k=rng.randint(1, 6))
        (directory / ".gitignore").write_text("\n".join(lines) + "\n")
    git(top, "init", "-q", home=home)
    (top / ".git" / "info").mkdir(exist_ok=True)
    (top / ".git" / "info" / "exclude").write_text(rng.choice(PATTERNS) + "\n")
    (home / "xdg" / "git").mkdir(parents=True, exist_ok=True)
    (home / "xdg" / "git" / "ignore").write_text(rng.choice(PATTERNS) + "\n")
    files = [p for p in top.rglob("*") if p.is_file() and ".git" not in p.parts]
    chosen = rng.sample(files, k=len(files) // 2)
    for path in chosen:  # tracked, some of them though ignored
        git(top, "add", "-f", "--", str(path.relative_to(top)), home=home)
    if chosen and rng.random() < 0.5:
        chosen[0].unlink()  # tracked, gone from the tree
    if len(chosen) > 1 and rng.random() < 0.5:  # an extended flag: a version 3 index
        git(
            top, "update-index", "--skip-worktree", "--", str(chosen[1].relative_to(top)), home=home
        )
    if rng.random() < 0.4:
        git(top, "update-index", "--index-version", "4", home=home)
    if rng.random() < 0.3:
        nested = top / rng.choice(NAMES) / "nested"
        nested.mkdir(parents=True, exist_ok=True)
        git(nested, "init", "-q", home=home)
        (nested / "inner.txt").write_text("inner\n")
    if rng.random() < 0.3:
        (top / "link").symlink_to(rng.choice(dirs))


def git_listed(root: Path, home: Path) -> set[str]:
    """What git lists, but a nested repository (`dir/`, a directory no checkpoint reads)."""
    out = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", home=home)
    return {os.path.join(root, n) for n in out.split("\0") if n and not n.endswith("/")}


def test_the_walk_lists_what_git_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seed = int(os.environ.get("SCAN_SEED", random.randrange(1 << 30)))
    count = int(os.environ.get("SCAN_EXAMPLES", "12"))
    print(f"\nSCAN_SEED={seed}")
    rng = random.Random(seed)
    home = tmp_path / "home"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg"))
    for n in range(count):
        top = tmp_path / f"repo{n}"
        top.mkdir()
        generated(rng, top, home)
        subdirs = [
            p for p in top.iterdir() if p.is_dir() and not p.is_symlink() and p.name != ".git"
        ]
        for root in [top, *subdirs[:2]]:
            if (root / ".git").exists() and root != top:
                continue  # a nested repository is a repository of its own
            expected = git_listed(root, home)
            assert set(listed(str(root), 10**6)) == expected, (seed, n, root)


def test_a_repository_s_configured_programs_never_run(tmp_path: Path) -> None:
    top = tmp_path / "ws"
    top.mkdir()
    git(top, "init", "-q", home=tmp_path)
    canary = tmp_path / "PWNED"
    with open(top / ".git" / "config", "a") as fh:
        fh.write(f'[core]\n\tfsmonitor = "touch {canary}"\n\thooksPath = /nonexistent\n')
    (top / "a.txt").write_text("a\n")
    assert listed(str(top), 100) == [str(top / "a.txt")]
    assert not canary.exists()


def test_an_index_naming_a_path_outside_the_tree_is_not_read(tmp_path: Path) -> None:
    top = tmp_path / "ws"
    top.mkdir()
    git(top, "init", "-q", home=tmp_path)
    (top / "abc.txt").write_text("x\n")
    git(top, "add", "abc.txt", home=tmp_path)
    index = top / ".git" / "index"
    good = index.read_bytes()
    assert git_index.paths(str(top / ".git")) == ["abc.txt"]
    for bad in (b"../.txt", b"/bc.txt", b"a//.txt", b"./c.txt"):
        index.write_bytes(good.replace(b"abc.txt", bad))
        assert git_index.paths(str(top / ".git")) is None, bad
    index.write_bytes(good[:-30])  # cut short
    assert git_index.paths(str(top / ".git")) is None
    index.write_bytes(good)
    (top / "abc.txt").unlink()
    assert listed(str(top), 100) == [str(top / "abc.txt")]  # tracked, though gone


def test_outside_a_repository_the_usual_generated_directories_are_left_out(
    tmp_path: Path,
) -> None:
    (tmp_path / "node_modules" / "x").mkdir(parents=True)
    (tmp_path / "node_modules" / "x" / "i.js").write_text("x")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("x")
    (tmp_path / ".git").mkdir()  # not a repository: no HEAD, objects, refs
    (tmp_path / ".git" / "config").write_text("[core]\n")
    assert work_tree(str(tmp_path)) is None
    assert sorted(listed(str(tmp_path), 100)) == [str(tmp_path / "src" / "m.py")]
    with pytest.raises(TooMany):
        listed(str(tmp_path), 0)
