"""The small shell language the gate can prove safe: a line runs without a question, or is
covered by a grant, only when every character of it is read here.

Commands run in bash (`bash --noprofile --norc -p -c LINE`: no startup file, no `BASH_ENV`, no
function or option imported from the environment; tools/shell.py). A line is read as that bash
reads it: tokens (command_proof/lexer.py), then its grammar (command_proof/parser.py): lists and
pipelines, subshells and `{ …; }` groups, `if`/`while`/`until`/`for`/`case`, `!` and `time`,
assignments with literal values, `export` of the same, quoted heredocs and here-strings as
input, and reads of variables that cannot hold a secret (command_proof/names.py). Then here: what
every simple command runs (command_proof/simple_commands.py) and every file the line opens.

Outside the language, each asked, with the reason: command and process substitutions and every
expansion but `$NAME`/`${NAME}`/`$?` (arithmetic, `${x@P}`, `$'…'`, `$1`...), `[[`, `((`,
`select`, functions, background `&`, `eval`/`source`/`.` and the shells (what they run is text
or a file this reading does not hold, and a shell started by the line reads its environment),
the builtins that change how later words are read (`alias`, `trap`, `set`, `declare`, `read`…),
an assignment to a name that changes which program runs or what it loads (PATH, LD_*, IFS ...),
and a read of a variable that may hold a secret from the environment.

Invariants:
- `Proof.commands` lists every simple command bash may run for the line, wrapped ones (`env x`,
  `xargs x`, `find -exec x`) included; an argument is None where its value is known only when
  it runs (a pattern, a variable).
- `Proof.writes` / `reads` list every path the line opens through a redirection, and the files
  `tee` and `find -fprint` write; a path among them known only when it runs is Unprovable (no
  deny rule could be checked against it), so neither holds None.
- A variable is read only where its value is one the line gave it on every way there, or one of
  READABLE: `defined` below is the set of names surely set at that point.
- A path is judged from every place the shell may be in when it is opened, on every way there:
  the branches of an `if` or `case` are each walked from the state before them and joined after;
  a loop's body is walked until what it changes reaches a fixed point (`_repeated`), so a `cd`
  or a program late in the body counts for the paths early in it, as bash's next pass sees them.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

from reasonix_acp.command_proof.lexer import Redirect, Unprovable, Word
from reasonix_acp.command_proof.names import NAME, READABLE, may_set, why_not_read, why_not_set
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
from reasonix_acp.command_proof.simple_commands import FREE, MAX_DIRS, Arg, Proof, simple

__all__ = ["FREE", "STANDARD", "Proof", "Unprovable", "prove"]

Names = frozenset[str]
# What a walk of the line changes as it goes, for the paths after it: the directories the shell
# may be in (Proof.dirs) and whether a program that may make a link ran (Proof.linked). It only
# grows along a walk (a `cd` may fail, so it adds a place; a subshell's is dropped after it).
State = tuple[frozenset[str] | None, bool]
TOP: State = (None, True)  # any directory, a link made: no walk changes it
WIDEN = 2  # walks of a loop's body that changed the state, before it is walked from TOP
MAX_WALKS = 256  # walks of loop bodies in a line: past it, every loop is walked from TOP

# The standard streams by their paths, and the descriptor each names.
STANDARD = {
    "/dev/stdin": "0",
    "/dev/stdout": "1",
    "/dev/stderr": "2",
    "/dev/fd/0": "0",
    "/dev/fd/1": "1",
    "/dev/fd/2": "2",
}


def prove(text: str) -> Proof:
    """The line read completely; raises Unprovable with the reason otherwise."""
    if "\0" in text:
        raise Unprovable("a NUL character")
    proof = Proof()
    _Prover(proof).sequence(parse_line(text), frozenset(), frozenset())
    return proof


class _Prover:
    """Walks the parsed line: `defined`, the variables surely set where a node runs; `moved`,
    the descriptors an enclosing redirection set (a `/dev/stdout` there reopens its file)."""

    def __init__(self, proof: Proof) -> None:
        self.proof = proof
        self.walks = 0  # of loop bodies

    def sequence(self, items: Sequence, defined: Names, moved: Names) -> Names:
        for item in items:
            defined = self._and_or(item, defined, moved)
        return defined

    def _and_or(self, item: AndOr, defined: Names, moved: Names) -> Names:
        sure = current = self._pipeline(item.first, defined, moved)
        for op, pipeline in item.rest:
            if op == "||":  # runs when what came before failed: only the first surely ran
                current = sure
            current = self._pipeline(pipeline, current, moved)
        return sure

    def _pipeline(self, pipeline: Pipeline, defined: Names, moved: Names) -> Names:
        if len(pipeline.commands) == 1:
            return self._node(pipeline.commands[0], defined, moved)
        proof = self.proof
        linked = proof.linked
        parts = []  # each command's: (whether a program ran in it, what it opened)
        for node in pipeline.commands:  # each in a subshell: what it sets is gone after
            programs, writes, reads = proof.programs, len(proof.writes), len(proof.reads)
            self._subshell(functools.partial(self._node, node, defined, moved))
            parts.append((proof.programs > programs, proof.writes[writes:] + proof.reads[reads:]))
        for i, (_, opened) in enumerate(parts):
            # they run at once: a path is adrift when a program runs beside it
            if not linked and any(program for j, (program, _) in enumerate(parts) if j != i):
                proof.adrift += [path for path in opened if path is not None]
        return defined

    def _subshell(self, run: Callable[[], object]) -> None:
        """Runs a part in a subshell: a `cd` there moves nothing after it."""
        dirs = self.proof.dirs
        run()
        self.proof.dirs = dirs

    def _node(self, node: Node, defined: Names, moved: Names) -> Names:
        if isinstance(node, Command):
            return self._command(node, defined, moved)
        inner = self._redirects(node.redirects, defined, moved)
        if isinstance(node, Group) and node.subshell:
            self._subshell(lambda: self.sequence(node.body, defined, inner))
            return defined
        if isinstance(node, Group):
            return self.sequence(node.body, defined, inner)
        if isinstance(node, If):
            return self._if(node, defined, inner)
        if isinstance(node, Loop):
            conditions: list[Names] = []  # what the condition surely set (it runs at least once)

            def one_pass() -> None:
                conditions.append(self.sequence(node.condition, defined, inner))
                self.sequence(node.body, conditions[-1], inner)

            self._repeated(one_pass)
            return conditions[-1]
        if isinstance(node, For):
            if not NAME.match(node.name) or not may_set(node.name):
                raise Unprovable(why_not_set(node.name))
            for word in node.words:
                _reads(word, defined)
            self._repeated(lambda: self.sequence(node.body, defined | {node.name}, inner))
            return defined
        assert isinstance(node, Case)
        return self._case(node, defined, inner)

    def _state(self) -> State:
        return self.proof.dirs, self.proof.linked

    def _restore(self, state: State) -> None:
        self.proof.dirs, self.proof.linked = state

    def _repeated(self, one_pass: Callable[[], object]) -> None:
        """A loop: bash runs its body again from where the previous pass left the shell, any
        number of times (none, for a `for` over no words or a `while` whose condition fails).
        The body is walked from the state before it, joined with the state after it, until the
        two agree: the fixed point of what it changes (where the shell is, whether a program
        that may make a link ran). What the earlier walks recorded is dropped: the last one,
        from the largest state, covers theirs. After WIDEN walks that changed the state, or past
        MAX_WALKS in the line (nested loops), the walk starts from TOP, which none changes. The
        state after the loop is the fixed point."""
        proof = self.proof
        mark = (len(proof.commands), len(proof.writes), len(proof.reads), len(proof.adrift))
        programs, entry, walk = proof.programs, self._state(), 0
        while True:
            self.walks += 1
            if walk >= WIDEN or self.walks > MAX_WALKS:
                entry = TOP
            self._restore(entry)
            one_pass()
            after = _join(entry, self._state())
            if after == entry:
                self._restore(entry)
                return
            del proof.commands[mark[0] :], proof.writes[mark[1] :], proof.reads[mark[2] :]
            del proof.adrift[mark[3] :]
            proof.programs, entry, walk = programs, after, walk + 1

    def _if(self, node: If, defined: Names, moved: Names) -> Names:
        """One branch runs, after the conditions before it failed: each is walked from the
        state its condition left, and the state after the `if` is their join."""
        ends: list[Names] = []
        states: list[State] = []
        for condition, body in node.branches:
            defined = self.sequence(condition, defined, moved)
            tested = self._state()
            ends.append(self.sequence(body, defined, moved))
            states.append(self._state())
            self._restore(tested)
        otherwise = node.otherwise
        ends.append(defined if otherwise is None else self.sequence(otherwise, defined, moved))
        states.append(self._state())
        self._restore(functools.reduce(_join, states))
        return frozenset.intersection(*ends)

    def _case(self, node: Case, defined: Names, moved: Names) -> Names:
        """One branch runs, or none: each is walked from the state before the `case`, and the
        state after it is their join."""
        _reads(node.subject, defined)
        start = self._state()
        states = [start]
        for patterns, body in node.branches:
            for word in patterns:
                _reads(word, defined)
            self._restore(start)
            self.sequence(body, defined, moved)
            states.append(self._state())
        self._restore(functools.reduce(_join, states))
        return defined

    def _command(self, command: Command, defined: Names, moved: Names) -> Names:
        words = command.words
        k = 0
        while k < len(words) and words[k].assignment is not None:
            _assignment(words[k])
            k += 1
        rest = words[k:]
        for word in rest:
            _reads(word, defined)
        self._redirects(command.redirects, defined, moved)
        assigned = frozenset(w.assignment[0] for w in words[:k] if w.assignment)
        if not rest:
            return defined | assigned  # assignments alone: they hold for the rest of the shell
        if rest[0].known and rest[0].value == "export":
            return defined | _export(rest[1:])
        simple(self.proof, [_arg(word) for word in rest])
        return defined

    def _redirects(self, redirects: list[Redirect], defined: Names, moved: Names) -> Names:
        """Judges each target; → the descriptors moved for what runs inside them."""
        for redirect in redirects:
            if redirect.target is not None:
                _reads(redirect.target, defined)
            if redirect.opens_file:
                assert redirect.target is not None
                path = _path(redirect.target)
                stream = STANDARD.get(os.path.normpath(path))
                # `/dev/stderr` is the command's own fd 2, unless a redirection before it moved
                # that descriptor to a file (which it would then reopen: command_proof/kernel_paths.py)
                if stream is None or stream in moved:
                    self.proof.opened(path, write=redirect.op != "<")
            moved = moved | _fds(redirect)
        return moved


def _join(a: State, b: State) -> State:
    """The state after one of two ways the shell may have gone."""
    dirs = None if a[0] is None or b[0] is None else a[0] | b[0]
    return (dirs if dirs is None or len(dirs) <= MAX_DIRS else None), a[1] or b[1]


def _fds(redirect: Redirect) -> set[str]:
    """The descriptors a redirection sets."""
    if redirect.op in ("&>", "&>>"):
        return {"1", "2"}
    reading = redirect.op in ("<", "<&", "<<", "<<-", "<<<")
    return {redirect.fd or ("0" if reading else "1")}


def _path(word: Word) -> str:
    if not word.known:
        raise Unprovable(f"a redirection to a path known only when it runs: {word.raw}")
    if word.value.startswith(("/dev/tcp/", "/dev/udp/")):  # bash opens a socket for these
        raise Unprovable(f"a network connection through a redirection: {word.value}")
    return word.value


def _reads(word: Word, defined: Names) -> None:
    for name in word.variables:
        if name not in READABLE and name not in defined:
            raise Unprovable(why_not_read(name))


def _assignment(word: Word) -> None:
    assert word.assignment is not None
    name, _ = word.assignment
    if not may_set(name):
        raise Unprovable(why_not_set(name))
    if word.variables or word.tilde:  # a pattern is literal in an assignment: `x=*` is `*`
        raise Unprovable(f"an assignment whose value is known only when it runs: {word.raw}")


def _export(words: list[Word]) -> Names:
    """`export NAME[=value] …`: names a line may set, values literal (brace words expand here)."""
    if not words:
        raise Unprovable("`export` with no name prints the environment, secrets too")
    names = set()
    for word in words:
        if not word.known:
            raise Unprovable(f"`export` of a word known only when it runs: {word.raw}")
        name = word.value.partition("=")[0]
        if not NAME.match(name) or (word.assignment is None and "=" in word.value):
            raise Unprovable(f"`export {word.raw}` is not a plain variable")
        if not may_set(name):
            raise Unprovable(why_not_set(name))
        names.add(name)
    return frozenset(names)


def _arg(word: Word) -> Arg:
    """A word as `simple` reads it. A lone `[` is a pattern that matches only `[`: known."""
    value = word.value if word.known or word.raw == "[" else None
    return Arg(value, one=not (word.split or word.pattern))
