"""A real `acp` against a stand-in for DeepSeek's API that refuses what the real one refuses
(tests/deepseek_server.py): thinking-mode tool loops, reloads, compaction, forks, the effort
switch, sessions stored before reasoning was kept, retired model ids, refused histories."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.deepseek_server import KEY, MISSING_REASONING, DeepSeek
from tests.test_sessions import updates_of
from tests.transcript import Scenario

READ = {"name": "read", "arguments": {"path": "notes.txt"}}


def config(server: DeepSeek, extra: str = "", kind: str = "deepseek") -> str:
    return (
        f'[providers.deepseek]\nkind = "{kind}"\nbase_url = "{server.url}"\napi_key = "{KEY}"\n'
        + extra
    )


def agent(tmp: Path, text: str, scenario: Scenario | None = None) -> Client:
    scenario = scenario or Scenario(tmp)
    config_dir = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "config.toml").write_text(text, encoding="utf-8")
    cwd = Path(scenario.vars["CWD"])
    cwd.mkdir(parents=True, exist_ok=True)
    (cwd / "notes.txt").write_text("the answer is 42\n", encoding="utf-8")
    return Client(tmp, scenario=scenario)


def prompt(c: Client, sid: str, text: str) -> dict[str, Any]:
    return c.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})


def tool_turn(server: DeepSeek, thought: str = "I should read the notes.") -> None:
    """The next prompt: a thought and a tool call, then a thought and an answer."""
    server.replies.extend(
        [
            {"thought": thought, "tool_calls": [READ]},
            {"thought": "The notes say 42.", "text": "It is 42."},
        ]
    )


def assistants(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m["role"] == "assistant"]


def stable(one: bytes) -> bytes:
    """A request's bytes but the closing of `messages` and the body: what the next starts with."""
    return one[: one.rindex(b"]}")]


def test_a_tool_turn_sends_its_reasoning_back_and_the_next_prompt_too(tmp_path: Path) -> None:
    with DeepSeek() as server:
        tool_turn(server)
        c = agent(tmp_path, config(server))
        sid = c.start()
        assert prompt(c, sid, "what do the notes say?")["result"] == {"stopReason": "end_turn"}
        assert prompt(c, sid, "thanks")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    assert server.refused == []
    first, second, third = server.requests()
    assert first["model"] == "deepseek-flash"
    assert first["thinking"] == {"type": "enabled"} and first["reasoning_effort"] == "high"
    # The tool-call message goes back with its reasoning, as the API sent it.
    (call,) = assistants(second)
    assert call["reasoning_content"] == "I should read the notes."
    assert call["tool_calls"][0]["function"]["name"] == "read"
    # The next prompt carries the whole stretch's reasoning, and each request starts with the
    # previous one's bytes (the prefix cache holds).
    assert [m.get("reasoning_content") for m in assistants(third)] == [
        "I should read the notes.",
        "The notes say 42.",
    ]
    assert server.bodies[1].startswith(stable(server.bodies[0]))
    assert server.bodies[2].startswith(stable(server.bodies[1]))
    assert server.usage[2]["prompt_cache_hit_tokens"] > 0
    stream = updates_of(c.notes, sid)
    thoughts = "".join(
        u["content"]["text"] for u in stream if u["sessionUpdate"] == "agent_thought_chunk"
    )
    assert "I should read the notes." in thoughts and "The notes say 42." in thoughts
    usage = [u for u in stream if u["sessionUpdate"] == "usage_update"]
    assert usage[-1]["size"] == 1_048_576
    assert usage[-1]["cost"]["currency"] == "CNY" and usage[-1]["cost"]["amount"] > 0
    assert KEY.encode() not in json.dumps(c.notes).encode()


def test_today_s_refusal_is_what_the_stand_in_gives_without_the_reasoning() -> None:
    """The stand-in refuses a tool stretch without its reasoning in thinking mode (what the
    agent sent before it kept reasoning), and takes it with thinking off."""
    from tests.deepseek_server import problem

    call = {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "x"},
    ]
    body = {"model": "deepseek-flash", "messages": messages}
    assert problem(body, ["deepseek-flash"]) == MISSING_REASONING
    assert problem({**body, "thinking": {"type": "disabled"}}, ["deepseek-flash"]) is None
    messages[1]["reasoning_content"] = ""  # accepted, as the API accepts it
    assert problem(body, ["deepseek-flash"]) is None
    messages.append({"role": "assistant", "content": "a text reply without the field"})
    assert problem(body, ["deepseek-flash"]) == MISSING_REASONING
    retired = problem({**body, "model": "deepseek-chat"}, ["deepseek-flash"])
    assert (
        retired == "The supported API model names are deepseek-flash, but you passed deepseek-chat."
    )
    assert problem({**body, "model": "nope"}, ["deepseek-flash"]) == "Model Not Exist"


def test_after_a_sigkill_a_loaded_session_sends_the_same_bytes(tmp_path: Path) -> None:
    with DeepSeek() as server:
        tool_turn(server)
        c = agent(tmp_path, config(server))
        sid = c.start()
        assert prompt(c, sid, "what do the notes say?")["result"] == {"stopReason": "end_turn"}
        os.kill(c.agent.proc.pid, signal.SIGKILL)
        c.agent.proc.wait(timeout=10)
        again = Client(tmp_path, scenario=c.scenario)
        again.result("initialize", {"protocolVersion": 1})
        cwd = c.scenario.vars["CWD"]
        again.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
        assert prompt(again, sid, "and then?")["result"] == {"stopReason": "end_turn"}
        assert again.close() == 0
    assert server.refused == []
    last = server.requests()[-1]
    assert [m.get("reasoning_content") for m in assistants(last)] == [
        "I should read the notes.",
        "The notes say 42.",
    ]
    assert server.bodies[2].startswith(stable(server.bodies[1]))


def test_compaction_and_a_fork_keep_the_reasoning(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server, "[context]\nkeep_turns = 1\n"))
        sid = c.start()
        tool_turn(server, "First look.")
        assert prompt(c, sid, "one")["result"] == {"stopReason": "end_turn"}
        tool_turn(server, "Second look.")
        assert prompt(c, sid, "two")["result"] == {"stopReason": "end_turn"}
        server.replies.append({"thought": "Summing up.", "text": "Read the notes twice: 42."})
        assert prompt(c, sid, "/compact")["result"] == {"stopReason": "end_turn"}
        assert prompt(c, sid, "three")["result"] == {"stopReason": "end_turn"}
        cwd = c.scenario.vars["CWD"]
        fork = c.result("session/fork", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
        assert prompt(c, fork["sessionId"], "four")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    assert server.refused == []
    requests = server.requests()
    summary_request = requests[4]
    assert "[Compaction]" in summary_request["messages"][-1]["content"]
    after = requests[5]
    assert after["messages"][1]["content"].startswith("[The earlier part")
    # The kept turn ("two") is sent with its reasoning, as before the compaction.
    assert [m.get("reasoning_content") for m in assistants(after)] == [
        "Second look.",
        "The notes say 42.",
    ]
    forked = requests[6]
    assert forked["messages"][: len(after["messages"])] == after["messages"]


def test_the_effort_switch_turns_thinking_off_and_back(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        sid = c.start()
        created = c.result(
            "session/set_config_option", {"sessionId": sid, "configId": "effort", "value": "off"}
        )
        options = {o["id"]: o for o in created["configOptions"]}
        assert options["effort"]["currentValue"] == "off"
        assert [o["value"] for o in options["effort"]["options"]] == ["off", "low", "high", "max"]
        tool_turn(server)
        assert prompt(c, sid, "without thinking")["result"] == {"stopReason": "end_turn"}
        c.result(
            "session/set_config_option", {"sessionId": sid, "configId": "effort", "value": "max"}
        )
        assert prompt(c, sid, "with thinking")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    assert server.refused == []
    off, _, on = server.requests()
    assert off["thinking"] == {"type": "disabled"} and "reasoning_effort" not in off
    assert on["thinking"] == {"type": "enabled"} and on["reasoning_effort"] == "max"
    # Replies made without thinking have none to send: an empty one takes its place.
    assert [m.get("reasoning_content") for m in assistants(on)] == ["", ""]


def test_a_session_stored_before_reasoning_was_kept_goes_on(tmp_path: Path) -> None:
    """Stored by an agent that never kept reasoning (the provider spoke plain OpenAI), then
    loaded by one speaking DeepSeek's dialect: its tool stretch has no reasoning, and what is
    sent in its place is accepted."""
    with DeepSeek() as server:
        server.reasoner = False  # as the retired deepseek-chat: no thinking, no rule
        tool_turn(server)
        first = agent(
            tmp_path, 'default_model = "deepseek/deepseek-flash"\n' + config(server, kind="openai")
        )
        sid = first.start()
        assert prompt(first, sid, "old turn")["result"] == {"stopReason": "end_turn"}
        assert first.close() == 0
        old = server.requests()[1]
        assert "thinking" not in old and "reasoning_content" not in json.dumps(old["messages"])
        server.reasoner = True
        again = agent(tmp_path, config(server), scenario=first.scenario)
        again.result("initialize", {"protocolVersion": 1})
        cwd = first.scenario.vars["CWD"]
        again.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
        assert prompt(again, sid, "new turn")["result"] == {"stopReason": "end_turn"}
        assert again.close() == 0
    last = server.requests()[-1]
    assert server.refused == []
    # The old tool stretch had no reasoning: each of its messages goes with an empty one.
    assert [m.get("reasoning_content") for m in assistants(last)] == ["", ""]


def test_a_retired_model_runs_on_its_successor_and_says_so(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, 'default_model = "deepseek/deepseek-chat"\n' + config(server))
        sid = c.start()
        assert prompt(c, sid, "hello")["result"] == {"stopReason": "end_turn"}
        assert prompt(c, sid, "/status")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    assert "model deepseek/deepseek-flash (effort high)" in json.dumps(c.notes)
    assert server.refused == [] and server.requests()[0]["model"] == "deepseek-flash"
    said = json.dumps(updates_of(c.notes, sid))
    assert "DeepSeek retired the model deepseek-chat" in said and "deepseek-flash" in said


def test_the_endpoint_s_models_are_offered(tmp_path: Path) -> None:
    with DeepSeek() as server:
        server.models = ["deepseek-flash", "deepseek-v4-pro", "deepseek-v5-preview"]
        c = agent(tmp_path, config(server))
        sid = c.start()
        assert prompt(c, sid, "hello")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    offered = [
        [o["value"] for o in opt["options"]]
        for u in updates_of(c.notes, sid)
        if u["sessionUpdate"] == "config_option_update"
        for opt in u["configOptions"]
        if opt["id"] == "model"
    ]
    assert offered and offered[-1] == [
        "deepseek/deepseek-flash",
        "deepseek/deepseek-v4-pro",
        "deepseek/deepseek-v5-preview",
    ]


def test_a_refused_history_does_not_lose_the_session(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        sid = c.start()
        # A passing refusal: the turn fails saying what to do, the next prompt goes through.
        server.refuse.append((400, "messages[1]: something the endpoint does not take"))
        failed = prompt(c, sid, "one")
        assert failed["error"]["code"] == -32603
        assert "something the endpoint does not take" in failed["error"]["message"]
        assert "/compact" in failed["error"]["message"]
        assert prompt(c, sid, "two")["result"] == {"stopReason": "end_turn"}
        # A history refused for good: /compact rewrites it from its text, and the session goes on.
        tool_turn(server)
        assert prompt(c, sid, "three")["result"] == {"stopReason": "end_turn"}
        server.refuse.append((400, "a tool call the endpoint no longer takes"))
        assert prompt(c, sid, "four")["error"]["code"] == -32603
        # After a refusal, /compact summarises the history from its text (no tool calls).
        server.replies.append({"text": "The user read the notes: 42."})
        assert prompt(c, sid, "/compact")["result"] == {"stopReason": "end_turn"}
        assert prompt(c, sid, "five")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    last = server.requests()[-1]
    assert not any(m.get("tool_calls") for m in last["messages"])
    assert last["messages"][1]["content"].startswith("[The earlier part")
    assert last["messages"][-1]["content"] == "five"


def test_a_question_in_the_conversation_keeps_the_reasoning_for_the_answer(tmp_path: Path) -> None:
    """`ask_user` without forms ends the turn on its tool result; the user's answer opens the
    next request, which still carries the call's reasoning and starts with the last bytes."""
    ask = {"name": "ask_user", "arguments": {"question": "Which?", "options": ["a", "b"]}}
    with DeepSeek() as server:
        server.replies.extend(
            [
                {"thought": "I must ask which.", "tool_calls": [ask]},
                {"thought": "They chose b.", "text": "Going with b."},
            ]
        )
        c = agent(tmp_path, config(server))
        sid = c.start()
        assert prompt(c, sid, "pick one")["result"] == {"stopReason": "end_turn"}
        assert prompt(c, sid, "2")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    assert server.refused == []
    _, second = server.requests()
    (call,) = assistants(second)
    assert call["reasoning_content"] == "I must ask which."
    assert second["messages"][-1] == {"role": "user", "content": "2 (choice 2 of your question: b)"}
    assert server.bodies[1].startswith(stable(server.bodies[0]))
