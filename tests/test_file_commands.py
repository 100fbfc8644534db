"""Prompt commands from files, through a real `acp` on the offline model: advertised with their
descriptions and input hints, `/NAME args` sends the expanded text to the model (and a load
replays it as sent), names never collide silently, a reload picks up a new file."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from reasonix_acp.project.commands import front_matter
from tests.client import Client
from tests.transcript import Scenario, acp_command

REVIEW = """---
description: Review a file for bugs
argument-hint: <path>
---
Review $ARGUMENTS for bugs and say what you found.
"""


def _agent(tmp: Path) -> tuple[Client, Path, Path]:
    scenario = Scenario(tmp)
    repo = Path(scenario.vars["CWD"])
    (repo / ".git").mkdir()
    project = repo / ".reasonix" / "commands"
    project.mkdir(parents=True)
    (project / "review.md").write_text(REVIEW)
    (project / "help.md").write_text("a project /help loses to the agent's own\n")
    user = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"]) / "commands"
    user.mkdir(parents=True)
    (user / "review.md").write_text("the user's /review loses to the project's\n")
    (user / "standup.md").write_text("Summarise what changed since yesterday.\n")
    (user / "bad name.md").write_text("not a command name\n")
    return Client(tmp, "--model", "offline", scenario=scenario), repo, user


def updates(c: Client, kind: str) -> list[dict[str, Any]]:
    return [
        n["params"]["update"]
        for n in c.notes
        if n.get("method") == "session/update" and n["params"]["update"]["sessionUpdate"] == kind
    ]


def said(c: Client) -> str:
    return "".join(u["content"]["text"] for u in updates(c, "agent_message_chunk"))


def _prompt(c: Client, sid: str, text: str) -> None:
    reply = c.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})
    assert reply["result"] == {"stopReason": "end_turn"}, reply


def test_file_commands_are_offered_run_and_replayed(tmp_path: Path) -> None:
    c, repo, _ = _agent(tmp_path)
    sid = c.start()
    c.result("session/list", {})  # the commands update follows session/new's answer
    offered = updates(c, "available_commands_update")[-1]["availableCommands"]
    by_name = {entry["name"]: entry for entry in offered}
    assert by_name["review"] == {
        "name": "review",
        "description": "Review a file for bugs",
        "input": {"hint": "<path>"},
    }
    assert by_name["standup"]["description"].startswith("Prompt from ")
    assert by_name["help"]["description"] == "List the commands this agent understands"
    assert "bad name" not in by_name
    _prompt(c, sid, "/review src/app.py")
    assert "Offline reply: Review src/app.py for bugs and say what you found." in said(c)
    c.take_notes()
    _prompt(c, sid, "/help")
    help_text = said(c)
    assert "/review — Review a file for bugs" in help_text
    assert (
        f"/help from {repo}/.reasonix/commands/help.md (the agent's own command wins)" in help_text
    )
    assert "/review from " in help_text and "(the project's " in help_text
    assert c.close() == 0
    again = Client(tmp_path, "--model", "offline", scenario=c.scenario)
    again.result("initialize", {"protocolVersion": 1})
    again.result("session/load", {"sessionId": sid, "cwd": str(repo), "mcpServers": []})
    replayed = [u["content"]["text"] for u in updates(again, "user_message_chunk")]
    assert replayed[0] == "Review src/app.py for bugs and say what you found."
    assert again.close() == 0


def test_a_reload_picks_up_a_new_command_file(tmp_path: Path) -> None:
    c, repo, _ = _agent(tmp_path)
    sid = c.start()
    (repo / ".reasonix" / "commands" / "ship.md").write_text(
        "---\ndescription: Ship it\n---\nShip.\n"
    )
    c.result("_reasonix.io/session/reloadExtensions", {"sessionId": sid})
    c.result("session/list", {})  # the commands update follows the reload's answer
    offered = updates(c, "available_commands_update")[-1]["availableCommands"]
    assert {"name": "ship", "description": "Ship it"} in offered
    _prompt(c, sid, "/ship now")
    assert "Offline reply: Ship." in said(c)
    assert c.close() == 0


def test_doctor_lists_the_commands_and_what_is_shadowed(tmp_path: Path) -> None:
    c, repo, user = _agent(tmp_path)
    done = subprocess.run(
        [*acp_command(), "doctor"],
        cwd=repo,
        env={**os.environ, **c.scenario.env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "prompt commands from files: /review (project), /standup (user)" in done.stdout
    assert f"not offered: /review from {user}/review.md (the project's " in done.stdout
    c.close()


def test_front_matter() -> None:
    assert front_matter("---\ndescription: 'x: y'\nargument-hint: <a>\n---\nbody\n") == (
        {"description": "x: y", "argument-hint": "<a>"},
        "body",
    )
    assert front_matter("no front matter\n") == ({}, "no front matter\n")
    assert front_matter("---\nunclosed: yes\n") == ({}, "---\nunclosed: yes\n")
