"""The summary request of a compaction against models that call tools: it keeps the request's
prefix (the same tools first) and forbids tool calls (`tool_choice: "none"`), which DeepSeek's
stand-in honours and refuses in its forced forms while thinking; a server that calls a tool
anyway gets its text used, or the compaction fails saying so, and the session goes on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.deepseek_server import FORCED_IN_THINKING, DeepSeek, common_prefix, problem
from tests.sse_server import TOOL_STREAM, Server, chunk
from tests.test_compaction import CAPABLE, bodies, client, start
from tests.test_deepseek import READ, agent, config, prompt, tool_turn
from tests.test_history_exact import converse, text_stream
from tests.test_sessions import updates_of


def compactions(notes: list[dict[str, Any]], sid: str) -> list[dict[str, Any]]:
    return [
        u
        for u in updates_of(notes, sid)
        if u["sessionUpdate"] == "compaction_update" and u["status"] != "in_progress"
    ]


def test_compact_with_a_model_that_calls_a_tool_whenever_it_may(tmp_path: Path) -> None:
    """DeepSeek in thinking mode, its model calling a tool whenever tools are offered: the
    summary request offers the same tools (the cached prefix) with `tool_choice: "none"`, so
    the model writes the summary."""
    with DeepSeek() as server:
        c = agent(tmp_path, config(server, "[context]\nkeep_turns = 1\n"))
        c.result("initialize", {"protocolVersion": 1, "clientCapabilities": CAPABLE})
        cwd = c.scenario.vars["CWD"]
        sid = c.result("session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]
        tool_turn(server, "First look.")
        assert prompt(c, sid, "one")["result"] == {"stopReason": "end_turn"}
        tool_turn(server, "Second look.")
        assert prompt(c, sid, "two")["result"] == {"stopReason": "end_turn"}
        server.replies.append({"thought": "I will read it again.", "tool_calls": [READ]})
        assert prompt(c, sid, "/compact")["result"] == {"stopReason": "end_turn"}
        assert prompt(c, sid, "three")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    assert server.refused == []
    (done,) = compactions(c.notes, sid)
    assert done["status"] == "completed", done
    requests = server.requests()
    before, summary = requests[3], requests[4]
    assert summary["messages"][-1]["content"].startswith("[Compaction]")
    assert summary["tool_choice"] == "none" and summary["tools"] == before["tools"]
    # The prefix holds: the summary request's bytes start as the request before it did, up to
    # the messages it summarises, and the choice comes after them.
    raw = server.bodies[4]
    assert raw.index(b'"tool_choice"') > raw.index(b'"messages"')
    shared = common_prefix(raw, server.bodies[3])
    assert shared > raw.index(b'"messages"') and server.usage[4]["prompt_cache_hit_tokens"] > 0
    assert "tool_choice" not in requests[5], "only the summary request forbids tools"


def test_the_stand_in_takes_the_tool_choices_deepseek_documents() -> None:
    tools = [{"type": "function", "function": {"name": "read", "parameters": {}}}]
    body = {"model": "deepseek-flash", "messages": [{"role": "user", "content": "hi"}]}
    off = {**body, "tools": tools, "thinking": {"type": "disabled"}}
    on = {**body, "tools": tools}
    named = {"type": "function", "function": {"name": "read"}}
    for choice in ("none", "auto"):
        assert problem({**on, "tool_choice": choice}, ["deepseek-flash"]) is None
    for choice in ("required", named):
        assert problem({**on, "tool_choice": choice}, ["deepseek-flash"]) == FORCED_IN_THINKING
        assert problem({**off, "tool_choice": choice}, ["deepseek-flash"]) is None
    unknown = {"type": "function", "function": {"name": "write"}}
    for choice in ("any", unknown, None):
        why = problem({**off, "tool_choice": choice}, ["deepseek-flash"])
        assert why is not None and why.startswith("invalid tool_choice")


def tool_and_text(text: str) -> list[bytes]:
    """A reply with text, then a tool call anyway (a server that does not honour the choice)."""
    return [chunk({"role": "assistant", "content": text}), *TOOL_STREAM]


def test_a_summary_reply_that_calls_a_tool_anyway(tmp_path: Path) -> None:
    """A server that ignores `tool_choice`: a reply with text and a tool call is summarised by
    its text; one with a tool call alone fails the compaction, saying so, and the session goes
    on with its history as it was."""
    with Server() as server:
        server.behaviours.extend(
            [
                text_stream("one"),
                text_stream("two"),
                TOOL_STREAM,  # the summary: a tool call, no text
                tool_and_text("Kept: one and two."),
                text_stream("three"),
            ]
        )
        c = client(tmp_path, server, "[context]\nkeep_turns = 1\n")
        sid = start(c, CAPABLE)
        converse(c, sid, [{"type": "text", "text": "first"}])
        converse(c, sid, [{"type": "text", "text": "second"}])
        for _ in range(2):
            answer = converse(c, sid, [{"type": "text", "text": "/compact"}])
            assert answer["result"] == {"stopReason": "end_turn"}, answer
        converse(c, sid, [{"type": "text", "text": "third"}])
        assert c.close() == 0
    failed, done = compactions(c.notes, sid)
    assert failed["status"] == "failed"
    assert "called a tool (todo_write) instead of writing a summary" in failed["error"]
    assert done["status"] == "completed"
    assert done["summary"] == [{"type": "text", "text": "Kept: one and two."}]
    sent = bodies(server)
    assert all(b["tool_choice"] == "none" for b in sent[2:4])
    last = sent[-1]["messages"]
    assert "Kept: one and two." in last[1]["content"]
    assert not any(m.get("tool_calls") for m in last), json.dumps(last)
