"""The permission gate a tool call with an `access` passes before it runs: deny rules from
config.toml, then the session's preset, then the session's remembered answers ("always"),
then the user, asked with `session/request_permission` through the turn (turn/wiring.py).

Shell commands are judged as whole lines, in the bash that runs them (tools/shell.py):
- a line in the provable language (command_proof/proof.py) is read completely: its commands (wrapped
  ones too) and the paths it redirects to, resolved. A deny rule matches exactly; a remembered
  "allow" covers it when every command but `true`, `false`, `:`, `exit N` is remembered, it
  writes nothing outside the workspace, and no word of it names a place outside the roots
  (turn/line_places.py: a grant of `rm` is a grant in this project, not on the rest of the
  disk); one remembered "reject" refuses it;
- a line that names a repository's `.git` (turn/line_git.py: a write there, a word leading
  there, a program taking names from elsewhere, `git config` setting something) is asked under
  every preset but danger-full-access, whatever was remembered, in the sandbox too, with no
  "always" offered; so is a `write` or `edit` into a `.git`, inside the workspace too
  (tools/workspace.py `git_why`): its configuration and hooks run programs the next time git
  runs; and so are the places the repositories' configuration makes git run or read outside
  `.git` (tools/git_guard.py: a `core.hooksPath` directory, an included configuration file, a
  program a key names), the question naming the place and why;
- with `deny_paths` set, a provable line's places are judged against them too, under every
  preset (turn/line_denied.py): a word naming a denied path is refused; a folder holding one
  that a word names or a program runs in, or a place that cannot be checked, is asked whatever
  was remembered, with no "always" offered;
- any other line is unprovable: asked whatever was remembered (no "always" is offered for it),
  refused when the grammar's view of it (command_proof/command_line.py) names a denied command, and,
  with deny rules set, asked under danger-full-access too: it cannot be checked against them.
  Another configured shell makes every line unprovable.

Where the session's sandbox is whole (tools/sandbox.py: active, and every deny path hidden),
a line that no deny rule or remembered rejection stops runs without a question, the sandbox
confining it instead: an unprovable line too, unless deny rules are set. Where the sandbox is wanted but no engine works, the session's
first command line says so once (a `[warning]` chunk), before anything is asked. A command
the sandbox stopped is offered once for a run outside it (`rerun_outside`), unless the user
said not to offer that again in this session, or a deny rule a mount hid would refuse or ask
it there.

A file or search tool's call is judged on the real path it leads to (`target`), which the
question names (its locations, shown when the call started: a call whose path leads elsewhere
by the time it is judged fails unasked), and the call touches that path alone: it is kept as
the call's `judged`, and a run that finds the path leading elsewhere (a link swapped while the
question was open) fails, nothing read or written (tools/base.py `judged_target`).

A refused or failed question is a rejection; a cancelled one cancels the turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from reasonix_acp.command_proof.command_line import CommandLine, parse
from reasonix_acp.redact import scrub_known_in
from reasonix_acp.tools.base import ToolContext, ToolFailed
from reasonix_acp.tools.git_guard import unjudged
from reasonix_acp.tools.shell import ran_by, reads_as_bash
from reasonix_acp.tools.workspace import GIT_WHY, in_scope, needs_permission, scope_of
from reasonix_acp.turn.line_denied import guard_line
from reasonix_acp.turn.line_places import placed
from reasonix_acp.turn.line_verdict import (
    UNJUDGED_ID,
    Grants,
    Rules,
    Verdict,
    granted_names,
    judge_line,
    unjudged_grant,
    unjudged_granted,
)

# (the tool call as shown, the options) → the chosen optionId, or None when cancelled.
Ask = Callable[[dict[str, Any], list[dict[str, Any]]], Awaitable[str | None]]
REFUSED = "refused by the user"
RERUN_SCOPE = "outside the sandbox"  # a remembered "do not offer a run outside the sandbox"
PLAN_MODE = "refused in plan mode"
# A line whose `cd`s lead where only running it shows (a loop that keeps moving, a folder
# from a variable known then): the question says so rather than name folders it cannot know.
ADRIFT = "where its `cd`s lead is known only when it runs, so each relative path it names may be in any folder"
PLAN_NEXT = "Investigate with reads and searches, then present the plan."


@dataclass
class Gate:
    """The permission gate: deny rules, the session's preset and remembered answers, and the
    question to the user."""

    rules: Rules = field(default_factory=Rules)
    preset: Callable[[], str] = lambda: "workspace-write"
    grants: Grants = field(default_factory=list)
    ask: Ask | None = None
    mode: Callable[[], str] = lambda: "normal"

    async def permitted(
        self, tool: Any, args: dict[str, Any], shown: dict[str, Any], context: ToolContext
    ) -> bool:
        """Plan mode, then deny rules, the preset, the session's remembered answers, the user."""
        if self.mode() == "plan":
            _plan_holds(tool, context)
        if tool.access == "execute" and isinstance(args.get("command"), str):
            return await self._command_line(args, shown, context)
        real = tool.target(args, context)
        access = tool.access
        by_path = not hasattr(tool, "grant_scope")
        if by_path:  # what the call may touch as it runs (tools/base.py judged_target)
            context.judged = real
        scope = scope_of(real) if by_path else tool.grant_scope(args, context)
        if access == "network":  # `real` is a host: [web] deny, then [web] allow
            if self.rules.web.denied(real):
                raise ToolFailed(f"{real} is denied by [web] deny in config.toml")
            if self.rules.web.allowed(real):
                return True
        elif access not in ("mcp", "plugin") and self.rules.path_denied(real):
            raise ToolFailed("denied by the permission rules in config.toml")
        workspace = context.workspace
        given = args.get("path")
        why = ""
        if access == "write" and self.preset() != "danger-full-access":
            why = workspace.git_why(given if isinstance(given, str) else "", real)
        git = bool(why)
        if not needs_permission(self.preset(), access, workspace.inside(real), git):
            return True
        if git and unjudged_granted(self.grants, [why]):
            return True
        for granted_access, granted, allowed in reversed(self.grants):
            if granted_access == access and (
                in_scope(real, granted) if by_path else granted == scope
            ):
                if allowed and git:  # no answer covers a `.git`: each write there asks
                    continue
                return allowed
        if by_path:
            _names_target(tool, shown, real, workspace)
        what = _what(access, scope)
        if hasattr(tool, "proposed"):
            shown = await self._with_change(tool, args, shown, context)
        if git:
            shown = _in_git(shown, why, workspace.display(real))
        options = _options(None if git else f"Allow {what}", f"Reject {what}")
        choice = await self._ask(shown, _unjudged_option(options, [why] if git else []))
        if choice in ("allow_always", "reject_always"):
            self.grants.append((access, scope, choice == "allow_always"))
        elif choice == UNJUDGED_ID:
            self.grants.append(unjudged_grant(why))
        return choice in ("allow_once", "allow_always", UNJUDGED_ID)

    async def _with_change(
        self,
        tool: Any,
        args: dict[str, Any],
        shown: dict[str, Any],
        context: ToolContext,
    ) -> dict[str, Any]:
        """The question with the change a write or edit would make (`diff` content), for the
        editor to preview before the user decides: a new file's (`oldText` null), and an
        existing file's outside the workspace too, since the user is asked to overwrite it.
        The old text is shown to the user in the question alone: the model's history and the
        transcript never get it from here. A change that cannot be made fails here, unasked
        (ToolFailed)."""
        diff = scrub_known_in(await tool.proposed(args, context))
        return {**shown, "content": [diff]}

    async def _command_line(
        self, args: dict[str, Any], shown: dict[str, Any], context: ToolContext
    ) -> bool:
        sandbox = context.sandbox
        if sandbox is not None and context.warn is not None and (notice := sandbox.notice()):
            # before the question it explains, once per session
            context.warn(notice, "Commands run without a sandbox")
        line = parse(args["command"])
        if not reads_as_bash(context.shell):
            line.proof, line.unprovable = None, f"commands run in {ran_by(context.shell)}, not bash"
        sandboxed = sandbox is not None and sandbox.whole()
        confined = sandbox is not None and sandbox.active()
        verdict = judge_line(
            line, self.preset(), self.grants, self.rules, context.workspace, sandboxed, confined
        )
        if verdict.decision == "deny":
            raise ToolFailed(f"denied by the permission rules in config.toml: {verdict.reason}")
        if verdict.decision != "ask":
            return verdict.decision == "allow"
        proof = line.proof
        names = granted_names(proof) if proof else line.names
        listed = ", ".join(f"`{n}`" for n in names)
        granting = not (verdict.outside or verdict.git or verdict.places or verdict.guarded)
        # One answer of each kind (some clients label options by kind alone), and its "always"
        # covers this line next time: the names where their grant does (it covers more of the
        # same commands), else the exact line.
        covers = bool(proof and names and granting and not verdict.reads)
        options = _options(
            f"Allow {listed} commands for this session" if covers else None,
            f"Reject {listed} commands for this session" if names else None,
            # no answer covers a `.git`, nor a folder holding a path under a deny rule
            exact=proof is not None and not verdict.git and not verdict.guarded and not covers,
        )
        options = _unjudged_option(options, list(verdict.why) if verdict.git else [])
        choice = await self._ask(_shown_line(shown, args, line, verdict), options)
        if choice == UNJUDGED_ID:
            self.grants += [unjudged_grant(why) for why in verdict.why]
            return True
        if choice == "allow_always_exact":
            self.grants.append(("execute", f"exact {line.text}", True))
        elif choice in ("allow_always", "reject_always"):
            self.grants += [("execute", f"command {n}", choice == "allow_always") for n in names]
        return choice in ("allow_once", "allow_always", "allow_always_exact")

    async def rerun_outside(
        self,
        shown: dict[str, Any],
        why: str,
        args: dict[str, Any] | None = None,
        context: ToolContext | None = None,
    ) -> bool:
        """Whether a command the sandbox stopped may run again outside it: asked once per
        call, unless the user said not to offer it again in this session; never in plan mode,
        nor for a line whose places a deny rule the sandbox hid refuses or asks (`guarded`:
        outside, what it matches is there)."""
        if ("execute", RERUN_SCOPE, False) in self.grants or self.mode() == "plan":
            return False
        command = (args or {}).get("command")
        if context is not None and isinstance(command, str) and self._guarded(command, context):
            return False
        options = [
            {"optionId": "allow_once", "name": "Run it outside the sandbox", "kind": "allow_once"},
            {"optionId": "reject_once", "name": "Keep the failure", "kind": "reject_once"},
            {
                "optionId": "reject_always",
                "name": "Do not offer this again in this session",
                "kind": "reject_always",
            },
        ]
        raw = shown.get("rawInput")
        question = {
            **shown,
            "title": f"{shown.get('title', 'Run')} outside the sandbox? (it failed there: {why})",
            "rawInput": {**(raw if isinstance(raw, dict) else {}), "sandboxBlocked": why},
        }
        choice = await self._ask(question, options)
        if choice == "reject_always":
            self.grants.append(("execute", RERUN_SCOPE, False))
        return choice == "allow_once"

    def _guarded(self, command: str, context: ToolContext) -> bool:
        """The line's places meet a deny rule when every rule is judged (no sandbox hides)."""
        line = parse(command)
        if line.proof is None or not reads_as_bash(context.shell):
            return False  # asked as it is, naming the rules it cannot be checked against
        workspace = context.workspace
        guard = guard_line(line, self.rules.paths, workspace, placed(line, workspace))
        return bool(guard.denied) or guard.asks

    async def question(self, shown: dict[str, Any], options: list[dict[str, Any]]) -> str:
        """A question a tool puts to the user (tools/ask.py): the optionId chosen; a cancel
        cancels the turn."""
        return await self._ask(shown, options)

    async def _ask(self, shown: dict[str, Any], options: list[dict[str, Any]]) -> str:
        if self.ask is None:
            return "reject_once"
        visible = {k: v for k, v in shown.items() if not k.startswith("x-")}
        choice = await self.ask(visible, options)
        if choice is None:  # the client cancelled the request: the turn is cancelled
            raise asyncio.CancelledError
        return choice


def _plan_holds(tool: Any, context: ToolContext) -> None:
    """In plan mode only what changes nothing runs: reads, searches, `todo_write`, MCP tools
    their server marks read-only, and commands inside a read-only sandbox. Anything else is
    refused without a question, the model told why."""
    access = tool.access
    if access == "write":
        raise ToolFailed(f"{PLAN_MODE}: files are not changed while planning. {PLAN_NEXT}")
    if access == "mcp" and not getattr(tool, "read_only", False):
        raise ToolFailed(f"{PLAN_MODE}: this MCP tool is not marked read-only. {PLAN_NEXT}")
    if access == "plugin":
        raise ToolFailed(f"{PLAN_MODE}: plugin tools do not run while planning. {PLAN_NEXT}")
    sandbox = context.sandbox
    if access == "execute" and (sandbox is None or not sandbox.whole()):
        why = "no read-only sandbox confines commands here"
        raise ToolFailed(f"{PLAN_MODE}: {why}, so commands do not run. {PLAN_NEXT}")


def _names_target(tool: Any, shown: dict[str, Any], real: str, workspace: Any) -> None:
    """The question names the place judged: the call's locations, shown when it started, are
    where its path leads now; else a link changed in between and the call fails unasked."""
    places = [p.get("path") for p in shown.get("locations") or [] if isinstance(p, dict)]
    if places and real not in places:
        raise ToolFailed(
            f"{tool.name}: the call was shown at {workspace.display(str(places[0]))} and leads "
            f"to {workspace.display(real)} now (a link changed): nothing was asked or done; "
            "make the call again"
        )


def _unjudged_option(options: list[dict[str, Any]], whys: list[str]) -> list[dict[str, Any]]:
    """`options`, and where every reason a place is asked is only that a git configuration
    could not be judged (tools/git_guard.py `unjudged`), the answer for the session that
    covers that reason while it stands (a changed configuration names another)."""
    if not whys or not all(unjudged(why) for why in whys):
        return options
    name = "Allow in this session while git's configuration stays as it is"
    option = {"optionId": UNJUDGED_ID, "name": name, "kind": "allow_always"}
    return [options[0], option, *options[1:]]


def _options(allow: str | None, reject: str | None, exact: bool = False) -> list[dict[str, Any]]:
    options = [{"optionId": "allow_once", "name": "Allow", "kind": "allow_once"}]
    if exact:
        options.append(
            {
                "optionId": "allow_always_exact",
                "name": "Always allow this command in this session",
                "kind": "allow_always",
            }
        )
    if allow:
        options.append({"optionId": "allow_always", "name": allow, "kind": "allow_always"})
    options.append({"optionId": "reject_once", "name": "Reject", "kind": "reject_once"})
    if reject:
        options.append({"optionId": "reject_always", "name": reject, "kind": "reject_always"})
    return options


def _shown_line(
    shown: dict[str, Any], args: dict[str, Any], line: CommandLine, verdict: Verdict
) -> dict[str, Any]:
    """The tool call as the question shows it: every simple command the line runs, and why it
    is asked (a write outside the workspace; a `.git` or another place git runs or reads it
    names; a line outside the provable language)."""
    commands = [c.shown() for c in (line.proof.commands if line.proof else line.commands)]
    raw: dict[str, Any] = {**args, "commands": commands}
    notes = []
    if verdict.outside:
        raw["writesOutsideWorkspace"] = list(verdict.outside)
        notes.append("writes outside the workspace: " + ", ".join(verdict.outside))
    if verdict.reads:
        raw["readsOutsideWorkspace"] = list(verdict.reads)
        notes.append("reads outside the workspace: " + ", ".join(verdict.reads))
    if verdict.places:
        raw["namesOutsideWorkspace"] = list(verdict.places)
        notes.append("names places outside the workspace: " + ", ".join(verdict.places))
    if verdict.folders is None:
        raw["runsIn"] = None
        notes.append(f"may run in any folder: {ADRIFT}")
    elif verdict.folders:
        raw["runsIn"] = list(verdict.folders)
        notes.append(f"runs in {', '.join(verdict.folders)}, as its `cd`s lead")
    if verdict.git:
        raw["gitPlaces"] = list(verdict.git)
        if set(verdict.why) <= {GIT_WHY}:
            notes.append(f"names a repository's .git: {', '.join(verdict.git)}; {GIT_WHY}")
        else:
            whys = "; ".join(verdict.why)
            notes.append(f"names a place git runs or reads: {', '.join(verdict.git)}; {whys}")
    if verdict.held:
        raw["holdsDeniedPaths"] = [{"folder": f, "denied": list(p)} for f, p in verdict.held]
        held = "; ".join(f"{f} holds {', '.join(p)}" for f, p in verdict.held)
        notes.append(f"reads a folder holding paths under deny_paths: {held}")
    if verdict.unchecked:
        raw["deniedPathsUnchecked"] = list(verdict.unchecked)
        notes.append("cannot be checked against deny_paths: " + "; ".join(verdict.unchecked))
    if line.proof is None:
        raw["unprovable"] = verdict.reason or line.unprovable
        notes.append("not provably safe: " + raw["unprovable"])
    title = shown.get("title", "Run")
    if len(commands) > 1 or notes:
        # An unprovable line is shown as written: the grammar's view of it may hide what runs.
        # So is one run in the background: agent-shell shows a question's title in place of
        # its call's only where it holds the command word for word, and this one must say
        # that the command keeps running.
        background = args.get("run_in_background") is True
        whole = line.proof is None or not commands or background
        title = "Run " + " · ".join([line.text] if whole else commands)
        title = title if len(title) <= 160 else title[:157] + "..."
        if background:
            title += " in the background"
        if notes:
            title += " (" + "; ".join(notes) + ")"
    return {**shown, "title": title, "rawInput": raw}


def _in_git(shown: dict[str, Any], why: str, *places: str) -> dict[str, Any]:
    """The question for a call that writes into a place git runs or reads (a `.git`, a place
    its configuration designates): the places named, and why."""
    raw = shown.get("rawInput")
    where = f"in a repository's .git: {GIT_WHY}" if why == GIT_WHY else why
    title = f"{shown.get('title', 'Write')} ({where})"
    raw = {**(raw if isinstance(raw, dict) else {}), "gitPlaces": list(places)}
    return {**shown, "title": title, "rawInput": raw}


def _what(access: str, scope: str) -> str:
    if access == "network":
        return f"web requests to {scope.removeprefix('domain ')} for this session"
    if access in ("mcp", "plugin"):
        return f"calls of {scope.removeprefix(access + ' ')} for this session"
    return f"{access}s under {scope} for this session"
