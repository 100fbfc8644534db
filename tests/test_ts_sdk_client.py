"""A client nobody on this project wrote, in another language: the official TypeScript ACP SDK
(`@agentclientprotocol/sdk` 2.4.0, its `unstable` entry point) drives `acp` over stdio
(tests/ts_client/client.mjs): MCP over ACP with the SDK's `McpOverAcpProvider`, a prompt whose
tool call asks permission, then session titles, archive, status, auth status and providers.

The client checks every message `acp` sends against the SDK's generated zod schemas, including
the answers to its requests, which the SDK itself passes on unchecked, and values its lenient
parse would repair; any of them failing makes it exit 1 naming the message."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.npm_packages import installed, node
from tests.transcript import Scenario, acp_command

CLIENT_DIR = Path(__file__).parent / "ts_client"
SDK = "@agentclientprotocol/sdk"
SDK_VERSION = "2.4.0"
RUN_SECONDS = 60
ECHO_TOOL = "mcp__ts-tools__echo"
MCP_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """The pinned packages, installed from the committed lock file (tests/npm_packages.py)."""
    modules = installed(CLIENT_DIR, "ts-sdk", SDK)
    version = json.loads((modules / SDK / "package.json").read_text(encoding="utf-8"))["version"]
    assert version == SDK_VERSION
    return modules


def _client(tmp_path: Path, node_modules: Path) -> Path:
    """client.mjs in a directory of its own whose node_modules is the installed one."""
    where = tmp_path / "ts_client"
    where.mkdir()
    shutil.copy(CLIENT_DIR / "client.mjs", where / "client.mjs")
    (where / "node_modules").symlink_to(node_modules, target_is_directory=True)
    return where / "client.mjs"


def _environment(scenario: Scenario, tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    dirs = {
        "HOME": home,
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_STATE_HOME": home / ".local" / "state",
        "XDG_CACHE_HOME": home / ".cache",
    }
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    return {**os.environ, **scenario.env, **{k: str(v) for k, v in dirs.items()}}


def _run(
    client: Path, cwd: str, agent: list[str], env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [node(), str(client), cwd, *agent],
        cwd=client.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
    )


def test_ts_sdk_client_drives_acp(tmp_path: Path, node_modules: Path) -> None:
    scenario = Scenario(tmp_path)
    script = tmp_path / "echo.jsonl"
    calls = [
        {"steps": [{"tool_call": {"name": ECHO_TOOL, "arguments": {"message": "hi"}}}]},
        {"steps": [{"text": "done"}]},
    ]
    script.write_text("".join(json.dumps(c) + "\n" for c in calls), encoding="utf-8")
    cwd = scenario.vars["CWD"]
    agent = [*acp_command(), "--model", "offline", "--script", str(script)]
    env = _environment(scenario, tmp_path)

    done = _run(_client(tmp_path, node_modules), cwd, agent, env)

    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["agentExit"] == {"code": 0, "signal": None}
    assert out["initialize"]["protocolVersion"] == 1
    assert out["initialize"]["agentCapabilities"]["mcpCapabilities"]["acp"] is True
    sid = out["sessionNew"]["sessionId"]
    assert out["prompt"] == {"stopReason": "end_turn"}

    # The tool call: asked once, allowed once, completed with the MCP server's text.
    [asked] = out["permissions"]
    assert asked["sessionId"] == sid and asked["toolCall"]["rawInput"] == {"message": "hi"}
    assert "allow_once" in [o["kind"] for o in asked["options"]]
    shown = [u["update"] for u in out["updates"] if u["sessionId"] == sid]
    tool_updates = [u for u in shown if u["sessionUpdate"] in ("tool_call", "tool_call_update")]
    started = tool_updates[0]
    assert started["sessionUpdate"] == "tool_call" and started["rawInput"] == {"message": "hi"}
    assert started["toolCallId"] == asked["toolCall"]["toolCallId"]
    last = tool_updates[-1]
    assert last["toolCallId"] == started["toolCallId"] and last["status"] == "completed"
    texts = [c["content"]["text"] for c in last["content"] if c["type"] == "content"]
    assert texts == ["echo: hi"]
    reply = [u["content"]["text"] for u in shown if u["sessionUpdate"] == "agent_message_chunk"]
    assert "".join(reply) == "done"

    # What the MCP server received over ACP, each request with MCP 2026-07-28's `_meta`.
    mcp = out["mcpCalls"]
    assert [c["method"] for c in mcp] == ["server/discover", "tools/list", "tools/call"]
    assert all(c["meta"][MCP_VERSION_KEY] == "2026-07-28" for c in mcp)
    assert all(c["protocolVersion"] == "2026-07-28" for c in mcp)
    called = mcp[-1]["params"]
    assert called["name"] == "echo" and called["arguments"] == {"message": "hi"}

    # Titles, archive, status.
    title = "Echo from the TypeScript SDK"  # the sent title, its whitespace runs made one space
    assert out["setTitle"] == {"title": title}
    assert {"sessionUpdate": "session_info_update", "title": title} in shown
    assert [(s["sessionId"], s["title"]) for s in out["listAfterTitle"]["sessions"]] == [
        (sid, title)
    ]
    assert out["statusOpen"]["status"] == "open"
    assert out["archive"] == {}
    assert out["listAfterArchive"]["sessions"] == []
    for listing in ("listArchivedIncluded", "listArchivedOnly"):
        assert [(s["sessionId"], s["archived"]) for s in out[listing]["sessions"]] == [(sid, True)]
    assert out["unarchive"] == {}
    listed = out["listAfterUnarchive"]["sessions"]
    assert [(s["sessionId"], s["title"], s.get("archived")) for s in listed] == [
        (sid, title, False)
    ]
    assert out["statusSaved"]["status"] == "saved"  # archiving closed it

    # Auth status and providers.
    assert out["authStatus"]["state"] == "not_required"
    assert out["authStatusAfterProviders"]["state"] == "not_required"
    assert out["providersBefore"] == {"providers": []}
    assert out["providersSet"] == {} and out["providersDisable"] == {}
    local = {"providerId": "ts-local", "supported": ["openai"], "required": False}
    current = {"apiType": "openai", "baseUrl": "http://127.0.0.1:9/v1"}
    assert out["providersAfterSet"] == {"providers": [{**local, "current": current}]}
    assert out["providersAfterDisable"] == {"providers": [{**local, "current": None}]}
    assert out["authUpdates"] and all(u["state"] == "not_required" for u in out["authUpdates"])
    config = tomllib.loads((tmp_path / "config" / "config.toml").read_text(encoding="utf-8"))
    assert config["providers"]["ts-local"]["disabled"] is True


# An agent answering every method the client calls, with one flaw chosen by its argument.
STUB_AGENT = """
import json, sys

flaw = sys.argv[1]
answers = {
    "initialize": {"protocolVersion": 1, "agentCapabilities": {"mcpCapabilities": {"acp": True}}},
    "session/new": {"sessionId": 7 if flaw == "answer" else "s1"},
    "session/prompt": {"stopReason": "end_turn"},
    "session/status": {"status": "saved"},
    "session/list": {"sessions": []},
    "auth/status": {"state": "not_required"},
    "providers/list": {"providers": []},
}
updates = {
    "update": {"sessionUpdate": "tool_call", "toolCallId": "t1"},
    "repaired": {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "t", "kind": 5},
}


def send(message):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    method = message.get("method")
    if method is None or "id" not in message:
        continue
    if method == "session/prompt" and flaw in updates:
        params = {"sessionId": "s1", "update": updates[flaw]}
        send({"method": "session/update", "params": params})
    result = answers.get(method, {})
    if method == "session/set_title":
        result = {"title": message["params"]["title"]}
    send({"id": message["id"], "result": result})
"""


@pytest.mark.parametrize(
    ("flaw", "about", "named"),
    [
        ("answer", "session/new", '"invalid":"the answer to session/new"'),  # sessionId a number
        ("update", "session/update", '"sdkConsoleError":["Error handling notification"'),
        ("repaired", "session/update", '"repairedByTheSchema":["$.update.kind"]'),
    ],
)
def test_ts_sdk_client_fails_on_a_message_off_the_schema(
    tmp_path: Path, node_modules: Path, flaw: str, about: str, named: str
) -> None:
    """A session/new answer whose sessionId is a number, a tool_call update without its title
    (the SDK drops it, saying so on the console), one whose kind is a number (the SDK's parse
    drops the kind): each makes the client exit 1, naming that message alone."""
    stub = tmp_path / "stub_agent.py"
    stub.write_text(STUB_AGENT, encoding="utf-8")
    scenario = Scenario(tmp_path)
    env = _environment(scenario, tmp_path)

    done = _run(
        _client(tmp_path, node_modules),
        scenario.vars["CWD"],
        [sys.executable, str(stub), flaw],
        env,
    )

    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["agentExit"] == {"code": 0, "signal": None}  # it ran through
    problems = [line for line in done.stderr.splitlines() if line.startswith("problem: ")]
    assert problems and all(about in line for line in problems), done.stderr
    assert any(named in line for line in problems), done.stderr
    assert "client failed" not in done.stderr  # no request failed: only the check
