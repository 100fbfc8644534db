"""Plan mode holds, through a real `acp`: writes, commands outside a read-only sandbox, MCP tools
not marked read-only and plugin tools are refused without a question (the model is told why);
reads, searches and `todo_write` run; commands run in a read-only sandbox, never offered a run
outside it, under every preset."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from reasonix_acp.tools.sandbox import Engine
from tests.client import Client
from tests.test_mcp_servers import TOOLS
from tests.tools.driver import agent, call, prompt
from tests.tools.test_sandbox import SANDBOX_ON, bwrap

__all__ = ["bwrap"]  # the fixture, used by name


def never(params: dict[str, Any]) -> str:
    raise AssertionError(f"plan mode asked: {params['toolCall'].get('title')}")


def plan(c: Client, sid: str, preset: str = "workspace-write") -> None:
    c.result("session/set_mode", {"sessionId": sid, "modeId": "plan"})
    c.result(
        "session/set_config_option",
        {"sessionId": sid, "configId": "tool_approval", "value": preset},
    )


def text_of(update: dict[str, Any]) -> str:
    return "".join(
        c["content"]["text"] for c in update.get("content") or [] if c["type"] == "content"
    )


def test_writes_and_unconfined_commands_are_refused_without_a_question(tmp_path: Path) -> None:
    steps = [
        call("write", path="plan.txt", content="x"),
        call("edit", path="notes.txt", old="line one", new="changed"),
        call("bash", command="echo x > made.txt"),
        call("read", path="notes.txt"),
        call("todo_write", todos=[{"content": "look around", "status": "pending"}]),
    ]
    c = agent(tmp_path, [{"steps": [s["steps"][0] for s in steps]}])
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    plan(c, sid, "danger-full-access")  # plan mode holds under every preset
    _, results = prompt(c, sid, never)
    assert [r["status"] for r in results] == [
        "failed",
        "failed",
        "failed",
        "completed",
        "completed",
    ]
    for refused in results[:3]:
        assert "refused in plan mode" in text_of(refused)
        assert "present the plan" in text_of(refused)
    assert "no read-only sandbox" in text_of(results[2])
    assert not (cwd / "plan.txt").exists() and not (cwd / "made.txt").exists()
    assert (cwd / "notes.txt").read_text() == "line one\nline two\n"
    assert c.close() == 0


def test_commands_run_in_a_read_only_sandbox_and_are_not_offered_outside(
    tmp_path: Path, bwrap: Engine
) -> None:
    turns = [call("bash", command="cat notes.txt"), call("bash", command="echo x > made.txt")]
    c = agent(tmp_path, turns, env=SANDBOX_ON)
    sid = c.start()
    cwd = Path(c.scenario.vars["CWD"])
    plan(c, sid, "danger-full-access")
    _, results = prompt(c, sid, never)
    assert results[0]["status"] == "completed" and "line one" in text_of(results[0])
    _, results = prompt(c, sid, never)  # no "run it outside the sandbox?" either
    assert results[0]["status"] == "failed" and "Read-only file system" in text_of(results[0])
    assert not (cwd / "made.txt").exists()
    assert c.close() == 0


def test_only_mcp_tools_marked_read_only_run(tmp_path: Path) -> None:
    steps = [
        {"tool_call": {"name": "mcp__tools__echo", "arguments": {"text": "hi"}}},
        {"tool_call": {"name": "mcp__tools__cwd", "arguments": {}}},
    ]
    c = agent(tmp_path, [{"steps": steps}])
    c.result("initialize", {"protocolVersion": 1})
    cwd = c.scenario.vars["CWD"]
    server = {"name": "tools", "command": sys.executable, "args": [TOOLS], "env": []}
    sid = c.result("session/new", {"cwd": cwd, "mcpServers": [server]})["sessionId"]
    plan(c, sid)
    asked, results = prompt(c, sid, lambda params: "allow_once")
    assert [r["status"] for r in results] == ["failed", "completed"]
    assert "this MCP tool is not marked read-only" in text_of(results[0])
    assert len(asked) == 1 and "cwd" in asked[0]["toolCall"]["title"]  # the normal gate
    assert c.close() == 0
