"""How a provable shell line is judged against config.toml's `deny_paths` beyond the files it
redirects (turn/line_verdict.py): by every place it names and every folder its programs run
in. Under every preset, danger-full-access included:

- refused, never asked: a word that could name a place (turn/line_places.py finds them, as for
  grants: a command's arguments and option values, `-o/x`, `--out=/x`, `of=/x`, `host:/x`,
  `@/x`, assignments, redirection targets, `for` and `case` words, a command run by its path;
  as they expand: variables, braces, `~`, a pattern by every path it may match; from every
  directory the shell may be in, in every pass of a loop; wherever a link the line makes may
  lead) whose real path (links followed as the kernel follows them now) is under a rule
  (tools/workspace.py `deny_match`);
- asked, no answer covering it for the session, the question naming the folder and the
  denied paths in it: a word naming a folder that holds a path under a rule, and each folder a
  command runs in when it holds one, but for the builtins that run nothing (line_places
  RUN_NOTHING: `echo`, `printf`, `test`, `cd`, `pwd`, `true`, `:` ...): a program may read the
  folder it runs in without naming it (`grep -r x`, `ls`, `find`, `rg`);
- asked, naming the rule (`cannot be checked against deny_paths: …`): a word whose value, or
  a directory it is read from, is known only when the line runs; a path through the kernel's
  links (`/proc/self/cwd/…`, `/dev/fd/N`) or one that cannot be resolved; a pattern matching
  more than place_judge.MAX_MATCHES paths; a `..` in a line where one program may make a link
  before another opens the path; `xargs` running a program on the names it reads; links that
  may lead to more places than can be followed.

A folder holds a path under a rule that names a path (`/p`, `/p/*`, `/p/**`: what a mount can
hide, tools/sandbox_mounts.py `hide_target`) when that path exists and is in it; under any
other rule (`*/.env`), when a walk of the folder finds an entry the rule matches, or a link
leading to a denied path or to a folder holding a named one. The walk does not enter links
and looks at MAX_WALK entries, MAX_LOOKED in all for one line; past that the folder holds
(fail closed). Each folder is walked once per line (a folder below one walked is read from its
walk). Inside a working sandbox the rules a mount hides are not judged here: what they match
is not there (`judged_rules`).

Not judged: a link a program makes from what it reads (an archive's member, a checkout) that
a later command follows, and a link already in a folder, to a folder elsewhere holding a path
under a wildcard rule, that a program follows while walking (`grep -R`, `find -L`).
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass

from reasonix_acp.command_proof.command_line import CommandLine
from reasonix_acp.command_proof.kernel_paths import through_kernel
from reasonix_acp.tools.sandbox_mounts import WILDCARD, hide_target, rule_base
from reasonix_acp.tools.workspace import Workspace, deny_match
from reasonix_acp.turn.line_places import Dirs, Placed, reads_names
from reasonix_acp.turn.line_words import Form

MAX_WALK = 20_000  # entries one folder's walk looks at
MAX_LOOKED = 100_000  # entries all walks for one line look at
SHOWN = 5  # the denied paths a question names for one folder
MAX_SHOWN = 1_000  # entries looked at to name what a folder a rule names holds
Held = tuple[tuple[str, tuple[str, ...]], ...]  # (a folder, the denied paths it holds), shown


@dataclass(frozen=True)
class Guard:
    """What the deny rules say of a line's places: refused (`denied`, why), or asked because
    some cannot be checked (`unchecked`, each why) or a folder it reads holds a denied path
    (`held`)."""

    denied: str = ""
    unchecked: tuple[str, ...] = ()
    held: Held = ()

    @property
    def asks(self) -> bool:
        return bool(self.unchecked or self.held)


def judged_rules(patterns: tuple[str, ...], confined: bool) -> tuple[str, ...]:
    """The rules judged on a line's places: all, or where the line runs in a working sandbox
    (`confined`), those no mount can hide."""
    return tuple(p for p in patterns if not (confined and hide_target(p)))


def guard_line(
    line: CommandLine, patterns: tuple[str, ...], workspace: Workspace, found: Placed | None
) -> Guard:
    """The deny rules `patterns` against a provable line's places (`found`: line_places)."""
    proof = line.proof
    if proof is None or not patterns:
        return Guard()
    if found is None:
        return Guard(unchecked=(f"{line.text} cannot be read",))
    reading = _Reading(Holding(patterns), workspace, found, proof.programs > 1)
    if not found.settled:
        reading.unchecked.append("the places its links may lead to are too many to follow")
    for word, shapes, dirs in (*found.words, *found.names):
        reading.word(word.raw, shapes, dirs)
    for dirs in found.runs:
        reading.runs_in(dirs)
    for command in proof.commands:
        if reads_names(command):
            reading.unchecked.append(f"{command.shown()} (the names xargs reads)")
    return reading.guard()


class _Reading:
    """One line's judgement as it goes: what is refused, what cannot be checked, which folders
    hold what."""

    def __init__(self, hold: Holding, workspace: Workspace, found: Placed, linking: bool) -> None:
        self.hold, self.workspace, self.judge = hold, workspace, found.judge
        self.linking = linking  # a program may make a link before another opens a path
        self.denied: dict[str, str] = {}  # a word, and the first denied path it names
        self.unchecked: list[str] = []
        self.held: dict[str, list[str] | None] = {}

    def word(self, raw: str, shapes: list[Form] | None, dirs: Dirs) -> None:
        if shapes is None:
            self.unchecked.append(f"{raw} is known only when it runs")
            return
        if dirs is None:
            self.unchecked.append(f"{raw} after `cd` to a place known only when it runs")
            return
        for reach in self.judge.reach(shapes, dirs):
            if reach.opens is None or reach.linked is None:
                self.unchecked.append(f"{raw} may open more paths than can be listed")
                continue
            for full in reach.opens:
                self._path(raw, full)
            for full in reach.linked:  # what is not there cannot be read through a link
                self._path(raw, full, there=True)
            if reach.climbs and self.linking:
                self.unchecked.append(f"{raw}: a `..` after a link the line may make")

    def _path(self, raw: str, full: str, there: bool = False) -> None:
        real = self.judge.real(full)
        if real.startswith("\0"):
            self.unchecked.append(f"{raw}: {full} cannot be resolved")
        elif through_kernel(full, "/") and real != os.path.normpath(full):
            self.unchecked.append(f"{raw}: {full} goes through the kernel's links")
        elif there and not os.path.lexists(real):
            return
        elif self.hold.denied(real):
            shown = self.workspace.display(real)
            self.denied.setdefault(raw, raw if shown == raw else f"{raw} ({shown})")
        elif os.path.isdir(real):
            self._folder(real)

    def runs_in(self, dirs: Dirs) -> None:
        if dirs is None:
            self.unchecked.append("a command runs after `cd` to a place known only when it runs")
            return
        for d in dirs:
            real = self.judge.real(os.path.join(self.workspace.cwd, d))
            if real.startswith("\0"):
                self.unchecked.append(f"the folder {d} cannot be resolved")
            else:
                self._folder(real)

    def _folder(self, real: str) -> None:
        if real not in self.held:
            self.held[real] = self.hold.held(real)

    def guard(self) -> Guard:
        if self.denied:
            return Guard(denied=", ".join(self.denied.values()) + " matches deny_paths")
        display = self.workspace.display
        held: list[tuple[str, tuple[str, ...]]] = []
        for folder, paths in self.held.items():
            if paths is None:
                held.append((display(folder), (f"more than {MAX_WALK} entries to look through",)))
            elif paths:
                shown = sorted(dict.fromkeys(display(p) for p in paths))
                more = ["and more"] if len(shown) > SHOWN else []
                held.append((display(folder), (*shown[:SHOWN], *more)))
        return Guard(unchecked=tuple(dict.fromkeys(self.unchecked)), held=tuple(held))


class Holding:
    """The deny rules, and which folders hold a path under them (read once per line)."""

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self.patterns = patterns
        self.fixed = [b for b in map(_named, patterns) if b is not None]
        self.wild = [p for p in patterns if _named(p) is None]
        joined = "|".join(f"(?:{fnmatch.translate(p)})" for p in self.wild)
        self.matcher = re.compile(joined) if self.wild else None
        self.walked: dict[str, list[str] | None] = {}
        self.looked = 0

    def denied(self, real: str) -> bool:
        return deny_match(real, self.patterns)

    def held(self, real: str) -> list[str] | None:
        """The denied paths in the folder `real` ([]: none); None: more entries than can be
        looked through."""
        if self.denied(real):
            return [real]
        named = [p for b in self.fixed if _under(b, real) for p in _within(b)]
        walked = self._walked(real)
        return None if walked is None else named + walked

    def _walked(self, real: str) -> list[str] | None:
        if self.matcher is None or not any(_overlaps(p, real) for p in self.wild):
            return []
        for root, found in self.walked.items():
            if found is not None and _under(real, root):
                return [f for f in found if _under(f, real)]
        if real not in self.walked:
            self.walked[real] = self._walk(real)
        return self.walked[real]

    def _walk(self, root: str) -> list[str] | None:
        assert self.matcher is not None
        found: list[str] = []
        pending, seen = [root], 0
        while pending:
            try:
                with os.scandir(pending.pop()) as entries:
                    listing = list(entries)
            except OSError:
                continue
            for entry in listing:
                seen += 1
                self.looked += 1
                if seen > MAX_WALK or self.looked > MAX_LOOKED:
                    return None
                if self.matcher.match(entry.path):
                    found.append(entry.path)  # and what is in it: not entered
                elif entry.is_symlink():
                    if self._leads(entry.path):
                        found.append(entry.path)
                elif entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
        return found

    def _leads(self, link: str) -> bool:
        """A link leads to a denied path, or to a folder holding a path a rule names."""
        real = os.path.realpath(link)
        return self.denied(real) or any(_under(b, real) and os.path.lexists(b) for b in self.fixed)


def _named(pattern: str) -> str | None:
    """The path a rule names when a mount could hide all it matches (`/p`, `/p/*`, `/p/**`)."""
    base = rule_base(pattern)
    return None if base is None else os.path.normpath(base)


def _within(named: str) -> list[str]:
    """What a path a rule names holds, to show: itself when it is no folder or shows nothing,
    else the first files in it (up to SHOWN + 1 of them, after at most MAX_SHOWN entries)."""
    if not os.path.isdir(named) or os.path.islink(named):
        return [named] if os.path.lexists(named) else []
    found: list[str] = []
    pending, seen = [named], 0
    while pending and len(found) <= SHOWN and seen < MAX_SHOWN:
        try:
            with os.scandir(pending.pop()) as entries:
                listing = sorted(entries, key=lambda e: e.name)
        except OSError:
            continue
        seen += len(listing)
        found += [e.path for e in listing if not e.is_dir(follow_symlinks=False)]
        pending += [e.path for e in reversed(listing) if e.is_dir(follow_symlinks=False)]
    return found[: SHOWN + 1] or [named]


def _overlaps(pattern: str, real: str) -> bool:
    """Whether a path under `real` may match `pattern`, by its part before the first wildcard."""
    match = WILDCARD.search(pattern)
    fixed = pattern[: match.start()] if match else pattern
    prefix = fixed[: fixed.rfind("/") + 1]
    folder = real.rstrip("/") + "/"
    return folder.startswith(prefix) or prefix.startswith(folder)


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
