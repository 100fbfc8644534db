"""The places outside the session's roots a shell line names (turn/line_verdict.py: a grant
covers a line only when it names none; under danger-full-access nothing is judged here). A user
who granted `rm` while working in this project granted it here, not on the rest of the disk.
The same reading of a line's places (`placed`: its words, the folders its commands run in) is
what config.toml's deny_paths are judged against (turn/line_denied.py), under every preset.

A line in the provable language (command_proof/proof.py) names a place outside when a word of
it does: a command's argument, an assignment's value, a redirection's target, a here-string, a
`for` or `case` word (line_words.items), as it expands (line_words.forms: variables, braces,
`~`), read from every directory the shell may be in there (after `cd`s, `env -C` for its
command; not after a subshell; in a loop, from every directory a pass may leave it in:
`_Where`), and wherever a link the line makes may lead (turn/place_judge.py: how one word is
judged, its pieces, `..`, links, the kernel's trees, patterns, harmless devices). Which argument a program takes for a path is not known, so every
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
from dataclasses import dataclass

from reasonix_acp.command_proof.command_line import CommandLine
from reasonix_acp.command_proof.lexer import Unprovable, Word
from reasonix_acp.command_proof.parser import (
    AndOr,
    Case,
    Command,
    For,
    Group,
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
# Commands that read no folder they are not handed: builtins that run nothing (`command -v`
# and `type` look a name up), as their programs run by a wrapper too.
RUN_NOTHING = frozenset(
    {"echo", "printf", "test", "[", "cd", "pwd", "true", "false", ":", "break", "continue",
     "exit", "type"}
)  # fmt: skip


WordPlace = tuple[Word, list[Form] | None, Dirs]  # a word, its values, where it is read from


@dataclass
class Placed:
    """A provable line's places: every word that could name one (`words`: its values and the
    directories it is read from; None where not known here), the command names written as a
    path (`names`), the directories each command that may read the folder it runs in runs in
    (`runs`: all but the builtins that run nothing, RUN_NOTHING), and the judge, settled
    (`settled` False: where the line's links may lead is too much to find)."""

    words: list[WordPlace]
    names: list[WordPlace]
    runs: list[Dirs]
    judge: PlaceJudge
    settled: bool


def placed(line: CommandLine, workspace: Workspace) -> Placed | None:
    """The places of a provable line (None for a line outside the language)."""
    if line.proof is None:
        return None
    try:
        tree = parse_line(line.text)
    except Unprovable:  # a proved line parses; were it not so, fail closed all the same
        return None
    values = values_of(list(items(tree)), workspace)
    where = _Where(values, workspace)
    where.sequence(tree, [""])
    words: list[WordPlace] = []
    names: list[WordPlace] = []
    for word, dirs in where.found:
        if id(word) in where.skipped:
            continue
        shapes = forms(word, values, workspace)
        if shapes is not None and id(word) in where.literal:  # matched, never expanded
            shapes = [(text, False) for text, _ in shapes]
        if id(word) not in where.names:
            words.append((word, shapes, dirs))
        elif "/" in word.value:  # a program run by its path
            names.append((word, shapes, dirs))
    judge = PlaceJudge(workspace)
    located = [(s, d) for _, s, d in words if s is not None and d is not None]
    return Placed(words, names, where.runs, judge, judge.settle(located))


def outside_places(
    line: CommandLine, workspace: Workspace, found: Placed | None = None
) -> list[str]:
    """The words of a provable line that name a place outside the roots, as written (and the
    commands handed names from elsewhere that may lead out); empty: none. `found`: the line's
    places, when they were read already."""
    found = found or placed(line, workspace)
    if found is None or line.proof is None:
        return [line.text]
    if not found.settled:
        return [f"{line.text} (the places its links may lead to are too many to judge)"]
    judge = found.judge
    out = [
        word.raw
        for word, shapes, dirs in found.words
        if shapes is None or dirs is None or judge.outside(shapes, dirs)
    ]
    every = every_dir(found.words)
    for command in line.proof.commands:
        out += takes(command, judge, every)
    return list(dict.fromkeys(out))


class _Where:
    """Each word with the directories the shell may be in when it is read (relative to the
    cwd, or absolute; None: not known): moved by `cd` for the rest of the line and by `env -C`
    for its command (line_words), not after a subshell or a pipeline's part (each runs in a
    subshell); an `if`'s branch read from where its condition left the shell, a `case`'s from
    where it started, the places after them joined; a loop's body read again from where the
    last pass may have left the shell until that stops growing, as bash runs it (a body that
    keeps moving it leaves its words not known)."""

    def __init__(self, values: Values, workspace: Workspace) -> None:
        self.values, self.workspace = values, workspace
        self.found: list[tuple[Word, list[str] | None]] = []
        # not judged: command names, what `echo` and `printf` print, heredoc delimiters and
        # here-strings (input: data); matched, never expanded: `case` words
        self.skipped: set[int] = set()
        self.literal: set[int] = set()
        self.names: set[int] = set()  # command names (a grant names them)
        self.runs: list[Dirs] = []  # where each command that may read its folder runs

    def sequence(self, sequence: Sequence, dirs: Dirs) -> Dirs:
        for and_or in sequence:
            for pipeline in (and_or.first, *(p for _, p in and_or.rest)):
                if len(pipeline.commands) == 1:
                    dirs = self._node(pipeline.commands[0], dirs)
                    continue
                for node in pipeline.commands:  # each in a subshell, all at once
                    self._node(node, dirs)
        return dirs

    def _node(self, node: Node, dirs: Dirs) -> Dirs:
        for redirect in node.redirects:
            if redirect.target is not None and redirect.op in ("<<", "<<-", "<<<"):
                self.skipped.add(id(redirect.target))
        if isinstance(node, Command):  # its words, and where `cd` or `env -C` leaves it
            self._names(node.words)
            start, runs = dirs, (list(dirs) if dirs is not None else None)
            for item in items([AndOr(Pipeline([node]))]):
                if isinstance(item, Cd):
                    dirs = moved(dirs, item, self.values, self.workspace)
                elif isinstance(item, Word):
                    self.found.append((item, dirs))
                    runs = None if runs is None or dirs is None else [*runs, *dirs]
            if _runs_program(node.words):
                self.runs.append(None if runs is None else list(dict.fromkeys(runs)))
            return dirs if _moves_shell(node.words) else start  # `env -C`: its command's
        self.found += [(r.target, dirs) for r in node.redirects if r.target is not None]
        if isinstance(node, For):
            self.found += [(word, dirs) for word in node.words]
            return self._repeated(node.body, dirs)
        if isinstance(node, Loop):
            return self._repeated([*node.condition, *node.body], dirs)
        if isinstance(node, Case):  # one branch runs, or none
            self.literal.update(id(w) for w in (node.subject, *_patterns(node)))
            self.found += [(w, dirs) for w in (node.subject, *_patterns(node))]
            return _joined([dirs, *(self.sequence(body, dirs) for _, body in node.branches)])
        if isinstance(node, If):  # one branch runs, after the conditions before it failed
            ends: list[Dirs] = []
            for condition, body in node.branches:
                dirs = self.sequence(condition, dirs)
                ends.append(self.sequence(body, dirs))
            return _joined([*ends, self.sequence(node.otherwise or [], dirs)])
        after = self.sequence(node.body, dirs)
        return dirs if isinstance(node, Group) and node.subshell else after

    def _names(self, words: list[Word]) -> None:
        k = 0
        while k < len(words) and words[k].assignment is not None:
            k += 1
        if k < len(words):
            self.names.add(id(words[k]))  # the command's name: the grant names it
            if words[k].known and words[k].value in PRINTERS:
                self.skipped.update(id(word) for word in words[k + 1 :])

    def _repeated(self, body: Sequence, dirs: Dirs) -> Dirs:
        found, runs, start = self.found, self.runs, dirs
        while True:
            self.found, self.runs = [], []
            end = self.sequence(body, start)
            merged = None if start is None or end is None else list(dict.fromkeys(start + end))
            merged = merged if merged is None or len(merged) <= MAX_DIRS else None
            if merged == start or (merged is None and start is None):
                self.found, self.runs = found + self.found, runs + self.runs
                return merged
            start = merged


def _patterns(node: Case) -> list[Word]:
    return [word for patterns, _ in node.branches for word in patterns]


def _joined(ends: list[Dirs]) -> Dirs:
    """Where the shell may be after one of several ways (None: not known, or too many)."""
    if any(end is None for end in ends):
        return None
    merged = list(dict.fromkeys(d for end in ends for d in end or []))
    return merged if len(merged) <= MAX_DIRS else None


def _moves_shell(words: list[Word]) -> bool:
    """`cd DIR` (also `command cd DIR`): the rest of the line is read from where it went."""
    k = 0
    while k < len(words) and words[k].assignment is not None:
        k += 1
    names = [w.value if w.known else None for w in words[k : k + 2]]
    return names[:1] == ["cd"] or names == ["command", "cd"]


def _runs_program(words: list[Word]) -> bool:
    """Whether a simple command may read the folder it runs in: any but RUN_NOTHING (also
    after `command`; `command -v` runs nothing) and a line of assignments alone."""
    k = 0
    while k < len(words) and words[k].assignment is not None:
        k += 1
    rest = words[k:]
    while rest and rest[0].known and rest[0].value == "command":
        rest = rest[1:]
        while rest and rest[0].known and rest[0].value.startswith("-"):
            option = rest.pop(0).value
            if "v" in option or "V" in option:
                return False
            if option == "--":
                break
    return bool(rest) and not (rest[0].known and rest[0].value in RUN_NOTHING)


def every_dir(judged: list[WordPlace]) -> list[str] | None:
    """Every directory the line's words are read from (None: one is not known here)."""
    every: list[str] = []
    for _, _, dirs in judged:
        if dirs is None:
            return None
        every += dirs
    return list(dict.fromkeys(every or [""]))


def run_folders(found: Placed | None, workspace: Workspace) -> tuple[str, ...] | None:
    """The folders a line's words are read from when its `cd`s may move it (absolute, in
    order): () when only its cwd, None when one is known only when it runs."""
    every = every_dir(found.words) if found is not None else None
    if found is None or every is None or any(run is None for run in found.runs):
        return None
    every += [d for run in found.runs for d in run or ()]
    folders = [os.path.normpath(os.path.join(workspace.cwd, d)) for d in every]
    folders = list(dict.fromkeys(folders))
    return () if folders == [os.path.normpath(workspace.cwd)] else tuple(folders)


def takes(command: Simple, judge: PlaceJudge, dirs: list[str] | None) -> list[str]:
    """A program handed names the line does not show: `xargs` running anything but
    `echo`/`printf`; `find` running a command or following links, from a start point below
    which a link leads outside."""
    argv = command.argv
    base = os.path.basename(argv[0] or "")
    rest = list(argv[1:])
    if reads_names(command):
        return [f"{command.shown()} (the names xargs reads)"]
    if base == "find" and _find_reaches(rest, judge, dirs):
        return [f"{command.shown()} (a link out of the workspace lies below where it looks)"]
    return []


def reads_names(command: Simple) -> bool:
    """`xargs` running anything but `echo`/`printf`: a program handed the names it reads."""
    argv = command.argv
    if os.path.basename(argv[0] or "") != "xargs":
        return False
    try:
        inner = wrapped("xargs", list(argv[1:]))
    except UnreadOption:
        return True
    runs = inner[0] if inner else "echo"
    return runs is None or os.path.basename(runs) not in PRINTERS


def _find_reaches(rest: list[str | None], judge: PlaceJudge, dirs: list[str] | None) -> bool:
    runs = any(w in ("-exec", "-execdir", "-ok", "-okdir") for w in rest)
    follows = any(w in ("-L", "-follow") for w in rest)
    if not (runs or follows):
        return False
    starts = find_starts(rest)
    if dirs is None or starts is None:
        return True
    return any(judge.reaches_out(start, dirs) for start in starts)
