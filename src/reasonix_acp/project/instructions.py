"""Project instructions: the `AGENTS.md` files (the cross-agent convention) a session's model is
given in its system prompt.

Which files, in this order (the more general first, the more specific last):
1. the user's own, `AGENTS.md` in the agent's config directory (beside config.toml);
2. the project's, from the repository root (the nearest parent holding `.git`) down to the
   session's cwd, one per directory; outside a repository, the cwd's alone;
3. each additional directory's, walked the same way, leaving out files already taken.

A file is read whole up to LIMIT bytes for all files together; the one that crosses it is cut
(the cut is said in the text), and the ones after it are named as not loaded. The same file
reached twice (a link) is taken once. A block of a prompt that is one of the files loaded whole
is not sent again (project/repeats.py).

Every project file (these, command files, skills) is read only where it really is, links
resolved (`Bounds`, `read_within`): a project's inside the project, that is a repository root,
the cwd or an additional directory; a user's inside the config directory; never under /proc,
/dev or /sys; only a regular file, opened without blocking (safe_read.py). A link that leaves
those places is refused, and named with why by `describe` (`/status`, `acp doctor`).

Loaded when a session opens and again by its reload (`_reasonix.io/session/reloadExtensions`),
never during a turn: the system prompt, and with it the provider's cached prefix, stays the same
from request to request.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from reasonix_acp.safe_read import NotRegular, read_regular, system_path

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
    refused: tuple[str, ...] = ()  # the files not read, each with why
    # (path, text) of each file loaded whole, as it is: what an editor attaching the file sends
    # (project/repeats.py)
    bodies: tuple[tuple[str, str], ...] = ()

    def describe(self, also_refused: Iterable[str] = ()) -> str:
        """The files loaded, then those not read and why: these and `also_refused` (the
        project's other files, command files and skills)."""
        refused = [*self.refused, *also_refused]
        if not self.files:
            loaded = "none" if self.refused else f"none (no {NAME} found)"
        else:
            loaded = "; ".join(f.describe() for f in self.files)
        text = f"project instructions: {loaded}"
        return text + "; not read: " + "; ".join(refused) if refused else text


class Refused(Exception):
    """A project or user file that is not read: `note` names it and says why."""

    def __init__(self, note: str) -> None:
        super().__init__(note)
        self.note = note


@dataclass(frozen=True)
class Bounds:
    """Where a session's files may really be (real paths): the project's (its repository
    roots, the cwd and additional directories) and the user's (the config directory)."""

    project: tuple[str, ...]
    user: tuple[str, ...]


def bounds(cwd: str, extra: Iterable[str], config_dir: str | None) -> Bounds:
    project: list[str] = []
    for directory in (cwd, *extra):
        for root in (repository_root(directory), directory):
            real = os.path.realpath(root) if root else None
            if real and real not in project:
                project.append(real)
    return Bounds(tuple(project), (os.path.realpath(config_dir),) if config_dir else ())


def _within(real: str, roots: Iterable[str]) -> bool:
    return any(os.path.commonpath([real, root]) == root for root in roots)


def read_within(
    path: str, roots: tuple[str, ...], limit: int, where: str
) -> tuple[str, int, bytes]:
    """(its real path, its size, its first `limit` bytes) of a file that really is inside
    `roots` (`where` names them for the refusal). Refused for one that is not (a link out of
    them, a system file, not a regular file); OSError when there is no such file."""
    os.lstat(path)  # no such file: nothing to say
    real = os.path.realpath(path)
    shown = f"{path} (a link to {real}, " if real != os.path.abspath(path) else f"{path} ("
    if system_path(real):
        raise Refused(f"{shown}a system file: never read)")
    if not _within(real, roots):
        raise Refused(f"{shown}outside {where}: not read)")
    try:  # links resolved and checked: the real path itself, never a link swapped in since
        size, data = read_regular(real, limit, follow=False)
    except NotRegular as exc:
        raise Refused(f"{shown}{exc.strerror}: not read)") from None
    return real, size, data


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


PROJECT = "the project and workspace"
USER = "the config directory"


def load(cwd: str, extra: list[str], config_dir: str | None, limit: int = LIMIT) -> Instructions:
    files: list[Loaded] = []
    parts: list[str] = []
    refused: list[str] = []
    bodies: list[tuple[str, str]] = []
    seen: set[str] = set()
    left = limit
    where = bounds(cwd, extra, config_dir)
    user = os.path.join(config_dir, NAME) if config_dir else None
    for path in candidates(cwd, extra, config_dir):
        roots, named = (where.user, USER) if path == user else (where.project, PROJECT)
        try:
            found = _read(path, roots, named, seen, left)
        except Refused as exc:
            if exc.note not in refused:
                refused.append(exc.note)
            continue
        if found is None:
            continue
        size, taken = found
        left -= len(taken)
        files.append(Loaded(path, size, len(taken)))
        if not taken:
            continue
        body = taken.decode("utf-8", "replace").rstrip("\n")
        if len(taken) == size and body.strip():
            bodies.append((path, body))
        if len(taken) < size:
            body += f"\n[cut: {len(taken)} of {size} bytes of this file; the rest is not loaded]"
        parts.append(f"## {path}\n{body}")
    text = "\n\n".join([HEADING, *parts]) if parts else ""
    return Instructions(tuple(files), text, tuple(refused), tuple(bodies))


def _read(
    path: str, roots: tuple[str, ...], where: str, seen: set[str], most: int
) -> tuple[int, bytes] | None:
    """(a regular file's size, its first `most` bytes), once per real file; None when there is
    no such file to read; Refused for one that may not be read."""
    try:
        real = os.path.realpath(path)
        if real in seen:
            return None
        real, size, data = read_within(path, roots, max(most, 0), where)
    except (OSError, ValueError):
        return None
    seen.add(real)
    return size, data
