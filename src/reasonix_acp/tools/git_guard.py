"""The places git runs programs from or reads as its configuration, in a workspace: every
repository's `.git`, and what the repositories' configuration designates outside it
(tools/git_designated.py). A write there plants a program the user's next git runs:
tools/workspace.py judges a file tool's target against them, turn/line_git.py a command line's
words, and tools/sandbox.py mounts them read-only.

Rules:
- `.git` is a place by its name (`in_git`): a path with a component a file system may take
  for `.git` (`dot_git`: any case, as macOS and Windows read names, the code points HFS+
  ignores, trailing dots or spaces, an NTFS stream, the short name `git~1`: git's own list).
- The repositories are every `.git` at or below the roots (directories and files, any name
  `dot_git`; links not followed, a `.git` not entered: `GitPlaces`) and every `.git` at or
  above a root; each designates places (git_designated.py). Those outside every root are left
  out (a write there asks anyway, but under danger-full-access, where nothing asks).
- Where a repository's places cannot all be known (its configuration cannot be read as git
  reads it), every root is a place, the reason named (`UNJUDGED`, with what could not be
  read): every write into the workspace asks, until the user answers for the session that
  writes may go on while that reason stands (turn/gate.py); a place the configuration does
  name is judged before it, so that answer never covers one.
- A path is in a place when it is the place or, for a directory (`tree`), below it: compared
  component by component, each folded as `dot_git` folds (`.HUSKY/pre-commit` is in `.husky`),
  the place both as named and where it leads now; the caller judges a path as given and where
  it leads.
- `protected` keeps each set of roots' places between judgements (at most KEPT sets): the walk
  reads again only the directories that changed, and the places are read again only when a
  file they were read from changed (its stat signature), or changed within RACY seconds of
  being read (a change in the same clock tick would not show).
"""

from __future__ import annotations

import os
import re
import stat
import threading
import time
from dataclasses import dataclass, field

from reasonix_acp.tools.git_designated import Designated, Place, designated

GIT_WHY = "the repository's configuration and hooks run programs the next time git runs"
RACY = 2.0
KEPT = 16
# The code points HFS+ ignores in a name (git's is_hfs_dotgit): `.g\u200cit` is `.git` there.
_HFS_IGNORED = re.compile("[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")


def fold(name: str) -> str:
    """A name as a file system that ignores case, HFS+'s ignored code points, trailing dots and
    spaces, and NTFS streams may read it."""
    return _HFS_IGNORED.sub("", name).split(":", 1)[0].rstrip(". ").casefold()


def dot_git(name: str) -> bool:
    """Whether a file system may take the name `name` for `.git`: in any case, with code points
    HFS+ ignores, with trailing dots or spaces or a stream name (`.git::$INDEX_ALLOCATION`,
    NTFS), or as its 8.3 short name `git~1` (git's own list: is_hfs_dotgit, is_ntfs_dotgit)."""
    return fold(name) in (".git", "git~1")


def in_git(path: str) -> bool:
    """Whether `path` is in a `.git` or is one: any component `dot_git` (`/` and `\\` both
    separate, as on Windows)."""
    return any(dot_git(part) for part in path.replace("\\", "/").split("/"))


def _folded(path: str) -> tuple[str, ...]:
    return tuple(fold(part) for part in os.path.normpath(path).split(os.sep) if part)


# Why a root is a place when a repository's configuration cannot be read as git reads it.
UNJUDGED = "git's configuration cannot be read"


def unjudged(why: str) -> bool:
    """Whether `why` is only that a configuration could not be judged (every write asks)."""
    return why.startswith(UNJUDGED)


class Places:
    """The protected places under some roots: the `.git` places found (`gits`) and the places
    the configuration designates (`marked`)."""

    def __init__(self, marked: list[Place], gits: list[str]) -> None:
        self.marked, self.gits = marked, gits
        self._index: list[tuple[tuple[str, ...], Place]] = []
        for place in marked:
            for form in dict.fromkeys((place.path, _real(place.path))):
                self._index.append((_folded(form), place))

    def why(self, path: str) -> str:
        """Why `path` (absolute) is a protected place, or "" when it is none. A place the
        configuration names comes before a root that is one because a configuration could not
        be read (`unjudged`): a session's answer for the latter never covers the former."""
        if in_git(path):
            return GIT_WHY
        folded = _folded(path)
        found = [
            place.why
            for key, place in self._index
            if folded == key or (place.tree and folded[: len(key)] == key)
        ]
        return min(found, key=unjudged, default="")

    def within(self, real: str) -> bool:
        """Whether a designated place is at or below the directory `real`, or it is in one."""
        folded = _folded(real)
        return any(key[: len(folded)] == folded for key, _ in self._index) or bool(self.why(real))

    def mounts(self) -> list[str]:
        """What exists of the places, where it leads: what a sandbox mounts read-only."""
        found = [_real(p) for p in self.gits]
        found += [_real(p.path) for p in self.marked]
        return [p for p in dict.fromkeys(found) if os.path.lexists(p)]


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.abspath(path)


@dataclass
class _Kept:
    """One set of roots' walk, the places last read and what they were read from."""

    walker: GitPlaces
    entries: tuple[str, ...] = ()
    files: dict[str, tuple[int, int, int, int, int] | None] = field(default_factory=dict)
    read_at: float = 0.0
    places: Places | None = None

    def valid(self, entries: tuple[str, ...]) -> bool:
        # lazy: start-up
        from reasonix_acp.checkpoints.git_config import Unreadable, signature

        if self.places is None or entries != self.entries:
            return False
        for path, kept in self.files.items():
            try:
                now = signature(path)
            except Unreadable:
                return False
            if now != kept or (now is not None and now[3] > (self.read_at - RACY) * 1e9):
                return False
        return True


_KEPT: dict[tuple[str, ...], _Kept] = {}
_LOCK = threading.Lock()


def protected(roots: list[str]) -> Places:
    """The protected places under `roots` (real directories), as they stand now."""
    key = tuple(roots)
    with _LOCK:
        kept = _KEPT.pop(key, None) or _Kept(GitPlaces())
        _KEPT[key] = kept
        while len(_KEPT) > KEPT:
            del _KEPT[next(iter(_KEPT))]
        gits = kept.walker.below(list(roots))
        entries = tuple(dict.fromkeys([*gits, *_above(roots)]))
        if kept.valid(entries) and kept.places is not None:
            return kept.places
        kept.read_at = time.time()
        kept.entries, kept.files = entries, {}
        marked: list[Place] = []
        for entry in entries:
            found = designated(entry)
            kept.files.update(found.files)
            marked += _inside(found, roots)
        kept.places = Places(marked, gits)
        return kept.places


def _inside(found: Designated, roots: list[str]) -> list[Place]:
    """The places under some root; every root when they cannot all be known."""
    if found.unknown:
        why = f"{UNJUDGED} ({found.unknown}): every write asks"
        return [Place(root, True, why) for root in roots]
    keys = [_folded(root) for root in roots]
    out = []
    for place in found.places:
        forms = {_folded(place.path), _folded(_real(place.path))}
        if any(form[: len(key)] == key for form in forms for key in keys):
            out.append(place)
    return out


def _above(roots: list[str]) -> list[str]:
    """The `.git` of every directory above the roots (the repositories they are in)."""
    found = []
    for root in roots:
        here = os.path.dirname(root)
        while True:
            entry = os.path.join(here, ".git")
            if os.path.lexists(entry):
                found.append(entry)
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
    return found


class GitPlaces:
    """Every `.git` (directory or file, any name `dot_git`) at or below some directories, found
    again before each judgement and kept between them: a directory is read again only when its
    modification time or inode changed (a name made, removed or renamed in it changes it), or
    when it changed within RACY seconds of being read. Links are not followed; a `.git` is not
    entered (its mount covers what is below it)."""

    def __init__(self) -> None:
        # directory → (its signature, the directories below it, the `.git` places in it)
        self._read: dict[str, tuple[tuple[int, int, int], list[str], list[str]]] = {}

    def below(self, roots: list[str]) -> list[str]:
        found: list[str] = []
        kept: dict[str, tuple[tuple[int, int, int], list[str], list[str]]] = {}
        pending, seen = list(roots), set()
        while pending:
            directory = pending.pop()
            if directory in seen:  # a root below another
                continue
            seen.add(directory)
            try:
                info = os.lstat(directory)
            except OSError:
                continue
            if not stat.S_ISDIR(info.st_mode):
                continue
            signature = (info.st_mtime_ns, info.st_ino, info.st_dev)
            entry = self._read.get(directory)
            if entry is None or entry[0] != signature:
                entry = (signature, *_listed(directory))
            if time.time_ns() - info.st_mtime_ns > RACY * 1e9:
                kept[directory] = entry
            found += entry[2]
            pending += entry[1]
        self._read = kept
        return found


def _listed(directory: str) -> tuple[list[str], list[str]]:
    """(the directories in `directory`, links not followed; its `.git` places)."""
    subdirs, places = [], []
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if dot_git(entry.name):
                    places.append(entry.path)
                elif entry.is_dir(follow_symlinks=False):
                    subdirs.append(entry.path)
    except OSError:
        pass
    return subdirs, places
