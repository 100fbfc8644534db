"""`session/fork` (unstable in the schema, advertised as `sessionCapabilities.fork`): a new
session whose transcript is a copy of the source's as stored, with its own id and lease; its
model reads the source's history; the source is untouched by what the fork does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.deepseek_server import DeepSeek
from tests.sse_server import Server
from tests.test_context_window import endpoint_client
from tests.test_deepseek import agent as deepseek_agent
from tests.test_deepseek import config as deepseek_config
from tests.test_sessions import updates_of


def prompt(c: Client, sid: str, text: str) -> None:
    answer = c.call(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
    )
    assert answer["result"] == {"stopReason": "end_turn"}, answer


def shown(c: Client, sid: str) -> list[Any]:
    """What a load replays of a session: its messages, in order."""
    c.take_notes()
    cwd = c.scenario.vars["CWD"]
    c.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
    return [
        (u["sessionUpdate"], u["content"].get("text"))
        for u in updates_of(c.take_notes(), sid)
        if u["sessionUpdate"] in ("user_message_chunk", "agent_message_chunk")
    ]


def test_a_fork_carries_the_history_on_and_leaves_the_source_as_it_was(tmp_path: Path) -> None:
    with Server() as server:
        server.models = ["m1"]
        c = endpoint_client(tmp_path, server)
        init = c.result("initialize", {"protocolVersion": 1})
        assert init["agentCapabilities"]["sessionCapabilities"]["fork"] == {}
        cwd = c.scenario.vars["CWD"]
        source = c.result("session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]
        prompt(c, source, "first")
        before = shown(c, source)
        forked = c.result("session/fork", {"sessionId": source, "cwd": cwd, "mcpServers": []})
        fork = forked["sessionId"]
        assert fork != source
        assert forked["configOptions"][0]["id"] == "mode"
        assert "models" not in forked
        assert shown(c, fork) == before  # the same transcript

        prompt(c, fork, "only in the fork")
        sent = json.loads(server.bodies[-1])["messages"]
        first = json.loads(server.bodies[0])["messages"]
        # The fork's model read the source's history, then its own prompt.
        assert sent[: len(first)] == first
        assert [m["content"] for m in sent if m["role"] == "user"] == ["first", "only in the fork"]

        assert shown(c, source) == before  # untouched
        listed = {s["sessionId"] for s in c.result("session/list", {})["sessions"]}
        assert {source, fork} <= listed
        assert c.close() == 0


def test_a_fork_has_its_own_lease(tmp_path: Path) -> None:
    first = Client(tmp_path, "--model", "offline")
    source = first.start()
    prompt(first, source, "hello")
    cwd = first.scenario.vars["CWD"]
    fork = first.result("session/fork", {"sessionId": source, "cwd": cwd, "mcpServers": []})
    second = Client(tmp_path, "--model", "offline", scenario=first.scenario)
    second.result("initialize", {"protocolVersion": 1})
    refused = second.call("session/resume", {"sessionId": fork["sessionId"], "cwd": cwd})
    assert "close the other window or process first" in refused["error"]["message"]
    assert first.close() == 0
    assert "result" in second.call("session/resume", {"sessionId": fork["sessionId"], "cwd": cwd})
    assert second.close() == 0


def test_forking_an_unknown_session_names_it(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    c.start()
    cwd = c.scenario.vars["CWD"]
    answer = c.call("session/fork", {"sessionId": "nope", "cwd": cwd, "mcpServers": []})
    assert answer["error"]["code"] == -32602
    assert "unknown session nope" in answer["error"]["message"]
    assert c.close() == 0


def reply_ids(c: Client, sid: str, text: str) -> list[str]:
    """Prompt; → the ids of the agent message chunks the turn sent, in order."""
    c.take_notes()
    prompt(c, sid, text)
    return [
        u["messageId"]
        for u in updates_of(c.take_notes(), sid)
        if u["sessionUpdate"] == "agent_message_chunk"
    ]


def at(message_id: str) -> dict[str, Any]:
    return {"_meta": {"reasonix.io": {"messageId": message_id}}}


def test_a_fork_from_a_reply_keeps_the_turns_up_to_it_and_the_provider_s_prefix(
    tmp_path: Path,
) -> None:
    """Inclusive, at the reply that ends a turn: the fork holds the turns up to it, and its
    next request starts with the very bytes the source sent for them (a provider's cached
    prefix holds); the source is untouched."""
    with Server() as server:
        server.models = ["m1"]
        c = endpoint_client(tmp_path, server)
        c.result("initialize", {"protocolVersion": 1})
        cwd = c.scenario.vars["CWD"]
        source = c.result("session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]
        first = reply_ids(c, source, "one")
        reply_ids(c, source, "two")
        second_request = server.bodies[-1]
        reply_ids(c, source, "three")
        before = shown(c, source)
        params = {"sessionId": source, "cwd": cwd, "mcpServers": [], **at(first[-1])}
        fork = c.result("session/fork", params)["sessionId"]
        assert shown(c, fork) == before[:2]  # "one" and its reply
        prompt(c, fork, "edited two")
        sent = server.bodies[-1]
        cut = second_request.index(b'"two"')
        assert sent[:cut] == second_request[:cut]  # the same bytes up to the new prompt
        assert [m["content"] for m in json.loads(sent)["messages"] if m["role"] == "user"] == [
            "one",
            "edited two",
        ]
        assert shown(c, source) == before
        assert c.close() == 0


def test_a_fork_from_a_point_that_ends_no_reply_is_refused_and_creates_nothing(
    tmp_path: Path,
) -> None:
    c = Client(tmp_path, "--model", "offline")
    source = c.start()
    cwd = c.scenario.vars["CWD"]
    reply_ids(c, source, "hello")
    c.result("session/load", {"sessionId": source, "cwd": cwd, "mcpServers": []})
    users = [
        u["messageId"]
        for u in updates_of(c.take_notes(), source)
        if u["sessionUpdate"] == "user_message_chunk"
    ]
    listed = len(c.result("session/list", {})["sessions"])
    base = {"sessionId": source, "cwd": cwd, "mcpServers": []}
    for meta, says in (
        (at(users[0]), "is the user's prompt, not a reply"),
        (at("no-such-message"), "no message no-such-message in this session"),
        ({"_meta": {"reasonix.io": {"messageId": 7}}}, "messageId must be a message id"),
    ):
        answer = c.call("session/fork", {**base, **meta})
        assert answer["error"]["code"] == -32602, answer
        assert says in answer["error"]["message"], answer
    assert len(c.result("session/list", {})["sessions"]) == listed
    assert c.close() == 0


def test_a_fork_from_a_reply_is_served_from_deepseek_s_cache(tmp_path: Path) -> None:
    """On the DeepSeek stand-in, which counts as a cache hit the longest byte prefix a request
    shares with an earlier one: the fork's first request hits the cache through the turns it
    kept, where a new session with the same prompt hits it only up to its first message."""
    with DeepSeek() as server:
        long_reply = "A considered answer. " * 120  # some 600 tokens the fork keeps
        server.replies.append({"thought": "Thinking.", "text": long_reply})
        c = deepseek_agent(tmp_path, deepseek_config(server))
        cwd = c.scenario.vars["CWD"]
        source = c.start()
        first = reply_ids(c, source, "one")
        reply_ids(c, source, "two")
        fresh = c.result("session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]
        prompt(c, fresh, "edited two")
        cold = server.usage[-1]["prompt_cache_hit_tokens"]
        params = {"sessionId": source, "cwd": cwd, "mcpServers": [], **at(first[-1])}
        fork = c.result("session/fork", params)["sessionId"]
        prompt(c, fork, "edited two")
        warm = server.usage[-1]["prompt_cache_hit_tokens"]
        assert warm >= cold + 512, (cold, warm)  # the kept turn, reply included, was a hit
        assert c.close() == 0
    assert server.refused == []
