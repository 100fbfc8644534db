"""`session/fork` (unstable in the schema, advertised as `sessionCapabilities.fork`): a new
session whose transcript is a copy of the source's as stored, with its own id and lease; its
model reads the source's history; the source is untouched by what the fork does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.sse_server import Server
from tests.test_context_window import endpoint_client
from tests.test_sessions import updates_of


def prompt(c: Client, sid: str, text: str) -> None:
    answer = c.call(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
    )
    assert answer["result"] == {"stopReason": "end_turn"}, answer


def shown(c: Client, sid: str) -> list[Any]:
    """What a load replays of a session: its messages, in order."""
    c.take_notes()
    cwd = c.scenario.vars["CWD"]
    c.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
    return [
        (u["sessionUpdate"], u["content"].get("text"))
        for u in updates_of(c.take_notes(), sid)
        if u["sessionUpdate"] in ("user_message_chunk", "agent_message_chunk")
    ]


def test_a_fork_carries_the_history_on_and_leaves_the_source_as_it_was(tmp_path: Path) -> None:
    with Server() as server:
        server.models = ["m1"]
        c = endpoint_client(tmp_path, server)
        init = c.result("initialize", {"protocolVersion": 1})
        assert init["agentCapabilities"]["sessionCapabilities"]["fork"] == {}
        cwd = c.scenario.vars["CWD"]
        source = c.result("session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]
        prompt(c, source, "first")
        before = shown(c, source)
        forked = c.result("session/fork", {"sessionId": source, "cwd": cwd, "mcpServers": []})
        fork = forked["sessionId"]
        assert fork != source
        assert forked["configOptions"][0]["id"] == "mode"
        assert "models" not in forked
        assert shown(c, fork) == before  # the same transcript

        prompt(c, fork, "only in the fork")
        sent = json.loads(server.bodies[-1])["messages"]
        first = json.loads(server.bodies[0])["messages"]
        # The fork's model read the source's history, then its own prompt.
        assert sent[: len(first)] == first
        assert [m["content"] for m in sent if m["role"] == "user"] == ["first", "only in the fork"]

        assert shown(c, source) == before  # untouched
        listed = {s["sessionId"] for s in c.result("session/list", {})["sessions"]}
        assert {source, fork} <= listed
        assert c.close() == 0


def test_a_fork_has_its_own_lease(tmp_path: Path) -> None:
    first = Client(tmp_path, "--model", "offline")
    source = first.start()
    prompt(first, source, "hello")
    cwd = first.scenario.vars["CWD"]
    fork = first.result("session/fork", {"sessionId": source, "cwd": cwd, "mcpServers": []})
    second = Client(tmp_path, "--model", "offline", scenario=first.scenario)
    second.result("initialize", {"protocolVersion": 1})
    refused = second.call("session/resume", {"sessionId": fork["sessionId"], "cwd": cwd})
    assert "close the other window or process first" in refused["error"]["message"]
    assert first.close() == 0
    assert "result" in second.call("session/resume", {"sessionId": fork["sessionId"], "cwd": cwd})
    assert second.close() == 0


def test_forking_an_unknown_session_names_it(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    c.start()
    cwd = c.scenario.vars["CWD"]
    answer = c.call("session/fork", {"sessionId": "nope", "cwd": cwd, "mcpServers": []})
    assert answer["error"]["code"] == -32602
    assert "unknown session nope" in answer["error"]["message"]
    assert c.close() == 0
