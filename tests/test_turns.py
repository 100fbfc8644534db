"""The turn runner in-process: the end-of-turn sweep and the one-event-per-run transcript."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from reasonix_acp.machines.turn import Outcome
from reasonix_acp.protocol.framing import encode
from reasonix_acp.providers.offline import OfflineProvider
from reasonix_acp.tools.base import ToolContext, ToolResult
from reasonix_acp.turn.limits import Limits
from reasonix_acp.turn.report import TurnSettings
from reasonix_acp.turn.runner import TurnRunner
from tests.client import Client
from tests.transcript import WAIT_SECONDS, Scenario


class NeverFinishes:
    name = "hang"
    kind = "other"
    schema: dict[str, Any] = {
        "type": "function",
        "function": {"name": "hang", "parameters": {"type": "object"}},
    }

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return "Hang"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


def runner(
    script: list[dict[str, Any]], emitted: list[dict[str, Any]], stored: list[Any], tools: list[Any]
) -> TurnRunner:
    return TurnRunner(
        TurnSettings(
            turn=1,
            provider=OfflineProvider(script),
            model="offline/default",
            effort="auto",
            tools=tools,
            history=[],
            context=ToolContext(cwd="/tmp", session_id="s"),
            emit=emitted.append,
            persist=stored.extend,
            limits=Limits(max_steps=5),
        )
    )


async def test_the_sweep_fails_a_tool_that_never_finishes() -> None:
    emitted: list[dict[str, Any]] = []
    stored: list[Any] = []
    turn = runner(
        [{"steps": [{"tool_call": {"name": "hang", "arguments": {}}}]}],
        emitted,
        stored,
        [NeverFinishes()],
    )
    task = asyncio.create_task(turn.run([{"type": "text", "text": "go"}], "go"))
    while not any(u["sessionUpdate"] == "tool_call" for u in emitted):
        await asyncio.sleep(0.01)
    task.cancel()
    report = await task
    assert report.outcome is Outcome.CANCELLED
    last = emitted[-1]
    assert (
        last["sessionUpdate"] == "tool_call_update"
        and last["status"] == "failed"
        and last["toolCallId"] == "tc-1-1"
    )
    assert [k for k, _ in stored][-1] == "tool_call_update"  # the sweep is in the transcript too


async def test_deltas_are_stored_as_one_event_per_run() -> None:
    emitted: list[dict[str, Any]] = []
    stored: list[Any] = []
    script = [
        {
            "steps": [
                {"thought": "abcdef", "chunk": 2},
                {"text": "hello world", "chunk": 3},
                {"thought": "zz"},
            ]
        }
    ]
    report = await runner(script, emitted, stored, []).run([{"type": "text", "text": "go"}], "go")
    assert report.outcome is Outcome.END_TURN
    assert sum(u["sessionUpdate"] == "agent_message_chunk" for u in emitted) == 4
    # Each stored batch starts with the messages the model's history gained meanwhile.
    assert stored[0] == ("history", {"messages": [{"role": "user", "content": "go"}]})
    assert stored[2] == (
        "history",
        {"messages": [{"role": "assistant", "content": "hello world"}]},
    )
    assert [(kind, body["text"]) for kind, body in stored[3:]] == [
        ("agent_thought", "abcdef"),
        ("agent_message", "hello world"),
        ("agent_thought", "zz"),
    ]
    # Each run is a message of its own, with the id its chunks carried live.
    ids = [body["messageId"] for _, body in stored[3:]]
    assert len(set(ids)) == 3
    live = [u["messageId"] for u in emitted if u["sessionUpdate"].endswith("_chunk")]
    assert sorted(set(live)) == sorted(ids)


class Loud:
    name = "loud"
    kind = "other"
    schema: dict[str, Any] = {
        "type": "function",
        "function": {"name": "loud", "parameters": {"type": "object"}},
    }

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return "Loud"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        text = "é" * 40000  # 80,000 bytes
        return ToolResult(
            text=text, content=[{"type": "content", "content": {"type": "text", "text": text}}]
        )


async def test_output_past_the_budget_is_cut_and_kept(tmp_path: Any) -> None:
    import json

    from reasonix_acp.tools.workspace import Workspace

    emitted: list[dict[str, Any]] = []
    turn = runner(
        [{"steps": [{"tool_call": {"name": "loud", "arguments": {}}}]}], emitted, [], [Loud()]
    )
    turn.context = ToolContext(
        cwd=str(tmp_path),
        session_id="s",
        workspace=Workspace(str(tmp_path), temp=str(tmp_path / "t")),
    )
    await turn.run([{"type": "text", "text": "go"}], "go")
    update = next(u for u in emitted if u["sessionUpdate"] == "tool_call_update")
    shown = update["content"][0]["content"]["text"]
    assert len(json.dumps(update, ensure_ascii=False).encode()) < 60 * 1024
    kept = shown.rsplit("the full output is in ", 1)[1].rstrip("]")
    with open(kept, encoding="utf-8") as fh:
        assert fh.read() == "é" * 40000


def test_debug_mode_catches_an_update_for_an_unknown_call(monkeypatch: Any) -> None:
    import pytest

    from reasonix_acp.turn import runner as turns

    monkeypatch.setattr(turns, "DEBUG", True)
    turn = runner([], [], [], [])
    with pytest.raises(AssertionError, match="unknown tool call"):
        turn.record("tool_call_update", {"toolCallId": "tc-9-9", "status": "completed"})
    turn.record("tool_call", {"toolCallId": "tc-1-1", "title": "x", "status": "pending"})
    turn.record("tool_call_update", {"toolCallId": "tc-1-1", "status": "failed"})
    with pytest.raises(AssertionError, match="after the end"):
        turn.record("tool_call_update", {"toolCallId": "tc-1-1", "status": "completed"})


class Recording(OfflineProvider):
    """The offline model, keeping every request it was sent."""

    def __init__(self, script: list[dict[str, Any]]) -> None:
        super().__init__(script)
        self.requests: list[Any] = []

    def stream(self, request: Any) -> Any:
        self.requests.append(json.loads(json.dumps(request.__dict__, default=str)))
        return super().stream(request)


async def test_a_steer_is_appended_and_leaves_the_request_prefix_alone() -> None:
    from reasonix_acp.tools.todo import TOOLS
    from reasonix_acp.turn.instructions import STEER_NOTE

    provider = Recording(
        [
            {"steps": [{"tool_call": {"name": "todo_write", "arguments": {"todos": []}}}]},
            {"steps": [{"text": "ok"}]},
        ]
    )
    pending = ["use email instead of username"]
    stored: list[Any] = []
    turn = TurnRunner(
        TurnSettings(
            turn=1,
            provider=provider,
            model="offline/default",
            effort="auto",
            tools=list(TOOLS),
            history=[],
            context=ToolContext(cwd="/tmp", session_id="s"),
            emit=lambda update: None,
            persist=stored.extend,
            limits=Limits(max_steps=5),
            steers=lambda final: [pending.pop()] if pending else [],
        )
    )
    report = await turn.run([{"type": "text", "text": "build it"}], "build it")
    assert report.outcome is Outcome.END_TURN
    first, second = provider.requests
    assert second["tools"] == first["tools"] and second["model"] == first["model"]
    # Everything the first request sent is sent again, byte for byte, before anything new.
    encoded = [json.dumps(m, sort_keys=True) for m in first["messages"]]
    assert [json.dumps(m, sort_keys=True) for m in second["messages"][: len(encoded)]] == encoded
    assert second["messages"][-1] == {
        "role": "user",
        "content": STEER_NOTE + "use email instead of username",
    }
    users = [b for k, b in stored if k == "user_message"]
    assert users[-1]["content"] == [{"type": "text", "text": "use email instead of username"}]


async def test_a_steer_admitted_while_finishing_gets_one_more_step() -> None:
    provider = Recording([{"steps": [{"text": "done"}]}, {"steps": [{"text": "and steered"}]}])
    calls: list[bool] = []

    def steers(final: bool) -> list[str]:
        calls.append(final)
        return ["one more thing"] if final and len(calls) == 1 else []

    turn = TurnRunner(
        TurnSettings(
            turn=1,
            provider=provider,
            model="offline/default",
            effort="auto",
            tools=[],
            history=[],
            context=ToolContext(cwd="/tmp", session_id="s"),
            emit=lambda update: None,
            persist=lambda batch: None,
            limits=Limits(max_steps=5),
            steers=steers,
        )
    )
    report = await turn.run([{"type": "text", "text": "go"}], "go")
    assert report.outcome is Outcome.END_TURN
    assert len(provider.requests) == 2 and calls[0] is True


def test_streamed_deltas_are_the_encoders_bytes_without_debug(tmp_path: Path) -> None:
    """Text deltas are written from a per-session template (the streaming hot path); through a
    real `acp` without debug validation, every frame is what the encoder writes for it."""
    texts = ['a "quoted" \\ back', "é 😀 \u2028 \x01", "\ud800 lone", "</script>", ""]
    steps = [{"thought": "think é"}] + [{"text": t} for t in texts if t]
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"steps": steps, "chunk": 3}) + "\n", encoding="utf-8")
    scenario = Scenario(tmp_path)
    scenario.env["REASONIX_ACP_DEBUG"] = ""
    c = Client(tmp_path, "--model", "offline", "--script", str(script), scenario=scenario)
    sid = c.start()
    c.send(
        {
            "jsonrpc": "2.0",
            "id": 99,
            "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]},
        }
    )
    raw: list[bytes] = []
    while True:
        line = c.agent.lines.get(timeout=WAIT_SECONDS)
        assert line is not None, c.agent.stderr
        if b'"id":99' in line:
            break
        raw.append(line)
    deltas = [r for r in raw if b"_chunk" in r]
    assert len(deltas) > 10
    for line in deltas:
        assert encode(json.loads(line)) == line, line
    shown = "".join(
        json.loads(r)["params"]["update"]["content"]["text"]
        for r in deltas
        if b"agent_message_chunk" in r
    )
    assert shown == "".join(texts)
    c.close()
