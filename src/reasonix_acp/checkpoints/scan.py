"""The files a checkpoint watches under a root, found without running any program.

In a git work tree they are what `git ls-files --cached --others --exclude-standard` would list
there: the index's files under the root (checkpoints/git_index.py) and every other file a walk
finds that the ignore rules do not exclude (checkpoints/gitignore.py: the `.gitignore` files
from the work tree's top down, `.git/info/exclude`, the user's global excludes file). Outside
one, every file below the root but in the usual generated or vendored directories
(SKIPPED_DIRS). At most `limit`; TooMany past it.

Why git itself is not run: a repository's configuration decides what git runs (`core.fsmonitor`
on every command that reads the index, `core.hooksPath`, filters and textconv drivers, an
`include.path` to a file elsewhere, `core.worktree` to another tree), and the model can write
that configuration, or make a directory a repository with a few writes. Whatever flags git is
started with, proving that no key of today's or a later git runs a program means knowing all
of them; a walk in Python runs nothing, and reads the files as data.

Rules:
- No program is started, and nothing is followed through a link: directories are entered only
  when they are directories themselves (a link is listed as a file, as git lists it).
- A `.git` (directory or file) is never entered, and a directory holding one below the root is
  another repository: none of its files is listed (git lists none either).
- Only what a walk met or the index named, joined under the root: an index path is relative and
  has no `..` (git_index.py refuses the index otherwise); regular files and links, at most
  `limit`.
"""

from __future__ import annotations

import os

from reasonix_acp.checkpoints import git_index, gitignore
from reasonix_acp.checkpoints.gitignore import Rules

SKIPPED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache",
        ".pytest_cache", ".ruff_cache", ".tox", ".nox", "target", "dist", "build", ".next",
        ".cache", ".gradle", ".idea",
    }
)  # fmt: skip


class TooMany(Exception):
    """More files under the roots than a checkpoint watches."""


def listed(root: str, limit: int) -> list[str]:
    """Absolute paths of the files under `root` (raises TooMany past `limit`)."""
    if not os.path.isdir(root):
        return []
    found: dict[str, None] = {}
    tree = work_tree(root)
    if tree is None:
        _walk(found, limit, root, "", None)
        return list(found)
    top, gitdir = tree
    inside = os.path.relpath(root, top).replace(os.sep, "/")
    prefix = "" if inside == "." else inside + "/"
    cut, base = len(prefix), root + os.sep
    for rel in git_index.paths(gitdir) or ():
        if rel.startswith(prefix):
            found[base + rel[cut:]] = None
    _check(found, limit, root)
    rules = _rules(top, gitdir, prefix)
    if rules is not None:
        _walk(found, limit, root, prefix, rules)
    return list(found)


def _check(found: dict[str, None], limit: int, root: str) -> None:
    if len(found) > limit:
        raise TooMany(f"more than {limit} files under {root}")


def work_tree(root: str) -> tuple[str, str] | None:
    """(the work tree's top, its git directory) when `root` is in one: the nearest directory
    at or above it whose `.git` is a git directory (HEAD, objects/, refs/), or a file naming
    one (`gitdir: …`, a submodule's or a linked worktree's), as git finds it. None outside
    one, or inside a git directory."""
    real = os.path.realpath(root)
    if ".git" in real.split(os.sep):
        return None
    here = real
    while True:
        dotgit = os.path.join(here, ".git")
        gitdir = _gitdir_of(dotgit) if os.path.isfile(dotgit) else dotgit
        if gitdir is not None and _is_gitdir(gitdir):
            return here, gitdir
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _gitdir_of(dotgit: str) -> str | None:
    """The directory a `.git` file names (relative to the file's directory), if it is one."""
    try:
        with open(dotgit, "rb") as fh:
            first = fh.read(4096).split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
    except OSError:
        return None
    if not first.startswith("gitdir: "):
        return None
    return os.path.join(os.path.dirname(dotgit), first[len("gitdir: ") :].strip())


def _is_gitdir(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "HEAD")) and all(
        os.path.isdir(os.path.join(path, d)) for d in ("objects", "refs")
    )


def _rules(top: str, gitdir: str, prefix: str) -> Rules | None:
    """The ignore rules in force at the root: the global file, info/exclude, then each
    `.gitignore` from the top down to the root's parent (the root's own is read by `_walk`).
    None when the root is in an ignored directory (only the index's files are listed then)."""
    rules = Rules().with_file(gitignore.global_file(), "")
    rules = rules.with_file(os.path.join(gitdir, "info", "exclude"), "")
    base = ""
    for part in prefix.split("/")[:-1]:
        rules = rules.with_file(os.path.join(top, *base.split("/"), ".gitignore"), base)
        base += part + "/"
        if rules.ignored(base[:-1], True):
            return None
    return rules


def _walk(found: dict[str, None], limit: int, root: str, rel: str, rules: Rules | None) -> None:
    """Adds the files below `root` to `found` (`rel` its path in the work tree, ending in `/`
    or empty); `rules` None: not in a work tree (SKIPPED_DIRS are left out instead)."""
    pending: list[tuple[str, str, Rules | None]] = [(root, rel, rules)]
    while pending:
        directory, rel, rules = pending.pop()
        if rules is not None:
            rules = rules.with_file(os.path.join(directory, ".gitignore"), rel)
        try:
            with os.scandir(directory) as entries:
                listing = list(entries)
        except OSError:
            continue
        for entry in listing:
            name = entry.name
            try:  # the kind the directory reports (no stat where the file system gives it)
                is_dir = entry.is_dir(follow_symlinks=False)
                kept = is_dir or entry.is_file(follow_symlinks=False) or entry.is_symlink()
            except OSError:
                continue
            if is_dir:
                if name != ".git" and not _skipped(entry.path, rel + name, rules):
                    pending.append((entry.path, rel + name + "/", rules))
            elif kept and (
                rules is None or (name != ".git" and not rules.ignored(rel + name, False))
            ):
                found[entry.path] = None  # (a `.git` file: the work tree's link to its git dir)
        _check(found, limit, root)


def _skipped(path: str, rel: str, rules: Rules | None) -> bool:
    """A directory not entered: an ignored one, another repository, a usual generated one."""
    if rules is None:
        return os.path.basename(path) in SKIPPED_DIRS
    return rules.ignored(rel, True) or os.path.lexists(os.path.join(path, ".git"))
