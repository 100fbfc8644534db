"""What a session knows of its project, read together: instructions (AGENTS.md), prompt
commands from files, skills. Read when a session opens (the command list sent right after its
answer offers the command files) and again by a reload; never during a turn."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reasonix_acp.project import commands, instructions, skills


@dataclass(frozen=True)
class Project:
    """The project's instruction files, command files and skills, as read."""

    instructions: instructions.Instructions
    commands: commands.Found
    skills: skills.Skills

    def prompt(self) -> str:
        """What the system prompt says of the project: its instructions, then its skills."""
        parts = (self.instructions.text, self.skills.listing())
        return "\n\n".join(part for part in parts if part)


def read(cwd: str, extra: list[str], config_dir: str | None, reserved: Iterable[str]) -> Project:
    return Project(
        instructions.load(cwd, extra, config_dir),
        commands.load(cwd, config_dir, reserved),
        skills.load(cwd, config_dir),
    )
