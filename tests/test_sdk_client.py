"""A client nobody on this project wrote: the official ACP Python SDK spawns `acp` over stdio."""

from __future__ import annotations

from typing import Any

import pytest
from acp import RequestError, spawn_agent_process
from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation

from tests.transcript import acp_command


class SilentClient:
    """Answers nothing: the handshake needs no client-side method."""

    def on_connect(self, conn: Any) -> None:
        self.conn = conn


async def test_sdk_client_completes_initialize() -> None:
    command = acp_command()
    async with spawn_agent_process(SilentClient(), command[0], *command[1:]) as (conn, _process):
        response = await conn.initialize(
            protocol_version=1,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True
            ),
            client_info=Implementation(name="sdk-test", version="1"),
        )
    assert response.protocol_version == 1
    assert response.agent_info is not None and response.agent_info.name == "reasonix-acp"
    assert (
        response.agent_capabilities is not None and response.agent_capabilities.load_session is True
    )
    assert [m.id for m in response.auth_methods] == ["reasonix-setup"]


class RecordingClient:
    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))


async def test_sdk_client_drives_the_session_lifecycle(tmp_path: Any) -> None:
    from acp.schema import TextContentBlock

    from tests.transcript import Scenario

    scenario = Scenario(tmp_path)
    env = {**__import__("os").environ, **scenario.env}
    command = acp_command()
    cwd = scenario.vars["CWD"]
    client = RecordingClient()
    async with spawn_agent_process(
        client, command[0], *command[1:], "--model", "offline", env=env
    ) as (conn, _p):
        await conn.initialize(protocol_version=1)
        new = await conn.new_session(cwd=cwd, mcp_servers=[])
        sid = new.session_id
        reply = await conn.prompt(
            session_id=sid, prompt=[TextContentBlock(type="text", text="- one\n- two")]
        )
        assert reply.stop_reason == "end_turn"
        listed = await conn.list_sessions()
        assert [s.session_id for s in listed.sessions] == [sid]
        assert await conn.close_session(session_id=sid) is not None
    client = RecordingClient()
    async with spawn_agent_process(
        client, command[0], *command[1:], "--model", "offline", env=env
    ) as (conn, _p):
        await conn.initialize(protocol_version=1)
        loaded = await conn.load_session(cwd=cwd, session_id=sid, mcp_servers=[])
        assert loaded.modes is not None and loaded.modes.current_mode_id == "normal"
        kinds = [type(u).__name__ for s, u in client.updates if s == sid]
        assert kinds[:2] == ["UserMessageChunk", "AgentThoughtChunk"] and "ToolCallStart" in kinds
        client.updates.clear()
        resumed = await conn.resume_session(cwd=cwd, session_id=sid)
        assert resumed.config_options
        # The SDK has no typed call for session/delete; its connection still carries it.
        assert await conn._conn.send_request("session/delete", {"sessionId": sid}) == {}
        listed = await conn.list_sessions()
        assert listed.sessions == []


class EditorStandIn(RecordingClient):
    """Answers permission requests like a user who allows once."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[Any] = []

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> Any:
        from acp.schema import AllowedOutcome, RequestPermissionResponse

        self.asked.append(tool_call)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id="allow_once")
        )


async def test_sdk_client_answers_a_permission_request(tmp_path: Any) -> None:
    import json
    import os

    from acp.schema import TextContentBlock

    from tests.transcript import Scenario

    scenario = Scenario(tmp_path)
    script = tmp_path / "write.jsonl"
    target = str(tmp_path / "outside.txt")
    script.write_text(
        json.dumps(
            {
                "steps": [
                    {"tool_call": {"name": "write", "arguments": {"path": target, "content": "hi"}}}
                ]
            }
        )
        + "\n",
        encoding="utf-8",
    )
    env = {**os.environ, **scenario.env}
    command = acp_command()
    client = EditorStandIn()
    async with spawn_agent_process(
        client, command[0], *command[1:], "--model", "offline", "--script", str(script), env=env
    ) as (conn, _p):
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=scenario.vars["CWD"], mcp_servers=[])).session_id
        reply = await conn.prompt(
            session_id=sid, prompt=[TextContentBlock(type="text", text="write outside")]
        )
    assert reply.stop_reason == "end_turn"
    assert len(client.asked) == 1 and client.asked[0].title == f"Write {target}"
    with open(target, encoding="utf-8") as fh:
        assert fh.read() == "hi"


async def test_sdk_client_runs_a_goal_to_completion(tmp_path: Any) -> None:
    import json

    from acp.schema import TextContentBlock

    from tests.transcript import Scenario

    scenario = Scenario(tmp_path)
    script = tmp_path / "goal.jsonl"
    lines = [
        {"steps": [{"text": "First half."}]},
        {"steps": [{"tool_call": {"name": "goal_update", "arguments": {"status": "complete"}}}]},
        {"steps": [{"text": "Both halves done."}]},
    ]
    script.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    env = {**__import__("os").environ, **scenario.env}
    command = acp_command()
    client = RecordingClient()
    async with spawn_agent_process(
        client, command[0], *command[1:], "--model", "offline", "--script", str(script), env=env
    ) as (conn, _p):
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=scenario.vars["CWD"], mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="goal")
        reply = await conn.prompt(
            session_id=sid, prompt=[TextContentBlock(type="text", text="Write both halves")]
        )
        assert reply.stop_reason == "end_turn"
    shown = [u for s, u in client.updates if s == sid]
    modes = [u.current_mode_id for u in shown if type(u).__name__ == "CurrentModeUpdate"]
    assert modes == ["goal", "normal"]
    text = "".join(u.content.text for u in shown if type(u).__name__ == "AgentMessageChunk")
    assert text == "First half.Both halves done."


async def test_sdk_client_on_the_unstable_surface_gets_plans_by_id_and_forks_from_a_reply(
    tmp_path: Any,
) -> None:
    """The SDK's own models of the unstable plan updates parse what `acp` sends a client that
    advertises `plan`, and its `fork_session` forks from a reply named in `_meta`."""
    import os

    from acp.schema import (
        AgentMessageChunk,
        AgentPlanContentUpdate,
        AgentPlanRemovedUpdate,
        AgentPlanUpdate,
        PlanCapabilities,
        TextContentBlock,
    )

    from tests.transcript import Scenario

    scenario = Scenario(tmp_path)
    env = {**os.environ, **scenario.env}
    command = [*acp_command(), "--model", "offline", "--script"]
    script = scenario.vars["GOLDEN"] + "/scripts/plan_by_id.jsonl"
    client = PlanClient()
    async with spawn_agent_process(client, *command, script, env=env) as (conn, _p):
        caps = ClientCapabilities(plan=PlanCapabilities())
        await conn.initialize(protocol_version=1, client_capabilities=caps)
        cwd = scenario.vars["CWD"]
        sid = (await conn.new_session(cwd=cwd, mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="plan")
        text = [TextContentBlock(type="text", text="plan the work")]
        assert (await conn.prompt(session_id=sid, prompt=text)).stop_reason == "end_turn"
        shown = [u for s, u in client.updates if s == sid]
        plans = [u for u in shown if isinstance(u, AgentPlanContentUpdate)]
        assert [(p.plan.type, p.plan.plan_id) for p in plans] == [
            ("items", "todo"),
            ("markdown", "proposal"),
        ]
        removed = [u for u in shown if isinstance(u, AgentPlanRemovedUpdate)]
        assert [r.plan_id for r in removed] == ["todo"]
        assert not [u for u in shown if isinstance(u, AgentPlanUpdate)]  # not both shapes
        reply = [u for u in shown if isinstance(u, AgentMessageChunk)][-1].message_id
        meta = {"reasonix.io": {"messageId": reply}}
        forked = await conn.fork_session(session_id=sid, cwd=cwd, mcp_servers=[], **meta)
        assert forked.session_id != sid and forked.modes is not None
        nowhere = {"reasonix.io": {"messageId": "nope"}}  # the SDK sends its keywords as `_meta`
        with pytest.raises(RequestError) as refused:
            await conn.fork_session(session_id=sid, cwd=cwd, mcp_servers=[], **nowhere)
        assert refused.value.code == -32602 and "no message nope" in str(refused.value)


class PlanClient(RecordingClient):
    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **_: Any
    ) -> Any:
        from acp.schema import AllowedOutcome, RequestPermissionResponse

        start = AllowedOutcome(outcome="selected", option_id="start")
        return RequestPermissionResponse(outcome=start)
