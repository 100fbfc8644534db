"""git's configuration read as data, in Python: the files git reads for a repository and the
format git-config(1) defines, includes followed. Nothing here runs git (tools/git_guard.py
reads a repository's configuration to find where git runs programs from; checkpoints/scan.py
says why git is never run).

Rules (git's own reader, config.c, as of 2.39):
- A file is read as bytes (UTF-8 with any other byte kept, `surrogateescape`); a UTF-8 BOM
  at its start is skipped, part of one is an error. `\\r\\n` is `\\n`; the end of the file ends
  the last line.
- A line is blank, a comment (`#` or `;` to its end), a section header, or a key. Blanks are
  space, tab, CR and LF only. `[name]` holds letters, digits, `-` and `.` (lowercased: the old
  `[a.B]` spelling is `a.b`); `[name "sub"]` (blanks between) holds a subsection kept as
  written, `\\x` being `x`, no newline; `]` must follow its closing quote. More may follow a
  header on its line.
- A key starts with a letter and holds letters, digits and `-` (lowercased); blanks, then `=`
  and a value, or the end of the line (no value: git's implicit true, None here). A key
  before any header has no section (git lists it so).
- A value: blanks around it dropped, each blank inside it outside quotes kept as one space;
  `"` opens and closes a quoted part (blanks and `#`/`;` kept); `#` or `;` outside quotes
  starts a comment; `\\` escapes `\\`, `"`, `n`, `t`, `b`, and a newline (the value goes on on
  the next line); any other escape, or a newline inside quotes, is an error.
- An error anywhere makes the whole file Unreadable (git stops with `bad config line`).
- `include.path` and `includeIf.<condition>.path` name another file, read where the key
  stands: `~/` (HOME) and `~user/` expanded, `%(prefix)/` git's installation's; relative to
  the directory of the file the key is in (as git names that file: no link resolved). A
  missing file is skipped (git does so); one that cannot be read, a key without a value, or
  more than MAX_DEPTH includes deep is Unreadable (git stops there too).
- `read(conditions=None)` follows every includeIf whatever its condition (what may be read
  once a branch or a directory changes); `Conditions` decides them as git does now: `gitdir:`
  and `gitdir/i:` (wildmatch on the git directory, `./` the including file's directory, a
  pattern not absolute prefixed by `**/`, one ending in `/` suffixed by `**`), `onbranch:`
  (HEAD read as data); `hasconfig:` is not decided (Unreadable), any other condition is false.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from reasonix_acp.checkpoints.gitignore import _translate

MAX_BYTES = 4 * 1024 * 1024  # a larger configuration file is not read (Unreadable)
MAX_DEPTH = 10  # git's MAX_INCLUDE_DEPTH
_BLANK = " \t\r\n"
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_KEYCHARS = _LETTERS | frozenset("0123456789-")
_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "\\": "\\", '"': '"'}
_BOM = b"\xef\xbb\xbf"
Signature = tuple[int, int, int, int, int] | None  # a file's stat, None: missing


class Unreadable(ValueError):
    """A configuration git would refuse, or this reader cannot follow: the message says where."""


class Entry(NamedTuple):
    """One key as `git config --list --show-origin` shows it."""

    origin: str  # the file it is in, as git names it
    key: str  # section and name lowercased, the subsection as written
    value: str | None  # None: no `=` (git's implicit true)


class _Source:
    """A file's characters as git's get_next_char gives them: CRLF as LF, the end as LF."""

    def __init__(self, text: str, origin: str) -> None:
        self.text, self.origin, self.at, self.eof, self.line = text, origin, 0, False, 1

    def next(self) -> str:
        if self.at >= len(self.text):
            self.eof = True
            return "\n"
        c = self.text[self.at]
        self.at += 1
        if c == "\r" and self.text.startswith("\n", self.at):
            self.at += 1
            c = "\n"
        self.line += c == "\n"
        return c

    def bad(self) -> Unreadable:
        return Unreadable(f"bad config line {self.line} in file {self.origin}")


def parse(data: bytes, origin: str) -> list[Entry]:
    """The keys of a configuration file, in order; Unreadable where git stops."""
    text = data.decode("utf-8", "surrogateescape")
    if data.startswith(_BOM):
        text = text[1:]
    elif data.startswith(b"\xef"):  # part of a BOM
        raise Unreadable(f"bad config line 1 in file {origin}")
    source, base, comment = _Source(text, origin), "", False
    out: list[Entry] = []
    while True:
        c = source.next()
        if c == "\n":
            if source.eof:
                return out
            comment = False
        elif comment or c in _BLANK:
            continue
        elif c in "#;":
            comment = True
        elif c == "[":
            base = _header(source) + "."
        elif c in _LETTERS:
            out.append(_key(source, base + c.lower()))
        else:
            raise source.bad()


def _header(source: _Source) -> str:
    """`[name]` or `[name "sub"]`, read after its `[`: the section as keys are prefixed."""
    name = ""
    while True:
        c = source.next()
        if source.eof:
            raise source.bad()
        if c == "]":
            if not name:
                raise source.bad()
            return name
        if c in _BLANK:
            return name + "." + _subsection(source, c)
        if c not in _KEYCHARS and c != ".":
            raise source.bad()
        name += c.lower()


def _subsection(source: _Source, c: str) -> str:
    while c in _BLANK:
        if c == "\n":
            raise source.bad()
        c = source.next()
    if c != '"':
        raise source.bad()
    sub = ""
    while True:
        c = source.next()
        if c == "\n":
            raise source.bad()
        if c == '"':
            break
        if c == "\\":
            c = source.next()
            if c == "\n":
                raise source.bad()
        sub += c
    if source.next() != "]":
        raise source.bad()
    return sub


def _key(source: _Source, name: str) -> Entry:
    c = source.next()
    while not source.eof and c in _KEYCHARS:
        name += c.lower()
        c = source.next()
    while c in " \t":
        c = source.next()
    if c == "\n":
        return Entry(source.origin, name, None)
    if c != "=":
        raise source.bad()
    return Entry(source.origin, name, _value(source))


def _value(source: _Source) -> str:
    value: list[str] = []
    quote = comment = False
    space = 0
    while True:
        c = source.next()
        if c == "\n":
            if quote:
                raise source.bad()
            return "".join(value)
        if comment:
            continue
        if c in _BLANK and not quote:
            space += bool(value)
            continue
        if not quote and c in "#;":
            comment = True
            continue
        value += " " * space
        space = 0
        if c == "\\":
            c = source.next()
            if c == "\n":  # the value goes on on the next line
                continue
            if c not in _ESCAPES:
                raise source.bad()
            value.append(_ESCAPES[c])
        elif c == '"':
            quote = not quote
        else:
            value.append(c)


def signature(path: str) -> Signature:
    """What tells a file changed (None: missing, as a missing include is)."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError) as exc:
        raise Unreadable(f"{path}: {exc}") from None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


@dataclass
class Reading:
    """What reading configuration files gave: their keys in git's order, every file looked at
    (with its signature: a cache keyed on them is valid while they are), and the includes met:
    (the include's key, the file it names, the file the key is in)."""

    entries: list[Entry] = field(default_factory=list)
    files: dict[str, Signature] = field(default_factory=dict)
    included: list[tuple[str, str, str]] = field(default_factory=list)


Decide = Callable[[str, Entry], bool]  # (an includeIf condition, its key) → whether it holds


def read(path: str, conditions: Decide | None = None, into: Reading | None = None) -> Reading:
    """The keys of the file at `path` with its includes' in place (a missing file has none);
    `conditions` None: every includeIf followed."""
    reading = Reading() if into is None else into
    _read(path, conditions, reading, 0)
    return reading


def _read(path: str, conditions: Decide | None, reading: Reading, depth: int) -> None:
    reading.files[path] = signature(path)
    if reading.files[path] is None:
        return
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise Unreadable(f"{path}: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise Unreadable(f"{path}: larger than {MAX_BYTES} bytes")
    for entry in parse(data, path):
        reading.entries.append(entry)
        target = _include(entry, conditions)
        if target is None:
            continue
        if depth + 1 > MAX_DEPTH:
            raise Unreadable(f"{path}: includes more than {MAX_DEPTH} deep")
        reading.included.append((entry.key, target, path))
        _read(target, conditions, reading, depth + 1)


def _include(entry: Entry, conditions: Decide | None) -> str | None:
    """The file an include key names (joined as git joins it), or None for any other key."""
    key = entry.key
    if key != "include.path":
        if not (key.startswith("includeif.") and key.endswith(".path")) or key.count(".") < 2:
            return None
        condition = key[len("includeif.") : -len(".path")]
        if conditions is not None and not conditions(condition, entry):
            return None
    if entry.value is None:
        raise Unreadable(f"{entry.origin}: {key} has no value")
    path = interpolate(entry.value)
    if not os.path.isabs(path):
        path = os.path.join(os.path.dirname(entry.origin), path)
    return path


def interpolate(path: str, real_home: bool = False) -> str:
    """`~/`, `~user/` and `%(prefix)/` expanded as git's interpolate_path does (`real_home`:
    HOME with its links resolved, as in an includeIf condition)."""
    if path.startswith("%(prefix)/"):
        return os.path.join(git_prefix(), path[len("%(prefix)/") :])
    if not path.startswith("~"):
        return path
    user, slash, rest = path[1:].partition("/")
    if not user:
        home = os.environ.get("HOME")
        if not home:
            raise Unreadable(f"cannot expand {path}: HOME is not set")
        home = os.path.realpath(home) if real_home else home
        return os.path.join(home, rest) if slash else home
    try:
        home = pwd.getpwnam(user).pw_dir
    except KeyError:
        raise Unreadable(f"cannot expand {path}: no user {user}") from None
    return os.path.join(home, rest) if slash else home


def git_prefix() -> str:
    """The prefix git is installed under (`<prefix>/bin/git`), found on PATH; `/usr` else."""
    found = shutil.which("git")
    return os.path.dirname(os.path.dirname(os.path.realpath(found))) if found else "/usr"


def scopes(gitdir: str, commondir: str) -> list[str]:
    """The files git reads for a repository, in its order: the system's, the user's (XDG,
    then ~/.gitconfig; GIT_CONFIG_GLOBAL instead when set), the repository's, its worktree's
    (`config.worktree`, read here whether `extensions.worktreeConfig` is set or not)."""
    env = os.environ
    files: list[str] = []
    if not env.get("GIT_CONFIG_NOSYSTEM"):
        system = env.get("GIT_CONFIG_SYSTEM")
        prefixed = os.path.join(git_prefix(), "etc", "gitconfig")
        files += [system] if system else list(dict.fromkeys(["/etc/gitconfig", prefixed]))
    if env.get("GIT_CONFIG_GLOBAL"):
        files.append(env["GIT_CONFIG_GLOBAL"])
    else:
        home = env.get("HOME") or os.path.expanduser("~")
        xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        files += [os.path.join(xdg, "git", "config"), os.path.join(home, ".gitconfig")]
    return [*files, os.path.join(commondir, "config"), os.path.join(gitdir, "config.worktree")]


@dataclass(frozen=True)
class Conditions:
    """includeIf conditions decided as git decides them now, for the git directory `gitdir`
    (as git names it) and its HEAD."""

    gitdir: str

    def __call__(self, condition: str, entry: Entry) -> bool:
        for prefix, icase in (("gitdir:", False), ("gitdir/i:", True)):
            if condition.startswith(prefix):
                return self._gitdir(condition[len(prefix) :], entry.origin, icase)
        if condition.startswith("onbranch:"):
            branch = _branch(self.gitdir)
            pattern = condition[len("onbranch:") :]
            pattern += "**" if pattern.endswith("/") else ""
            return branch is not None and _wildmatch(pattern, branch, False)
        if condition.startswith("hasconfig:"):
            raise Unreadable(f"{entry.origin}: {condition} is not decided here")
        return False

    def _gitdir(self, pattern: str, origin: str, icase: bool) -> bool:
        pattern, prefix = interpolate(pattern, real_home=True), 0
        if pattern.startswith("./"):
            directory = os.path.dirname(os.path.realpath(origin))
            pattern, prefix = directory + pattern[1:], len(directory) + 1
        elif not os.path.isabs(pattern):
            pattern = "**/" + pattern
        pattern += "**" if pattern.endswith("/") else ""
        for text in (os.path.realpath(self.gitdir), os.path.join(os.getcwd(), self.gitdir)):
            head, tail = pattern[:prefix], text[:prefix]
            same = head.casefold() == tail.casefold() if icase else head == tail
            if len(text) >= prefix and same and _wildmatch(pattern[prefix:], text[prefix:], icase):
                return True
        return False


def _wildmatch(pattern: str, text: str, icase: bool) -> bool:
    """git's wildmatch with WM_PATHNAME (`*` stops at `/`, `**/` any directories)."""
    try:
        regex = re.compile(_translate(pattern), re.DOTALL | (re.IGNORECASE if icase else 0))
    except (re.error, ValueError):
        return False
    return regex.fullmatch(text) is not None


def _branch(gitdir: str) -> str | None:
    """The branch HEAD names (`ref: refs/heads/<branch>`), or None (detached, unreadable)."""
    try:
        with open(os.path.join(gitdir, "HEAD"), "rb") as fh:
            head = fh.read(4096).decode("utf-8", "surrogateescape").strip()
    except OSError:
        return None
    return head[len("ref: refs/heads/") :] if head.startswith("ref: refs/heads/") else None
