"""Plugins: directories with a `plugin.toml` that add tools, slash commands, actions and hooks.

Where they come from: every `<config dir>/plugins/<dir>/plugin.toml`, and the directories
listed in config.toml as `[plugins] paths = ["/abs/dir", ...]`. They are read when the first
session opens and again by `_reasonix.io/session/reloadExtensions` (where any bad manifest fails
the reload and the old set stays); at start-up a bad manifest is skipped with a warning on
stderr. Nothing of a plugin is imported into the agent: each tool, action and hook is a
command the agent runs.

plugin.toml:

    id = "ci"                          # [a-z0-9][a-z0-9_-]*, not "mcp"; default: the dir name
    description = "CI helpers"
    timeout_seconds = 30               # for its commands (default 30)

    [tools.lint]                       # offered to the model as `ci__lint`
    description = "Lint a path"
    command = ["python3", "lint.py"]   # argv; a first word naming a file in the plugin dir runs it
    parameters = { type = "object", properties = { path = { type = "string" } } }
    kind = "execute"                   # the ACP tool kind shown (default "other")

    [commands.review]                  # `/ci:review src/app.py`: a prompt for the model
    description = "Review a file"
    hint = "path"
    prompt = "Review $ARGUMENTS and list the risks."   # $ARGUMENTS, $1 ... $9

    [actions.deploy]                   # `/ci:deploy target=staging`: a command the agent runs
    label = "Deploy"
    command = ["python3", "deploy.py"]
    form = [{ key = "target", label = "Target", options = ["staging", "production"] }]

    [hooks]                            # commands run at these moments
    session_start = ["python3", "hook.py"]
    turn_end = ["python3", "hook.py"]
    session_end = ["python3", "hook.py"]

The command protocol: the command runs in the session's cwd with `REASONIX_PLUGIN_DIR` and
`REASONIX_SESSION_ID` set; its stdin is one JSON object, closed after writing:
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
Tools go through the permission gate like MCP tools: they ask unless the preset is full access.
Action form fields are filled from `key=value` words first, then asked one by one through
`session/request_permission` (fields with `options`), else take their `default`; a required
field left empty fails the action before it runs.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reasonix_acp.redact import child_env
from reasonix_acp.tools.base import ToolContext, ToolFailed, ToolResult

log = logging.getLogger("reasonix_acp.plugins.manifest")

PLUGIN_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,47}$")
HOOKS = ("session_start", "turn_end", "session_end")
OUTPUT_LIMIT = 1024 * 1024
KINDS = ("read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other")


class PluginError(ValueError):
    """A manifest that cannot be used; the message names the file and the key."""


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
        first = self.directory / argv[0]
        argv = (str(first), *argv[1:]) if first.is_file() else argv
        if wrap is not None:
            argv = tuple(wrap(list(argv), cwd))
        env = {
            **child_env(),
            "REASONIX_PLUGIN_DIR": str(self.directory),
            "REASONIX_SESSION_ID": str(payload.get("sessionId", "")),
        }
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
            cause = err.decode("utf-8", "replace").strip()[-2000:] or f"exit {proc.returncode}"
            raise CommandFailed(cause)
        return parse_output(out[:OUTPUT_LIMIT].decode("utf-8", "replace"))


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
        return f"{self.plugin.id}: {self.tool_name}"

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


# -- manifests ---------------------------------------------------------------------------------


def _argv(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise PluginError(f"{where}: expected a non-empty list of strings (an argv)")
    return tuple(value)


def _table(data: Any, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise PluginError(f"{where}: expected a table")
    return data


def _text(table: dict[str, Any], key: str, where: str, default: str = "") -> str:
    value = table.get(key, default)
    if not isinstance(value, str):
        raise PluginError(f"{where}.{key}: expected a string")
    return value


def _names(table: dict[str, Any], where: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for name, body in _table(table, where).items():
        if not NAME.match(name):
            raise PluginError(f"{where}.{name}: names are letters, digits, _ and -")
        out.append((name, _table(body, f"{where}.{name}")))
    return out


def _form(value: Any, where: str) -> tuple[FormField, ...]:
    if not isinstance(value, list):
        raise PluginError(f"{where}: expected a list of fields")
    fields = []
    for i, raw in enumerate(value):
        at = f"{where}[{i}]"
        entry = _table(raw, at)
        key = _text(entry, "key", at)
        if not NAME.match(key):
            raise PluginError(f"{at}.key: expected a name")
        options = entry.get("options", [])
        if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            raise PluginError(f"{at}.options: expected a list of strings")
        default = entry.get("default")
        required = entry.get("required", True)
        if not isinstance(required, bool):
            raise PluginError(f"{at}.required: expected true or false")
        fields.append(
            FormField(
                key,
                _text(entry, "label", at, key),
                tuple(options),
                None if default is None else str(default),
                required,
            )
        )
    return tuple(fields)


def parse_manifest(directory: Path, data: dict[str, Any]) -> Plugin:
    where = str(directory / "plugin.toml")
    known = {"id", "description", "timeout_seconds", "tools", "commands", "actions", "hooks"}
    for key in data:
        if key not in known:
            raise PluginError(f"{where}: unknown key {key}")
    plugin_id = _text(data, "id", where, directory.name)
    if not PLUGIN_ID.match(plugin_id) or plugin_id == "mcp":
        raise PluginError(f"{where}: id {plugin_id!r} is not a plugin id ([a-z0-9_-], not mcp)")
    timeout = data.get("timeout_seconds", 30)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise PluginError(f"{where}: timeout_seconds must be a positive number")
    plugin = Plugin(plugin_id, directory, _text(data, "description", where), float(timeout))
    for name, body in _names(data.get("tools", {}), f"{where}: tools"):
        at = f"{where}: tools.{name}"
        params = body.get("parameters", {"type": "object", "properties": {}})
        kind = _text(body, "kind", at, "other")
        if not isinstance(params, dict) or params.get("type") != "object":
            raise PluginError(f"{at}.parameters: expected a JSON schema of type object")
        if kind not in KINDS:
            raise PluginError(f"{at}.kind: expected one of {', '.join(KINDS)}")
        tool = PluginTool(plugin, name, _text(body, "description", at, name), params, kind)
        tool.command = _argv(body.get("command"), f"{at}.command")
        plugin.tools.append(tool)
    for name, body in _names(data.get("commands", {}), f"{where}: commands"):
        at = f"{where}: commands.{name}"
        prompt = _text(body, "prompt", at)
        if not prompt.strip():
            raise PluginError(f"{at}.prompt: expected the prompt text")
        hint = body.get("hint")
        plugin.templates[name] = Template(
            name,
            _text(body, "description", at, f"Run the {plugin_id}:{name} command"),
            prompt,
            hint if isinstance(hint, str) and hint else None,
        )
    for name, body in _names(data.get("actions", {}), f"{where}: actions"):
        at = f"{where}: actions.{name}"
        if name in plugin.templates:
            raise PluginError(f"{at}: a command of this plugin has the same name")
        plugin.actions[name] = Action(
            name,
            _text(body, "label", at, f"Run the {plugin_id}:{name} extension action"),
            _argv(body.get("command"), f"{at}.command"),
            _form(body.get("form", []), f"{at}.form"),
        )
    for hook, argv in _table(data.get("hooks", {}), f"{where}: hooks").items():
        if hook not in HOOKS:
            raise PluginError(f"{where}: hooks.{hook}: expected one of {', '.join(HOOKS)}")
        plugin.hooks[hook] = _argv(argv, f"{where}: hooks.{hook}")
    return plugin


def discover(roots: list[Path], *, strict: bool) -> list[Plugin]:
    """The plugins of these directories (each a plugin, or holding plugin directories), in a
    stable order. `strict`: the first bad manifest raises PluginError; else it is skipped."""
    dirs: list[Path] = []
    for root in roots:
        if (root / "plugin.toml").is_file():
            dirs.append(root)
        elif root.is_dir():
            dirs += sorted(p.parent for p in root.glob("*/plugin.toml"))
        elif strict:
            raise PluginError(f"{root}: no plugin.toml there")
    found: dict[str, Plugin] = {}
    for directory in dirs:
        try:
            with open(directory / "plugin.toml", "rb") as fh:
                plugin = parse_manifest(directory, tomllib.load(fh))
            if plugin.id in found:
                raise PluginError(f"{directory}: plugin id {plugin.id} is already taken")
        except (OSError, tomllib.TOMLDecodeError, PluginError) as exc:
            text = str(exc) if isinstance(exc, PluginError) else f"{directory}/plugin.toml: {exc}"
            if strict:
                raise PluginError(text) from None
            log.warning("skipping plugin: %s", text)
            continue
        found[plugin.id] = plugin
    return list(found.values())
