"""Fields editors read from the session's wire: `updatedAt` never goes backwards, tool calls
carry the tool's own `name` (live and replayed), and config option categories are the spec's or
`_`-prefixed."""

from __future__ import annotations

import re
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
        "mode": "mode",
        "model": "model",
        "effort": "thought_level",
        "tool_approval": "_tool_approval",
    }
    assert c.close() == 0


def test_a_load_or_resume_sends_the_current_plan_empty_to_clear(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    sid = c.start()
    planned = c.result("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})
    prompt(c, sid, "no plan here")
    prompt(c, planned["sessionId"], "Plan:\n- one\n- two")
    assert c.close() == 0
    again = Client(tmp_path, "--model", "offline", scenario=c.scenario)
    again.result("initialize", {"protocolVersion": 1})
    cwd = c.scenario.vars["CWD"]
    plans: dict[str, list[Any]] = {}
    for method in ("session/resume", "session/load"):
        for each in (sid, planned["sessionId"]):
            again.take_notes()
            again.result(method, {"sessionId": each, "cwd": cwd, "mcpServers": []})
            again.result("session/list", {})
            sent = [u for u in updates_of(again.notes, each) if u["sessionUpdate"] == "plan"]
            plans[f"{method} {each == sid}"] = [u["entries"] for u in sent]
    assert again.close() == 0
    entries = [
        {"content": "one", "priority": "medium", "status": "pending"},
        {"content": "two", "priority": "medium", "status": "pending"},
    ]
    assert plans == {
        "session/resume True": [[]],  # no plan: the editor's is cleared
        "session/resume False": [entries],
        "session/load True": [[]],
        "session/load False": [entries],  # the replay shows it; it is not sent twice
    }


def mode_of(options: list[dict[str, Any]]) -> str:
    value: str = next(o["currentValue"] for o in options if o["id"] == "mode")
    return value


def test_the_mode_config_option_and_modes_change_together(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    c.result("initialize", {"protocolVersion": 1})
    opened = c.result("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})
    sid = opened["sessionId"]
    assert opened["modes"]["currentModeId"] == mode_of(opened["configOptions"]) == "normal"
    assert [o["value"] for o in opened["configOptions"][0]["options"]] == ["normal", "plan", "goal"]
    set_plan = {"sessionId": sid, "configId": "mode", "value": "plan"}
    assert mode_of(c.result("session/set_config_option", set_plan)["configOptions"]) == "plan"
    c.result("session/set_mode", {"sessionId": sid, "modeId": "goal"})
    c.result("session/list", {})
    seen = [
        (u["sessionUpdate"], u.get("currentModeId") or mode_of(u["configOptions"]))
        for u in updates_of(c.notes, sid)
        if u["sessionUpdate"] in ("current_mode_update", "config_option_update")
    ]
    assert seen == [
        ("current_mode_update", "plan"),
        ("config_option_update", "plan"),
        ("current_mode_update", "goal"),
        ("config_option_update", "goal"),
    ]
    refused = c.call("session/set_config_option", {**set_plan, "value": "fast"})
    assert refused["error"]["code"] == -32602
    assert "one of: normal, plan, goal" in refused["error"]["message"]
    assert c.close() == 0


def test_the_legacy_models_block_matches_the_model_option(tmp_path: Path) -> None:
    config = tmp_path / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        '[providers.local]\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n'
        'models = ["small", "large"]\n',
        encoding="utf-8",
    )
    c = Client(tmp_path, "--model", "offline")
    c.result("initialize", {"protocolVersion": 1})
    cwd = c.scenario.vars["CWD"]
    opened = c.result("session/new", {"cwd": cwd, "mcpServers": []})
    sid = opened["sessionId"]

    def agrees(result: dict[str, Any]) -> str:
        option = next(o for o in result["configOptions"] if o["id"] == "model")
        models = result["models"]
        assert [m["modelId"] for m in models["availableModels"]] == [
            o["value"] for o in option["options"]
        ]
        assert models["currentModelId"] == option["currentValue"]
        current: str = models["currentModelId"]
        return current

    assert agrees(opened) == "offline/default"
    assert len(opened["models"]["availableModels"]) == 3
    c.result("session/set_model", {"sessionId": sid, "modelId": "local/large"})
    loaded = c.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
    assert agrees(loaded) == "local/large"
    resumed = c.result("session/resume", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
    assert agrees(resumed) == "local/large"
    assert c.close() == 0


def test_every_listed_session_has_a_title(tmp_path: Path) -> None:
    """A menu of sessions (`/resume`) never shows a bare id: one with no prompt yet is "New
    session" and when it started; a prompted one its first words."""
    c = Client(tmp_path, "--model", "offline")
    fresh = c.start()
    titled = c.result("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})
    prompt(c, titled["sessionId"], "fix the parser")
    sessions = {s["sessionId"]: s for s in c.result("session/list", {})["sessions"]}
    title = sessions[fresh]["title"]
    assert re.fullmatch(r"New session, \d{4}-\d\d-\d\d \d\d:\d\d UTC", title), title
    assert sessions[titled["sessionId"]]["title"] == "fix the parser"
    assert c.close() == 0
