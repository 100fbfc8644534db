"""git's ignore rules, read in Python (checkpoints/scan.py lists what git would list without
running git): the patterns of `.gitignore` files, `.git/info/exclude` and the user's global
excludes file, as gitignore(5) defines them.

Rules:
- A line is a pattern; blank lines and `#` comments are none; trailing blanks are dropped
  unless escaped (`\\ `); `\\#` and `\\!` start a pattern with that character; `!` negates.
- A trailing `/` matches directories only. A pattern with a `/` anywhere else is anchored to
  the directory of the file it is in (a leading `/` only anchors); one without matches a name
  at any depth below that directory.
- `*` and `?` never match `/`, `[...]` is a class (`!` or `^` negates it); `**/` at the start,
  `/**` at the end and `/**/` inside match any number of directories; `\\x` is `x`.
- The last pattern that matches a path decides (`Rules.ignored`): a deeper directory's file
  after a shallower one's, every `.gitignore` after `info/exclude`, after the global file. A
  directory that is ignored is not entered, so nothing below it comes back (git's rule too).
- A file that cannot be read, or a line that cannot be translated, adds no pattern: ignoring
  less lists more files, never fewer.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

MAX_BYTES = 1024 * 1024  # a larger ignore file is read up to here


@dataclass(frozen=True)
class Pattern:
    """One pattern: its regular expression (on the path relative to the file's directory,
    `base`, which ends in `/` or is empty), whether it negates, whether only directories."""

    base: str
    regex: re.Pattern[str]
    negate: bool
    directories: bool


@dataclass(frozen=True)
class Rules:
    """The patterns in force in a directory, lowest precedence first. Without a negation the
    last match is any match: the patterns are then one expression each for files and for
    directories (`_files`, `_dirs`), each pattern's base a literal prefix of its own."""

    patterns: tuple[Pattern, ...] = ()
    _files: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)
    _dirs: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.patterns and not any(p.negate for p in self.patterns):
            files = [p for p in self.patterns if not p.directories]
            object.__setattr__(self, "_files", _joined(files))
            object.__setattr__(self, "_dirs", _joined(list(self.patterns)))

    def ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether `rel` (relative to the work tree, `/`-separated) is ignored."""
        if not self.patterns:
            return False
        joined = self._dirs if is_dir else self._files
        if joined is not None:
            return joined.fullmatch(rel) is not None
        for pattern in reversed(self.patterns):
            if pattern.directories and not is_dir:
                continue
            if not rel.startswith(pattern.base):
                continue
            if pattern.regex.fullmatch(rel[len(pattern.base) :]):
                return not pattern.negate
        return False

    def with_file(self, path: str, base: str) -> Rules:
        """These rules and, after them, the patterns of the file at `path` (for `base`)."""
        added = read(path, base)
        return Rules(self.patterns + added) if added else self


def _joined(patterns: list[Pattern]) -> re.Pattern[str]:
    """One expression matching what any of `patterns` matches (none: nothing)."""
    parts = [f"{re.escape(p.base)}(?:{p.regex.pattern})" for p in patterns]
    return re.compile("|".join(f"(?:{part})" for part in parts) or "(?!)", re.DOTALL)


def read(path: str, base: str) -> tuple[Pattern, ...]:
    """The patterns of an ignore file (none when it is missing or unreadable)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES)
    except OSError:
        return ()
    text = data.decode("utf-8", "surrogateescape")
    return tuple(p for line in text.splitlines() if (p := parse(line, base)) is not None)


def parse(line: str, base: str) -> Pattern | None:
    """The pattern a line holds, or None (blank, comment, or not a pattern git could match)."""
    line = _trailing(line.removesuffix("\r"))
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    if negate or line.startswith(("\\#", "\\!")):
        line = line[1:]
    directories = line.endswith("/")
    line = line.rstrip("/") if directories else line
    if not line:
        return None
    anchored = "/" in line
    line = line.removeprefix("/")
    try:
        body = _translate(line)
        regex = re.compile(body if anchored else "(?:.*/)?" + body, re.DOTALL)
    except (re.error, ValueError):
        return None
    return Pattern(base, regex, negate, directories)


def _trailing(line: str) -> str:
    """Trailing blanks dropped, but one escaped by a backslash (kept, unescaped later)."""
    end = len(line)
    while end and line[end - 1] == " " and not (end > 1 and line[end - 2] == "\\"):
        end -= 1
    return line[:end]


def _translate(pattern: str) -> str:
    """A wildmatch pattern (with the path rule: `*` stops at `/`) as a regular expression."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**", i) and (i == 0 or pattern[i - 1] == "/"):
            after = pattern[i + 2 : i + 3]
            if after == "/":  # `**/`: any directories, none included
                out.append("(?:.*/)?")
                i += 3
                continue
            if after == "":  # a trailing `/**`: everything inside
                out.append(".*")
                i += 2
                continue
        if c == "*":
            while i < n and pattern[i] == "*":
                i += 1
            out.append("[^/]*")
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            cls, i = _class(pattern, i)
            out.append(cls)
            continue
        elif c == "\\":
            i += 1
            if i >= n:
                raise ValueError("a pattern ending in a backslash matches nothing")
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _class(pattern: str, i: int) -> tuple[str, int]:
    """`[...]` at `i` as a regular expression class, and the index after it."""
    j = i + 1
    negate = j < len(pattern) and pattern[j] in "!^"
    j += negate
    members: list[str] = []
    first = True
    while j < len(pattern) and (pattern[j] != "]" or first):
        c = pattern[j]
        if c == "\\" and j + 1 < len(pattern):
            j += 1
            c = pattern[j]
        if c == "[" and pattern.startswith("[:", j):
            end = pattern.find(":]", j + 2)
            if end < 0:
                raise ValueError("an unclosed character class name")
            members.append(_NAMED.get(pattern[j + 2 : end], ""))
            j = end + 2
            first = False
            continue
        members.append("-" if c == "-" and not first else re.escape(c))
        first = False
        j += 1
    if j >= len(pattern):
        raise ValueError("an unclosed `[` matches nothing")
    body = "".join(members)
    return ("[^/" + body + "]" if negate else "[" + body + "]"), j + 1


_NAMED = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "lower": "a-z",
    "upper": "A-Z",
    "space": " \\t\\n\\r\\f\\v",
    "xdigit": "0-9a-fA-F",
    "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "blank": " \\t",
}


def global_file(env: dict[str, str] | None = None) -> str:
    """The user's global excludes file where git looks for it when core.excludesFile is not
    set (that setting is configuration, not read here: a file it names elsewhere is not)."""
    env = dict(os.environ) if env is None else env
    base = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "git", "ignore")
