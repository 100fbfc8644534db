"""A shell command line read as the shell reads it, so a permission covers the whole line.

Two readings: `proof`, the complete reading of a line in the provable language
(command_proof/proof.py), the only one a line may run unasked on; and the bash grammar's view of any
line, best effort, for what the question shows and for the deny rules of an unprovable line.
The line is parsed with the bash grammar of tree-sitter into its simple commands: those joined
by `;`, `&&`, `||`, `|`, `&` and newlines, inside subshells `( )`, groups `{ }`, `if`/`for`/
`while`/`case` bodies and function bodies, and those in command substitutions (`$( )`, backticks,
also inside double quotes and heredocs) and process substitutions `<( )` `>( )`. A command that
runs another command is unwrapped too: `eval`, `sh`/`bash`/`zsh`/`dash -c` strings, `env`,
`nice`, `timeout`, `sudo`, `xargs`, `nohup`, `find -exec` and the like. The wrapper stays in
the list as well, so a grant for `rm` never covers `sudo rm`.

Invariants:
- A word is known (a `str`) only when its value does not depend on the run: quotes and
  backslashes are taken off, anything with an expansion is `None`.
- `problems` says where the grammar could not read the line (an error, a command name known
  only when it runs, a nested string such as `sh -c "$X"`); the gate never runs a line on this
  view alone, only on `proof`.
- `writes` lists every path the line writes through a redirection (`>`, `>>`, `&>`, `>|`, `<>`)
  or names to `tee`; `None` stands for a target known only at run time.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from reasonix_acp.command_proof.proof import Proof, Unprovable, prove
from reasonix_acp.command_proof.words import (
    SHELLS,
    Simple,
    UnreadOption,
    distinct_names,
    find_runs,
    operands,
    wrapped,
    wrapper,
)


@functools.cache
def parser() -> Parser:
    """Built on the first command line judged, not when a session opens (about 20 ms)."""
    return Parser(Language(tree_sitter_bash.language()))


MAX_DEPTH = 8  # nested `sh -c` / `eval` strings
MAX_TREE_DEPTH = 400  # syntax tree levels the walker (which recurses) reads
_UNSURE_NAME = re.compile(r"[*?\[{}=~]|^$")


@dataclass
class CommandLine:
    """A shell line as the grammar reads it: its simple commands, the files it writes and
    reads, and what could not be read."""

    text: str
    commands: list[Simple] = field(default_factory=list)
    writes: list[str | None] = field(default_factory=list)
    reads: list[str | None] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    proof: Proof | None = None  # the complete reading (command_proof/proof.py), when there is one
    unprovable: str = ""  # why there is none

    @property
    def names(self) -> list[str]:
        """The distinct known command names, in order."""
        return distinct_names(self.commands)


def parse(text: str) -> CommandLine:
    """The grammar's view of the line (every command it can find, for the question and the
    deny rules), and its complete reading when it is in the provable language."""
    line = CommandLine(text)
    _parse_into(text, line, 0)
    try:
        line.proof = prove(text)
    except Unprovable as exc:
        line.unprovable = str(exc)
    return line


def _parse_into(text: str, line: CommandLine, depth: int) -> None:
    if depth > MAX_DEPTH:
        line.problems.append("nested too deeply")
        return
    tree = parser().parse(text.encode("utf-8", "surrogateescape"))
    if tree.root_node.has_error:
        line.problems.append("the shell grammar cannot read it")
        return
    if _too_deep(tree.root_node):
        line.problems.append("nested too deeply")
        return
    _Walker(line, depth).walk(tree.root_node)


def _too_deep(root: Node) -> bool:
    """Whether the tree is deeper than MAX_TREE_DEPTH, found without recursing."""
    stack = [(root, 0)]
    while stack:
        node, level = stack.pop()
        if level > MAX_TREE_DEPTH:
            return True
        stack += [(child, level + 1) for child in node.children]
    return False


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "surrogateescape")


def _unescape(word: str) -> str:
    return re.sub(r"\\(.)", r"\1", word.replace("\\\n", ""), flags=re.S)


def literal(node: Node) -> str | None:
    """The value of a word, or None when it is known only at run time."""
    kind = node.type
    if kind in ("word", "number"):
        text = _text(node)
        return None if "$" in text or "`" in text else _unescape(text)
    if kind == "raw_string":
        return _text(node)[1:-1]
    if kind == "string":
        parts = []
        for child in node.named_children:
            if child.type != "string_content":
                return None
            parts.append(re.sub(r'\\([$`"\\\n])', r"\1", _text(child)))
        return "".join(parts)
    if kind == "concatenation":
        values = [literal(child) for child in node.named_children]
        return None if any(v is None for v in values) else "".join(v or "" for v in values)
    return None


@dataclass
class _Walker:
    """Walks one syntax tree into a CommandLine; `depth`: how deeply the text it reads is nested
    in the line (substitutions are parsed again)."""

    line: CommandLine
    depth: int

    def walk(self, node: Node) -> None:
        kind = node.type
        if kind == "ERROR" or node.is_missing:
            self.line.problems.append("the shell grammar cannot read it")
        elif kind == "command":
            self._command(node)
        elif kind in ("declaration_command", "unset_command"):
            self._builtin(node)
        elif kind == "redirected_statement":
            self._redirected(node)
        elif kind == "file_redirect":
            self._redirect(node)
        else:
            for child in node.named_children:
                self.walk(child)

    def _command(self, node: Node, extra: list[Node] | None = None) -> None:
        argv: list[str | None] = []
        for child in node.named_children:
            if child.type == "command_name":
                word = child.named_children[0] if child.named_children else child
                argv.append(literal(word))
                self.walk(word)
            elif child.type in ("variable_assignment", "file_redirect", "herestring_redirect"):
                self.walk(child)
            else:
                argv.append(literal(child))
                self.walk(child)
        for child in extra or []:
            argv.append(literal(child))
            self.walk(child)
        self._simple(tuple(argv))

    def _builtin(self, node: Node) -> None:
        keyword = node.children[0] if node.children else None
        self._simple((_text(keyword) if keyword else None,))
        for child in node.named_children:
            self.walk(child)

    def _redirected(self, node: Node) -> None:
        extra: list[Node] = []
        redirects = node.children_by_field_name("redirect")
        for redirect in redirects:
            if redirect.type == "file_redirect":
                # `cmd > out arg`: words after the target are the command's arguments
                extra += redirect.children_by_field_name("destination")[1:]
        body = node.child_by_field_name("body")
        if body is not None and body.type == "command":
            self._command(body, extra)
        else:
            if body is not None:
                self.walk(body)
            for word in extra:
                self.walk(word)
        for redirect in redirects:
            self.walk(redirect)

    def _redirect(self, node: Node) -> None:
        operator = next((_text(c) for c in node.children if not c.is_named), "")
        targets = node.children_by_field_name("destination")
        if not targets:
            return
        target = targets[0]
        self.walk(target)
        if target.type == "number" and "&" in operator:
            return  # a descriptor copy: 2>&1
        if target.type == "process_substitution":
            return  # `> >(cmd)`: into a command, walked above
        value = literal(target)
        if value == "-" and "&" in operator:
            return  # closing a descriptor
        if ">" in operator:
            self.line.writes.append(value)
        if "<" in operator:
            self.line.reads.append(value)

    def _simple(self, argv: tuple[str | None, ...]) -> None:
        if not argv:
            return
        name = argv[0]
        if name is None or _UNSURE_NAME.search(name):
            self.line.problems.append("a command name is known only when it runs")
            self.line.commands.append(Simple((None, *argv[1:])))
            return
        self.line.commands.append(Simple(argv))
        self._runs(argv)

    def _runs(self, argv: tuple[str | None, ...]) -> None:
        """What a command runs in turn: a nested script, a wrapped command, files it writes."""
        base = os.path.basename(argv[0] or "")
        rest = list(argv[1:])
        if base == "eval":
            self._script(None if None in rest else " ".join(w or "" for w in rest))
        elif base in SHELLS:
            self._shell(rest)
        elif base == "find":
            self._find(rest)
        elif base == "tee":
            self.line.writes += operands(rest)
        elif wrapper(base):
            try:
                inner = wrapped(base, rest)
            except UnreadOption as exc:
                self.line.problems.append(str(exc))
                inner = [None]
            if inner:
                self._simple(tuple(inner))
            if base == "env" and any(w in ("-S", "--split-string") for w in rest):
                self.line.problems.append("`env -S` splits a string the grammar does not read")

    def _script(self, text: str | None) -> None:
        if text is None:
            self.line.problems.append("a nested command string is known only when it runs")
        else:
            _parse_into(text, self.line, self.depth + 1)

    def _shell(self, rest: list[str | None]) -> None:
        for i, word in enumerate(rest):
            if word is None:
                self.line.problems.append("a shell option is known only when it runs")
                return
            if word == "--" or not word.startswith(("-", "+")):
                return  # a script file or nothing: the shell itself is the command judged
            if "c" in word.lstrip("-+") and not word.startswith("--"):
                self._script(rest[i + 1] if i + 1 < len(rest) else "")
                return

    def _find(self, rest: list[str | None]) -> None:
        runs, writes = find_runs(rest)
        for argv in runs:
            self._simple(tuple(argv))
        self.line.writes += writes
