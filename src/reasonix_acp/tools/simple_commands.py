"""What one simple command of a provable line runs (tools/provable.py): the command itself, what
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

from reasonix_acp.tools.shell_lexer import Unprovable
from reasonix_acp.tools.shell_names import may_set, why_not_set
from reasonix_acp.tools.shell_words import (
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
# (`export` is read where it is: tools/provable.py.)
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
    changes_dir: bool = False

    @property
    def names(self) -> list[str]:
        return distinct_names(self.commands)


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
    if base == "cd":
        proof.changes_dir = True
    _runs(proof, base, argv[1:])


def _runs(proof: Proof, base: str, rest: list[str | None]) -> None:
    """What a command runs in its turn, and the files it is told to write."""
    if base == "tee":
        proof.writes += operands(rest)
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
        if inner:
            simple(proof, inner)


def _env(proof: Proof, rest: list[str | None]) -> None:
    """`env NAME=value … cmd`: the names as a line's own assignments (tools/shell_names.py)."""
    for word in rest:
        if word is None:
            raise Unprovable("`env` has a word known only when it runs")
        name, eq, _ = word.partition("=")
        if eq and not word.startswith("-") and not may_set(name):
            raise Unprovable(why_not_set(name))
        if word.startswith(("-C", "--chdir")):
            proof.changes_dir = True


def _find(proof: Proof, rest: list[str | None]) -> None:
    if None in rest:  # a pattern or brace word can expand to `-exec`, `-delete`, `-fprint`...
        raise Unprovable("`find` has a word known only when it runs, which may be an action")
    runs, writes = find_runs(rest)
    for argv in runs:
        simple(proof, argv)
    proof.writes += writes


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
