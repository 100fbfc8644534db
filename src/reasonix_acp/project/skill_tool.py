"""`skill`: the tool the model reads a skill with (project/skills.py): the body of its SKILL.md
and the files beside it. Loaded with the turn, not when a session opens."""

from __future__ import annotations

import os
from typing import Any

from reasonix_acp.project.commands import front_matter
from reasonix_acp.project.skills import MAX_BYTES, Skill, Skills
from reasonix_acp.safe_read import read_regular
from reasonix_acp.tools.base import ToolContext, ToolFailed, ToolResult, function_schema

MAX_FILES = 100  # files beside SKILL.md named by the tool


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
        try:  # the real path checked when it was found; a regular file only, never waited on
            real = skill.real or os.path.realpath(skill.path)
            _, data = read_regular(real, MAX_BYTES, follow=False)
        except OSError as exc:
            raise ToolFailed(f"skill: {skill.path} cannot be read: {exc.strerror}") from None
        _, body = front_matter(data.decode("utf-8", "replace"))
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
