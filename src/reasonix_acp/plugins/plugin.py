"""A plugin as the agent holds it (its tools, prompt templates, actions and hooks) and how one
of its commands runs.

The command protocol: the command runs in the session's cwd with `REASONIX_PLUGIN_DIR` and
`REASONIX_SESSION_ID` set. Its program is never the workspace's (`Plugin.program`): a file of
the plugin's directory, an absolute path, or a name found in the absolute entries of PATH
(config/programs.py); the PATH it gets keeps only those, so what it starts by name
(`#!/usr/bin/env python3`) is not the workspace's either.
Its stdin is one JSON object, closed after writing:
  tool     {"event": "tool", "tool", "arguments", "sessionId", "cwd"}
  action   {"event": "action", "action", "args": {k: v, "arg1": ...}, "sessionId", "cwd"}
  hook     {"event": "session_start" | "turn_end" | "session_end", "sessionId", "cwd",
            "stopReason"?}
Its stdout is a JSON object, or plain text (taken as `text`):
  {"text": "...",        what the model sees (tool), or the agent's reply (action)
   "prompt": "...",      action: send this to the model as the turn's prompt instead
   "surfaces": [...],    extension surfaces to show (extension_surface.py)
   "error": "..."}       the command failed with this message
A non-zero exit status fails it too (stderr is the cause); so does running past its timeout.
What it prints is scrubbed of every secret the agent holds before it is cut to its limit
(OUTPUT_LIMIT bytes of stdout, the last CAUSE_LIMIT characters of stderr): a cut made first
could leave half of a secret that no later scrub sees.
Tools go through the permission gate like MCP tools: they ask unless the preset is full access.
Action form fields are filled from `key=value` words first, then asked one by one through
`session/request_permission` (fields with `options`), else take their `default`; a required
field left empty fails the action before it runs.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reasonix_acp.config.programs import NotFound, absolute_path, find
from reasonix_acp.redact import child_env, scrub_known, scrub_known_bytes
from reasonix_acp.tools.base import ToolContext, ToolFailed, ToolResult

OUTPUT_LIMIT = 1024 * 1024
CAUSE_LIMIT = 2000  # characters of a failed command's stderr kept as the cause


class CommandFailed(Exception):
    pass


@dataclass(frozen=True)
class Output:
    """What a plugin command printed, read: a reply, a prompt for the model, surfaces to
    show."""

    text: str = ""
    prompt: str | None = None
    surfaces: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class FormField:
    """One field of an action's form: a free value, or one of `options`."""

    key: str
    label: str
    options: tuple[str, ...] = ()
    default: str | None = None
    required: bool = True


@dataclass(frozen=True)
class Action:
    """A plugin action (`/<plugin>:<name>`): the command it runs and the form filled first."""

    name: str
    label: str
    command: tuple[str, ...]
    form: tuple[FormField, ...] = ()


@dataclass(frozen=True)
class Template:
    """A plugin's prompt template (`/<plugin>:<name>`): its text with `$ARGUMENTS` and
    `$1`…`$9` filled in."""

    name: str
    description: str
    prompt: str
    hint: str | None = None

    def expand(self, rest: str) -> str:
        words = rest.split()
        text = self.prompt.replace("$ARGUMENTS", rest)
        for i in range(9, 0, -1):
            text = text.replace(f"${i}", words[i - 1] if i <= len(words) else "")
        return text


@dataclass
class Plugin:
    """One plugin directory's manifest: its tools, templates, actions and hooks."""

    id: str
    directory: Path
    description: str = ""
    timeout: float = 30.0
    tools: list[PluginTool] = field(default_factory=list)
    templates: dict[str, Template] = field(default_factory=dict)
    actions: dict[str, Action] = field(default_factory=dict)
    hooks: dict[str, tuple[str, ...]] = field(default_factory=dict)

    async def run(
        self,
        argv: tuple[str, ...],
        payload: dict[str, Any],
        cwd: str,
        wrap: Callable[[list[str], str], list[str]] | None = None,
    ) -> Output:
        """One command of this plugin, to the end; CommandFailed says why it failed. `wrap`
        puts the command in the session's sandbox (tools/sandbox.py)."""
        env = {
            **child_env(),
            "REASONIX_PLUGIN_DIR": str(self.directory),
            "REASONIX_SESSION_ID": str(payload.get("sessionId", "")),
        }
        env["PATH"] = absolute_path(env.get("PATH", os.defpath))
        argv = (self.program(argv[0], env["PATH"]), *argv[1:])
        if wrap is not None:
            argv = tuple(wrap(list(argv), cwd))
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                cwd=cwd,
                env=env,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise CommandFailed(f"cannot start {argv[0]}: {exc.strerror or exc}") from None
        try:
            out, err = await asyncio.wait_for(
                proc.communicate(json.dumps(payload).encode()), self.timeout
            )
        except TimeoutError:
            proc.kill()
            await proc.wait()
            raise CommandFailed(f"{argv[0]} ran past {self.timeout:g} s") from None
        except asyncio.CancelledError:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
            raise
        if proc.returncode != 0:
            cause = scrub_known(err.decode("utf-8", "replace")).strip()[-CAUSE_LIMIT:]
            raise CommandFailed(cause or f"exit {proc.returncode}")
        return parse_output(scrub_known_bytes(out)[:OUTPUT_LIMIT].decode("utf-8", "replace"))

    def program(self, command: str, path: str) -> str:
        """The program a command names, never the workspace's though it runs there: a file of
        the plugin's directory, an absolute path, or a name on the absolute entries of PATH."""
        own = self.directory / command
        if own.is_file():
            return str(own)
        if os.path.isabs(command):
            return command
        if "/" in command:
            raise CommandFailed(
                f'"{command}" is not a file of the plugin ({self.directory}); a relative '
                "command is never looked up in the workspace"
            )
        try:
            return find(command, path)
        except NotFound as exc:
            raise CommandFailed(f"cannot start {command}: {exc}") from None


def parse_output(text: str) -> Output:
    stripped = text.strip()
    if not stripped.startswith("{"):
        return Output(text=stripped)
    try:
        data = json.loads(stripped)
    except ValueError:
        return Output(text=stripped)
    if data.get("error"):
        raise CommandFailed(str(data["error"]))
    surfaces = data.get("surfaces")
    prompt = data.get("prompt")
    return Output(
        text=str(data.get("text") or ""),
        prompt=str(prompt) if isinstance(prompt, str) and prompt.strip() else None,
        surfaces=list(surfaces) if isinstance(surfaces, list) else [],
    )


class PluginTool:
    """A plugin's tool as the model sees it (`<plugin>__<tool>`)."""

    access = "plugin"

    def __init__(
        self, plugin: Plugin, name: str, description: str, params: dict[str, Any], kind: str
    ) -> None:
        self.plugin, self.tool_name = plugin, name
        self.name = f"{plugin.id}__{name}"
        self.kind = kind
        self.schema = {
            "type": "function",
            "function": {"name": self.name, "description": description, "parameters": params},
        }
        self.command: tuple[str, ...] = ()

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"{self.tool_name} ({self.plugin.id})"

    def target(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return ctx.workspace.resolve(".")

    def grant_scope(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"plugin {self.plugin.id}/{self.tool_name}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        payload = {
            "event": "tool",
            "tool": self.tool_name,
            "arguments": args,
            "sessionId": ctx.session_id,
            "cwd": ctx.cwd,
        }
        try:
            wrap = ctx.sandbox.argv if ctx.sandbox is not None else None
            out = await self.plugin.run(self.command, payload, ctx.cwd, wrap)
        except CommandFailed as exc:
            raise ToolFailed(f"plugin {self.plugin.id}: {exc}") from None
        if out.surfaces and ctx.publish is not None:
            ctx.publish(self.plugin.id, out.surfaces)
        text = out.text or "(no output)"
        return ToolResult(
            text=text, content=[{"type": "content", "content": {"type": "text", "text": text}}]
        )
