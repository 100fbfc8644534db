"""What both readings of a shell line share (command_proof/command_line.py, the grammar's view of any
line; command_proof/proof.py, the complete reading of the small language): a simple command, the
shells, and the commands that run another command named in their arguments."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox"}


class UnreadOption(ValueError):
    """A wrapper's options are not read completely here (an unknown option, one that runs a
    shell or writes a file, a word known only when it runs): what it runs is not known."""


@dataclass(frozen=True)
class Options:
    """A wrapper's options as the program parses them: `flags` take no value, `valued` take the
    rest of their cluster or the next word, `optional` take only the rest of their cluster
    (GNU's optional arguments); `refused` run a shell or write a file; any other is unknown.
    Long options are named in full (`--user`), with their value after `=` or as the next word."""

    flags: frozenset[str] = frozenset()
    valued: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    refused: frozenset[str] = frozenset()


def _o(flags: str = "", valued: str = "", optional: str = "", refused: str = "") -> Options:
    return Options(*(frozenset(x.split()) for x in (flags, valued, optional, refused)))


# Wrappers: the commands that run the command named in their arguments, after their options.
# fmt: off
_WRAPPERS: dict[str, Options] = {
    "env": _o("-i -0 -v --ignore-environment --null --debug", "-u -C --unset --chdir",
              refused="-S --split-string"),
    "nice": _o(valued="-n --adjustment"),
    "timeout": _o("-v --verbose --preserve-status --foreground", "-s -k --signal --kill-after"),
    "sudo": _o("-A -b -E -H -k -n -P -S --askpass --background --preserve-env --set-home "
               "--reset-timestamp --non-interactive --preserve-groups --stdin",
               "-u -g -C -D -h -p -r -t -U -R -T --user --group --close-from --chdir --host "
               "--prompt --role --type --other-user --chroot --command-timeout",
               refused="-i -s -e -l -v -V -K --login --shell --edit --list --validate"),
    "doas": _o("-n", "-u -C", refused="-s"),
    "xargs": _o("-0 -r -t -p -x -o --null --no-run-if-empty --verbose --interactive --exit "
                "--open-tty",
                "-a -d -E -I -L -n -P -s --arg-file --delimiter --max-args --max-procs "
                "--max-chars --max-lines",
                "-i -e -l"),
    "nohup": _o(),
    "command": _o("-p -v -V"),  # `-v`: judged as if it ran the command (it names it)
    "exec": _o("-c -l", "-a"),
    "builtin": _o(),
    "time": _o("-p -v -q --portability --verbose --quiet", "-f --format",
               refused="-o -a --output --append"),
    "stdbuf": _o(valued="-i -o -e --input --output --error"),
    "setsid": _o("-c -f -w --ctty --fork --wait"),
    "ionice": _o("-t --ignore", "-c -n -p --class --classdata --pid"),
    "flock": _o("-s -x -u -n -o -F -e --shared --exclusive --unlock --nonblock --close "
                "--no-fork", "-w -E --timeout --conflict-exit-code", refused="-c --command"),
}
# fmt: on
WRAPPERS = frozenset(_WRAPPERS)
_POSITIONAL_FIRST = {"timeout": 1, "flock": 1}  # a duration / lock file before the command


@dataclass(frozen=True)
class Simple:
    """One simple command of a line: its words, None where a word is known only at run time;
    `free` where it needs no grant (a builtin that runs nothing: `true`, `:`, `exit N` ...,
    decided by the proof, command_proof/simple_commands.py)."""

    argv: tuple[str | None, ...]
    free: bool = False

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
    """The command a wrapper runs, with its arguments ([] when it runs none). Raises
    UnreadOption when its options are not read completely (Options)."""
    return list(rest[command_start(base, rest) :])


def command_start(base: str, rest: list[str | None]) -> int:
    """Where in the wrapper's arguments `rest` the command it runs starts (`len(rest)` when it
    runs none). Raises UnreadOption when its options are not read completely (Options)."""
    options = _WRAPPERS[base]
    i = 0
    while i < len(rest):
        word = rest[i]
        if word is None:
            raise UnreadOption(f"`{base}` has a word known only when it runs among its options")
        if word == "--":
            i += 1
            break
        if base == "env" and "=" in word and not word.startswith("-"):
            i += 1
        elif base == "nice" and word[:1] == "-" and word[1:].isdigit():
            i += 1  # `nice -5`
        elif word.startswith("--"):
            i += _long(base, options, word)
        elif word.startswith("-") and len(word) > 1:
            i += _cluster(base, options, word)
        else:
            break
    return min(i + _POSITIONAL_FIRST.get(base, 0), len(rest))


def _long(base: str, options: Options, word: str) -> int:
    """The words a long option takes (itself, and its value when not after `=`)."""
    name, eq, _ = word.partition("=")
    if name in options.refused:
        raise UnreadOption(f"`{base} {name}` runs a shell or writes a file")
    if name in options.valued:
        return 1 if eq else 2
    if name in options.flags and not eq:
        return 1
    raise UnreadOption(f"`{base} {name}` is an option not read here")


def _cluster(base: str, options: Options, word: str) -> int:
    """The words a cluster of short options (`-rI x`, `-iu NAME`) takes, read letter by
    letter as getopt reads it."""
    for n, letter in enumerate(word[1:], 1):
        option = "-" + letter
        if option in options.refused:
            raise UnreadOption(f"`{base} {option}` runs a shell or writes a file")
        if option in options.valued:
            return 1 if n < len(word) - 1 else 2  # the rest of the cluster, or the next word
        if option in options.optional:
            return 1  # the rest of the cluster is its value, if any
        if option not in options.flags:
            raise UnreadOption(f"`{base} {option}` is an option not read here")
    return 1


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
    spans, written = find_actions(rest)
    runs: list[list[str | None]] = [list(rest[s[0] : s[1]]) if s else ["rm"] for s in spans]
    return runs, [rest[k] for k in written]


def find_actions(rest: list[str | None]) -> tuple[list[tuple[int, int] | None], list[int]]:
    """Where in `find`'s arguments the commands it runs are (`rest[i:j]` for each (i, j); None
    for `-delete`, which removes as `rm` does), and the indices of the files it writes."""
    runs: list[tuple[int, int] | None] = []
    written: list[int] = []
    i = 0
    while i < len(rest):
        if rest[i] in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(rest) and rest[j] not in (";", "+"):
                j += 1
            if j > i + 1:
                runs.append((i + 1, j))
            i = j
        elif rest[i] in ("-fprint", "-fprint0", "-fprintf", "-fls") and i + 1 < len(rest):
            written.append(i + 1)
        elif rest[i] == "-delete":
            runs.append(None)
        i += 1
    return runs, written
