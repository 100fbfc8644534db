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
- read now from where a link the line makes may lie (`lying`), as the link's target, or any
  of its tails (`b/c` and `c` of `a/b/c`, `*` of `src/*`) read from where such a link may lead
  (`homes`), it is: a program of the line may make a link at any name on a path's way (`ln -s
  T a`, or replacing `a`), and the kernel goes on from where it leads. `settle` finds them: a
  link lies where the shell may be, or where a place the line names lies; its target is what
  a program is handed (a piece, or what a pattern matches where the shell may be now), read
  from there; a link may lie in the places found so too, and lead on, until no more are found
  (MAX_STEPS realpath calls, past which the line cannot be judged). A `..` never leads up there
  (above); what a pattern would match through a link the line makes first is read where the
  pattern is now;
- it is a pattern and any path it may match now is (read as fnmatch reads it, a leading dot
  matched too: more than bash matches), up to MAX_MATCHES.
A link a program makes from what it reads (an archive's member, a tree it copies) is the
program's own doing, the grant's. `reach` gives the paths opening a piece may open, as above
(for the deny rules: turn/line_denied.py). `reaches_out` says whether a link below a directory (links
not entered, MAX_WALK entries) leads outside now: what `find` hands a command it runs.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

from reasonix_acp.command_proof.kernel_paths import through_kernel
from reasonix_acp.tools.workspace import Workspace
from reasonix_acp.turn.line_words import Form

MAX_MATCHES = 10_000
MAX_WALK = 200_000
MAX_STEPS = 100_000  # realpath calls finding where the line's links may lead
HARMLESS = frozenset(
    {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/stdin",
     "/dev/stdout", "/dev/stderr", "/dev/fd/0", "/dev/fd/1", "/dev/fd/2"}
)  # fmt: skip
_SEPARATORS = frozenset("=:,;@'\"`()[]{}<>|& \t\n")
_GLOB = re.compile(r"[*?\[]")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*$")

Located = tuple[list[Form], list[str]]  # a word's forms, and the directories it is read from


@dataclass(frozen=True)
class Reach:
    """A piece of a word, whether it climbs (`..`, or a pattern part that may match it), the
    paths opening it may open from where the shell may be (`opens`), and as a link's target
    or through a link the line makes (`linked`); None: more than can be listed."""

    piece: str
    climbs: bool
    opens: list[str] | None
    linked: list[str] | None = None


class PlaceJudge:
    """Whether a word's forms name a place outside the roots, read from given directories
    (relative to the workspace cwd, or absolute), once `settle` found where the line's links
    may lead."""

    def __init__(self, workspace: Workspace) -> None:
        self.cwd = workspace.cwd
        self.roots = workspace.roots
        self.homes: list[str] = []  # where a link the line makes may lead
        self.lying: list[str] = []  # where one may lie, its target read from there
        self.listed: dict[str, frozenset[str]] = {}  # what is read of the disk, once
        self.reals: dict[str, str] = {}
        self.left: dict[str, bool] = {}

    def inside(self, real: str) -> bool:
        return any(real == r or real.startswith(r.rstrip("/") + "/") for r in self.roots)

    def _bases(self, path: str, dirs: list[str]) -> list[str]:
        if os.path.isabs(path):
            return ["/"]
        return list(dict.fromkeys(os.path.join(self.cwd, d) for d in dirs))

    def settle(self, words: list[Located]) -> bool:
        """Finds `homes`, the places a link the line makes may lead to; False when there are
        more to try than MAX_STEPS (the line cannot be judged). A link lies where the shell
        may be or where a place the line names lies; its target is a tail of what a program is
        handed (a piece as written, or what a pattern matches where the shell is), read from
        there, or from a place found before, where a link may lie as well."""
        tails: set[str] = set()
        lying: list[str] = []
        for shapes, dirs in words:
            for text, pattern in shapes:
                for path in _paths(text, pattern):
                    for base in self._bases(path, dirs):
                        handed = _expand(os.path.join(base, path), pattern) or []
                        lying += [base, *{self._real(os.path.dirname(f)) for f in handed}]
                        tails.update(t for f in handed for t in _tails(os.path.relpath(f, base)))
        return self._grow(lying, tails)

    def _grow(self, lying: list[str], tails: set[str]) -> bool:
        homes: list[str] = []
        seen: set[str] = set()
        steps = 0
        while lying:
            place = lying.pop()
            if place in seen or not self.inside(place) or not os.path.isdir(place):
                continue
            seen.add(place)
            for tail in tails:
                if not self._there(place, tail):
                    continue  # a name not there now: a link made there is read there
                steps += 1
                if steps > MAX_STEPS:
                    return False
                real = self._real(os.path.join(place, tail))
                if os.path.isdir(real) and self.inside(real):
                    homes += [] if real in homes else [real]
                    lying.append(real)
                lying.append(os.path.dirname(real))
        self.homes, self.lying = homes, sorted(seen)
        return True

    def _there(self, place: str, path: str) -> bool:
        """The first name of `path` (relative) is in the directory `place` now, or may be (a
        pattern; `.` and `..` always are); otherwise `place/path` is where it is written,
        inside when `place` is."""
        first = path.split("/", 1)[0]
        if first in (".", "..", "") or _GLOB.search(first):
            return True
        if place not in self.listed:
            try:
                self.listed[place] = frozenset(os.listdir(place))
            except OSError:
                self.listed[place] = frozenset()
        return first in self.listed[place]

    def outside(self, shapes: list[Form], dirs: list[str]) -> bool:
        for text, pattern in shapes:
            for piece in pieces(text, pattern):
                if self._piece(piece, pattern, dirs):
                    return True
        return False

    def _piece(self, piece: str, pattern: bool, dirs: list[str]) -> bool:
        path = os.path.expanduser(piece) if piece.startswith("~") else piece
        if "\0" in path or _climbs(path, pattern):
            return True
        if os.path.isabs(path) and not pattern and os.path.normpath(path) in HARMLESS:
            return False
        for where in self._wheres(path, dirs):
            found = _expand(where, pattern)
            if found is None or any(self._leaves(full) for full in found):
                return True
        return False

    def _wheres(self, path: str, dirs: list[str]) -> list[str]:
        """Where opening `path` may start (absolute, as written): from each directory the shell
        may be in, as a link's target where one may lie, its tails where one may lead."""
        return [os.path.join(b, path) for b in self._bases(path, dirs)] + self._linked(path)

    def _linked(self, path: str) -> list[str]:
        wheres = []
        if not os.path.isabs(path):  # as a link's target
            wheres += [os.path.join(p, path) for p in self.lying if self._there(p, path)]
        for tail in _tails(path):
            wheres += [os.path.join(h, tail) for h in self.homes if self._there(h, tail)]
        return wheres

    def reach(self, shapes: list[Form], dirs: list[str]) -> Iterator[Reach]:
        """Each piece of a word's forms (`~` expanded) and every path opening it may open,
        as `outside` reads them: absolute, not resolved (`real` resolves them), a pattern's
        matches too; None past MAX_MATCHES. Harmless devices are left out."""
        for text, pattern in shapes:
            for piece in pieces(text, pattern):
                path = os.path.expanduser(piece) if piece.startswith("~") else piece
                if "\0" in path:
                    yield Reach(piece, True, None)
                    continue
                if os.path.isabs(path) and not pattern and os.path.normpath(path) in HARMLESS:
                    continue
                bases = [os.path.join(b, path) for b in self._bases(path, dirs)]
                opens, linked = _expanded(bases, pattern), _expanded(self._linked(path), pattern)
                yield Reach(piece, _climbs(path, pattern), opens, linked)

    def real(self, path: str) -> str:
        """`path` resolved as the kernel follows it now ("\0" + path: it cannot be)."""
        return self._real(path)

    def _leaves(self, full: str) -> bool:
        """Opening `full` (absolute) leads outside the roots, or through the kernel's trees."""
        if full not in self.left:
            self.left[full] = through_kernel(full, "/") or not self.inside(self._real(full))
        return self.left[full]

    def _real(self, path: str) -> str:
        if path not in self.reals:
            self.reals[path] = _real(path)
        return self.reals[path]

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


def pieces(text: str, pattern: bool = False) -> list[str]:
    """The parts of a word a program may take a path from (see the module's rules); in a
    pattern, brackets are the pattern's."""
    separators = _SEPARATORS - {"[", "]"} if pattern else _SEPARATORS
    starts = {0} | {i + 1 for i, c in enumerate(text) if c in separators}
    if text.startswith("-") and not text.startswith("--"):
        starts |= set(range(1, len(text)))
    out = []
    for start in sorted(starts):
        piece = text[start:]
        if not piece or (start and piece[0] in separators):
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


def _expanded(wheres: list[str], pattern: bool) -> list[str] | None:
    """Every path each of `wheres` may open (`_expand`); None past MAX_MATCHES for one."""
    out: list[str] = []
    for where in wheres:
        found = _expand(where, pattern)
        if found is None:
            return None
        out += found
    return out


def _paths(text: str, pattern: bool) -> list[str]:
    """The word's pieces as paths (`~` expanded), but those judged outside as written."""
    out = []
    for piece in pieces(text, pattern):
        path = os.path.expanduser(piece) if piece.startswith("~") else piece
        if "\0" not in path and not _climbs(path, pattern):
            out.append(path)
    return out


def _tails(path: str) -> list[str]:
    """`a/b/c`, `b/c` and `c` (for `/a/b/c` and `./a/b/c` too); `.` for `.`."""
    parts = [p for p in path.split("/") if p and p != "."]
    return ["/".join(parts[i:]) for i in range(len(parts))] or ["."]


def _climbs(path: str, pattern: bool) -> bool:
    """A `..` part, or a pattern part that can match `..` (bash matches a leading dot only with
    one written first: `.*`, `.?`; a bracket counts too, to be sure)."""
    for part in path.split("/"):
        if part == "..":
            return True
        if pattern and part[:1] in (".", "[") and _may_match("..", part):
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
