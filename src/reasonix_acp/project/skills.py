"""Skills (the Agent Skills layout): a folder holding `SKILL.md`, whose front matter gives its
`name` and `description`, and whatever files the skill uses beside it.

Where they are, in this order (a name already taken is left out and reported): the project's
`.reasonix/skills/*/` and `.agents/skills/*/` (at the repository root, or the cwd outside a
repository), then the user's `skills/*/` in the agent's config directory. A skill without a
description is not offered (the model could not know when to use it).

The model is given each skill's name and description in the system prompt (`listing`), and
reads one with the `skill` tool when it fits the task: the body of `SKILL.md` and the names of
the files beside it, which it may then `read`. The tool is a read behind the normal permission
gate (a user's skill outside the workspace is asked for like any read there). Read when a
session opens and by its reload, as the instructions are.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from reasonix_acp.project.commands import NAME, front_matter
from reasonix_acp.project.instructions import repository_root
from reasonix_acp.tools.base import ToolContext, ToolFailed, ToolResult, function_schema

MAX_BYTES = 256 * 1024  # a SKILL.md larger than this is not offered
MAX_FILES = 100  # files beside SKILL.md named by the tool


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


class SkillTool:
    """`skill`: a skill's instructions, and the files beside them."""

    name = "skill"
    kind = "read"
    access = "read"
    schema = function_schema(
        "skill",
        "Read a skill's instructions (the skills are listed in the system prompt).",
        {"name": {"type": "string"}},
        ["name"],
    )

    def __init__(self, skills: Skills) -> None:
        self.skills = skills

    def _skill(self, args: dict[str, Any]) -> Skill:
        name = args.get("name")
        skill = self.skills.get(name) if isinstance(name, str) else None
        if skill is None:
            known = ", ".join(s.name for s in self.skills.found)
            raise ToolFailed(f"skill: no skill named {name!r}; the skills are: {known}")
        return skill

    def target(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return os.path.realpath(self._skill(args).path)

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"Read the skill {args.get('name')}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        skill = self._skill(args)
        with open(skill.path, encoding="utf-8", errors="replace") as fh:
            _, body = front_matter(fh.read())
        folder = os.path.dirname(skill.path)
        beside: list[str] = []
        for root, dirs, files in os.walk(folder):
            dirs.sort()
            beside += [os.path.join(root, n) for n in sorted(files)]
            if len(beside) > MAX_FILES:
                break
        beside = [p for p in beside if p != skill.path][:MAX_FILES]
        text = f"# Skill {skill.name} ({skill.path})\n{body.strip()}"
        if beside:
            text += "\n\nFiles of this skill (read them when its instructions say so):\n"
            text += "\n".join(f"- {p}" for p in beside)
        content = [{"type": "content", "content": {"type": "text", "text": text}}]
        return ToolResult(text=text, content=content, raw_output={"files": len(beside)})
