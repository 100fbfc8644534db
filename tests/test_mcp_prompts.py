"""MCP prompts as slash commands, through a real `acp` and a real MCP server (stdio, the
official SDK): offered once the server has connected, arguments by position or name, what is
wrong said without calling the model, the prompt's text sent as the turn's input."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.client import Client
from tests.test_file_commands import said
from tests.test_mcp_servers import TOOLS
from tests.transcript import Scenario

PROMPTS = [{"name": "TEST_MCP_PROMPTS", "value": "1"}]


def _open(tmp: Path) -> tuple[Client, str]:
    """An offline agent whose session has the tools server, offering its prompts, as `docs`."""
    scenario = Scenario(tmp)
    c = Client(tmp, "--model", "offline", scenario=scenario)
    c.result("initialize", {"protocolVersion": 1})
    server = {"name": "docs", "command": sys.executable, "args": [TOOLS], "env": PROMPTS}
    params = {"cwd": scenario.vars["CWD"], "mcpServers": [server]}
    return c, c.result("session/new", params)["sessionId"]


def _prompt(c: Client, sid: str, text: str) -> str:
    c.take_notes()
    reply = c.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})
    assert reply["result"] == {"stopReason": "end_turn"}, reply
    return said(c)


def test_mcp_prompts_are_commands(tmp_path: Path) -> None:
    c, sid = _open(tmp_path)
    said = _prompt(c, sid, "/mcp__docs__review src/app.py")  # waits for the server, as a turn
    assert "Offline reply: Review src/app.py for bugs." in said
    assert "Offline reply: Review a.py for style." in _prompt(
        c, sid, '/mcp__docs__review focus=style "a.py"'
    )
    assert "/mcp__docs__review takes path [focus]: `path` is missing" in _prompt(
        c, sid, "/mcp__docs__review"
    )
    assert "too many words" in _prompt(c, sid, "/mcp__docs__review a b c")
    help_text = _prompt(c, sid, "/help")
    assert "/mcp__docs__review — Review a file." in help_text
    assert c.close() == 0


def test_the_command_list_is_sent_again_once_the_server_offers_prompts(tmp_path: Path) -> None:
    c, _ = _open(tmp_path)
    while True:  # the first list comes after the response, the second once connected
        frame = c.agent.receive()
        update = frame.get("params", {}).get("update", {})
        if update.get("sessionUpdate") != "available_commands_update":
            continue
        names = {e["name"]: e for e in update["availableCommands"]}
        if "mcp__docs__review" in names:
            break
    assert names["mcp__docs__review"] == {
        "name": "mcp__docs__review",
        "description": "Review a file.",
        "input": {"hint": "path [focus]"},
    }
    assert c.close() == 0
