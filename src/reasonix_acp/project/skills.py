"""Skills (the Agent Skills layout): a folder holding `SKILL.md`, whose front matter gives its
`name` and `description`, and whatever files the skill uses beside it.

Where they are, in this order (a name already taken is left out and reported): the project's
`.reasonix/skills/*/` and `.agents/skills/*/` (at the repository root, or the cwd outside a
repository), then the user's `skills/*/` in the agent's config directory. A skill without a
description is not offered (the model could not know when to use it).

The model is given each skill's name and description in the system prompt (`listing`), and
reads one with the `skill` tool (project/skill_tool.py) when it fits the task: the body of `SKILL.md` and the names of
the files beside it, which it may then `read`. The tool is a read behind the normal permission
gate (a user's skill outside the workspace is asked for like any read there). Read when a
session opens and by its reload, as the instructions are.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from reasonix_acp.project.commands import NAME, front_matter
from reasonix_acp.project.instructions import repository_root

MAX_BYTES = 256 * 1024  # a SKILL.md larger than this is not offered


@dataclass(frozen=True)
class Skill:
    """One skill: its name and description, and where its SKILL.md is."""

    name: str
    description: str
    path: str  # its SKILL.md


@dataclass(frozen=True)
class Skills:
    """The skills a session offers, and those left out and why."""

    found: tuple[Skill, ...] = ()
    shadowed: tuple[str, ...] = ()

    def listing(self) -> str:
        """The system prompt's part about skills ("" when there is none)."""
        if not self.found:
            return ""
        lines = [
            "# Skills",
            "Read a skill with the `skill` tool when its description fits the task, then follow it.",
            *(f"- {s.name}: {s.description}" for s in self.found),
        ]
        return "\n".join(lines)

    def get(self, name: str) -> Skill | None:
        return next((s for s in self.found if s.name == name), None)


def _folder(directory: str) -> list[Skill]:
    try:
        entries = sorted(os.listdir(directory))
    except OSError:
        return []
    found = []
    for entry in entries:
        path = os.path.join(directory, entry, "SKILL.md")
        try:
            if not os.path.isfile(path) or os.path.getsize(path) > MAX_BYTES:
                continue
            with open(path, encoding="utf-8", errors="replace") as fh:
                fields, _ = front_matter(fh.read())
        except OSError:
            continue
        name = fields.get("name") or entry
        description = fields.get("description", "").strip()
        if NAME.fullmatch(name) and description:
            found.append(Skill(name, description, path))
    return found


def load(cwd: str, config_dir: str | None) -> Skills:
    base = repository_root(cwd) or cwd
    folders = [os.path.join(base, ".reasonix", "skills"), os.path.join(base, ".agents", "skills")]
    if config_dir:
        folders.append(os.path.join(config_dir, "skills"))
    taken: dict[str, str] = {}
    found: list[Skill] = []
    shadowed: list[str] = []
    for folder in folders:
        for skill in _folder(folder):
            if skill.name in taken:
                shadowed.append(f"skill {skill.name} from {skill.path} ({taken[skill.name]} wins)")
                continue
            taken[skill.name] = skill.path
            found.append(skill)
    return Skills(tuple(found), tuple(shadowed))
