"""What one simple command of a provable line runs (command_proof/proof.py): the command itself, what
it runs in its turn (`env x`, `xargs x`, `find -exec x`), the files it is told to write (`tee`,
`find -fprint`); Unprovable where that is not read completely.

Invariants:
- Every rule keyed on a command's name is applied in `simple`, the one function that reads a
  command standing alone (or after `time`, `!`) and a command a wrapper runs alike (`command x`,
  `env x`, `nice x`, `xargs x`, `find -exec x` ..., nested to any depth): its name (known, not an
  option), reserved words, shells and `eval`-likes, the builtins that change how the shell reads
  what follows, the builtins that evaluate a variable name (`test -v`, `printf -v`), what it
  writes, what it runs in turn, where `cd` leaves the shell, and which commands need no grant.
  tests/tools/test_gate_rules.py runs every rule through every wrapper.
- A wrapper that is a program (`env`, `nice`, `xargs`, `find`, `sudo` ...) runs the command it
  names as a program found on PATH, never as the shell's builtin: `nice cd x` moves nothing and
  `nice exit` runs a program called `exit`. Through such a wrapper a builtin name is a program,
  never free, and unprovable unless it is also a standard program (PROGRAMS_TOO). `command x`
  runs a builtin as the shell would.
- An argument is None where its value is known only when it runs (a pattern, a variable, the
  `{}` `find` replaces, the words `xargs` appends).
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
    command_start,
    distinct_names,
    find_actions,
    operands,
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
# Builtins that are standard programs too (coreutils): what a wrapper that is a program finds
# on PATH under these names. Any other builtin's name run through such a wrapper is unprovable.
PROGRAMS_TOO = frozenset({"[", "echo", "false", "printf", "pwd", "test", "true"})
# fmt: on
RUNS_TEXT = SHELLS | {"eval", "source", ".", "watch", "su", "runuser"}
# Commands that run a command named after arguments whose shape is not read here.
UNREAD_RUNNERS = frozenset({"chrt", "taskset", "nsenter", "unshare", "chroot", "systemd-run"})
FREE = frozenset({"true", "false", ":", "break", "continue"})  # need no grant (nor `exit N`)


@dataclass(frozen=True)
class Arg:
    """A word of a simple command as the proof knows it: its value, None where it is known only
    when it runs; then `one` says whether it stays one word (a quoted variable, `find`'s `{}`),
    or may become several or none (an unquoted variable, a pattern, what `xargs` appends)."""

    value: str | None
    one: bool = True


MORE = Arg(None, one=False)  # the words `xargs` appends from its input


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
        made a link on its way. One known only when it runs (`tee $f`, `xargs tee`, `find
        -exec tee {}`) is Unprovable: no deny rule could be checked against it."""
        if path is None:
            raise Unprovable("a file written to a path known only when it runs")
        paths = self.writes if write else self.reads
        if self.linked:
            paths.append(path)
            self.adrift.append(path)
        elif os.path.isabs(path):
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


def simple(proof: Proof, args: list[Arg], program: bool = False) -> None:
    """Adds the command `args` and what it runs in its turn to `proof`. `program`: a wrapper
    that is a program runs it (by its name on PATH, never as a builtin)."""
    name = _name(args[0].value)
    base = os.path.basename(name)
    _refused(name, base, program)
    _evaluates_no_name(base, args[1:])
    builtin = name in BUILTINS and not program
    argv = [arg.value for arg in args]
    free = builtin and (name in FREE or (name == "exit" and all(_number(w) for w in argv[1:])))
    proof.commands.append(Simple(tuple(argv), free=free))
    _runs(proof, base, args[1:])
    if not builtin:  # a program (a path to one too: `/bin/echo`)
        proof.linked = True
        proof.programs += 1
    elif name == "cd":
        proof.cd(argv[1:])


def _name(name: str | None) -> str:
    if name in RESERVED:
        raise Unprovable(f"the reserved word `{name}`")
    if name is None or name == "" or (name != "[" and any(c in name for c in "*?[]{}=~")):
        raise Unprovable(f"a command name known only when it runs: {name or '(empty)'}")
    if name.startswith("-"):  # what `time` or a wrapper would have read as its option
        raise Unprovable(f"a command name that starts with `-`: {name}")
    return name


def _refused(name: str, base: str, program: bool) -> None:
    if base in RUNS_TEXT:
        raise Unprovable(f"`{base}` runs text as commands")
    if name in BUILTINS and not program and name not in PLAIN_BUILTINS:
        raise Unprovable(f"the builtin `{name}` changes how the shell reads what follows")
    if name in BUILTINS and program and name not in PROGRAMS_TOO:
        raise Unprovable(f"`{name}` run by a wrapper is a program of that name, not the builtin")


def _number(word: str | None) -> bool:
    return word is not None and word.isdigit()


def _evaluates_no_name(base: str, args: list[Arg]) -> None:
    """`test -v NAME` (and `printf -v NAME`) evaluates NAME's subscript, running what it holds:
    no literal `-v`, and a word known only when it runs must not be able to become the `-v`
    before a literal subscript, or a `-v` and a subscript itself. (Through a wrapper that is a
    program these are coreutils' `test` and `printf`, which evaluate nothing: refused alike.)"""
    if base not in ("test", "[", "printf"):
        return
    if base == "printf":
        if args and (args[0].value is None or args[0].value.startswith("-v")):
            raise Unprovable("`printf -v` evaluates a variable name")
        return
    literal = [arg.value for arg in args if arg.value is not None]
    unknown = [arg for arg in args if arg.value is None]
    if any(v.startswith(("-v", "-R")) for v in literal) or (
        unknown and (len(unknown) > 1 or not unknown[0].one or "[" in "".join(literal))
    ):
        raise Unprovable(f"`{base} -v` evaluates a variable name")


def _runs(proof: Proof, base: str, rest: list[Arg]) -> None:
    """What a command runs in its turn, and the files it is told to write."""
    values = [arg.value for arg in rest]
    if base == "tee":
        for path in operands(values):
            proof.opened(path)
    elif base == "find":
        _find(proof, values)
    elif base == "git":
        _git(values)
    elif base in UNREAD_RUNNERS:
        raise Unprovable(f"`{base}` runs a command its arguments name, not read here")
    elif wrapper(base):
        if base == "env":
            _env(proof, values)
        try:
            inner = rest[command_start(base, values) :]
        except UnreadOption as exc:
            raise Unprovable(str(exc)) from None
        if base == "xargs":  # `echo` when it names none, with the words it reads appended
            inner = [*(inner or [Arg("echo")]), MORE]
        if base == "env" and not inner:
            raise Unprovable("`env` with no command prints the environment, secrets too")
        if inner:  # `command` runs a builtin as the shell would; the others are programs
            simple(proof, inner, program=base != "command")


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
    runs, written = find_actions(rest)
    for span in runs:  # `{}` (in a word too) is each path found, known only when it runs
        argv = rest[span[0] : span[1]] if span else ["rm"]
        simple(proof, [Arg(None if "{}" in (w or "") else w) for w in argv], program=True)
    for k in written:
        proof.opened(rest[k])


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
