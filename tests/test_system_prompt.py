"""A client's `systemPrompt` (unstable, advertised as `sessionCapabilities.systemPrompt`) on
session/new, load, resume and fork, through a real `acp` against the local OpenAI-compatible
server, driven as raw JSON-RPC (the official Python SDK, agent-client-protocol 0.12.1, has no
such field). Only `append` is offered: the text follows the agent's own instructions and the
project's in the system message, is stored with the session so that a load or resume without one
sends the same bytes, and a load, resume or fork that gives one replaces it from then on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.sse_server import Server
from tests.transcript import Scenario

RULE = "Client rule: answer in haiku.\n  (kept as given)"


def _append(*texts: str) -> dict[str, Any]:
    return {"mode": "append", "content": [{"type": "text", "text": t} for t in texts]}


def _client(tmp: Path, server: Server, scenario: Scenario | None = None) -> Client:
    scenario = scenario or Scenario(tmp)
    scenario.env.update({"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-system-prompt-1"})
    c = Client(tmp, "--model", "openai/m1", scenario=scenario)
    c.result("initialize", {"protocolVersion": 1})
    return c


def _open(c: Client, method: str, **params: Any) -> dict[str, Any]:
    return c.call(method, {"cwd": c.scenario.vars["CWD"], "mcpServers": [], **params})


def _prompt(c: Client, sid: str, text: str) -> None:
    answer = c.call(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
    )
    assert answer["result"] == {"stopReason": "end_turn"}, answer


def _system(body: bytes) -> str:
    message = json.loads(body)["messages"][0]
    assert message["role"] == "system"
    return str(message["content"])


def test_append_only_is_advertised(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    init = c.result("initialize", {"protocolVersion": 1})
    assert init["agentCapabilities"]["sessionCapabilities"]["systemPrompt"] == {}
    assert c.close() == 0


def test_appended_text_follows_the_agents_instructions_and_survives_a_load(
    tmp_path: Path,
) -> None:
    with Server() as server:
        c = _client(tmp_path, server)
        sid = _open(c, "session/new", systemPrompt=_append(RULE, "Second block."))["result"][
            "sessionId"
        ]
        _prompt(c, sid, "first")
        _prompt(c, sid, "second")
        assert c.close() == 0
        again = _client(tmp_path, server, c.scenario)
        assert "result" in _open(again, "session/load", sessionId=sid)
        _prompt(again, sid, "third")
        assert again.close() == 0
    one, two, three = (_system(b) for b in server.bodies)
    assert one.startswith("You are Reasonix") and one.endswith(f"{RULE}\n\nSecond block.")
    assert one == two == three, "the same bytes, stored with the session"


def test_a_load_resume_or_fork_that_gives_one_replaces_it_from_then_on(tmp_path: Path) -> None:
    with Server() as server:
        c = _client(tmp_path, server)
        sid = _open(c, "session/new", systemPrompt=_append(RULE))["result"]["sessionId"]
        _prompt(c, sid, "first")
        assert c.close() == 0
        again = _client(tmp_path, server, c.scenario)
        assert "result" in _open(again, "session/resume", sessionId=sid, systemPrompt=_append("B"))
        _prompt(again, sid, "second")
        fork = _open(again, "session/fork", sessionId=sid)["result"]["sessionId"]
        _prompt(again, fork, "in the fork")
        other = _open(again, "session/fork", sessionId=sid, systemPrompt=_append("C"))
        _prompt(again, other["result"]["sessionId"], "in the other fork")
        assert "result" in _open(again, "session/load", sessionId=sid, systemPrompt=_append("D"))
        _prompt(again, sid, "third")
        assert again.close() == 0
    first, second, forked, other_fork, third = (_system(b) for b in server.bodies)
    assert first.endswith(RULE)
    assert second.endswith("\n\nB") and RULE not in second
    assert forked == second, "a fork without one keeps the source's"
    assert other_fork.endswith("\n\nC") and third.endswith("\n\nD")


def test_what_cannot_be_applied_is_refused_and_nothing_is_opened(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    sid = c.start()
    image = {"type": "image", "data": "aGk=", "mimeType": "image/png"}
    bad = [
        {"mode": "override", "content": [{"type": "text", "text": "x"}]},
        {"mode": "_ours", "content": [{"type": "text", "text": "x"}]},
        {"mode": "append", "content": []},
        {"mode": "append", "content": [image]},
    ]
    for prompt in bad:
        error = _open(c, "session/new", systemPrompt=prompt)["error"]
        assert error["code"] == -32602 and "systemPrompt" in error["message"], error
        error = _open(c, "session/fork", sessionId=sid, systemPrompt=prompt)["error"]
        assert error["code"] == -32602 and "systemPrompt" in error["message"], error
    sessions = c.result("session/list", {})["sessions"]
    assert [s["sessionId"] for s in sessions] == [sid]
    assert c.close() == 0
