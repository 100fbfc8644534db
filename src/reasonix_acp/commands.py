"""Slash commands: advertised with `available_commands_update` after every session opening, and
run by the agent itself when a prompt's text starts with one (the model is not called)."""

from __future__ import annotations

from typing import Any

COMMANDS: list[tuple[str, str]] = [
    ("help", "List the commands this agent understands"),
    ("status", "Show the session's model, mode, permissions and transcript size"),
    ("mcp", "Show the MCP servers this session was given"),
    ("continue-checks", "Continue a paused final-readiness check"),
]


def available() -> list[dict[str, Any]]:
    return [{"name": name, "description": description} for name, description in COMMANDS]


def parse(text: str) -> tuple[str, str] | None:
    """(command, the rest) when `text` starts with a known command."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, rest = stripped[1:].partition(" ")
    if name not in {n for n, _ in COMMANDS}:
        return None
    return name, rest.strip()


def help_text() -> str:
    return "Commands:\n" + "\n".join(f"/{name} — {description}" for name, description in COMMANDS)
