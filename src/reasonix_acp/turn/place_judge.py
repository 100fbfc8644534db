"""How one word of a shell line is judged for the places it names (turn/line_places.py reads
the line: its words, their values, and the directories the shell may read them from).

A word is read in pieces a program may take a path from (`pieces`): itself, the rest after
`=`, `:`, `,`, `;`, `@`, a blank, a quote or a bracket (`--out=/x`, `of=/x`, `host:/x`), any
tail of a short option (`-o/x`, `-I/x`); a URL's authority (`https://host/...`) is a host, not
a place, but a `file:` URL's path is one. A piece names a place outside the roots (the cwd,
the additional directories, the session temp) when:
- it has a `..` part, or a pattern part that can match `..`: as a link's target, or after a
  link, it goes up from wherever it lies;
- resolved now from a directory the shell may be in (`~` expanded; links followed as the
  kernel follows them, `realpath`) it is outside the roots, or its way goes through /proc, /dev
  or /sys (command_proof/kernel_paths.py); `/dev/null`, `/dev/zero`, `/dev/full`, the random
  devices and the standard streams as written are harmless (HARMLESS: the line's redirections,
  which could point a stream at a file, are judged as words too);
- any of its tails (`b/c` and `c` of `a/b/c`), resolved now from any place a link the line
  makes may lead to (`settle`), is: a program of the line may make a link at any name on a
  path's way (`ln -s T a`, or replacing `a`), and the kernel then goes on from where the link
  leads. Such a link lies in a directory the line names, and leads where its target, a piece
  read from there, leads: the places (`homes`) are the roots, the directories the shell may
  be in, and every existing directory inside that a tail of a piece leads to, or lies in,
  from a place already found, until no more are found (MAX_HOMES, past which the line cannot
  be judged); a pattern's matches count from the directories the shell may be in;
- it is a pattern and any path it may match now is (read as fnmatch reads it, a leading dot
  matched too: more than bash matches), up to MAX_MATCHES.
A link a program makes from what it reads (an archive's member, a tree it copies) is the
program's own doing, the grant's. `reaches_out` says whether a link below a directory (links
not entered, MAX_WALK entries) leads outside now: what `find` hands a command it runs.
"""

from __future__ import annotations

import fnmatch
import os
import re

from reasonix_acp.command_proof.kernel_paths import through_kernel
from reasonix_acp.tools.workspace import Workspace
from reasonix_acp.turn.line_words import Form

MAX_MATCHES = 10_000
MAX_WALK = 200_000
MAX_HOMES = 64
HARMLESS = frozenset(
    {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/stdin",
     "/dev/stdout", "/dev/stderr", "/dev/fd/0", "/dev/fd/1", "/dev/fd/2"}
)  # fmt: skip
_SEPARATORS = frozenset("=:,;@'\"`()[]{}<>|& \t\n")
_GLOB = re.compile(r"[*?\[]")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*$")

Located = tuple[list[Form], list[str]]  # a word's forms, and the directories it is read from


class PlaceJudge:
    """Whether a word's forms name a place outside the roots, read from given directories
    (relative to the workspace cwd, or absolute), once `settle` found where the line's links
    may lead."""

    def __init__(self, workspace: Workspace) -> None:
        self.cwd = workspace.cwd
        self.roots = workspace.roots
        self.homes: list[str] = []

    def inside(self, real: str) -> bool:
        return any(real == r or real.startswith(r.rstrip("/") + "/") for r in self.roots)

    def _bases(self, path: str, dirs: list[str]) -> list[str]:
        if os.path.isabs(path):
            return ["/"]
        return list(dict.fromkeys(os.path.join(self.cwd, d) for d in dirs))

    def settle(self, words: list[Located]) -> bool:
        """Finds `homes`, the places a link the line makes may lead to; False past MAX_HOMES."""
        tails: set[str] = set()
        found: list[str] = []
        for shapes, dirs in words:
            bases = self._bases("", dirs)
            found += bases
            for text, pattern in shapes:
                for path in _paths(text, pattern):
                    if not pattern:
                        tails.update(_tails(path))
                        continue
                    for base in self._bases(path, dirs):  # a pattern: its matches, as names
                        found += _expand(os.path.join(base, path), True) or []
        homes: list[str] = []
        pending = [*self.roots, *found]
        while pending:
            for place in _around(_real(pending.pop())):
                if place not in homes and self.inside(place) and os.path.isdir(place):
                    homes.append(place)
                    if len(homes) > MAX_HOMES:
                        return False
                    pending += [os.path.join(place, tail) for tail in tails]
        self.homes = homes
        return True

    def outside(self, shapes: list[Form], dirs: list[str]) -> bool:
        for text, pattern in shapes:
            for piece in pieces(text):
                if self._piece(piece, pattern, dirs):
                    return True
        return False

    def _piece(self, piece: str, pattern: bool, dirs: list[str]) -> bool:
        path = os.path.expanduser(piece) if piece.startswith("~") else piece
        if "\0" in path or _climbs(path, pattern):
            return True
        if os.path.isabs(path) and not pattern and os.path.normpath(path) in HARMLESS:
            return False
        wheres = [os.path.join(base, path) for base in self._bases(path, dirs)]
        wheres += [os.path.join(home, tail) for home in self.homes for tail in _tails(path)]
        for where in wheres:
            found = _expand(where, pattern)
            if found is None or any(self._leaves(full) for full in found):
                return True
        return False

    def _leaves(self, full: str) -> bool:
        """Opening `full` (absolute) leads outside the roots, or through the kernel's trees."""
        return through_kernel(full, "/") or not self.inside(_real(full))

    def reaches_out(self, start: str, dirs: list[str]) -> bool:
        """A link below `start` (links not entered) leads outside now, or it cannot be told."""
        for base in self._bases(start, dirs):
            pending, seen = [_real(os.path.join(base, start))], 0
            while pending:
                try:
                    with os.scandir(pending.pop()) as entries:
                        listing = list(entries)
                except OSError:
                    continue
                for entry in listing:
                    seen += 1
                    if seen > MAX_WALK or (entry.is_symlink() and self._leaves(entry.path)):
                        return True
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
        return False


def pieces(text: str) -> list[str]:
    """The parts of a word a program may take a path from (see the module's rules)."""
    starts = {0} | {i + 1 for i, c in enumerate(text) if c in _SEPARATORS}
    if text.startswith("-") and not text.startswith("--"):
        starts |= set(range(1, len(text)))
    out = []
    for start in sorted(starts):
        piece = text[start:]
        if not piece or (start and piece[0] in _SEPARATORS):
            continue
        if start and text[start - 1] == ":" and piece.startswith("//"):
            scheme = _SCHEME.search(text[: start - 1])
            if scheme is None or scheme.group().casefold() != "file":
                continue  # a URL's authority: a host, not a place
            slash = piece.find("/", 2)
            piece = piece[slash:] if slash >= 0 else ""
        if piece:
            out.append(piece)
    return out


def _paths(text: str, pattern: bool) -> list[str]:
    """The word's pieces as paths (`~` expanded), but those judged outside as written."""
    out = []
    for piece in pieces(text):
        path = os.path.expanduser(piece) if piece.startswith("~") else piece
        if "\0" not in path and not _climbs(path, pattern):
            out.append(path)
    return out


def _tails(path: str) -> list[str]:
    """`a/b/c`, `b/c` and `c` (for `/a/b/c` and `./a/b/c` too)."""
    parts = [p for p in path.split("/") if p and p != "."]
    return ["/".join(parts[i:]) for i in range(len(parts))]


def _around(real: str) -> list[str]:
    """A place and the directory it lies in."""
    return [real, os.path.dirname(real)]


def _climbs(path: str, pattern: bool) -> bool:
    """A `..` part, or a pattern part that can match `..`."""
    for part in path.split("/"):
        if part == "..":
            return True
        if pattern and _GLOB.search(part) and fnmatch.fnmatchcase("..", part.replace("[^", "[!")):
            return True
    return False


def _expand(full: str, pattern: bool) -> list[str] | None:
    """`full` (absolute), and for a pattern every path it may match now; None past
    MAX_MATCHES."""
    if not pattern:
        return [full]
    current = ["/"]
    for part in full.split("/"):
        if not part:
            continue
        if not _GLOB.search(part):
            current = [os.path.join(c, part) for c in current]
            continue
        matched: list[str] = []
        for directory in current:
            try:
                names = os.listdir(directory)
            except OSError:
                continue
            matched += [os.path.join(directory, n) for n in names if _may_match(n, part)]
            if len(matched) > MAX_MATCHES:
                return None
        current = matched
    return [full, *current]  # a pattern that matches nothing stays as written


def _may_match(name: str, part: str) -> bool:
    """Whether bash may match `name` with the pattern part: as fnmatch reads it, leading dots
    too (more than bash); any name where a bracket holds a class fnmatch does not read."""
    if re.search(r"\[[:=.]", part):
        return True
    return fnmatch.fnmatchcase(name, part.replace("[^", "[!"))


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return "\0" + path  # inside no root
