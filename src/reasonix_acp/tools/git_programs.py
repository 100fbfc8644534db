"""The keys of git's configuration whose value is a program git runs, and the files such a value
names (tools/git_designated.py protects them: a program the model wrote there would run the
next time the user runs git).

Rules:
- PROGRAMS names every key git-config(1) documents as a command git runs, by section and name
  (any subsection: `diff.<driver>.textconv`, `credential.<url>.helper`); PATHS the keys whose
  value is one program's path, run without a shell (`gpg.program`, `difftool.<tool>.path`).
- A value is read as the line git gives the shell: an alias or a submodule's `update` only
  with its leading `!` (taken off; without it, it runs git itself or nothing); a credential
  helper without `!` is `git credential-<value>`; `core.fsmonitor` and `pager.<cmd>` set to a
  boolean run no program.
- Every word of the line (command_proof/command_line.py's reading: nested `sh -c` strings,
  function bodies and substitutions included, an assignment's value) and each part of it
  after an `=` is a file it may name: `words` gives them as written after quote removal, `~`
  expanded, each with its kind: COMMAND (a command's name: a word without `/` is looked for on
  PATH), DIRECTORY (where a `cd` or `pushd` goes: what the line runs from there, as `cd tools
  && ./lint`, is below it), or ARGUMENT. The caller resolves them from where git runs the
  line. A word git's own arguments fill (`$1`, `"$@"`, `$*`, `$#`) is the user's words, not a
  file the configuration names.
- Any other word known only when it runs (a variable, a substitution's output), or a line the
  grammar cannot read, cannot be judged: `words` is None (the caller fails closed).
"""

from __future__ import annotations

import functools
import os
import re

PROGRAMS = frozenset(
    {
        ("core", "fsmonitor"), ("core", "gitproxy"), ("core", "sshcommand"),
        ("core", "alternaterefscommand"), ("core", "editor"), ("core", "pager"),
        ("sequence", "editor"), ("credential", "helper"), ("diff", "external"),
        ("diff", "command"), ("diff", "textconv"), ("difftool", "cmd"), ("mergetool", "cmd"),
        ("merge", "driver"), ("filter", "clean"), ("filter", "smudge"), ("filter", "process"),
        ("gpg", "defaultkeycommand"), ("imap", "tunnel"), ("interactive", "difffilter"),
        ("browser", "cmd"), ("man", "cmd"), ("guitool", "cmd"), ("instaweb", "httpd"),
        ("remote", "receivepack"), ("remote", "uploadpack"), ("sendemail", "smtpserver"),
        ("sendemail", "sendmailcmd"), ("sendemail", "tocmd"), ("sendemail", "cccmd"),
        ("sendemail", "headercmd"), ("submodule", "update"), ("uploadpack", "packobjectshook"),
    }
)  # fmt: skip
PATHS = frozenset(
    {
        ("core", "askpass"), ("gpg", "program"), ("difftool", "path"), ("mergetool", "path"),
        ("browser", "path"), ("man", "path"),
    }
)  # fmt: skip
WHOLE_SECTIONS = frozenset({"alias", "pager"})  # every key of theirs: `alias.<name>`
_BOOLEANS = frozenset({"true", "false", "yes", "no", "on", "off", "1", "0", ""})
_ARGUMENTS = re.compile(r"\$(?:[0-9@*#]|\{[0-9@*#]\})")
MARK = "__git_arguments__"  # what a word git's arguments fill is read as
COMMAND, DIRECTORY, ARGUMENT = "command", "directory", "argument"


def program(key: str, value: str | None) -> tuple[str, bool] | None:
    """(the text git runs, whether a shell reads it) when `key` names a program and `value` is
    one; None for any other key or value."""
    if value is None:
        return None
    section, _, rest = key.partition(".")
    name = rest.rpartition(".")[2]
    if section in WHOLE_SECTIONS and rest:
        if section == "alias":
            return (value[1:], True) if value.startswith("!") else None
        return None if value.strip().lower() in _BOOLEANS else (value, True)
    if (section, name) in PATHS:
        return value, False
    if (section, name) not in PROGRAMS:
        return None
    if (section, name) == ("core", "fsmonitor") and value.strip().lower() in _BOOLEANS:
        return None
    if section == "submodule":
        return (value[1:], True) if value.startswith("!") else None
    if section == "credential" and value:
        if value.startswith("!"):
            return value[1:], True
        return (value if os.path.isabs(value) else f"git credential-{value}"), True
    return value, True


def words(text: str, shell: bool) -> list[tuple[str, str]] | None:
    """The files the line may name, each with its kind (see the module's rules), or None when
    it cannot be read."""
    if not shell:
        return [(os.path.expanduser(text), COMMAND)] if text else []
    found = _words(_arguments_marked(text))
    if found is None:
        return None
    out: list[tuple[str, str]] = []
    for word, kind in found:
        if MARK in word:
            if word != MARK:  # a file picked by the user's words: not known here
                return None
            continue
        out.append((os.path.expanduser(word), kind))
        out += [(os.path.expanduser(p), ARGUMENT) for p in word.split("=")[1:] if p]
    return list(dict.fromkeys(out))


@functools.lru_cache(maxsize=256)
def _words(text: str) -> tuple[tuple[str, str], ...] | None:
    # lazy: start-up (the shell grammar loads with the first line judged)
    from reasonix_acp.command_proof.command_line import literal, parse, parser

    line = parse(text)
    if line.problems:
        return None
    found: list[tuple[str | None, str]] = [(w, ARGUMENT) for w in (*line.writes, *line.reads)]
    for command in line.commands:
        name, rest = command.argv[0], command.argv[1:]
        moves = os.path.basename(name or "") in ("cd", "pushd")
        found += [(name, COMMAND), *((w, DIRECTORY if moves else ARGUMENT) for w in rest)]
    pending = [parser().parse(text.encode("utf-8", "surrogateescape")).root_node]
    while pending:  # an assignment's value (`PAGER=./p git log`) names a program too
        node = pending.pop()
        pending += node.named_children
        value = node.child_by_field_name("value") if node.type == "variable_assignment" else None
        if value is not None:
            found.append((literal(value), ARGUMENT))
    if any(w is None for w, _ in found):
        return None
    return tuple(dict.fromkeys((w, kind) for w, kind in found if w is not None))


def _arguments_marked(text: str) -> str:
    """The line with each expansion of git's arguments outside single quotes as MARK."""
    out, quote, i = [], "", 0
    while i < len(text):
        c = text[i]
        if quote != "'" and c == "\\" and i + 1 < len(text):
            out.append(text[i : i + 2])
            i += 2
            continue
        if c == "'" and quote != '"':
            quote = "" if quote == "'" else "'"
        elif c == '"' and quote != "'":
            quote = "" if quote == '"' else '"'
        elif c == "$" and quote != "'" and (match := _ARGUMENTS.match(text, i)):
            out.append(MARK)
            i = match.end()
            continue
        out.append(c)
        i += 1
    return "".join(out)
