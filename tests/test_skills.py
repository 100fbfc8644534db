"""Skills through a real `acp`: listed in the system prompt (the local OpenAI-compatible server
sees it), read with the `skill` tool (offline model), names never collide silently."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reasonix_acp.project.skills import load
from tests.client import Client
from tests.sse_server import Server
from tests.tools.driver import agent, prompt
from tests.transcript import Scenario

RELEASE = """---
name: release
description: Cut a release: bump the version, tag, write the notes
---
1. Bump the version in pyproject.toml.
2. Run scripts/notes.sh.
"""


def _skills(repo: Path, config: Path) -> None:
    (repo / ".git").mkdir(exist_ok=True)
    release = repo / ".reasonix" / "skills" / "release"
    (release / "scripts").mkdir(parents=True)
    (release / "SKILL.md").write_text(RELEASE)
    (release / "scripts" / "notes.sh").write_text("echo notes\n")
    other = repo / ".agents" / "skills" / "release"  # same name: the first folder wins
    other.mkdir(parents=True)
    (other / "SKILL.md").write_text("---\nname: release\ndescription: another\n---\nx\n")
    undescribed = repo / ".agents" / "skills" / "vague"
    undescribed.mkdir(parents=True)
    (undescribed / "SKILL.md").write_text("no front matter, no description\n")
    mine = config / "skills" / "tidy"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text("---\ndescription: Tidy imports\n---\nSort them.\n")


def test_skills_are_found_in_order_and_a_taken_name_is_reported(tmp_path: Path) -> None:
    repo, config = tmp_path / "repo", tmp_path / "config"
    repo.mkdir()
    _skills(repo, config)
    found = load(str(repo), str(config))
    assert [(s.name, s.description) for s in found.found] == [
        ("release", "Cut a release: bump the version, tag, write the notes"),
        ("tidy", "Tidy imports"),
    ]
    assert len(found.shadowed) == 1 and ".agents/skills/release/SKILL.md" in found.shadowed[0]


def test_the_system_prompt_lists_the_skills(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    _skills(Path(scenario.vars["CWD"]), Path(scenario.env["REASONIX_ACP_CONFIG_DIR"]))
    with Server() as server:
        scenario.env.update({"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-skills-1234"})
        c = Client(tmp_path, "--model", "openai/m1", scenario=scenario)
        sid = c.start()
        params = {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
        assert c.result("session/prompt", params) == {"stopReason": "end_turn"}
        assert c.close() == 0
    body = json.loads(server.bodies[0])
    system = body["messages"][0]["content"]
    assert "# Skills" in system
    assert "- release: Cut a release: bump the version, tag, write the notes" in system
    assert "- tidy: Tidy imports" in system and "another" not in system
    assert "skill" in [t["function"]["name"] for t in body["tools"]]


def test_the_skill_tool_reads_the_instructions_and_names_the_files(tmp_path: Path) -> None:
    turns = [
        {"steps": [{"tool_call": {"name": "skill", "arguments": {"name": wanted}}}]}
        for wanted in ("release", "nope")
    ]
    c = agent(tmp_path, turns)
    _skills(Path(c.scenario.vars["CWD"]), Path(c.scenario.env["REASONIX_ACP_CONFIG_DIR"]))
    sid = c.start()

    def never(params: dict[str, Any]) -> str:
        raise AssertionError(f"a skill in the workspace is read without a question: {params}")

    _, results = prompt(c, sid, never)
    text = results[0]["content"][0]["content"]["text"]
    assert results[0]["status"] == "completed"
    assert "1. Bump the version in pyproject.toml." in text and "description:" not in text
    assert text.rstrip().endswith("scripts/notes.sh")
    _, results = prompt(c, sid, never)
    assert results[0]["status"] == "failed"
    assert (
        "no skill named 'nope'; the skills are: release, tidy"
        in (results[0]["content"][0]["content"]["text"])
    )
    assert c.close() == 0
