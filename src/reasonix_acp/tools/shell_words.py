"""What both readings of a shell line share (tools/command_line.py, the grammar's view of any
line; tools/provable.py, the complete reading of the small language): a simple command, the
shells, and the commands that run another command named in their arguments."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox"}
# Wrappers: the options that take a value; the wrapped command follows the options.
_WRAPPERS: dict[str, set[str]] = {
    "env": {"-u", "--unset", "-C", "--chdir"},
    "nice": {"-n", "--adjustment"},
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "sudo": {"-u", "--user", "-g", "--group", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-R"},
    "doas": {"-u", "-C"},
    "xargs": {"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter"},
    "nohup": set(),
    "command": set(),
    "exec": {"-a"},
    "builtin": set(),
    "time": {"-f", "-o"},
    "stdbuf": {"-i", "-o", "-e"},
    "setsid": set(),
    "ionice": {"-c", "-n", "-p"},
    "chrt": set(),
    "flock": {"-w", "-E"},
}
_POSITIONAL_FIRST = {"timeout": 1, "flock": 1}  # a duration / lock file before the command


@dataclass(frozen=True)
class Simple:
    """One simple command of a line: its words, None where a word is known only at run time."""

    argv: tuple[str | None, ...]

    @property
    def name(self) -> str | None:
        return self.argv[0] if self.argv else None

    def shown(self) -> str:
        """As the user reads it: quoted where the shell would need it, `…` for a word known
        only at run time."""
        return " ".join(shlex.quote(w) if w is not None else "…" for w in self.argv)


def operands(rest: list[str | None]) -> list[str | None]:
    out: list[str | None] = []
    options = True
    for word in rest:
        if options and word == "--":
            options = False
        elif options and word is not None and word.startswith("-") and word != "-":
            continue
        else:
            out.append(word)
    return out


def wrapped(base: str, rest: list[str | None]) -> list[str | None]:
    """The command a wrapper runs, with its arguments ([] when it runs none)."""
    takes_value = _WRAPPERS[base]
    positional = _POSITIONAL_FIRST.get(base, 0)
    i = 0
    while i < len(rest):
        word = rest[i]
        if word is None:
            return [None]
        if word == "--":
            i += 1
            break
        if base == "env" and "=" in word and not word.startswith("-"):
            i += 1
        elif word.startswith("-") and len(word) > 1 and not (base == "nice" and word[1:].isdigit()):
            i += 2 if word in takes_value else 1
        elif base == "nice" and word.startswith("-"):
            i += 1
        else:
            break
    i += positional
    return list(rest[i:])


def wrapper(base: str) -> bool:
    """A command that runs the command named in its arguments (`env`, `sudo`, `xargs` ...)."""
    return base in _WRAPPERS


def distinct_names(commands: list[Simple]) -> list[str]:
    """The distinct known command names, in order."""
    seen: dict[str, None] = {}
    for command in commands:
        if command.name is not None:
            seen.setdefault(command.name, None)
    return list(seen)


def find_runs(rest: list[str | None]) -> tuple[list[list[str | None]], list[str | None]]:
    """What `find` with these arguments runs (`-exec` and the like; `-delete` as `rm`, the
    removal it is) and the files it writes (`-fprint` and the like)."""
    runs: list[list[str | None]] = []
    writes: list[str | None] = []
    i = 0
    while i < len(rest):
        if rest[i] in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(rest) and rest[j] not in (";", "+"):
                j += 1
            if j > i + 1:
                runs.append(rest[i + 1 : j])
            i = j
        elif rest[i] in ("-fprint", "-fprint0", "-fprintf", "-fls") and i + 1 < len(rest):
            writes.append(rest[i + 1])
        elif rest[i] == "-delete":
            runs.append(["rm"])
        i += 1
    return runs, writes
