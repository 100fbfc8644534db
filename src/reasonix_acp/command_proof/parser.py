"""The provable language's grammar (command_proof/proof.py): tokens (command_proof/lexer.py) read into
the commands bash runs, by recursive descent. What it does not read is Unprovable.

    sequence  := newline* and_or ((';' | newline) newline* and_or)* [';' | newline]*
    and_or    := pipeline (('&&' | '||') newline* pipeline)*
    pipeline  := ('!' | 'time' ['-p'] ['--'])* command ('|' newline* command)*
    command   := simple | compound redirect*
    simple    := (word | redirect)+
    compound  := '(' sequence ')' | '{' sequence '}'
               | 'if' sequence 'then' sequence ('elif' sequence 'then' sequence)*
                 ['else' sequence] 'fi'
               | ('while' | 'until') sequence 'do' sequence 'done'
               | 'for' NAME [newline* 'in' word*] (';' | newline) newline* 'do' sequence 'done'
               | 'case' word newline* 'in' (newline* ['('] word ('|' word)* ')'
                 sequence [';;'])* newline* 'esac'

Compound commands nest at most MAX_NESTING deep (deeper is Unprovable, before any reader of
the line recurses that far). Reserved words are read where bash reads them: unquoted, where a command starts (and `in`, `do`
after `for`, `esac` where a pattern starts). Others at a command's start (`select`,
`function`, `coproc`, `[[`) are Unprovable. After `time`, bash takes an unquoted `-p` right
after it, then an unquoted `--` right after either, as its own; any other word (a second `-p`,
`-x`, a quoted `--`) is the command's name, and a name that starts with `-` is Unprovable
(command_proof/simple_commands.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reasonix_acp.command_proof.lexer import Lexer, Op, Redirect, Token, Unprovable, Word

_OPENS = ("if", "while", "until", "for", "case", "{")
_CLOSES = ("then", "elif", "else", "fi", "do", "done", "esac", "}", "in")
_OUTSIDE = ("select", "function", "coproc", "[[", "]]")
MAX_NESTING = 100  # compound commands inside each other: the readers recurse as deep


@dataclass
class Command:
    """A simple command: its words (assignments first) and redirections."""

    words: list[Word]
    redirects: list[Redirect]


@dataclass
class Pipeline:
    """Commands joined by `|`: each runs in a subshell, all at once."""

    commands: list[Node]


@dataclass
class AndOr:
    """Pipelines joined by `&&` and `||`."""

    first: Pipeline
    rest: list[tuple[str, Pipeline]] = field(default_factory=list)


Sequence = list[AndOr]


@dataclass
class Group:
    """`( … )` (a subshell: what it sets is gone after it) or `{ …; }`."""

    body: Sequence
    subshell: bool
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class If:
    """`if`/`elif` branches (condition, body) and the `else` body, if any."""

    branches: list[tuple[Sequence, Sequence]]  # (condition, body)
    otherwise: Sequence | None
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Loop:
    """`while`/`until`: the condition runs at least once, the body maybe never."""

    condition: Sequence
    body: Sequence
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class For:
    """`for NAME in WORDS; do BODY; done`."""

    name: str
    words: list[Word]
    body: Sequence
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Case:
    """`case SUBJECT in PATTERNS) BODY;; … esac`."""

    subject: Word
    branches: list[tuple[list[Word], Sequence]]
    redirects: list[Redirect] = field(default_factory=list)


Node = Command | Group | If | Loop | For | Case


def parse_line(text: str) -> Sequence:
    """The line's commands; raises Unprovable where it leaves the language."""
    return _Parser(Lexer(text).tokens()).line()


@dataclass
class _Parser:
    """Reads tokens into the line's commands, by recursive descent."""

    tokens: list[Token]
    i: int = 0
    depth: int = 0  # compound commands open around the current token

    def line(self) -> Sequence:
        body = self.sequence(())
        if self.i < len(self.tokens):
            raise Unprovable(f"{_shown(self.tokens[self.i])} where a command should be")
        return body

    def _peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _op(self, *texts: str) -> bool:
        token = self._peek()
        return isinstance(token, Op) and token.text in texts

    def _reserved(self, *words: str) -> bool:
        token = self._peek()
        return isinstance(token, Word) and token.reserved(*words)

    def _newlines(self) -> None:
        while self._op("\n"):
            self.i += 1

    def _expect(self, word: str) -> None:
        if not (self._op(word) if word in (")", ";;") else self._reserved(word)):
            found = self._peek()
            raise Unprovable(f"`{word}` expected, {_shown(found) if found else 'the end'} found")
        self.i += 1

    def sequence(self, until: tuple[str, ...], needed: bool = False) -> Sequence:
        items: Sequence = []
        while True:
            self._newlines()
            token = self._peek()
            if token is None or (self._op(*until) or self._reserved(*until)):
                break
            items.append(self._and_or())
            if not self._op(";", "\n"):
                break
            self.i += 1
        if needed and not items:
            raise Unprovable(f"no command before `{_shown(self._peek())}`")
        return items

    def _and_or(self) -> AndOr:
        item = AndOr(self._pipeline())
        while self._op("&&", "||"):
            op = self.tokens[self.i]
            assert isinstance(op, Op)
            self.i += 1
            self._newlines()
            item.rest.append((op.text, self._pipeline()))
        return item

    def _pipeline(self) -> Pipeline:
        while self._reserved("!", "time"):
            timed = self._reserved("time")
            self.i += 1
            if timed and self._reserved("-p"):
                self.i += 1
            if timed and self._reserved("--"):  # after `time` or `time -p` only
                self.i += 1
        pipeline = Pipeline([self._command()])
        while self._op("|"):
            self.i += 1
            self._newlines()
            pipeline.commands.append(self._command())
        return pipeline

    def _command(self) -> Node:
        token = self._peek()
        opens = (isinstance(token, Op) and token.text == "(") or (
            isinstance(token, Word) and token.reserved(*_OPENS)
        )
        if opens and self.depth >= MAX_NESTING:
            raise Unprovable(f"nested more than {MAX_NESTING} deep")
        self.depth += 1 if opens else 0
        if isinstance(token, Op) and token.text == "(":
            self.i += 1
            node: Node = Group(self.sequence((")",), needed=True), subshell=True)
            self._expect(")")
        elif isinstance(token, Word) and token.reserved(*_OPENS):
            self.i += 1
            node = self._compound(token.raw)
        elif isinstance(token, Word) and token.reserved(*_CLOSES, *_OUTSIDE):
            raise Unprovable(f"the reserved word `{token.raw}` where a command should be")
        else:
            return self._simple()
        self.depth -= 1
        while isinstance(self._peek(), Redirect):
            redirect = self._peek()
            assert isinstance(redirect, Redirect)
            node.redirects.append(redirect)
            self.i += 1
        if isinstance(self._peek(), Word):
            raise Unprovable(f"a word after `{_closing(node)}`")
        return node

    def _simple(self) -> Command:
        command = Command([], [])
        while (token := self._peek()) is not None and not isinstance(token, Op):
            if isinstance(token, Word):
                command.words.append(token)
            else:
                command.redirects.append(token)
            self.i += 1
        if not command.words and not command.redirects:
            raise Unprovable(f"{_shown(token) if token else 'the end'} where a command should be")
        return command

    def _compound(self, word: str) -> Node:
        if word == "{":
            body = self.sequence(("}",), needed=True)
            self._expect("}")
            return Group(body, subshell=False)
        if word == "if":
            return self._if()
        if word in ("while", "until"):
            condition = self.sequence(("do",), needed=True)
            self._expect("do")
            body = self.sequence(("done",), needed=True)
            self._expect("done")
            return Loop(condition, body)
        if word == "for":
            return self._for()
        return self._case()

    def _if(self) -> If:
        branches = []
        while True:
            condition = self.sequence(("then",), needed=True)
            self._expect("then")
            branches.append((condition, self.sequence(("elif", "else", "fi"), needed=True)))
            if not self._reserved("elif"):
                break
            self.i += 1
        otherwise = None
        if self._reserved("else"):
            self.i += 1
            otherwise = self.sequence(("fi",), needed=True)
        self._expect("fi")
        return If(branches, otherwise)

    def _for(self) -> For:
        name = self._peek()
        if not isinstance(name, Word) or not name.known or name.quoted or "=" in name.raw:
            raise Unprovable("`for` without a plain variable name")
        self.i += 1
        words: list[Word] = []
        self._newlines()
        if self._reserved("in"):
            self.i += 1
            while isinstance(token := self._peek(), Word):
                words.append(token)
                self.i += 1
            if not self._op(";", "\n"):
                raise Unprovable("`for … in` words not ended by `;` or a newline")
            self.i += 1
        elif self._op(";"):
            self.i += 1
        self._newlines()
        self._expect("do")
        body = self.sequence(("done",), needed=True)
        self._expect("done")
        return For(name.value, words, body)

    def _case(self) -> Case:
        subject = self._peek()
        if not isinstance(subject, Word):
            raise Unprovable("`case` without a word")
        self.i += 1
        self._newlines()
        self._expect("in")
        branches: list[tuple[list[Word], Sequence]] = []
        while True:
            self._newlines()
            if self._reserved("esac"):
                self.i += 1
                return Case(subject, branches)
            if self._op("("):
                self.i += 1
            patterns = [self._pattern()]
            while self._op("|"):
                self.i += 1
                patterns.append(self._pattern())
            self._expect(")")
            branches.append((patterns, self.sequence((";;", "esac"))))
            if self._op(";;"):
                self.i += 1
            elif not self._reserved("esac"):
                raise Unprovable("a `case` branch not ended by `;;`")

    def _pattern(self) -> Word:
        token = self._peek()
        if not isinstance(token, Word):
            raise Unprovable("a `case` pattern expected")
        self.i += 1
        return token


def _shown(token: Token | None) -> str:
    if isinstance(token, Word):
        return f"`{token.raw}`"
    if isinstance(token, Op):
        return "a newline" if token.text == "\n" else f"`{token.text}`"
    if isinstance(token, Redirect):
        return f"a redirection `{token.fd}{token.op}`"
    return "the end"


def _closing(node: Node) -> str:
    if isinstance(node, Group):
        return ")" if node.subshell else "}"
    return {If: "fi", Loop: "done", For: "done", Case: "esac"}.get(type(node), "")
