"""The places outside the session's roots a shell line names (turn/line_verdict.py: a grant
covers a line only when it names none; under danger-full-access nothing is judged here). A user
who granted `rm` while working in this project granted it here, not on the rest of the disk.

A line in the provable language (command_proof/proof.py) names a place outside when a word of
it does: a command's argument, an assignment's value, a redirection's target, a here-string, a
`for` or `case` word (line_words.items), as it expands (line_words.forms: variables, braces,
`~`), read from every directory the shell may be in there (after `cd`s, `env -C`; in a line
with a loop, from every directory it reaches anywhere), and wherever a link the line makes may
lead (turn/place_judge.py: how one word is judged, its pieces, `..`, links, the kernel's trees,
patterns, harmless devices). Which argument a program takes for a path is not known, so every
word counts as one: a word that is not a path (`hello`, `s/a/b/`, `--color=auto`) is a name in
the cwd, inside.

A word whose value is not known here (line_words) counts as outside. Not judged: a command's
name (the grant names it), the arguments of the builtins `echo` and `printf` (printed, never
opened), heredoc delimiters and here-strings (input, data); `case` words are matched, never
expanded. A program handed names the line does not show as arguments is judged by what they
may be: `xargs` running anything but `echo`/`printf` (the names it reads) counts as outside;
`find` running a command (`-exec` ...) or following links (`-L`), from a start point below
which a link leads outside now, too. What a granted program decides by itself from what it
reads (names in its input or in a file, an archive's members and links, a tree it walks, an
interpreter's code) is the grant's, as for a repository's `.git` (turn/line_git.py).
"""

from __future__ import annotations

import os

from reasonix_acp.command_proof.command_line import CommandLine
from reasonix_acp.command_proof.lexer import Unprovable, Word
from reasonix_acp.command_proof.parser import (
    AndOr,
    Case,
    Command,
    For,
    If,
    Loop,
    Node,
    Pipeline,
    Sequence,
    parse_line,
)
from reasonix_acp.command_proof.words import Simple, UnreadOption, wrapped
from reasonix_acp.tools.workspace import Workspace
from reasonix_acp.turn.line_words import (
    MAX_DIRS,
    Cd,
    Form,
    Values,
    find_starts,
    forms,
    items,
    moved,
    values_of,
)
from reasonix_acp.turn.place_judge import PlaceJudge

Dirs = list[str] | None  # the directories the shell may be in (None: not known here)
PRINTERS = frozenset({"echo", "printf"})  # builtins that print their words, opening none


def outside_places(line: CommandLine, workspace: Workspace) -> list[str]:
    """The words of a provable line that name a place outside the roots, as written (and the
    commands handed names from elsewhere that may lead out); empty: none."""
    if line.proof is None:
        return [line.text]
    try:
        tree = parse_line(line.text)
    except Unprovable:  # a proved line parses; were it not so, fail closed all the same
        return [line.text]
    read = list(items(tree))
    values = values_of(read, workspace)
    judged: list[tuple[Word, list[Form] | None, list[str] | None]] = []
    where = _Where(values, workspace)
    where.sequence(tree, [""])
    for word, dirs in where.found:
        if id(word) in where.skipped:
            continue
        shapes = forms(word, values, workspace)
        if shapes is not None and id(word) in where.literal:  # matched, never expanded
            shapes = [(text, False) for text, _ in shapes]
        judged.append((word, shapes, dirs))
    judge = PlaceJudge(workspace)
    if not judge.settle([(s, d) for _, s, d in judged if s is not None and d is not None]):
        return [f"{line.text} (the places its links may lead to are too many to judge)"]
    found = [
        word.raw
        for word, shapes, dirs in judged
        if shapes is None or dirs is None or judge.outside(shapes, dirs)
    ]
    every = _every(judged)
    for command in line.proof.commands:
        found += _takes(command, judge, every)
    return list(dict.fromkeys(found))


class _Where:
    """Each word with the directories the shell may be in when it is read (relative to the
    cwd, or absolute; None: not known): moved by `cd` and `env -C` (line_words), every branch
    read in turn (what one moves, the next is read from too: more places, never fewer), a
    loop's body read again from where the last pass may have left the shell until that stops
    growing, as bash runs it (a body that keeps moving it leaves its words not known)."""

    def __init__(self, values: Values, workspace: Workspace) -> None:
        self.values, self.workspace = values, workspace
        self.found: list[tuple[Word, list[str] | None]] = []
        # not judged: command names, what `echo` and `printf` print, heredoc delimiters and
        # here-strings (input: data); matched, never expanded: `case` words
        self.skipped: set[int] = set()
        self.literal: set[int] = set()

    def sequence(self, sequence: Sequence, dirs: Dirs) -> Dirs:
        for and_or in sequence:
            for pipeline in (and_or.first, *(p for _, p in and_or.rest)):
                for node in pipeline.commands:
                    dirs = self._node(node, dirs)
        return dirs

    def _node(self, node: Node, dirs: Dirs) -> Dirs:
        for redirect in node.redirects:
            if redirect.target is not None and redirect.op in ("<<", "<<-", "<<<"):
                self.skipped.add(id(redirect.target))
        if isinstance(node, Command):  # its words, and where `cd` or `env -C` leaves it
            self._names(node.words)
            for item in items([AndOr(Pipeline([node]))]):
                if isinstance(item, Cd):
                    dirs = moved(dirs, item, self.values, self.workspace)
                elif isinstance(item, Word):
                    self.found.append((item, dirs))
            return dirs
        self.found += [(r.target, dirs) for r in node.redirects if r.target is not None]
        if isinstance(node, For):
            self.found += [(word, dirs) for word in node.words]
            return self._repeated(node.body, dirs)
        if isinstance(node, Loop):
            return self._repeated([*node.condition, *node.body], dirs)
        if isinstance(node, Case):
            self.literal.update(id(w) for w in (node.subject, *_patterns(node)))
            self.found += [(w, dirs) for w in (node.subject, *_patterns(node))]
            for _, body in node.branches:
                dirs = self.sequence(body, dirs)
            return dirs
        if isinstance(node, If):
            for condition, body in node.branches:
                dirs = self.sequence(body, self.sequence(condition, dirs))
            return self.sequence(node.otherwise or [], dirs)
        return self.sequence(node.body, dirs)  # a group or a subshell

    def _names(self, words: list[Word]) -> None:
        k = 0
        while k < len(words) and words[k].assignment is not None:
            k += 1
        if k < len(words):
            self.skipped.add(id(words[k]))  # the command's name: the grant names it
            if words[k].known and words[k].value in PRINTERS:
                self.skipped.update(id(word) for word in words[k + 1 :])

    def _repeated(self, body: Sequence, dirs: Dirs) -> Dirs:
        found, start = self.found, dirs
        while True:
            self.found = []
            end = self.sequence(body, start)
            merged = None if start is None or end is None else list(dict.fromkeys(start + end))
            merged = merged if merged is None or len(merged) <= MAX_DIRS else None
            if merged == start or (merged is None and start is None):
                self.found = found + self.found
                return merged
            start = merged


def _patterns(node: Case) -> list[Word]:
    return [word for patterns, _ in node.branches for word in patterns]


def _every(judged: list[tuple[Word, list[Form] | None, list[str] | None]]) -> list[str] | None:
    every: list[str] = []
    for _, _, dirs in judged:
        if dirs is None:
            return None
        every += dirs
    return list(dict.fromkeys(every or [""]))


def _takes(command: Simple, judge: PlaceJudge, dirs: list[str] | None) -> list[str]:
    """A program handed names the line does not show: `xargs` running anything but
    `echo`/`printf`; `find` running a command or following links, from a start point below
    which a link leads outside."""
    argv = command.argv
    base = os.path.basename(argv[0] or "")
    rest = list(argv[1:])
    if base == "xargs":
        try:
            inner = wrapped("xargs", rest)
        except UnreadOption:
            inner = [None]
        runs = inner[0] if inner else "echo"
        if runs is None or os.path.basename(runs) not in PRINTERS:
            return [f"{command.shown()} (the names xargs reads)"]
    if base == "find" and _find_reaches(rest, judge, dirs):
        return [f"{command.shown()} (a link out of the workspace lies below where it looks)"]
    return []


def _find_reaches(rest: list[str | None], judge: PlaceJudge, dirs: list[str] | None) -> bool:
    runs = any(w in ("-exec", "-execdir", "-ok", "-okdir") for w in rest)
    follows = any(w in ("-L", "-follow") for w in rest)
    if not (runs or follows):
        return False
    starts = find_starts(rest)
    if dirs is None or starts is None:
        return True
    return any(judge.reaches_out(start, dirs) for start in starts)
