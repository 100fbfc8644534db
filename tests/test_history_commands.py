"""Agent commands (`/status`, `/help`, `/mcp`, `/rewind N`, answered by the agent, not the
model) never enter the model's history, live or loaded, wherever they come in a session: first,
two in a row first, between model turns, or right after a rewind went back to before every
model turn. After a load (in a new process or the same one) the next request starts with the
bytes the live session sent last, so the provider's cached prefix still holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.client import Client
from tests.deepseek_server import DeepSeek
from tests.test_deepseek import agent, config, prompt, stable

COMMANDS = ("/status", "/help", "/mcp", "/rewind")
SEQUENCES = {
    "status first": ["/status", "hello"],
    "help first": ["/help", "hello"],
    "mcp first": ["/mcp", "hello"],
    "rewind that cannot go back first": ["/rewind 1", "hello"],
    "two commands first": ["/status", "/help", "hello"],
    "between two turns": ["hello", "/status", "again"],
    "a rewind back to after a command": ["/status", "hello", "again", "/rewind 1", "more"],
    "after a rewind of every turn": ["hello", "/rewind 1", "again"],
    "last": ["hello", "/status"],
}


def said(body: bytes) -> list[str]:
    """The contents of a request's messages after the system one."""
    return [str(m.get("content")) for m in json.loads(body)["messages"][1:]]


def reopened(c: Client, sid: str, tmp: Path, same: bool) -> Client:
    """The session loaded again: in the same process, or in a new one after a SIGKILL."""
    if not same:
        c.kill()
        c = Client(tmp, scenario=c.scenario)
        c.result("initialize", {"protocolVersion": 1})
    cwd = c.scenario.vars["CWD"]
    c.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
    return c


@pytest.mark.parametrize("same", [False, True], ids=["new process", "same process"])
@pytest.mark.parametrize("texts", SEQUENCES.values(), ids=SEQUENCES.keys())
def test_an_agent_command_stays_out_of_the_history_live_and_loaded(
    tmp_path: Path, texts: list[str], same: bool
) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        sid = c.start()
        for text in texts:
            assert prompt(c, sid, text)["result"] == {"stopReason": "end_turn"}, text
        live = server.bodies[-1]
        c = reopened(c, sid, tmp_path, same)
        start = len(server.bodies)
        assert prompt(c, sid, "and now?")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    assert server.refused == []
    for body in server.bodies:
        assert not any(m.startswith(COMMANDS) for m in said(body)), said(body)
    assert server.bodies[start].startswith(stable(live)), (said(live), said(server.bodies[start]))
