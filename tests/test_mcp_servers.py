"""MCP servers the tests start (tests/mcp_servers/), used by `acp` through the official ACP SDK
client: a tool of each transport's server (stdio, streamable HTTP and SSE on 127.0.0.1), a
server that crashes on start, servers reaped by PID, tool-list changes, and elicitation."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acp import spawn_agent_process
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    ElicitationUrlCapabilities,
    RequestPermissionResponse,
    TextContentBlock,
)

from tests.transcript import Scenario, acp_command

SERVERS = Path(__file__).parent / "mcp_servers"
TOOLS = str(SERVERS / "tools_server.py")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_port(port: int, what: str) -> None:
    """Until a server accepts on 127.0.0.1:`port` (20 s at most)."""
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            assert time.monotonic() < deadline, f"{what} did not start"
            time.sleep(0.05)


@pytest.fixture(scope="module")
def network_servers() -> Iterator[dict[str, str]]:
    """The tools server over streamable HTTP and over SSE, each its own process."""
    procs, urls = [], {}
    for kind, path in (("http", "/mcp"), ("sse", "/sse")):
        port = free_port()
        env = {**os.environ, "TEST_MCP_NAME": f"tools-{kind}"}
        procs.append(
            subprocess.Popen(
                [sys.executable, TOOLS, kind, str(port)],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        wait_for_port(port, f"{kind} server")
        urls[kind] = f"http://127.0.0.1:{port}{path}"
    yield urls
    for proc in procs:
        proc.terminate()
        proc.wait(10)


class StandIn:
    """An editor that allows every tool call once and answers elicitations as told."""

    def __init__(self, elicitation: dict[str, Any] | None = None) -> None:
        self.updates: list[Any] = []
        self.asked: list[Any] = []
        self.elicitations: list[Any] = []
        self.interactions: list[dict[str, Any]] = []
        self.completed: list[str] = []
        self.elicitation = elicitation or {"action": "cancel"}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> Any:
        self.asked.append(tool_call)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id="allow_once")
        )

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        self.elicitations.append({"message": message, "mode": mode, **kwargs})
        return self.elicitation

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        self.completed.append(elicitation_id)

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.interactions.append({"method": method, **params})
        return self.elicitation

    def results(self) -> list[tuple[str, str]]:
        """(status, first text) of every finished tool call."""
        out = []
        for u in self.updates:
            if getattr(u, "session_update", "") == "tool_call_update" and u.status in (
                "completed",
                "failed",
            ):
                text = u.content[0].content.text if u.content else ""
                out.append((u.status, text))
        return out


def write_script(tmp: Path, calls: list[tuple[str, dict[str, Any]]]) -> str:
    lines = [json.dumps({"steps": [{"tool_call": {"name": n, "arguments": a}}]}) for n, a in calls]
    lines.append(json.dumps({"steps": [{"text": "done"}]}))
    path = tmp / "script.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def stdio(name: str, script: str = TOOLS, **extra: Any) -> dict[str, Any]:
    return {"name": name, "command": sys.executable, "args": [script], "env": [], **extra}


async def run_prompt(
    tmp: Path,
    servers: list[dict[str, Any]],
    calls: list[tuple[str, dict[str, Any]]],
    client: StandIn | None = None,
    capabilities: ClientCapabilities | None = None,
    after: Any = None,
    env: dict[str, str] | None = None,
    params: dict[str, Any] | None = None,
) -> StandIn:
    """One prompt of a real `acp` whose session has `servers`; `env` is laid over the agent's
    environment, `params` over session/new's."""
    scenario = Scenario(tmp)
    client = client or StandIn()
    command = acp_command()
    args = ["--model", "offline", "--script", write_script(tmp, calls)]
    async with spawn_agent_process(
        client,
        command[0],
        *command[1:],
        *args,
        env={**os.environ, **scenario.env, **(env or {})},
        use_unstable_protocol=True,  # elicitation/create
    ) as (conn, _process):
        await conn.initialize(protocol_version=1, client_capabilities=capabilities)
        sid = (
            await conn._conn.send_request(
                "session/new",
                {"cwd": scenario.vars["CWD"], "mcpServers": servers, **(params or {})},
            )
        )["sessionId"]
        reply = await conn.prompt(session_id=sid, prompt=[TextContentBlock(type="text", text="go")])
        assert reply.stop_reason == "end_turn"
        if after is not None:
            await after(conn, sid)
    return client


async def test_a_tool_of_each_transport(tmp_path: Path, network_servers: dict[str, str]) -> None:
    servers = [
        stdio("local"),
        {"name": "web", "type": "http", "url": network_servers["http"], "headers": []},
        {
            "name": "events",
            "type": "sse",
            "url": network_servers["sse"],
            "headers": {"X-Test": "1"},
        },
    ]
    calls = [
        ("mcp__local__echo", {"text": "over stdio"}),
        ("mcp__web__echo", {"text": "over streamable http"}),
        ("mcp__events__echo", {"text": "over sse"}),
        ("mcp__local__cwd", {}),
    ]
    client = await run_prompt(tmp_path, servers, calls)
    results = client.results()
    assert results[:3] == [
        ("completed", "over stdio"),
        ("completed", "over streamable http"),
        ("completed", "over sse"),
    ]
    # A stdio server starts in the agent's own directory, outside the workspace
    # (tests/test_mcp_start_place.py).
    temp = os.path.realpath(tempfile.gettempdir())
    assert results[3] == (
        "completed",
        os.path.join(temp, f"reasonix-acp-{os.getuid()}", "mcp-servers"),
    )
    assert [t.title for t in client.asked] == [  # the tool first, then its server
        "echo (local)",
        "echo (web)",
        "echo (events)",
        "cwd (local)",
    ]


async def test_a_server_that_crashes_on_start_does_not_fail_the_session(tmp_path: Path) -> None:
    servers = [stdio("broken", str(SERVERS / "crash_server.py")), stdio("good")]
    client = await run_prompt(tmp_path, servers, [("mcp__good__echo", {"text": "still here"})])
    texts = [
        u.content.text
        for u in client.updates
        if getattr(u, "session_update", "") == "agent_message_chunk"
    ]
    assert any("[warning] MCP server broken is not available" in t for t in texts)
    assert client.results() == [("completed", "still here")]


def _gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.02)
    return False


@pytest.mark.slow
@pytest.mark.parametrize("end", ["session/close", "session/delete", "eof"])
async def test_servers_are_reaped(tmp_path: Path, end: str) -> None:
    pids: list[int] = []

    async def finish(conn: Any, sid: str) -> None:
        pids.extend(int(text) for status, text in client.results() if status == "completed")
        if end != "eof":
            started = time.monotonic()
            await conn._conn.send_request(end, {"sessionId": sid})
            assert time.monotonic() - started < 2.0
            assert all(_gone(p, 2.0) for p in pids)

    client = StandIn()
    servers = [stdio("one"), stdio("two")]
    await run_prompt(
        tmp_path, servers, [("mcp__one__pid", {}), ("mcp__two__pid", {})], client, after=finish
    )
    assert len(pids) == 2
    assert all(_gone(p, 2.0) for p in pids)  # after the agent saw end of input too


async def test_tool_list_changes_are_seen_in_the_same_turn(tmp_path: Path) -> None:
    calls = [("mcp__s__add_tool", {}), ("mcp__s__late", {})]
    client = await run_prompt(tmp_path, [stdio("s")], calls)
    assert client.results() == [("completed", "added"), ("completed", "late")]


OPT_IN = ClientCapabilities(
    field_meta={"reasonix.io": {"mcpInteraction": {"supported": True, "schemaVersion": 1}}}
)
FORMS = ClientCapabilities(elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities()))
URLS = ClientCapabilities(elicitation=ElicitationCapabilities(url=ElicitationUrlCapabilities()))


@pytest.mark.parametrize(
    ("capabilities", "advertised"),
    [(None, "none"), (FORMS, "form,url"), (URLS, "form,url"), (OPT_IN, "form,url")],
)
async def test_servers_hear_the_host_can_elicit_only_when_the_client_can_answer(
    tmp_path: Path, capabilities: Any, advertised: str
) -> None:
    client = await run_prompt(
        tmp_path, [stdio("s")], [("mcp__s__can_elicit", {})], client=None, capabilities=capabilities
    )
    assert client.results() == [("completed", advertised)]


async def test_a_url_elicitation_that_completes_is_announced_to_the_client(
    tmp_path: Path,
) -> None:
    client = StandIn({"action": "accept"})
    calls = [("mcp__s__ask", {"url": "https://example.com/login"})]
    await run_prompt(tmp_path, [stdio("s")], calls, client, URLS)
    assert client.results() == [("completed", "url:accept")]
    (asked,) = client.elicitations
    assert str(asked["mode"].url) == "https://example.com/login"
    assert asked["mode"].elicitation_id == "el-1"
    assert client.completed == ["el-1"]


async def test_a_declined_url_elicitation_is_not_announced(tmp_path: Path) -> None:
    client = StandIn({"action": "decline"})
    calls = [("mcp__s__ask", {"url": "https://example.com/login"})]
    await run_prompt(tmp_path, [stdio("s")], calls, client, URLS)
    assert client.results() == [("completed", "url:decline")]
    assert client.completed == []


@pytest.mark.parametrize(
    ("capabilities", "reply", "expected", "route"),
    [
        (OPT_IN, {"action": "accept", "content": {"colour": "red"}}, "accept:red", "vendor"),
        (OPT_IN, {"action": "decline", "content": {"colour": "red"}}, "decline", "vendor"),
        (OPT_IN, {"action": "maybe"}, "cancel", "vendor"),
        (FORMS, {"action": "accept", "content": {"colour": "blue"}}, "accept:blue", "standard"),
        (FORMS, {"action": "decline"}, "decline", "standard"),
        # The server was not told the host can elicit: it does not ask (its own SDK refuses).
        (
            None,
            {"action": "accept", "content": {"colour": "red"}},
            "Elicitation not supported",
            "none",
        ),
    ],
)
async def test_elicitation_routes(
    tmp_path: Path, capabilities: Any, reply: dict[str, Any], expected: str, route: str
) -> None:
    client = StandIn(reply)
    await run_prompt(tmp_path, [stdio("s")], [("mcp__s__ask", {})], client, capabilities)
    if route == "none":
        assert client.results() == [("failed", f"MCP server s: {expected}")]
    else:
        assert client.results() == [("completed", expected)]
    if route == "vendor":
        (asked,) = client.interactions
        # The SDK hands extension methods over without their leading underscore.
        assert asked["method"] == "reasonix.io/mcp/request_interaction"
        assert asked["server"] == "s" and asked["mode"] == "form" and asked["turnId"] == "1"
        assert asked["requestedSchema"]["properties"]["colour"]["type"] == "string"
        assert client.elicitations == []
    elif route == "standard":
        (asked,) = client.elicitations
        assert asked["message"] == "Which colour?"
        assert asked["mode"].tool_call_id == "tc-1-1"
        assert list(asked["mode"].requested_schema.properties) == ["colour"]
        assert client.interactions == []
    else:
        assert client.interactions == [] and client.elicitations == []


@pytest.mark.slow
async def test_a_url_with_credentials_is_never_forwarded(tmp_path: Path) -> None:
    client = StandIn({"action": "accept"})
    calls = [("mcp__s__ask", {"url": "https://user:secret@example.com/login"})]
    await run_prompt(tmp_path, [stdio("s")], calls, client, OPT_IN)
    assert client.results() == [("completed", "url:cancel")]
    assert client.interactions == []
