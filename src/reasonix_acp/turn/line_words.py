"""A shell line's words as the `.git` judgement reads them (turn/line_git.py): in the order
bash reads them, where the shell may be when it does, and every value a word may have.

Rules:
- `items` gives every word of a line in the provable language (a command's, a redirection's
  target, a `for`'s and a `case`'s) in order, a `Cd` after the words of one that moves the
  directory (`cd DIR`, `command cd DIR`: for the rest of the line; `env -C DIR`, `sudo -D DIR`:
  for their command), a `For` before its body.
- `forms` is every value a word may have: itself when known; else with each variable replaced
  by every value the line gives it (its assignments, an `export`'s, a `for`'s words) or the
  environment holds for a name a line may read unset (READABLE), quotes and escapes taken off,
  braces expanded. A pattern stays a pattern (its matches are the judge's). None when a value is
  not known here or there are more than MAX_FORMS: the judge counts that as naming a place.
- `moved`: after a `cd` the shell is where it was or where it went (the `cd` may fail); `..`
  read as bash reads it in `cd` (by the text); at most MAX_DIRS places, else None (not known).
  A subshell's moves are kept after it: more places, never fewer.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

from reasonix_acp.command_proof.lexer import Word
from reasonix_acp.command_proof.names import READABLE
from reasonix_acp.command_proof.parser import Case, Command, For, If, Loop, Node, Sequence
from reasonix_acp.tools.workspace import Workspace

MAX_FORMS = 64
MAX_DIRS = 16
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*)|\?)")

Form = tuple[str, bool]  # a value a word may have, and whether it is a pattern
Values = dict[str, list[Form] | None]  # a variable's values (None: not known here)


@dataclass(frozen=True)
class Cd:
    """Where the shell (or the command a wrapper runs) may be from here on: `cd`'s arguments,
    `env -C DIR`'s or `sudo -D DIR`'s directory; None: a directory not known here."""

    args: list[Word] | None


@dataclass(frozen=True)
class For_:
    """A `for` variable and its words (the values it takes)."""

    name: str
    words: list[Word]


Item = Word | Cd | For_


def items(sequence: Sequence) -> Iterator[Item]:
    """Every word of the line in the order bash reads it, a move of the directory after the
    words that make it, a `for` before its body."""
    for and_or in sequence:
        for pipeline in (and_or.first, *(p for _, p in and_or.rest)):
            for node in pipeline.commands:
                yield from _node(node)


def _node(node: Node) -> Iterator[Item]:
    for redirect in node.redirects:
        if redirect.target is not None:
            yield redirect.target
    if isinstance(node, Command):
        yield from _command(node.words)
    elif isinstance(node, For):
        yield from node.words
        yield For_(node.name, node.words)
        yield from items(node.body)
    elif isinstance(node, Case):
        yield node.subject
        for patterns, body in node.branches:
            yield from patterns
            yield from items(body)
    elif isinstance(node, If):
        for condition, body in node.branches:
            yield from items(condition)
            yield from items(body)
        yield from items(node.otherwise or [])
    elif isinstance(node, Loop):
        yield from items(node.condition)
        yield from items(node.body)
    else:  # a group or a subshell (the directory it moves to is kept: more places, not fewer)
        yield from items(node.body)


def _command(words: list[Word]) -> Iterator[Item]:
    """A simple command's words, and where it moves: `cd DIR` (also as `command cd DIR`) for
    the rest of the line, `env -C DIR` and `sudo -D DIR` for the command they run."""
    k = 0
    while k < len(words) and words[k].assignment is not None:
        k += 1
    names = [w.value if w.known else None for w in words[k:]]
    if names[:1] == ["command"] and names[1:2] == ["cd"]:
        k += 1
        names = names[1:]
    for i, word in enumerate(words):
        yield word
        at = i - k
        if at == 0 and names[:1] == ["cd"]:
            yield from words[i + 1 :]
            yield Cd(words[i + 1 :])
            return
        if at > 0 and names[0] in ("env", "sudo") and word.known:
            flag, eq, value = word.value.partition("=")
            if flag in ("-C", "--chdir", "-D") and not eq and i + 1 < len(words):
                yield Cd([words[i + 1]])
            elif flag in ("--chdir",) and eq:
                yield Cd([Word(value=value, raw=value)])
            elif word.value.startswith(("-C", "-D")) and len(word.value) > 2:
                yield Cd([Word(value=word.value[2:], raw=word.value[2:])])
        elif at > 0 and names[0] in ("env", "sudo") and not word.known:
            yield Cd(None)


def values_of(read: list[Item], workspace: Workspace) -> Values:
    """Every value the line may give each variable: its assignments' (an `export`'s too) and a
    `for` variable's words'."""
    values: Values = {}
    for item in read:
        if isinstance(item, Word) and item.assignment is not None:
            name, value = item.assignment
            _add(values, name, [(value, False)])
        elif isinstance(item, For_):
            taken: list[Form] | None = []
            for word in item.words:
                more = forms(word, values, workspace)
                taken = None if more is None or taken is None else taken + more
            _add(values, item.name, taken)
    return values


def _add(values: Values, name: str, given: list[Form] | None) -> None:
    known = values.setdefault(name, [])
    if known is None or given is None or len(known) + len(given) > MAX_FORMS:
        values[name] = None
    else:
        known += given


def forms(word: Word, values: Values, workspace: Workspace) -> list[Form] | None:
    """The values a word may have when it runs (patterns and braces left for the judge, brace
    words expanded); None when they are not all known here."""
    if word.known:
        return [(word.value, False)]
    texts: list[Form] | None = [(word.value, True)]
    if word.variables:
        texts = _substituted(word.raw, values, workspace)
    if texts is None:
        return None
    out: list[Form] = []
    for text, pattern in texts:
        pattern = pattern or word.pattern
        expanded = _braces(text) if pattern and "{" in text else [text]
        if expanded is None or len(out) + len(expanded) > MAX_FORMS:
            return None
        out += [(t, pattern) for t in expanded]
    return out


def _substituted(raw: str, values: Values, workspace: Workspace) -> list[Form] | None:
    """The word with each variable replaced by each value it may hold (quotes taken off)."""
    out: list[Form] = [("", False)]
    for segment in _segments(raw):
        if isinstance(segment, str):
            out = [(text + segment, pattern) for text, pattern in out]
            continue
        held = _held(segment[0], values, workspace)
        if held is None or len(out) * len(held) > MAX_FORMS:
            return None
        out = [(t + v, p or q) for t, p in out for v, q in held]
    return out


def _held(name: str, values: Values, workspace: Workspace) -> list[Form] | None:
    """The values a variable may hold where it is read: the line's, and the environment's for
    the names a line may read unset (READABLE; `PWD` is the cwd the command starts in)."""
    if name == "?":
        return [("0", False)]
    given = values.get(name, [])
    if given is None:
        return None
    if name == "PWD":
        return [*given, (workspace.cwd, False)]
    if name in READABLE:
        return [*given, (os.environ.get(name, ""), False)]
    return given


def _segments(raw: str) -> list[str | tuple[str]]:
    """A word as written, in its literal pieces (quotes and escapes taken off) and its
    variables (`(name,)`)."""
    out: list[str | tuple[str]] = []
    text: list[str] = []
    quote, i = "", 0
    while i < len(raw):
        c = raw[i]
        if quote == "'":
            quote = "" if c == "'" else quote
            text += [] if c == "'" else [c]
            i += 1
        elif c in "'\"" and (not quote or c == quote):
            quote = "" if quote else c
            i += 1
        elif c == "\\" and i + 1 < len(raw):
            kept = quote and raw[i + 1] not in '$`"\\\n'
            text += ([c] if kept else []) + ([] if raw[i + 1] == "\n" else [raw[i + 1]])
            i += 2
        elif c == "$" and (match := _VARIABLE.match(raw, i)):
            out += ["".join(text), (match.group(1) or match.group(2) or "?",)]
            text = []
            i = match.end()
        else:
            text.append(c)
            i += 1
    return [*out, "".join(text)]


def _braces(text: str) -> list[str] | None:
    """Brace expansion (`{a,b}`, `{1..3}`, `{a..c}`, nested), as bash does it; None past
    MAX_FORMS words."""
    out: list[str] = []
    pending = [text]
    while pending:
        current = pending.pop()
        split = _brace(current)
        if split is None:
            out.append(current)
        else:
            pending += split
        if len(out) + len(pending) > MAX_FORMS:
            return None
    return out


def _brace(text: str) -> list[str] | None:
    """The words the first `{…}` of `text` that expands gives, or None when none does."""
    start = 0
    while (opening := text.find("{", start)) >= 0:
        depth, parts, last, closing = 0, [], opening + 1, -1
        for i in range(opening, len(text)):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    parts.append(text[last:i])
                    closing = i
                    break
            elif text[i] == "," and depth == 1:
                parts.append(text[last:i])
                last = i + 1
        if closing < 0:
            return None
        head, tail = text[:opening], text[closing + 1 :]
        alternatives = parts if len(parts) > 1 else _sequence(parts[0])
        if alternatives is not None:
            return [head + part + tail for part in alternatives]
        start = opening + 1
    return None


def _sequence(body: str) -> list[str] | None:
    """`a..b[..step]` of integers or of single letters (up to MAX_FORMS + 1 of them)."""
    match = re.fullmatch(r"(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?", body)
    if match is None:
        return None
    first, last, step = match.group(1), match.group(2), abs(int(match.group(3) or 1)) or 1
    if first.isalpha() != last.isalpha():
        return None
    a, b = (ord(first), ord(last)) if first.isalpha() else (int(first), int(last))
    numbers = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
    picked = list(itertools.islice(numbers, MAX_FORMS + 1))
    return [chr(n) if first.isalpha() else str(n) for n in picked]


def moved(dirs: list[str] | None, cd: Cd, values: Values, workspace: Workspace) -> list[str] | None:
    """The directories the shell may be in after a `cd` (it may fail: where it was, too)."""
    if dirs is None or cd.args is None:
        return None
    args = list(cd.args)
    while args and args[0].known and args[0].value.startswith("-") and args[0].value != "-":
        if args.pop(0).value == "--":
            break
    if args and not args[0].known and args[0].value.startswith("-"):
        return None
    if not args:
        targets = [os.environ.get("HOME") or os.path.expanduser("~")]
    elif args[0].known and args[0].value == "-":
        targets = [os.environ.get("OLDPWD", "")]
    else:
        shapes = forms(args[0], values, workspace)
        if shapes is None:
            return None
        targets = [f for f, _ in shapes]  # a pattern: judged where it is, not followed
    moved = [_above(os.path.join(d, t), workspace.cwd) for d in dirs for t in targets if t]
    merged = list(dict.fromkeys(dirs + moved))
    return merged if len(merged) <= MAX_DIRS else None


def _above(path: str, cwd: str) -> str:
    """`path` normalised as `cd` reads it (`..` taken off the name, not by following links); a
    relative path that climbs past `/` stops there, as `cd ..` at `/` does, so a loop climbing
    by `cd ..` reaches a fixed point (every folder above the cwd) rather than growing forever."""
    path = os.path.normpath(path)
    if path.startswith("..") and os.path.isabs(cwd):
        return os.path.relpath(os.path.normpath(os.path.join(cwd, path)), cwd)
    return path


def find_starts(rest: list[str | None]) -> list[str] | None:
    """The start points of `find`'s arguments `rest` (`.` when none is given), after its
    options (-H, -L, -P, -D x, -Ox); None when one is known only when the line runs."""
    i = 0
    while i < len(rest) and (rest[i] in ("-H", "-L", "-P", "-D") or (rest[i] or "")[:2] == "-O"):
        i += 2 if rest[i] == "-D" else 1
    starts: list[str] = []
    while (
        i < len(rest)
        and (word := rest[i]) is not None
        and word[:1] not in ("-", "(", "!", ")", ",")
    ):
        starts.append(word)
        i += 1
    if i < len(rest) and rest[i] is None:
        return None
    return starts or ["."]
