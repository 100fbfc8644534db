"""Slash commands: advertised with `available_commands_update` after every session opening, and
run by the agent itself when a prompt's text starts with one (the model is not called).

Prompt commands from files (project/commands.py) follow the agent's own: `/NAME args` sends the
file's text to the model. Plugins add theirs as `/<plugin>:<name>` (plugins.py): prompt templates, sent to the model
expanded, and actions, run by the agent. They follow the agent's own, sorted by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from reasonix_acp.project.commands import FileCommand, Found

if TYPE_CHECKING:
    from reasonix_acp.plugins.manifest import Action, Plugin, Template

COMMANDS: list[tuple[str, str]] = [
    ("help", "List the commands this agent understands"),
    ("status", "Show the session's model, mode, permissions and transcript size"),
    ("mcp", "Show the MCP servers this session was given"),
    ("continue-checks", "Continue a paused final-readiness check"),
    ("recover-context", "Resume the turn that was interrupted when the agent stopped"),
]
# Answered by the agent alone: they start no model turn and leave pending recoveries open.
LOCAL = frozenset({"help", "status", "mcp"})


def names() -> list[str]:
    """The agent's own command names: a file command of the same name is left out."""
    return [name for name, _ in COMMANDS]


def available(plugins: Sequence[Plugin] = (), files: Found | None = None) -> list[dict[str, Any]]:
    listed = [{"name": name, "description": description} for name, description in COMMANDS]
    for command in files.commands if files else ():
        entry: dict[str, Any] = {"name": command.name, "description": command.description}
        if command.hint:
            entry["input"] = {"hint": command.hint}
        listed.append(entry)
    extra: list[dict[str, Any]] = []
    for plugin in plugins:
        for template in plugin.templates.values():
            entry = {
                "name": f"{plugin.id}:{template.name}",
                "description": template.description,
            }
            if template.hint:
                entry["input"] = {"hint": template.hint}
            extra.append(entry)
        for action in plugin.actions.values():
            extra.append(
                {
                    "name": f"{plugin.id}:{action.name}",
                    "description": action.label,
                    "input": {"hint": "arguments"},
                }
            )
    return listed + sorted(extra, key=lambda e: str(e["name"]))


def plugin_entry(
    text: str, plugins: Sequence[Plugin]
) -> tuple[Plugin, Template | Action, str] | None:
    """(plugin, its template or action, the rest) when `text` starts with `/<plugin>:<name>`."""
    stripped = text.strip()
    if not stripped.startswith("/") or ":" not in stripped.split(" ", 1)[0]:
        return None
    head, _, rest = stripped[1:].partition(" ")
    plugin_id, _, name = head.partition(":")
    for plugin in plugins:
        if plugin.id == plugin_id:
            found = plugin.templates.get(name) or plugin.actions.get(name)
            return (plugin, found, rest.strip()) if found is not None else None
    return None


def parse(text: str) -> tuple[str, str] | None:
    """(command, the rest) when `text` starts with a known command."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, rest = stripped[1:].partition(" ")
    if name not in {n for n, _ in COMMANDS}:
        return None
    return name, rest.strip()


def file_entry(text: str, files: Found) -> tuple[FileCommand, str] | None:
    """(the command, the rest) when `text` starts with `/NAME` of a file command."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, rest = stripped[1:].partition(" ")
    for command in files.commands:
        if command.name == name:
            return command, rest.strip()
    return None


def help_text(
    plugins: Sequence[Plugin] = (), files: Found | None = None, shadowed: Sequence[str] = ()
) -> str:
    """The command list, and what a name taken first left out (commands, skills)."""
    text = "Commands:\n" + "\n".join(
        f"/{c['name']} — {c['description']}" for c in available(plugins, files)
    )
    left_out = [*(files.shadowed if files else ()), *shadowed]
    if left_out:
        text += "\nNot offered (one of the same name wins):\n" + "\n".join(left_out)
    return text
