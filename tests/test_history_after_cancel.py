"""A turn cancelled at its tool call's question, then a compaction, then a load in a new
process: the loaded session's next request is one the endpoint takes (every tool reply follows
its call) and equals what the live session would have sent."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.client import Client
from tests.deepseek_server import DeepSeek
from tests.test_deepseek import agent, config
from tests.test_history_exact import converse

ASKS = {"name": "bash", "arguments": {"command": "echo $HOME > made"}}  # nothing granted: asks


def cancel_at_question(c: Client, sid: str) -> Any:
    def answer(request: dict[str, Any]) -> Any:
        assert request["method"] == "session/request_permission", request
        c.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
        return {"outcome": {"outcome": "cancelled"}}

    return answer


def live(c: Client, sid: str) -> None:
    zero = converse(c, sid, [{"type": "text", "text": "zero"}])
    assert zero["result"] == {"stopReason": "end_turn"}, zero
    text = [{"type": "text", "text": "run it"}]
    assert converse(c, sid, text, cancel_at_question(c, sid))["result"] == {
        "stopReason": "cancelled"
    }
    for word in ("two", "three"):
        assert converse(c, sid, [{"type": "text", "text": word}])["result"]["stopReason"] == (
            "end_turn"
        )
    done = converse(c, sid, [{"type": "text", "text": "/compact"}])
    assert done["result"] == {"stopReason": "end_turn"}, done


@pytest.mark.parametrize("keep", [1, 2, 3])
def test_a_cancel_at_a_question_then_a_compaction_reloads_to_the_same_history(
    tmp_path: Path, keep: int
) -> None:
    bodies: list[list[dict[str, Any]]] = []
    for name, reload in (("live", False), ("loaded", True)):
        with DeepSeek() as server:
            server.replies.extend(
                [
                    {"thought": "0", "text": "Zero."},
                    {"thought": "Run it.", "tool_calls": [ASKS]},
                    {"thought": "2", "text": "Two."},
                    {"thought": "3", "text": "Three."},
                    {"text": "Summary: a run was cancelled; two; three."},
                ]
            )
            c = agent(tmp_path / name, config(server, f"[context]\nkeep_turns = {keep}\n"))
            sid = c.start()
            live(c, sid)
            if reload:
                os.kill(c.agent.proc.pid, signal.SIGKILL)
                c.agent.proc.wait(timeout=10)
                c = Client(tmp_path / name, scenario=c.scenario)
                c.result("initialize", {"protocolVersion": 1})
                cwd = c.scenario.vars["CWD"]
                c.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
            answer = converse(c, sid, [{"type": "text", "text": "four"}])
            assert answer["result"] == {"stopReason": "end_turn"}, (name, answer, server.refused)
            assert c.close() == 0
            assert server.refused == [], server.refused
            bodies.append(json.loads(server.bodies[-1])["messages"][1:])
    assert bodies[0] == bodies[1]


def test_a_compaction_finds_what_it_kept_by_identity() -> None:
    """The kept count applied to another list (a history stored without a message the live one
    had) starts where the first kept message is, and never at a tool reply."""
    from reasonix_acp.session.history import compacted, message_digest

    call = {"id": "c", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
    live = [
        {"role": "user", "content": "u0"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c", "content": "cancelled"},
        {"role": "user", "content": "u1"},
        {"role": "assistant", "content": "a1"},
    ]
    body = {"summary": "s", "kept": 2, "keptFirst": message_digest(live[3])}
    assert compacted(live, body)[1:] == live[3:]
    stored = [m for m in live if m["role"] != "tool"]  # one stored without the reply
    assert compacted([*stored[:1], *live[:3], *stored[1:]], body)[1:] == live[3:]
    by_count = {"summary": "s", "kept": 3}  # a count that lands on the reply: skipped
    assert compacted(live, by_count)[1:] == live[3:]
