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
session opens and by its reload, as the instructions are, and only where they really are, links
resolved: a project's inside the project and workspace, a user's inside the config directory;
a SKILL.md that is not is left out and named (`refused`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from reasonix_acp.project.commands import NAME, front_matter
from reasonix_acp.project.instructions import (
    PROJECT,
    USER,
    Refused,
    bounds,
    read_within,
    repository_root,
)

MAX_BYTES = 256 * 1024  # a SKILL.md larger than this is not offered


@dataclass(frozen=True)
class Skill:
    """One skill: its name and description, and where its SKILL.md is."""

    name: str
    description: str
    path: str  # its SKILL.md
    real: str = ""  # its SKILL.md's real path, checked when it was found (the tool reads this)


@dataclass(frozen=True)
class Skills:
    """The skills a session offers, and those left out and why."""

    found: tuple[Skill, ...] = ()
    shadowed: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()  # the SKILL.md files not read, each with why

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


def _folder(directory: str, roots: tuple[str, ...], where: str, refused: list[str]) -> list[Skill]:
    try:
        entries = sorted(os.listdir(directory))
    except OSError:
        return []
    found = []
    for entry in entries:
        path = os.path.join(directory, entry, "SKILL.md")
        try:
            real, size, data = read_within(path, roots, MAX_BYTES + 1, where)
        except Refused as exc:
            refused.append(exc.note)
            continue
        except OSError:
            continue
        if size > MAX_BYTES or len(data) > MAX_BYTES:
            continue
        fields, _ = front_matter(data.decode("utf-8", "replace"))
        name = fields.get("name") or entry
        description = fields.get("description", "").strip()
        if NAME.fullmatch(name) and description:
            found.append(Skill(name, description, path, real))
    return found


def load(cwd: str, config_dir: str | None, extra: Iterable[str] = ()) -> Skills:
    base = repository_root(cwd) or cwd
    where = bounds(cwd, extra, config_dir)
    folders = [
        (os.path.join(base, ".reasonix", "skills"), where.project, PROJECT),
        (os.path.join(base, ".agents", "skills"), where.project, PROJECT),
    ]
    if config_dir:
        folders.append((os.path.join(config_dir, "skills"), where.user, USER))
    taken: dict[str, str] = {}
    found: list[Skill] = []
    shadowed: list[str] = []
    refused: list[str] = []
    for folder, roots, named in folders:
        for skill in _folder(folder, roots, named, refused):
            if skill.name in taken:
                shadowed.append(f"skill {skill.name} from {skill.path} ({taken[skill.name]} wins)")
                continue
            taken[skill.name] = skill.path
            found.append(skill)
    return Skills(tuple(found), tuple(shadowed), tuple(refused))
