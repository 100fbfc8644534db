"""Plugins: directories with a `plugin.toml` that add tools, slash commands, actions and hooks;
how they are found and how their manifests are read (plugins/plugin.py runs them).

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
"""

from __future__ import annotations

import logging
import re
import tomllib
from pathlib import Path
from typing import Any

from reasonix_acp.plugins.plugin import Action, FormField, Plugin, PluginTool, Template

log = logging.getLogger("reasonix_acp.plugins.manifest")

PLUGIN_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,47}$")
HOOKS = ("session_start", "turn_end", "session_end")
KINDS = ("read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other")


class PluginError(ValueError):
    """A manifest that cannot be used; the message names the file and the key."""


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
