"""The files a checkpoint watches under a root: what git would track there (tracked and
untracked, not ignored) when the root is in a git work tree, otherwise every file below it
but in the usual generated or vendored directories; regular files only, at most `limit`."""

from __future__ import annotations

import os
import shutil
import subprocess

SKIPPED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache",
        ".pytest_cache", ".ruff_cache", ".tox", ".nox", "target", "dist", "build", ".next",
        ".cache", ".gradle", ".idea",
    }
)  # fmt: skip
GIT_SECONDS = 20


class TooMany(Exception):
    """More files under the roots than a checkpoint watches."""


def listed(root: str, limit: int) -> list[str]:
    """Absolute paths of the files under `root` (raises TooMany past `limit`)."""
    found = _git_listed(root)
    if found is None:
        found = _walked(root, limit)
    if len(found) > limit:
        raise TooMany(f"more than {limit} files under {root}")
    return found


def _git_listed(root: str) -> list[str] | None:
    git = shutil.which("git")
    if git is None or not os.path.isdir(root):
        return None
    try:
        done = subprocess.run(
            [git, "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            timeout=GIT_SECONDS,
            check=False,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:  # not a work tree
        return None
    names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    return [os.path.join(root, n) for n in dict.fromkeys(names) if n]


def _walked(root: str, limit: int) -> list[str]:
    found: list[str] = []
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        found.extend(os.path.join(top, f) for f in files)
        if len(found) > limit:
            break
    return found
