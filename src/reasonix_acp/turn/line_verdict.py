"""How the gate judges a shell command line before anyone is asked (turn/gate.py): config.toml's
deny rules, the preset, the session's remembered answers and the sandbox, against the line's
complete reading (command_proof/proof.py) or, for an unprovable line, the grammar's view of it
(command_proof/command_line.py). The rules are the gate's; its module opens with them."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from reasonix_acp.command_proof.command_line import CommandLine
from reasonix_acp.command_proof.kernel_paths import KNOWN, through_kernel
from reasonix_acp.command_proof.proof import Proof
from reasonix_acp.config.web import WebSettings
from reasonix_acp.tools.git_guard import unjudged
from reasonix_acp.tools.workspace import Workspace, deny_match
from reasonix_acp.turn.line_denied import Guard, Held, guard_line, judged_rules
from reasonix_acp.turn.line_git import git_places
from reasonix_acp.turn.line_places import Placed, outside_places, placed, run_folders

Grants = list[tuple[str, str, bool]]  # (access, scope, allow)
UNJUDGED_ID = "allow_always_unjudged"  # the option: go on while git's configuration stays so
FULL = "danger-full-access"
UNRESOLVED = "\0"  # marks a path realpath could not follow (`_judged`)


@dataclass(frozen=True)
class Rules:
    """config.toml's deny rules: command names (matched by basename) and path patterns."""

    commands: frozenset[str] = frozenset()
    paths: tuple[str, ...] = ()
    web: WebSettings = field(default_factory=WebSettings)  # hosts: [web] allow and deny

    def path_denied(self, real: str) -> bool:
        return deny_match(real, self.paths)


@dataclass(frozen=True)
class Verdict:
    """What the gate decided about a tool call, why, and the paths outside the workspace it
    touches."""

    decision: str  # "allow", "reject" (remembered), "deny" (rules), "ask"
    reason: str = ""
    outside: tuple[str, ...] = ()  # written
    reads: tuple[str, ...] = ()  # read through a redirection
    git: tuple[str, ...] = ()  # the places git runs or reads it names (turn/line_git.py)
    why: tuple[str, ...] = ()  # why they are protected
    places: tuple[str, ...] = ()  # its words naming places outside (turn/line_places.py)
    held: Held = ()  # folders it reads holding paths under deny_paths (turn/line_denied.py)
    unchecked: tuple[str, ...] = ()  # why its places cannot be checked against deny_paths
    # the folders a line asked about may run in when its `cd`s move it (absolute; () only its
    # cwd; None: where is known only when it runs): its relative paths are read from each
    folders: tuple[str, ...] | None = ()

    @property
    def guarded(self) -> bool:
        """Asked for the deny rules: no answer for the session covers it."""
        return bool(self.held or self.unchecked)


def judge_line(
    line: CommandLine,
    preset: str,
    grants: Grants,
    rules: Rules,
    workspace: Workspace,
    sandboxed: bool = False,
    confined: bool = False,
) -> Verdict:
    """The decision for a shell command line, before the user is asked. `sandboxed`: the line
    will run in a whole sandbox (tools/sandbox.py), which stands in for the question;
    `confined`: in a working sandbox, whose mounts hide what the rules they can hide match.
    A provable line asked about says in which folders it may run (`Verdict.folders`)."""
    verdict, found = _judged_line(line, preset, grants, rules, workspace, sandboxed, confined)
    if verdict.decision != "ask" or line.proof is None:
        return verdict
    return replace(verdict, folders=run_folders(found or placed(line, workspace), workspace))


def _judged_line(
    line: CommandLine,
    preset: str,
    grants: Grants,
    rules: Rules,
    workspace: Workspace,
    sandboxed: bool,
    confined: bool,
) -> tuple[Verdict, Placed | None]:
    denied = _denied(line, rules, workspace)
    if denied:
        return Verdict("deny", denied), None
    proof = line.proof
    guard, found = _guarded(line, rules, workspace, confined)
    if guard.denied:
        return Verdict("deny", guard.denied), found
    asked = Verdict("ask", held=guard.held, unchecked=guard.unchecked)
    checked = proof is not None or not (rules.commands or rules.paths)
    if preset == FULL and proof is not None and proof.adrift and rules.paths:
        adrift = f"cannot be checked against deny_paths: {proof.adrift[0]} after `cd`"
        return Verdict("ask", adrift), found
    if preset == FULL:
        if guard.asks:
            return asked, found
        return (Verdict("allow") if checked else Verdict("ask", _unchecked(line, rules))), found
    remembered = _remembered(grants)
    seen = {*line.names, *(proof.names if proof else ())}
    if any(remembered.get(name) is False for name in seen):
        return Verdict("reject"), found
    named = git_places(line, workspace)  # asked whatever was granted, sandbox or not
    places, why = tuple(named.places), tuple(named.whys)
    if places and unjudged_granted(grants, why):
        places, why = (), ()  # only a configuration not judged, answered for the session
    if proof is None:
        if sandboxed and checked and not places:
            return Verdict("allow", "runs in the sandbox"), found
        reason = line.unprovable if checked else _unchecked(line, rules)
        return Verdict("ask", reason, git=places, why=why), found
    resolve = _judged(workspace)
    outside = tuple(writes_outside(proof, resolve, workspace.inside, workspace.cwd))
    reads = tuple(reads_outside(proof, resolve, workspace.inside, workspace.cwd))
    if places or guard.asks:
        return replace(asked, outside=outside, reads=reads, git=places, why=why), found
    for access, scope, allowed in reversed(grants):
        if access == "execute" and scope == f"exact {line.text}":
            return Verdict("allow" if allowed else "reject"), found
    if sandboxed:
        return Verdict("allow", "runs in the sandbox"), found
    names = granted_names(proof)
    covered = all(remembered.get(name) is True for name in names)
    if names:
        found = found or placed(line, workspace)
    places = tuple(outside_places(line, workspace, found)) if names else ()  # inside: granted
    if not outside and not reads and not places and covered and (names or not proof.writes):
        return Verdict("allow"), found
    return Verdict("ask", outside=outside, reads=reads, places=places), found


def _guarded(
    line: CommandLine, rules: Rules, workspace: Workspace, confined: bool
) -> tuple[Guard, Placed | None]:
    """The deny rules judged on a provable line's places (those a working sandbox's mounts
    hide left out: `confined`), and the places, read once for the grants too."""
    judged = judged_rules(rules.paths, confined)
    found = placed(line, workspace) if line.proof is not None and judged else None
    return guard_line(line, judged, workspace, found), found


def _remembered(grants: Grants) -> dict[str, bool]:
    """The command names the session allowed (True) or rejected (False): later answers win."""
    return {
        scope.removeprefix("command "): allowed
        for access, scope, allowed in grants
        if access == "execute" and scope.startswith("command ")
    }


def unjudged_grant(why: str) -> tuple[str, str, bool]:
    """The session's answer that writes may go on while a git configuration that could not
    be judged stays as it is (`why` names what could not be read: tools/git_guard.py)."""
    return ("git", f"unjudged {why}", True)


def unjudged_granted(grants: Grants, whys: list[str] | tuple[str, ...]) -> bool:
    """Whether every reason a place is asked is a configuration not judged, each answered so."""
    return bool(whys) and all(unjudged(w) and unjudged_grant(w) in grants for w in whys)


def granted_names(proof: Proof) -> list[str]:
    """The names a grant must cover: all but the builtins that run nothing (`true`, `:`,
    `exit N` ...: `Simple.free`)."""
    needed = {command.name for command in proof.commands if not command.free}
    return [name for name in proof.names if name in needed]


def _unchecked(line: CommandLine, rules: Rules) -> str:
    kinds = " and ".join(
        name
        for name, there in (("deny_commands", rules.commands), ("deny_paths", rules.paths))
        if there
    )
    return f"cannot be checked against {kinds}: {line.unprovable}"


def writes_outside(
    proof: Proof, resolve: Callable[[str], str], inside: Callable[[str], bool], cwd: str = "/"
) -> list[str]:
    """The targets the line writes that are outside (or cannot be judged): as shown to the user.
    A target is judged after `realpath` (`..` and links followed); `/dev/null` is the only
    stream, and a path through the kernel's trees (/proc, /dev, /sys: `/dev/stdout`,
    `/proc/self/cwd/...`) is never judged inside (command_proof/kernel_paths.py)."""
    return _outside(proof.writes, proof.adrift, resolve, inside, cwd)


def reads_outside(
    proof: Proof, resolve: Callable[[str], str], inside: Callable[[str], bool], cwd: str = "/"
) -> list[str]:
    """The files the line's input redirections read that are outside (or cannot be judged)."""
    return _outside(proof.reads, proof.adrift, resolve, inside, cwd)


def _outside(
    targets: list[str | None],
    adrift: list[str],
    resolve: Callable[[str], str],
    inside: Callable[[str], bool],
    cwd: str,
) -> list[str]:
    out = []
    for target in targets:
        if target is None:
            out.append("(a path known only when it runs)")
        elif os.path.normpath(target) in KNOWN:
            continue
        elif target in adrift or through_kernel(target, cwd) or not inside(resolve(target)):
            out.append(target)
    return out


def _denied(line: CommandLine, rules: Rules, workspace: Workspace) -> str:
    """The deny rule the line breaks: exactly, by its complete reading; else by every command
    and path the grammar finds in it (an unprovable line that names a denied command is refused;
    one that names none is still never run without a question)."""
    proof = line.proof
    commands = proof.commands if proof else line.commands
    for command in commands:
        if command.name is not None and os.path.basename(command.name) in rules.commands:
            return f"`{os.path.basename(command.name)}` is in deny_commands"
    targets = (*proof.writes, *proof.reads) if proof else (*line.writes, *line.reads)
    for target in targets:
        if target is None:
            continue
        real = _judged(workspace)(os.path.expanduser(target))
        if real.startswith(UNRESOLVED) and rules.paths:
            return f"{target} cannot be checked against deny_paths: {real[1:]} cannot be resolved"
        if rules.path_denied(real):
            return f"{target} matches deny_paths"
    if proof is None and rules.commands:
        words = {os.path.basename(w) for w in re.findall(r"[\w./+-]+", line.text)}
        hit = sorted(words & rules.commands)
        if hit:
            return f"`{hit[0]}` is in deny_commands"
    return ""


def _judged(workspace: Workspace) -> Callable[[str], str]:
    """The workspace's resolve for judging a command line: a path realpath cannot follow (a
    link nobody may read, as /proc/1/root) comes back as UNRESOLVED + the path, which is inside
    no root and fails every deny check closed. Never opened: the command does that itself."""

    def resolve(path: str) -> str:
        try:
            return workspace.resolve(path)
        except (OSError, ValueError):  # ValueError: a NUL in the path
            joined = path if os.path.isabs(path) else os.path.join(workspace.cwd, path)
            return UNRESOLVED + os.path.abspath(joined)

    return resolve
