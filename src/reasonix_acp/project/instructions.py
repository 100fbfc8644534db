"""Project instructions: the `AGENTS.md` files (the cross-agent convention) a session's model is
given in its system prompt.

Which files, in this order (the more general first, the more specific last):
1. the user's own, `AGENTS.md` in the agent's config directory (beside config.toml);
2. the project's, from the repository root (the nearest parent holding `.git`) down to the
   session's cwd, one per directory; outside a repository, the cwd's alone;
3. each additional directory's, walked the same way, leaving out files already taken.

A file is read whole up to LIMIT bytes for all files together; the one that crosses it is cut
(the cut is said in the text), and the ones after it are named as not loaded. The same file
reached twice (a link) is taken once. Only regular files are read.

Loaded when a session opens and again by its reload (`_reasonix.io/session/reloadExtensions`),
never during a turn: the system prompt, and with it the provider's cached prefix, stays the same
from request to request.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

NAME = "AGENTS.md"
LIMIT = 32 * 1024  # bytes of instructions, all files together
HEADING = (
    "# Instructions from AGENTS.md files\n"
    "The user's first, then the project's from its root down: a later file is more specific."
)


@dataclass(frozen=True)
class Loaded:
    """One instruction file: where it is, its size, and how many of its bytes were taken."""

    path: str
    size: int
    used: int

    def describe(self) -> str:
        if self.used == self.size:
            return f"{self.path} ({self.size} bytes)"
        if self.used == 0:
            return f"{self.path} ({self.size} bytes, not loaded: over the {LIMIT}-byte limit)"
        return f"{self.path} ({self.used} of {self.size} bytes: cut at the {LIMIT}-byte limit)"


@dataclass(frozen=True)
class Instructions:
    """The instruction files found for a session and the text they add to the system prompt."""

    files: tuple[Loaded, ...] = ()
    text: str = ""  # "" when there is none

    def describe(self) -> str:
        if not self.files:
            return f"project instructions: none (no {NAME} found)"
        return "project instructions: " + "; ".join(f.describe() for f in self.files)


def repository_root(directory: str) -> str | None:
    """The nearest directory at or above `directory` holding `.git`, or None."""
    current = os.path.abspath(directory)
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _chain(directory: str) -> list[str]:
    """The directories from the repository root down to `directory` (itself alone outside a
    repository)."""
    directory = os.path.abspath(directory)
    root = repository_root(directory)
    chain = [directory]
    while root is not None and chain[0] != root:
        chain.insert(0, os.path.dirname(chain[0]))
    return chain


def candidates(cwd: str, extra: list[str], config_dir: str | None) -> list[str]:
    """The files looked for, in the order they are given to the model."""
    found = [os.path.join(config_dir, NAME)] if config_dir else []
    for directory in (cwd, *extra):
        found += [os.path.join(d, NAME) for d in _chain(directory)]
    return found


def load(cwd: str, extra: list[str], config_dir: str | None, limit: int = LIMIT) -> Instructions:
    files: list[Loaded] = []
    parts: list[str] = []
    seen: set[str] = set()
    left = limit
    for path in candidates(cwd, extra, config_dir):
        found = _read(path, seen, left)
        if found is None:
            continue
        size, taken = found
        left -= len(taken)
        files.append(Loaded(path, size, len(taken)))
        if not taken:
            continue
        body = taken.decode("utf-8", "replace").rstrip("\n")
        if len(taken) < size:
            body += f"\n[cut: {len(taken)} of {size} bytes of this file; the rest is not loaded]"
        parts.append(f"## {path}\n{body}")
    text = "\n\n".join([HEADING, *parts]) if parts else ""
    return Instructions(tuple(files), text)


def _read(path: str, seen: set[str], most: int) -> tuple[int, bytes] | None:
    """(a regular file's size, its first `most` bytes), once per real file; None when there is
    no such file to read."""
    try:
        real = os.path.realpath(path)
        if real in seen:
            return None
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO never blocks
        with os.fdopen(fd, "rb", buffering=0) as fh:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return None
            os.set_blocking(fd, True)
            data = fh.read(most) if most > 0 else b""
    except (OSError, ValueError):
        return None
    seen.add(real)
    return info.st_size, data
