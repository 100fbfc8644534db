"""The protected places a shell line names (turn/line_verdict.py asks for a line that names
one, under every preset but danger-full-access, whatever was granted, in the sandbox too): a
repository's `.git`, and the places its configuration makes git run or read outside it
(tools/git_guard.py: the `core.hooksPath` directory, an included configuration file, a
program a key names). What is there runs the next time the user runs git, and a grant of `cp`
never meant "write the repository's hooks".

A line in the provable language (command_proof/proof.py) names a place when:
- a path it writes (a redirection, `tee`, `find -fprint`) is one or is in one (git_guard.py
  `Places.why`), as written or where it leads;
- any word of it does (the command's, an argument, an assignment's value, a `for` word, a
  redirection's target): as written after quote removal (`.git/config`, `.GIT`, `"a/.g"it`,
  `.husky/pre-commit`), a piece of it (`--target-directory=.git`, `-t.git`, `--x=a:.husky`),
  or where it leads now through links (`lnk/config`, `lnk` a link to `.git`), from every
  directory the line's `cd`s may reach;
- a word's value known only when it runs could: a pattern whose part can match `.git`
  (`.gi?`, `[.]git`), or that matches a path leading into a place now (braces expanded
  first), a variable whose value the line gives it (every value it gives, `for` words
  included) or the environment holds (its READABLE names) makes one;
- a program takes names from elsewhere and acts on them: `find` running a command (`-exec`,
  `-execdir`, `-ok`, `-okdir`) from a start point a `.git` or a place lies below now, `xargs`
  running anything but `echo`/`printf` (what it reads is data the line does not show);
- `git config` sets something (any form but a read: `--get…`, `--list`, one name).
An unprovable line (command_line.py's view) names one by its known words and write targets.
`git_places` gives the words named and why their places are protected.

What a granted program decides by itself from what it reads (an interpreter's code, an
archive's members, a tree copied whole) is the grant's; where the sandbox runs it, every `.git`
and place under its writable roots stays read-only (tools/sandbox.py). Whatever cannot be judged within
the bounds (MAX_FORMS forms of a word, MAX_MATCHES of a pattern, MAX_WALK entries below a
`find` start point) counts as naming a place.
"""

from __future__ import annotations

import fnmatch
import glob
import itertools
import os
import re
from collections.abc import Iterator
from typing import NamedTuple

from reasonix_acp.command_proof.command_line import CommandLine
from reasonix_acp.command_proof.lexer import Unprovable
from reasonix_acp.command_proof.parser import parse_line
from reasonix_acp.command_proof.words import Simple, UnreadOption, wrapped
from reasonix_acp.tools.git_guard import Places
from reasonix_acp.tools.workspace import GIT_WHY, Workspace, dot_git, in_git
from reasonix_acp.turn.line_words import (
    Cd,
    For_,
    Form,
    find_starts,
    forms,
    items,
    moved,
    values_of,
)

MAX_MATCHES = 10_000
MAX_WALK = 200_000
STDOUT_ONLY = frozenset({"echo", "printf"})  # what `xargs` may run on the names it reads
# What separates the pieces a word is read in: a path's `/`, an option's `=`, quotes, code.
_PIECES = re.compile(r"[/\\=,;:'\"`()\[\]{}<>|&\s]+")
# What separates the paths a word may hold (`a:b`, `--x=a,b`): the pieces, `/` kept.
_PATHS = re.compile(r"[=,;:'\"`()\[\]{}<>|&\s]+")
_GIT_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list"})
_GIT_FLAGS = frozenset(
    {"--local", "--global", "--system", "--worktree", "--show-origin", "--show-scope",
     "--name-only", "-z", "--null", "--bool", "--int", "--path", "--bool-or-int",
     "--includes", "--no-includes"}
)  # fmt: skip
_GIT_VALUED = frozenset({"-C", "--git-dir", "--work-tree", "--namespace"})
_BELOW = "git runs or reads what lies below: a place its configuration designates"


class Named(NamedTuple):
    """The places a line names, as the question shows them (empty: none), and why each kind
    is protected."""

    places: list[str]
    whys: list[str]


def git_places(line: CommandLine, workspace: Workspace) -> Named:
    """The places git runs or reads that the line names."""
    judge = _Judge(workspace)
    found = _named(line, judge, workspace)
    return Named(found, list(judge.whys) if found else [])


def _named(line: CommandLine, judge: _Judge, workspace: Workspace) -> list[str]:
    if line.proof is None:
        words = [w for c in line.commands for w in c.argv if w is not None]
        words += [w for w in line.writes if w is not None]
        return [w for w in dict.fromkeys(words) if judge.names((w, False), [""])]
    found = [t for t in line.proof.writes if t is not None and judge.names((t, False), [""])]
    try:
        read = list(items(parse_line(line.text)))
    except Unprovable:  # a proved line parses; were it not so, fail closed all the same
        judge.whys[GIT_WHY] = None
        return [line.text]
    values = values_of(read, workspace)
    dirs: list[str] | None = [""]
    reached = {""}
    for item in read:
        if isinstance(item, Cd):  # where the shell may be from here on
            dirs = moved(dirs, item, values, workspace)
            reached.update(dirs or ())
            continue
        if isinstance(item, For_):
            continue
        shapes = forms(item, values, workspace)
        if shapes is None or dirs is None:  # a value or a place not known here
            judge.whys[GIT_WHY] = None
            found.append(item.raw)
        elif any(judge.names(f, dirs) for f in shapes):
            found.append(item.raw)
    every = None if dirs is None else sorted(reached)
    for command in line.proof.commands:
        found += _takes(command, judge, every)
    return list(dict.fromkeys(found))


class _Judge:
    """Whether a form of a word names a protected place (a `.git`, a place the configuration
    designates: tools/git_guard.py), read from any of `dirs` (relative to the workspace cwd, or
    absolute); `whys` gathers why the places named are protected."""

    def __init__(self, workspace: Workspace) -> None:
        self.cwd = workspace.cwd
        self.places: Places = workspace.protected()
        self.inside: dict[str, bool] = {}  # a directory the shell may be in: itself a place
        self.whys: dict[str, None] = {}

    def names(self, form: Form, dirs: list[str]) -> bool:
        """Whether the form names a place. A directory a `cd` led into a place is not read
        from: the word that led there named it already (the line is asked for it), and every
        word read there would name it again."""
        text, pattern = form
        if _lexically(text, pattern):
            self.whys[GIT_WHY] = None
            return True
        outside = [d for d in dirs if not d or not self._in_place(d)]
        for candidate in _candidates(os.path.expanduser(text)):
            for where in outside:
                joined = os.path.join(self.cwd, where, candidate)
                if self._placed(joined, pattern):
                    return True
        return False

    def _placed(self, joined: str, pattern: bool) -> bool:
        """Whether the path (a pattern: what it matches now) is or leads into a place."""
        if pattern:
            try:
                found = list(itertools.islice(_glob(joined), MAX_MATCHES + 1))
            except (OSError, ValueError, re.error):
                found = [""] * (MAX_MATCHES + 1)  # not known: as if it matched too many
            if len(found) > MAX_MATCHES:
                self.whys[GIT_WHY] = None
                return True
            paths = [p for m in found for p in (os.path.normpath(m), _real(m))]
        else:
            paths = [os.path.normpath(joined), _real(joined)]
        for path in paths:
            why = self.places.why(path)
            if why:
                self.whys[why] = None
                return True
        return False

    def _in_place(self, where: str) -> bool:
        if where not in self.inside:
            real = _real(os.path.join(self.cwd, where))
            self.inside[where] = bool(self.places.why(real))
        return self.inside[where]

    def reaches(self, start: str, dirs: list[str]) -> bool:
        """A `.git` or a place is at or below `start` now (links not followed), or cannot be
        looked for."""
        for where in dirs:
            real = _real(os.path.join(self.cwd, where, start))
            if in_git(real) or _below(real):
                self.whys[GIT_WHY] = None
                return True
            if self.places.within(real):
                self.whys[self.places.why(real) or _BELOW] = None
                return True
        return False


def _lexically(text: str, pattern: bool) -> bool:
    """A piece of the text names `.git`; for a pattern, a part of it can match `.git` (one that
    starts with a `.`: bash matches a leading dot only so)."""
    for piece in _PIECES.split(text):
        if dot_git(piece) or (piece.startswith("-") and _attached(piece)):
            return True
    if pattern:
        for part in text.split("/"):
            if part.startswith(".") and fnmatch.fnmatchcase(".git", part.casefold()):
                return True
    return False


def _attached(option: str) -> bool:
    """A short option's value written against it (`-t.git`): any tail of the word."""
    return any(dot_git(option[i:]) for i in range(1, len(option)) if option[i] in ".gG")


def _candidates(text: str) -> list[str]:
    """The paths a word may hand a program: itself, an option's value after `=`, a short
    option's value written against it, each path in a list of them (`a:b`, `x=a,b`)."""
    out = [text]
    if text.startswith("-"):
        if "=" in text:
            out.append(text.partition("=")[2])
        if not text.startswith("--") and len(text) > 2:
            out.append(text[2:])
    out += _PATHS.split(text)
    return [c for c in dict.fromkeys(out) if c]


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):  # a NUL, a loop: judged as written
        return path


def _glob(pattern: str) -> Iterator[str]:
    """What a pattern matches now (bash's `[^` is glob's `[!`)."""
    return glob.iglob(pattern.replace("[^", "[!"))


def _below(real: str) -> bool:
    """A name `dot_git` at or below the directory `real` (breadth first, links not entered);
    past MAX_WALK entries, as if there were one."""
    pending, seen = [real], 0
    while pending:
        directory = pending.pop(0)
        try:
            with os.scandir(directory) as entries:
                listing = list(entries)
        except OSError:
            continue
        for entry in listing:
            seen += 1
            if dot_git(entry.name) or seen > MAX_WALK:
                return True
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
    return False


def _takes(command: Simple, judge: _Judge, dirs: list[str] | None) -> list[str]:
    """What the command acts on that the line does not spell: names `find` finds for the
    command it runs, names `xargs` reads; and whether it is `git config` setting something."""
    argv = command.argv
    base = os.path.basename(argv[0] or "")
    rest = list(argv[1:])
    if base == "find" and _finds_into_git(rest, judge, dirs):
        return [f"{command.shown()} (a place git runs or reads lies below where it looks)"]
    if base == "xargs":
        try:
            inner = wrapped("xargs", rest)
        except UnreadOption:
            inner = [None]
        runs = inner[0] if inner else "echo"
        if runs is None or os.path.basename(runs) not in STDOUT_ONLY:
            judge.whys[GIT_WHY] = None
            return [f"{command.shown()} (the names xargs reads)"]
    if base == "git" and _git_config_sets(rest):
        judge.whys[GIT_WHY] = None
        return [f"{command.shown()} (the repository's configuration)"]
    return []


def _finds_into_git(rest: list[str | None], judge: _Judge, dirs: list[str] | None) -> bool:
    """`find` runs a command on what it finds, from a start point a `.git` lies below."""
    if not any(w in ("-exec", "-execdir", "-ok", "-okdir") for w in rest):
        return False
    starts = find_starts(rest)
    if dirs is None or starts is None:
        return True
    return any(judge.reaches(start, dirs) for start in starts)


def _git_config_sets(rest: list[str | None]) -> bool:
    """`git … config …` in any form but a read (`--get…`, `--list`, `get`, `list`, one name)."""
    words = iter(rest)
    for word in words:
        if word is None:
            return True
        if word in _GIT_VALUED:
            next(words, None)
        elif not word.startswith("-"):
            if word != "config":
                return False
            break
    else:
        return False
    args = list(words)
    if None in args:
        return True
    positional = [w for w in args if w is not None and not w.startswith("-")]
    options = [w for w in args if w is not None and w.startswith("-")]
    if positional[:1] in (["get"], ["list"]) or any(o in _GIT_READS for o in options):
        return False
    plain = all(o in _GIT_FLAGS or o.startswith(("--type=", "--default=")) for o in options)
    return not (plain and len(positional) <= 1)
