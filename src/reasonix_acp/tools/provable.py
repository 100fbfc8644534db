"""The small shell language the gate can prove safe: a line runs without a question, or is
covered by a grant, only when every character of it is read here.

Commands run in bash (`bash --noprofile --norc -p -c LINE`: no startup file, no `BASH_ENV`, no
function or option imported from the environment; tools/shell.py). This module reads a line as
that bash reads it, for a language small enough to read completely:

    line      := sep* pipeline (sep+ pipeline)* sep*       sep: `;` `&&` `||` newline
    pipeline  := command ('|' command)*
    command   := (word | redirect)+
    redirect  := [digits] ('>' | '>>' | '>|' | '<' | '&>' | '&>>') word  |  [digits] ('>&' | '<&') digits
    word      := (plain | '\\' char | '...' | "..." without `$`, backquote)+

plus comments (`#` starting a word) and `\\`-newline continuations. A plain character is anything
but blanks and `;&|<>()$\\`'"!`; an unquoted `*?[{` makes a word a pattern (its value is known
only when it runs: fine as an argument, never as a command name or a redirection target), and a
`~` is allowed only as the whole first part of a word (`~`, `~/x`: the home directory).

Anything else is *unprovable*, with the reason: expansions of every kind, `$'…'`, subshells and
groups, reserved words (`if`, `for`, `[[`, `time`, `!` ...), assignments, background `&`,
heredocs and here-strings, process substitution, and the builtins that change how later words
or commands are read (`eval`, `source`, `exec`, `alias`, `trap`, `export`, `declare`, `hash`,
`enable`, `read`, `set`, `shopt` ...; `test -v` and `printf -v`, which evaluate a subscript).
Shells and `eval`-like commands are unprovable wherever they appear, wrapped ones too.

Invariants:
- `Proof.commands` lists every simple command bash runs for the line, wrapped ones (`env x`,
  `xargs x`, `find -exec x`) included; an argument is None where its value is a pattern.
- `Proof.writes` / `reads` list every path the line opens through a redirection, and the files
  `tee` and `find -fprint` write; None stands for a path known only when it runs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

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
BUILTINS = frozenset({
    ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command",
    "compgen", "complete", "compopt", "continue", "declare", "dirs", "disown", "echo", "enable",
    "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "help", "history",
    "jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read",
    "readarray", "readonly", "return", "set", "shift", "shopt", "source", "suspend", "test",
    "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
})
PLAIN_BUILTINS = frozenset({
    ":", "[", "cd", "command", "echo", "exit", "false", "printf", "pwd", "test", "true", "type",
})
# fmt: on
RUNS_TEXT = SHELLS | {"eval", "source", ".", "watch", "su", "runuser"}
# Commands that run a command named after arguments whose shape is not read here.
UNREAD_RUNNERS = frozenset({"chrt", "taskset", "nsenter", "unshare", "chroot", "systemd-run"})
FREE = frozenset({"true", "false", ":"})  # need no grant (nor does `exit N`)
_BLANK = " \t"
_METACHAR = set(" \t\n;&|<>()")
_UNPROVABLE = {
    "$": "an expansion (`$`)",
    "`": "a command substitution",
    "(": "a subshell or substitution `(`",
    ")": "a subshell `)`",
    "!": "`!` (negation, history or extended glob)",
}
_PATTERN = set("*?[{")


class Unprovable(Exception):
    """The line is outside the provable language; the message says what and where."""


@dataclass
class Word:
    """One word as bash reads it: its value after quote removal."""

    value: str = ""
    pattern: bool = False  # an unquoted `*?[{`, or `~` after the start: known only when it runs
    quoted: bool = False  # some part was quoted


@dataclass
class Redirect:
    """A redirection: the descriptor, the operator and the target word."""

    fd: str
    op: str
    target: Word | None  # None: a descriptor copy (`2>&1`)


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


def prove(text: str) -> Proof:
    """The line read completely; raises Unprovable with the reason otherwise."""
    if "\0" in text:
        raise Unprovable("a NUL character")
    proof = Proof()
    for words, redirects in _Lexer(text).commands():
        _command(proof, words, redirects)
    return proof


def _command(proof: Proof, words: list[Word], redirects: list[Redirect]) -> None:
    moved: set[str] = set()  # the descriptors an earlier redirection of this command set
    for redirect in redirects:
        fds = _fds(redirect)
        if redirect.target is not None:
            path = _path(redirect.target)
            stream = STANDARD.get(os.path.normpath(path))
            # `/dev/stderr` is the command's own fd 2, unless a redirection before it moved
            # that descriptor to a file (which it would then reopen: tools/kernel_paths.py)
            if stream is None or stream in moved:
                (proof.reads if redirect.op == "<" else proof.writes).append(path)
        moved |= fds
    if words:
        argv = [
            None if w.pattern and not (w.value == "[" and i == 0) else w.value
            for i, w in enumerate(words)
        ]
        _simple(proof, argv)


# The standard streams by their paths, and the descriptor each names.
STANDARD = {
    "/dev/stdin": "0",
    "/dev/stdout": "1",
    "/dev/stderr": "2",
    "/dev/fd/0": "0",
    "/dev/fd/1": "1",
    "/dev/fd/2": "2",
}


def _fds(redirect: Redirect) -> set[str]:
    """The descriptors a redirection sets."""
    if redirect.op in ("&>", "&>>"):
        return {"1", "2"}
    return {redirect.fd or ("0" if redirect.op in ("<", "<&") else "1")}


def _path(word: Word) -> str:
    if word.pattern:
        raise Unprovable(f"a redirection to a pattern: {word.value}")
    if word.value.startswith(("/dev/tcp/", "/dev/udp/")):  # bash opens a socket for these
        raise Unprovable(f"a network connection through a redirection: {word.value}")
    return word.value


def _simple(proof: Proof, argv: list[str | None]) -> None:
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
    rest = argv[1:]
    if name in ("test", "[", "printf") and any(
        w is None or w.startswith(("-v", "-R")) for w in rest
    ):
        raise Unprovable(f"`{name} -v` evaluates a variable name")
    proof.commands.append(Simple(tuple(argv)))
    if base == "cd":
        proof.changes_dir = True
    _runs(proof, base, rest)


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
        if base == "env" and any(w is None or "=" in w for w in rest):
            raise Unprovable("`env` sets variables for the command it runs")
        if base == "env" and any(w is not None and w.startswith(("-C", "--chdir")) for w in rest):
            proof.changes_dir = True
        try:
            inner = wrapped(base, rest)
        except UnreadOption as exc:
            raise Unprovable(str(exc)) from None
        if inner:
            _simple(proof, inner)


def _find(proof: Proof, rest: list[str | None]) -> None:
    if None in rest:  # a pattern or brace word can expand to `-exec`, `-delete`, `-fprint`...
        raise Unprovable("`find` has a word known only when it runs, which may be an action")
    runs, writes = find_runs(rest)
    for argv in runs:
        _simple(proof, argv)
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


@dataclass
class _Lexer:
    """Reads the line character by character into commands: (words, redirections) each."""

    text: str
    i: int = 0

    def commands(self) -> list[tuple[list[Word], list[Redirect]]]:
        out: list[tuple[list[Word], list[Redirect]]] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        pending = ""  # the operator after the last command read
        text = self.text
        while True:
            self._blanks()
            if self.i >= len(text):
                break
            c = text[self.i]
            if c in "<>" or text.startswith("&>", self.i) or (c.isdigit() and self._fd_ahead()):
                redirects.append(self._redirect())
            elif c in ";&|\n":
                op = self._operator()
                if words or redirects:
                    out.append((words, redirects))
                    words, redirects, pending = [], [], op
                elif op != "\n":  # blank lines are fine anywhere
                    raise Unprovable(f"`{op}` with no command before it")
            else:
                word = self._word()
                if not words and not word.quoted and word.value in RESERVED:
                    raise Unprovable(f"the reserved word `{word.value}`")
                words.append(word)
        if words or redirects:
            out.append((words, redirects))
        elif pending in ("&&", "||", "|"):
            raise Unprovable(f"`{pending}` at the end of the line")
        return out

    def _blanks(self) -> None:
        text = self.text
        while self.i < len(text):
            if text[self.i] in _BLANK:
                self.i += 1
            elif text.startswith("\\\n", self.i):
                self.i += 2
            elif text[self.i] == "#":  # a comment, to the end of the line
                while self.i < len(text) and text[self.i] != "\n":
                    self.i += 1
            else:
                return

    def _operator(self) -> str:
        text, i = self.text, self.i
        two = text[i : i + 2]
        if two in ("&&", "||"):
            self.i += 2
            return two
        if two in (";;", ";&", "|&"):
            raise Unprovable(f"`{two}` at offset {i}")
        if text[i] == "&":
            raise Unprovable("a command sent to the background (`&`)")
        self.i += 1
        return text[i]

    def _fd_ahead(self) -> bool:
        j = self.i
        while j < len(self.text) and self.text[j].isdigit():
            j += 1
        return j < len(self.text) and self.text[j] in "<>"

    def _redirect(self) -> Redirect:
        text = self.text
        start = self.i
        while self.text[self.i].isdigit():
            self.i += 1
        fd = text[start : self.i]
        for op in ("&>>", "&>", ">>", ">|", ">&", "<&", ">", "<"):
            if text.startswith(op, self.i):
                break
        else:
            raise Unprovable(f"a redirection at offset {start}")
        if op.startswith("&") and fd:
            raise Unprovable(f"a redirection at offset {start}")
        self.i += len(op)
        if text.startswith(("<", ">", "(", "&", "|", "-"), self.i):
            raise Unprovable(f"a redirection `{text[start : self.i + 1]}` outside the language")
        if op in (">&", "<&"):
            j = self.i
            while j < len(text) and text[j].isdigit():
                j += 1
            if j == self.i or (j < len(text) and text[j] not in _METACHAR):
                raise Unprovable(
                    f"a redirection `{text[start : j + 1].strip()}` outside the language"
                )
            self.i = j
            return Redirect(fd, op, None)
        self._blanks()
        if self.i >= len(text) or text[self.i] in _METACHAR:
            raise Unprovable(f"a redirection without a target at offset {start}")
        return Redirect(fd, op, self._word())

    def _word(self) -> Word:
        text = self.text
        word = Word()
        start = self.i
        parts: list[str] = []
        globbed = tilde = False  # an unquoted `*?[`; a `~` inside the word
        while self.i < len(text):
            c = text[self.i]
            if c in _METACHAR:
                if c in "()":
                    raise Unprovable(f"{_UNPROVABLE[c]} at offset {self.i}")
                if c in "<>" and text[start] == "{":
                    raise Unprovable("a redirection to a named descriptor `{name}>`")
                break
            if c in _UNPROVABLE:
                raise Unprovable(f"{_UNPROVABLE[c]} at offset {self.i}")
            if c == "\\":
                if self.i + 1 >= len(text):
                    raise Unprovable("a `\\` at the end of the line")
                if text[self.i + 1] != "\n":
                    parts.append(text[self.i + 1])
                    word.quoted = True
                self.i += 2
            elif c == "'":
                end = text.find("'", self.i + 1)
                if end < 0:
                    raise Unprovable(f"an unclosed `'` at offset {self.i}")
                parts.append(text[self.i + 1 : end])
                word.quoted = True
                self.i = end + 1
            elif c == '"':
                parts.append(self._double())
                word.quoted = True
            elif c == "~":
                at_start = self.i == start
                following = text[self.i + 1] if self.i + 1 < len(text) else " "
                if at_start and (following == "/" or following in _METACHAR):
                    parts.append(os.path.expanduser("~"))
                elif at_start:
                    raise Unprovable(f"a tilde expansion `~{following}` at offset {self.i}")
                else:
                    parts.append(c)
                    word.pattern = tilde = True  # `a=~/x`: bash expands it in some words
                self.i += 1
            else:
                if c in _PATTERN:
                    word.pattern = True
                    globbed = globbed or c != "{"
                parts.append(c)
                self.i += 1
        word.value = "".join(parts)
        if word.pattern and not globbed and not tilde:  # braces only: `{}` is a plain word
            raw = text[start : self.i]
            word.pattern = "," in raw or ".." in raw  # bash expands `{a,b}` and `{1..3}`
        return word

    def _double(self) -> str:
        text = self.text
        parts: list[str] = []
        self.i += 1
        while self.i < len(text):
            c = text[self.i]
            if c == '"':
                self.i += 1
                return "".join(parts)
            if c in "$`":
                raise Unprovable(f"{_UNPROVABLE[c]} inside double quotes at offset {self.i}")
            if c == "\\" and self.i + 1 < len(text):
                following = text[self.i + 1]
                if following in '$`"\\':
                    parts.append(following)
                elif following != "\n":
                    parts.append(c + following)
                self.i += 2
                continue
            parts.append(c)
            self.i += 1
        raise Unprovable('an unclosed `"`')
