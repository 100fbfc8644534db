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
    from reasonix_acp.mcp_servers.prompts import PromptCommand
    from reasonix_acp.plugins.plugin import Action, Plugin, Template

COMMANDS: list[tuple[str, str]] = [
    ("help", "List the commands this agent understands"),
    (
        "status",
        "Show the session's model and effort, mode, permissions, stored turns, folder, "
        "sandbox, goal, project instructions and background commands",
    ),
    ("mcp", "Show the MCP servers this session was given"),
    ("compact", "Summarise the older part of the conversation to free context"),
    ("rewind", "Go back N prompts (1 if not given): put back the files they changed"),
    ("continue-checks", "Continue a paused final-readiness check"),
    ("recover-context", "Resume the turn that was interrupted when the agent stopped"),
]
# Answered by the agent alone: they start no model turn and leave pending recoveries open.
LOCAL = frozenset({"help", "status", "mcp", "rewind"})


def _entry(name: str, description: str, hint: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "description": description}
    if hint:
        entry["input"] = {"hint": hint}
    return entry


def names() -> list[str]:
    """The agent's own command names: a file command of the same name is left out."""
    return [name for name, _ in COMMANDS]


def available(
    plugins: Sequence[Plugin] = (),
    files: Found | None = None,
    prompts: Sequence[PromptCommand] = (),
) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = [_entry(name, text, None) for name, text in COMMANDS]
    listed += [_entry(c.name, c.description, c.hint) for c in (files.commands if files else ())]
    listed += [_entry(c.name, c.description, c.hint) for c in prompts]
    extra: list[dict[str, Any]] = []
    for plugin in plugins:
        for template in plugin.templates.values():
            extra.append(
                _entry(f"{plugin.id}:{template.name}", template.description, template.hint)
            )
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
    plugins: Sequence[Plugin] = (),
    files: Found | None = None,
    shadowed: Sequence[str] = (),
    prompts: Sequence[PromptCommand] = (),
) -> str:
    """The command list, and what a name taken first left out (commands, skills, prompts)."""
    text = "Commands:\n" + "\n".join(
        f"/{c['name']} — {c['description']}" for c in available(plugins, files, prompts)
    )
    left_out = [*(files.shadowed if files else ()), *shadowed]
    if left_out:
        text += "\nNot offered (one of the same name wins):\n" + "\n".join(left_out)
    return text
