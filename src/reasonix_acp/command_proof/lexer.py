"""The provable language's tokens (command_proof/proof.py): a line read character by character, as
bash reads it, into words, redirections and operators; anything the language leaves out is
Unprovable here, with where it is.

    operator  := ';' | '&&' | '||' | '|' | newline | '(' | ')' | ';;'
    redirect  := [digits] ('>' | '>>' | '>|' | '<' | '&>' | '&>>') word
               | [digits] ('>&' | '<&') digits
               | [digits] ('<<' | '<<-') word   (a heredoc: quoted, or with no `$` `\\` backquote)
               | [digits] '<<<' word
    word      := (plain | '\\' char | '...' | "..." | '$' NAME | '${' NAME '}' | '$?')+

plus comments (`#` starting a word) and `\\`-newline continuations. A plain character is anything
but blanks and `;&|<>()$\\`'"`; an unquoted `*?[`, or a `{` with a `,` or `..`, makes a word a
pattern (its value is known only when it runs), and a `~` is read only as the whole first part
of a word (`~`, `~/x`: the home directory); `!(` (an extended glob) is outside.

Invariants:
- A heredoc's body is read whole at the newline that ends its line; a line that ends before it,
  or a newline inside quotes or a continuation while one is pending, is Unprovable (bash's
  reading of those is not this one's).
- A word's `value` is its text after quote removal; it is the word's value when it runs only when
  `known` (no pattern, no variable, no `~` after the start).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

_BLANK = " \t"
_METACHAR = set(" \t\n;&|<>()")
_UNPROVABLE = {
    "$": "an expansion (`$`)",
    "`": "a command substitution",
    "!": "an extended glob `!(`",
}
_PATTERN = set("*?[{")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")


class Unprovable(Exception):
    """The line is outside the provable language; the message says what and where."""


@dataclass
class Word:
    """One word as bash reads it: its value after quote removal, and what makes it known only
    when it runs."""

    value: str = ""
    raw: str = ""  # as written
    pattern: bool = False  # an unquoted `*?[`, a brace expansion, or `~` after the start
    quoted: bool = False  # some part was quoted
    tilde: bool = False  # a `~` after the start (`a=~/x` expands in an assignment)
    variables: list[str] = field(default_factory=list)  # the names it reads
    split: bool = False  # an unquoted variable: it may become several words, or none

    @property
    def known(self) -> bool:
        return not self.pattern and not self.variables

    @property
    def assignment(self) -> tuple[str, str] | None:
        """(name, value as written after quote removal) for `NAME=value`, else None."""
        match = _ASSIGNMENT.match(self.raw)
        if match is None:
            return None
        return match.group(1), self.value[len(match.group(0)) :]

    def reserved(self, *words: str) -> bool:
        """An unquoted word that is one of `words` (a reserved word where bash reads one)."""
        return not self.quoted and not self.variables and self.raw in words


@dataclass
class Redirect:
    """A redirection: the descriptor, the operator and the target word (or the heredoc's
    delimiter, or the here-string)."""

    fd: str
    op: str
    target: Word | None  # None: a descriptor copy (`2>&1`)

    @property
    def opens_file(self) -> bool:
        return self.target is not None and self.op not in ("<<", "<<-", "<<<")


@dataclass(frozen=True)
class Op:
    """An operator: `;` `&&` `||` `|` newline `(` `)` `;;`."""

    text: str


Token = Word | Redirect | Op


@dataclass
class Lexer:
    """Reads a line character by character into tokens."""

    text: str
    i: int = 0
    pending: list[Redirect] = field(default_factory=list)  # heredocs whose body comes next

    def tokens(self) -> list[Token]:
        out: list[Token] = []
        text = self.text
        while True:
            self._blanks()
            if self.i >= len(text):
                break
            c = text[self.i]
            if c in "<>" or text.startswith("&>", self.i) or (c.isdigit() and self._fd_ahead()):
                out.append(self._redirect())
            elif c in ";&|\n()":
                out.append(self._operator())
            else:
                out.append(self._word())
        if self.pending:
            raise Unprovable("a heredoc whose body the line does not hold")
        return out

    def _blanks(self) -> None:
        text = self.text
        while self.i < len(text):
            if text[self.i] in _BLANK:
                self.i += 1
            elif text.startswith("\\\n", self.i):
                self._no_pending_newline()
                self.i += 2
            elif text[self.i] == "#":  # a comment, to the end of the line
                while self.i < len(text) and text[self.i] != "\n":
                    self.i += 1
            else:
                return

    def _no_pending_newline(self) -> None:
        if self.pending:
            raise Unprovable("a newline inside a word or continuation before a heredoc's body")

    def _operator(self) -> Op:
        text, i = self.text, self.i
        two = text[i : i + 2]
        if two in ("&&", "||"):
            self.i += 2
            return Op(two)
        if text.startswith((";;&", ";&", "|&"), i):
            raise Unprovable(f"`{two}` at offset {i}")
        if two == ";;":
            self.i += 2
            return Op(two)
        if text[i] == "&":
            raise Unprovable("a command sent to the background (`&`)")
        if two == "((":
            raise Unprovable(f"an arithmetic command `((` at offset {i}")
        self.i += 1
        if text[i] == "\n":
            self._bodies()
        return Op(text[i])

    def _bodies(self) -> None:
        """The pending heredocs' bodies, line by line after the newline just read."""
        for heredoc in self.pending:
            assert heredoc.target is not None
            delimiter = heredoc.target.value
            lines = []
            while True:
                if self.i >= len(self.text):
                    raise Unprovable(f"a heredoc with no `{delimiter}` line to end it")
                end = self.text.find("\n", self.i)
                end = len(self.text) if end < 0 else end
                line = self.text[self.i : end]
                self.i = min(end + 1, len(self.text))
                if heredoc.op == "<<-":
                    line = line.lstrip("\t")
                if line == delimiter:
                    break
                lines.append(line)
            body = "\n".join(lines)
            if not heredoc.target.quoted and any(c in body for c in "$`\\"):
                raise Unprovable("a heredoc with expansions (quote its delimiter: <<'EOF')")
        self.pending = []

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
        for op in ("&>>", "&>", "<<<", "<<-", "<<", ">>", ">|", ">&", "<&", ">", "<"):
            if text.startswith(op, self.i):
                break
        else:
            raise Unprovable(f"a redirection at offset {start}")
        if op.startswith("&") and fd:
            raise Unprovable(f"a redirection at offset {start}")
        self.i += len(op)
        if text.startswith(("<", ">", "(", "&", "|", "-"), self.i) and not op.startswith("<<"):
            raise Unprovable(f"a redirection `{text[start : self.i + 1]}` outside the language")
        if op in (">&", "<&"):
            return self._copy(start, fd, op)
        self._blanks()
        if self.i >= len(text) or text[self.i] in _METACHAR:
            raise Unprovable(f"a redirection without a target at offset {start}")
        redirect = Redirect(fd, op, self._word())
        if op in ("<<", "<<-"):
            assert redirect.target is not None
            if not redirect.target.known:
                raise Unprovable("a heredoc delimiter with an expansion")
            self.pending.append(redirect)
        return redirect

    def _copy(self, start: int, fd: str, op: str) -> Redirect:
        text = self.text
        j = self.i
        while j < len(text) and text[j].isdigit():
            j += 1
        if j == self.i or (j < len(text) and text[j] not in _METACHAR):
            raise Unprovable(f"a redirection `{text[start : j + 1].strip()}` outside the language")
        self.i = j
        return Redirect(fd, op, None)

    def _word(self) -> Word:
        text = self.text
        word = Word()
        start = self.i
        parts: list[str] = []
        globbed = False  # an unquoted `*?[`
        while self.i < len(text):
            c = text[self.i]
            if c in _METACHAR:
                if c in "<>" and text[start] == "{":
                    raise Unprovable("a redirection to a named descriptor `{name}>`")
                break
            if c == "$":
                parts.append(self._variable(word))
                word.split = True
            elif c == "`" or text.startswith("!(", self.i):
                raise Unprovable(f"{_UNPROVABLE[c]} at offset {self.i}")
            elif c == "\\":
                if self.i + 1 >= len(text):
                    raise Unprovable("a `\\` at the end of the line")
                if text[self.i + 1] != "\n":
                    parts.append(text[self.i + 1])
                    word.quoted = True
                else:
                    self._no_pending_newline()
                self.i += 2
            elif c == "'":
                end = text.find("'", self.i + 1)
                if end < 0:
                    raise Unprovable(f"an unclosed `'` at offset {self.i}")
                parts.append(text[self.i + 1 : end])
                if "\n" in parts[-1]:
                    self._no_pending_newline()
                word.quoted = True
                self.i = end + 1
            elif c == '"':
                parts.append(self._double(word))
                word.quoted = True
            elif c == "~":
                parts.append(self._tilde(word, start))
            else:
                if c in _PATTERN:
                    word.pattern = True
                    globbed = globbed or c != "{"
                parts.append(c)
                self.i += 1
        word.value = "".join(parts)
        word.raw = text[start : self.i]
        if word.pattern and not globbed and not word.tilde:  # braces only: `{}` is a plain word
            word.pattern = "," in word.raw or ".." in word.raw  # `{a,b}` and `{1..3}` expand
        return word

    def _tilde(self, word: Word, start: int) -> str:
        text = self.text
        at_start = self.i == start
        following = text[self.i + 1] if self.i + 1 < len(text) else " "
        self.i += 1
        if at_start and (following == "/" or following in _METACHAR):
            return os.path.expanduser("~")
        if at_start:
            raise Unprovable(f"a tilde expansion `~{following}` at offset {self.i - 1}")
        word.pattern = word.tilde = True  # `a=~/x`: bash expands it in some words
        return "~"

    def _variable(self, word: Word) -> str:
        """`$NAME`, `${NAME}` or `$?`: a read of a variable, its value known when it runs."""
        text = self.text
        at = self.i
        braced = text.startswith("${", at)
        match = _NAME.match(text, at + 2 if braced else at + 1)
        if match is not None and (not braced or text.startswith("}", match.end())):
            word.variables.append(match.group(0))
            self.i = match.end() + (1 if braced else 0)
        elif text.startswith("$?", at):
            word.variables.append("?")
            self.i = at + 2
        else:
            raise Unprovable(f"{_UNPROVABLE['$']} at offset {at}")
        return ""

    def _double(self, word: Word) -> str:
        text = self.text
        parts: list[str] = []
        self.i += 1
        while self.i < len(text):
            c = text[self.i]
            if c == '"':
                self.i += 1
                return "".join(parts)
            if c == "$":
                split = word.split
                parts.append(self._variable(word))
                word.split = split  # quoted: one word whatever it holds
                continue
            if c == "`":
                raise Unprovable(f"{_UNPROVABLE[c]} inside double quotes at offset {self.i}")
            if c == "\\" and self.i + 1 < len(text):
                following = text[self.i + 1]
                if following in '$`"\\':
                    parts.append(following)
                elif following != "\n":
                    parts.append(c + following)
                else:
                    self._no_pending_newline()
                self.i += 2
                continue
            if c == "\n":
                self._no_pending_newline()
            parts.append(c)
            self.i += 1
        raise Unprovable('an unclosed `"`')
