"""What one simple command of a provable line runs (command_proof/proof.py): the command itself, what
it runs in its turn (`env x`, `xargs x`, `find -exec x`), the files it is told to write (`tee`,
`find -fprint`); Unprovable where that is not read completely.

Invariants:
- An argument is None where its value is known only when it runs (a pattern, a variable).
- Shells and `eval`-like commands are Unprovable wherever they appear, wrapped ones too: what
  they run is text (a `-c` string, a script file) this reading does not hold, and the shell they
  start reads its environment (BASH_ENV, exported functions), which the line does not show.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from reasonix_acp.command_proof.lexer import Unprovable
from reasonix_acp.command_proof.names import may_set, why_not_set
from reasonix_acp.command_proof.words import (
    SHELLS,
    Simple,
    UnreadOption,
    distinct_names,
    find_runs,
    operands,
    wrapped,
    wrapper,
)

# fmt: off
RESERVED = frozenset({
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "function", "time", "coproc", "{", "}", "[[", "]]", "!", "in",
})
# Every bash 5 builtin but the ones below runs text as code, changes how later commands are
# found or read, or evaluates a variable name's subscript: unprovable as a command name.
# (`export` is read where it is: command_proof/proof.py.)
BUILTINS = frozenset({
    ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command",
    "compgen", "complete", "compopt", "continue", "declare", "dirs", "disown", "echo", "enable",
    "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "help", "history",
    "jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read",
    "readarray", "readonly", "return", "set", "shift", "shopt", "source", "suspend", "test",
    "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
})
PLAIN_BUILTINS = frozenset({
    ":", "[", "break", "cd", "command", "continue", "echo", "exit", "false", "printf", "pwd",
    "test", "true", "type",
})
# fmt: on
RUNS_TEXT = SHELLS | {"eval", "source", ".", "watch", "su", "runuser"}
# Commands that run a command named after arguments whose shape is not read here.
UNREAD_RUNNERS = frozenset({"chrt", "taskset", "nsenter", "unshare", "chroot", "systemd-run"})
FREE = frozenset({"true", "false", ":", "break", "continue"})  # need no grant (nor `exit N`)


@dataclass
class Proof:
    """What a line in the provable language does: every command it runs and file it opens."""

    commands: list[Simple] = field(default_factory=list)
    writes: list[str | None] = field(default_factory=list)
    reads: list[str | None] = field(default_factory=list)
    # Paths whose place is not known here: relative after a `cd` to a place not known, or
    # opened after a program ran (`linked`).
    adrift: list[str] = field(default_factory=list)
    # While proving: the directories the shell may be in, relative to where it started;
    # None after a `cd` to a place not known here.
    dirs: frozenset[str] | None = frozenset({""})
    # While proving: a program may have run before this point (or beside it, in a pipeline or
    # an earlier turn of a loop). Any program may make a link where a later path leads (`ln`,
    # `git checkout`, `tar x` ...); the shell follows it. Builtins make none.
    linked: bool = False
    programs: int = 0  # the programs it runs, counted as read

    @property
    def names(self) -> list[str]:
        return distinct_names(self.commands)

    def opened(self, path: str | None, write: bool = True) -> None:
        """A path the line writes (or reads): a relative one in every directory the shell may
        be in; `adrift` when that is not known, or when a program that ran before it may have
        made a link on its way."""
        paths = self.writes if write else self.reads
        if path is not None and self.linked:
            paths.append(path)
            self.adrift.append(path)
        elif path is None or os.path.isabs(path):
            paths.append(path)
        elif self.dirs is None:
            paths.append(path)
            self.adrift.append(path)
        else:
            paths += [os.path.join(d, path) if d else path for d in sorted(self.dirs)]

    def cd(self, args: list[str | None]) -> None:
        """`cd DIR` may fail: the shell is where it was, or in DIR. Known only for one literal
        DIR with no `..` (bash reads `..` in a `cd` by the text, not by the links) and no
        option; `cd` alone goes $HOME, `cd -` to $OLDPWD: places not known here."""
        where = args[0] if len(args) == 1 else None
        if self.dirs is None or not where or where.startswith("-") or ".." in where.split("/"):
            self.dirs = None
            return
        dirs = self.dirs | {
            where if os.path.isabs(where) else os.path.join(d, where) for d in self.dirs
        }
        self.dirs = frozenset(dirs) if len(dirs) <= MAX_DIRS else None


MAX_DIRS = 16


def simple(proof: Proof, argv: list[str | None]) -> None:
    """Adds the command `argv` and what it runs in its turn to `proof`."""
    name = argv[0]
    if name is None or name == "" or (name != "[" and any(c in name for c in "*?[]{}=~")):
        raise Unprovable(f"a command name known only when it runs: {name or '(empty)'}")
    base = os.path.basename(name)
    if name in RESERVED:
        raise Unprovable(f"the reserved word `{name}`")
    if base in RUNS_TEXT:
        raise Unprovable(f"`{base}` runs text as commands")
    if name in BUILTINS and name not in PLAIN_BUILTINS:
        raise Unprovable(f"the builtin `{name}` changes how the shell reads what follows")
    proof.commands.append(Simple(tuple(argv)))
    _runs(proof, base, argv[1:])
    if name not in PLAIN_BUILTINS:  # a program (a path to one too: `/bin/echo`)
        proof.linked = True
        proof.programs += 1
    if base == "cd":
        proof.cd(argv[1:])


def _runs(proof: Proof, base: str, rest: list[str | None]) -> None:
    """What a command runs in its turn, and the files it is told to write."""
    if base == "tee":
        for path in operands(rest):
            proof.opened(path)
    elif base == "find":
        _find(proof, rest)
    elif base == "git":
        _git(rest)
    elif base in UNREAD_RUNNERS:
        raise Unprovable(f"`{base}` runs a command its arguments name, not read here")
    elif wrapper(base):
        if base == "env":
            _env(proof, rest)
        try:
            inner = wrapped(base, rest)
        except UnreadOption as exc:
            raise Unprovable(str(exc)) from None
        if not inner and base == "xargs":
            inner = ["echo"]  # what xargs runs when it is given no command
        if inner:
            simple(proof, inner)


def _env(proof: Proof, rest: list[str | None]) -> None:
    """`env NAME=value … cmd`: the names as a line's own assignments (command_proof/names.py)."""
    for word in rest:
        if word is None:
            raise Unprovable("`env` has a word known only when it runs")
        name, eq, _ = word.partition("=")
        if eq and not word.startswith("-") and not may_set(name):
            raise Unprovable(why_not_set(name))
        if word.startswith(("-C", "--chdir")):
            proof.dirs = None  # for the command it runs: for the rest too, to be sure


def _find(proof: Proof, rest: list[str | None]) -> None:
    if None in rest:  # a pattern or brace word can expand to `-exec`, `-delete`, `-fprint`...
        raise Unprovable("`find` has a word known only when it runs, which may be an action")
    runs, writes = find_runs(rest)
    for argv in runs:
        simple(proof, argv)
    for path in writes:
        proof.opened(path)


def _git(rest: list[str | None]) -> None:
    """git's own options before its subcommand: configuration set there (`-c`, `--config-env`)
    or a program path can make git run any program (core.pager, core.sshCommand, an alias)."""
    words = iter(rest)
    for word in words:
        if word is None:
            raise Unprovable("`git` has a word known only when it runs before its subcommand")
        if not word.startswith("-"):
            return  # the subcommand
        if word.startswith(("-c", "--config-env", "--exec-path")):
            raise Unprovable(f"`git {word}` sets configuration that can run programs")
        if word in ("-C", "--git-dir", "--work-tree", "--namespace"):
            next(words, None)  # its value
