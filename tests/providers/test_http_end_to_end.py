"""`acp --model openai/NAME` against the local server: streaming, failures, prefix stability."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path

from reasonix_acp.config import ProviderConfig
from reasonix_acp.providers.openai import OpenAIProvider
from tests.client import Client
from tests.sse_server import LINGER_SECONDS, Server
from tests.test_sessions import updates_of
from tests.transcript import Scenario


def client(tmp: Path, server: Server) -> Client:
    scenario = Scenario(tmp)
    scenario.env.update(
        {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-e2e-secret-key-123456"}
    )
    return Client(tmp, "--model", "openai/m1", scenario=scenario)


def prompt(c: Client, sid: str, text: str) -> dict[str, object]:
    return c.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})


def test_a_turn_through_the_http_provider(tmp_path: Path) -> None:
    with Server() as server:
        server.behaviours.extend(["tool", "ok"])
        c = client(tmp_path, server)
        sid = c.start()
        assert prompt(c, sid, "plan it")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    stream = updates_of(c.notes, sid)
    kinds = [u["sessionUpdate"] for u in stream]
    assert (
        kinds.index("tool_call")
        < kinds.index("plan")
        < kinds.index("tool_call_update")
        < kinds.index("agent_message_chunk")
    )
    assert [
        u["content"]["text"] for u in stream if u["sessionUpdate"] == "agent_thought_chunk"
    ] == ["Let me ", "think."]
    usage = next(u for u in stream if u["sessionUpdate"] == "usage_update")
    assert usage == {"sessionUpdate": "usage_update", "used": 47, "size": 65536}
    second = json.loads(server.bodies[1])
    assert second["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_a",
        "content": json.dumps(
            {"todos": [{"content": "ship it", "priority": "medium", "status": "pending"}]}
        ),
    }


def test_failures_are_redacted_errors_and_the_session_goes_on(tmp_path: Path) -> None:
    with Server() as server:
        server.behaviours.extend(["401", "disconnect", "ok"])
        c = client(tmp_path, server)
        sid = c.start()
        refused = prompt(c, sid, "one")
        cause = (
            "session/prompt: openai: authentication failed (HTTP 401): status 401 from the test "
            "server. Set a valid key: run `acp setup`, or set the provider's key in config.toml "
            "or OPENAI_API_KEY"
        )
        assert refused["error"] == {"code": -32000, "message": cause}  # the editor may re-auth
        broken = prompt(c, sid, "two")
        assert broken["error"]["code"] == -32603 and "ended early" in broken["error"]["message"]
        assert prompt(c, sid, "three")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    assert b"sk-e2e-secret-key-123456" not in b"".join(json.dumps(n).encode() for n in c.notes)
    # the partial reply of the broken turn is kept in the history the model sees next
    third = json.loads(server.bodies[2])
    assert {"role": "assistant", "content": "Hello"} in third["messages"]


def test_turn_two_starts_with_the_bytes_of_turn_one(tmp_path: Path) -> None:
    with Server() as server:
        c = client(tmp_path, server)
        sid = c.start()
        for text in ("first", "second"):
            assert prompt(c, sid, text)["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    one, two = server.bodies
    stable = one[: one.rindex(b"]}")]  # everything but the closing of `messages` and the body
    assert two.startswith(stable)
    assert json.loads(one)["tools"] == json.loads(two)["tools"] and json.loads(one)["tools"]
    assert json.loads(one)["messages"][0] == json.loads(two)["messages"][0]


def test_a_session_loaded_by_another_process_goes_on_with_the_bytes_it_had(
    tmp_path: Path,
) -> None:
    """The history a load rebuilds (from the transcript, on the first turn) is what the model
    saw before, byte for byte: the provider's prompt cache still holds after a restart."""
    with Server() as server:
        first = client(tmp_path, server)
        sid = first.start()
        assert prompt(first, sid, "first")["result"] == {"stopReason": "end_turn"}
        assert first.close() == 0
        again = Client(tmp_path, "--model", "openai/m1", scenario=first.scenario)
        again.result("initialize", {"protocolVersion": 1})
        cwd = first.scenario.vars["CWD"]
        again.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
        assert prompt(again, sid, "second")["result"] == {"stopReason": "end_turn"}
        assert again.close() == 0
    one, two = server.bodies
    assert json.loads(two)["messages"][1:] == [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "Hello, world"},
        {"role": "user", "content": "second"},
    ]
    assert two.startswith(one[: one.rindex(b"]}")])


def test_priced_providers_report_cost_and_a_cost_budget_pauses(tmp_path: Path) -> None:
    with Server() as server:
        server.behaviours.extend(["ok", "tool", "ok"])
        scenario = Scenario(tmp_path)
        config_dir = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
        config_dir.mkdir(parents=True)
        (config_dir / "config.toml").write_text(
            f'[providers.priced]\nkind = "openai"\nbase_url = "{server.url}"\nmodels = ["m1"]\n'
            'prices = {input = 1.0, output = 2.0, cache_hit = 0.5, currency = "EUR"}\n'
            "[budgets]\ntask_cost = 0.00001\n",
            encoding="utf-8",
        )
        c = Client(tmp_path, "--model", "priced/m1", scenario=scenario)
        sid = c.start()
        assert prompt(c, sid, "price me")["result"] == {"stopReason": "end_turn"}
        usage = next(
            u for u in updates_of(c.take_notes(), sid) if u["sessionUpdate"] == "usage_update"
        )
        assert usage["cost"] == {"amount": 3.8e-05, "currency": "EUR"}
        assert c.close() == 0


def test_a_cost_budget_pauses_the_turn(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    config_dir = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
    config_dir.mkdir(parents=True)
    (config_dir / "config.toml").write_text(
        "[providers.offline]\nprices = {input = 1.0, output = 1.0}\n[budgets]\ntask_cost = 0.001\n",
        encoding="utf-8",
    )
    call = {"usage": {"prompt_tokens": 1000, "completion_tokens": 500}}
    todo = {
        "tool_call": {
            "name": "todo_write",
            "arguments": {"todos": [{"content": "x", "status": "pending"}]},
        }
    }
    script = tmp_path / "cost.jsonl"
    script.write_text(
        json.dumps({"steps": [call, todo]})
        + "\n"
        + json.dumps({"steps": [{"text": "never"}]})
        + "\n",
        encoding="utf-8",
    )
    c = Client(tmp_path, "--model", "offline", "--script", str(script), scenario=scenario)
    sid = c.start()
    assert prompt(c, sid, "spend")["result"] == {"stopReason": "end_turn"}
    texts = [
        u["content"]["text"]
        for u in updates_of(c.take_notes(), sid)
        if u["sessionUpdate"] == "agent_message_chunk"
    ]
    assert texts == [
        "\n\n[warning] paused after reaching this task's cost budget (0.001); send a prompt to continue"
    ]
    assert c.close() == 0


async def test_a_closed_provider_closes_its_connection_pool() -> None:
    provider = OpenAIProvider(ProviderConfig("p", "openai", "http://127.0.0.1:9"), "m")
    client = provider._http()
    assert not client.is_closed
    await provider.aclose()
    assert client.is_closed and provider._client is None


async def test_a_warm_up_finishing_after_close_leaves_no_client() -> None:
    with Server() as server:
        server.models = ["m"]
        provider = OpenAIProvider(ProviderConfig("p", "openai", server.url), "m")
        warming = asyncio.ensure_future(provider.warm())
        await asyncio.sleep(0)  # under way: importing httpx off the loop
        await provider.aclose()
        assert await warming is None
        assert provider._client is None and server.log == []


def frames(*chunks: dict[str, object]) -> list[bytes]:
    return [b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks]


def calls_chunk(*parts: dict[str, object], finish: str | None = None) -> dict[str, object]:
    delta = {"tool_calls": list(parts)} if parts else {}
    return {"id": "c", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def read_call(call_id: str, path: str, **extra: object) -> dict[str, object]:
    fn = {"name": "read", "arguments": json.dumps({"path": path})}
    return {"id": call_id, "type": "function", "function": fn, **extra}


def tool_titles(c: Client, sid: str) -> list[str]:
    return [u["title"] for u in updates_of(c.notes, sid) if u["sessionUpdate"] == "tool_call"]


def test_an_event_whose_data_spans_several_lines(tmp_path: Path) -> None:
    body = json.dumps(
        {"id": "c", "choices": [{"index": 0, "delta": {"content": "Hello"}, "finish_reason": None}]}
    )
    split = body.index('"delta"')
    event = f"data: {body[:split]}\ndata: {body[split:]}\n\n".encode()
    stream = [event, *frames(calls_chunk(finish="stop")), b"data: [DONE]\n\n"]
    with Server() as server:
        server.behaviours.append(stream)
        c = client(tmp_path, server)
        sid = c.start()
        assert prompt(c, sid, "hi")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    texts = [
        u["content"]["text"]
        for u in updates_of(c.notes, sid)
        if u["sessionUpdate"] == "agent_message_chunk"
    ]
    assert texts == ["Hello"]


def one_turn(tmp_path: Path, *chunks: dict[str, object]) -> tuple[Client, str, Server]:
    """A turn whose first model answer streams `chunks` (then [DONE]); the next says "ok"."""
    with Server() as server:
        server.behaviours.extend([[*frames(*chunks), b"data: [DONE]\n\n"], "ok"])
        c = client(tmp_path, server)
        sid = c.start()
        assert prompt(c, sid, "go")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    return c, sid, server


def test_parallel_tool_calls_without_an_index_stay_apart(tmp_path: Path) -> None:
    c, sid, server = one_turn(
        tmp_path,
        calls_chunk(read_call("call_1", "notes.txt")),
        calls_chunk(read_call("call_2", "other.txt")),
        calls_chunk(finish="tool_calls"),
    )
    assert tool_titles(c, sid) == ["Read notes.txt", "Read other.txt"]
    sent = json.loads(server.bodies[1])["messages"]
    assert [m["tool_call_id"] for m in sent if m["role"] == "tool"] == ["call_1", "call_2"]


def test_a_null_index_is_read_as_no_index(tmp_path: Path) -> None:
    c, sid, _ = one_turn(
        tmp_path,
        calls_chunk(read_call("call_1", "notes.txt", index=None)),
        calls_chunk(finish="tool_calls"),
    )
    assert tool_titles(c, sid) == ["Read notes.txt"]


def test_the_endpoint_connection_is_made_at_open_and_kept_between_prompts(tmp_path: Path) -> None:
    """The session connects when it opens (a GET of /models, after the response), and every
    later request goes over that one connection: a stream read to its end keeps it pooled."""
    with Server() as server:
        server.keep_alive = True
        server.models = ["m1"]
        c = client(tmp_path, server)
        sid = c.start()
        opened = len(server.log)  # a model listing may have run before the response
        for _ in range(100):
            if len(server.log) > opened:
                break
            time.sleep(0.02)
        assert server.log[opened:][:1] and server.log[opened][0] == "GET", server.log
        for text in ("one", "two", "three"):
            assert prompt(c, sid, text)["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    port = server.log[opened][1]
    assert server.log[opened + 1 :] == [("POST", port)] * 3, server.log


def test_a_stream_kept_open_after_done_ends_the_turn_and_the_next_prompt_goes_on(
    tmp_path: Path,
) -> None:
    """A server that sends `[DONE]` and then keeps the body open (for LINGER_SECONDS): the turn
    ends after a short wait for the body's end, not when the server gives up, and the next
    prompt goes over a connection of its own."""
    with Server() as server:
        server.keep_alive = True
        server.behaviours.extend(["linger", "ok"])
        c = client(tmp_path, server)
        sid = c.start()
        started = time.monotonic()
        assert prompt(c, sid, "one")["result"] == {"stopReason": "end_turn"}
        waited = time.monotonic() - started
        assert prompt(c, sid, "two")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    assert waited < LINGER_SECONDS / 3, waited
    replies = [
        u["content"]["text"]
        for u in updates_of(c.notes, sid)
        if u["sessionUpdate"] == "agent_message_chunk"
    ]
    assert replies == ["Hello", ", world"] * 2
    posts = [port for method, port in server.log if method == "POST"]
    assert len(posts) == 2 and posts[0] != posts[1], server.log


def test_a_prompt_sent_while_the_connection_is_being_made_waits_for_it(tmp_path: Path) -> None:
    """A slow endpoint: the session's warm-up request is still in flight when the first prompt
    comes. The prompt's request goes over the connection being made, not a second one (a new
    handshake would cost the user what the warm-up is there to save)."""
    with Server() as server:
        server.keep_alive = True
        server.models = ["m1"]
        server.get_delay = 0.5
        c = client(tmp_path, server)
        sid = c.start()
        opened = len(server.log)
        for _ in range(100):
            if len(server.log) > opened:
                break
            time.sleep(0.01)
        assert server.log[opened:][:1] and server.log[opened][0] == "GET", server.log
        assert prompt(c, sid, "right away")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    port = server.log[opened][1]
    assert server.log[opened:] == [("GET", port), ("POST", port)], server.log


def test_an_endpoint_unreachable_at_open_is_in_the_status(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    scenario = Scenario(tmp_path)
    scenario.env.update({"OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1", "OPENAI_API_KEY": "k"})
    c = Client(tmp_path, "--model", "openai/m1", scenario=scenario)
    sid = c.start()
    status: dict[str, object] = {}
    for _ in range(50):
        status = c.result("_reasonix.io/session/status", {"sessionId": sid})
        if "endpointAtOpen" in status:
            break
        time.sleep(0.05)
    seen = status.get("endpointAtOpen")
    assert isinstance(seen, dict) and seen["reachable"] is False, status
    assert f"127.0.0.1:{port}" in seen["error"] and "ConnectError" in seen["error"]
    assert c.close() == 0
