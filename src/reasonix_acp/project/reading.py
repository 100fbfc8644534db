"""What a session knows of its project, read together: instructions (AGENTS.md), prompt
commands from files, skills. Read when a session opens (the command list sent right after its
answer offers the command files) and again by a reload; never during a turn."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from reasonix_acp.project import commands, instructions, skills
from reasonix_acp.redact import scrub_known


@dataclass(frozen=True)
class Project:
    """The project's instruction files, command files and skills, as read."""

    instructions: instructions.Instructions
    commands: commands.Found
    skills: skills.Skills

    @cached_property
    def _prompt(self) -> str:
        parts = (self.instructions.text, self.skills.listing())
        return scrub_known("\n\n".join(part for part in parts if part))

    def prompt(self) -> str:
        """What the system prompt says of the project: its instructions, then its skills, with
        every remembered secret redacted as a tool's output is (redact.py). Made once, so it
        stays the same bytes from request to request."""
        return self._prompt

    def describe(self) -> str:
        """For `/status`: the instruction files, and every project or user file not read."""
        return self.instructions.describe((*self.commands.refused, *self.skills.refused))


def read(cwd: str, extra: list[str], config_dir: str | None, reserved: Iterable[str]) -> Project:
    return Project(
        instructions.load(cwd, extra, config_dir),
        commands.load(cwd, config_dir, reserved, extra),
        skills.load(cwd, config_dir, extra),
    )
