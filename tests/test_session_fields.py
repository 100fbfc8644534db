"""Fields editors read from the session's wire: `updatedAt` never goes backwards, tool calls
carry the tool's own `name` (live and replayed), and config option categories are the spec's or
`_`-prefixed."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.test_sessions import updates_of


def listed(c: Client, sid: str) -> str:
    sessions = c.result("session/list", {})["sessions"]
    stamp: str = next(s["updatedAt"] for s in sessions if s["sessionId"] == sid)
    return stamp


def prompt(c: Client, sid: str, text: str) -> None:
    answer = c.call(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
    )
    assert answer["result"]["stopReason"] == "end_turn", answer


def test_updated_at_never_goes_backwards(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    sid = c.start()
    prompt(c, sid, "first")
    time.sleep(0.02)
    prompt(c, sid, "second")
    after_turns = listed(c, sid)
    steps: list[tuple[str, dict[str, Any]]] = [
        ("session/set_mode", {"sessionId": sid, "modeId": "plan"}),
        ("session/set_config_option", {"sessionId": sid, "configId": "effort", "value": "high"}),
        (
            "session/set_config_option",
            {"sessionId": sid, "configId": "tool_approval", "value": "read-only"},
        ),
    ]
    for method, params in steps:
        c.result(method, params)
        assert listed(c, sid) >= after_turns, method
    assert c.close() == 0


def test_tool_calls_carry_the_tool_name_live_and_replayed(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    sid = c.start()
    prompt(c, sid, "Plan:\n- one\n- two")
    live = [u for u in updates_of(c.take_notes(), sid) if u["sessionUpdate"] == "tool_call"]
    assert [u.get("name") for u in live] == ["todo_write"]
    c.result("session/load", {"sessionId": sid, "cwd": c.scenario.vars["CWD"], "mcpServers": []})
    replayed = [u for u in updates_of(c.take_notes(), sid) if u["sessionUpdate"] == "tool_call"]
    assert replayed == live
    assert c.close() == 0


def test_config_option_categories_are_the_spec_or_own(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    c.result("initialize", {"protocolVersion": 1})
    result = c.result("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})
    categories = {o["id"]: o.get("category") for o in result["configOptions"]}
    assert categories == {
        "model": "model",
        "effort": "thought_level",
        "tool_approval": "_tool_approval",
    }
    assert c.close() == 0
