"""The model's history after a reload is the history before it, byte for byte.

Two agents (twins) live through the same session against the same scripted endpoint: prompts, a
linked file (changed on disk after it was read), a tool call that asks, a steer sent while it
asks, a compaction (`/compact`, keeping the newest two prompts). One is SIGKILLed between turns and its session loaded in a new process; the
other never stops. The next request each sends must be the same bytes (each twin's own paths
and ids put back to one spelling).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reasonix_acp.session.store import Store
from reasonix_acp.session.store_rows import SessionRecord
from tests.client import Client
from tests.sse_server import OK_STREAM, Server, chunk
from tests.transcript import Scenario

STEER = "_reasonix.io/session/steer"
DONE = b"data: [DONE]\n\n"


def text_stream(text: str, prompt_tokens: int = 100) -> list[bytes]:
    usage = {"prompt_tokens": prompt_tokens, "completion_tokens": 10}
    return [
        chunk({"role": "assistant", "content": text}),
        chunk({}, finish="stop"),
        b"data: " + json.dumps({"id": "c", "choices": [], "usage": usage}).encode() + b"\n\n",
        DONE,
    ]


def bash_stream(call_id: str, line: str) -> list[bytes]:
    call = {
        "index": 0,
        "id": call_id,
        "type": "function",
        "function": {"name": "bash", "arguments": json.dumps({"command": line})},
    }
    return [
        chunk({"role": "assistant", "content": "Running it.", "tool_calls": [call]}),
        chunk({}, finish="tool_calls"),
        DONE,
    ]


def twin(tmp: Path, server: Server, extra: dict[str, str] | None = None) -> Client:
    scenario = Scenario(tmp)
    scenario.env.update(
        {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-twin-key-0123456789", **(extra or {})}
    )
    return Client(tmp, "--model", "openai/m1", scenario=scenario)


def converse(
    c: Client,
    sid: str,
    prompt: list[dict[str, Any]],
    on_request: Callable[[dict[str, Any]], Any] | None = None,
    on_note: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """A prompt's answer; the agent's requests meanwhile answered by `on_request`, its other
    frames kept in `c.notes` and shown to `on_note` as they come."""
    c._id += 1
    prompt_id = c._id
    c.send(
        {
            "jsonrpc": "2.0",
            "id": prompt_id,
            "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": prompt},
        }
    )
    while True:
        frame = c.agent.receive()
        if "method" in frame and "id" in frame:
            assert on_request is not None, frame
            c.send({"jsonrpc": "2.0", "id": frame["id"], "result": on_request(frame)})
        elif frame.get("id") == prompt_id:
            return frame
        else:
            c.notes.append(frame)
            if on_note is not None:
                on_note(frame)


def steer_then_allow(c: Client, sid: str) -> Callable[[dict[str, Any]], Any]:
    def answer(request: dict[str, Any]) -> Any:
        assert request["method"] == "session/request_permission", request
        c._id += 1
        c.send(
            {
                "jsonrpc": "2.0",
                "id": c._id,
                "method": STEER,
                "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "use tabs"}]},
            }
        )
        while True:  # the steer's answer comes before the permission is answered
            frame = c.agent.receive()
            if frame.get("id") == c._id and "method" not in frame:
                assert frame["result"]["disposition"] == "steer_accepted", frame
                break
            c.notes.append(frame)
        return {"outcome": {"outcome": "selected", "optionId": "allow_once"}}

    return answer


def live_through(c: Client, sid: str, cwd: Path) -> None:
    """The session's turns; the server holds the replies in order."""
    notes = cwd / "notes.txt"
    link = {"type": "resource_link", "uri": notes.as_uri(), "name": "notes.txt"}
    first = converse(c, sid, [{"type": "text", "text": "read this"}, link])
    assert first["result"] == {"stopReason": "end_turn"}, first
    notes.write_text("changed after it was read\n", encoding="utf-8")
    second = converse(
        c, sid, [{"type": "text", "text": "run it"}], on_request=steer_then_allow(c, sid)
    )
    assert second["result"] == {"stopReason": "end_turn"}, second
    third = converse(c, sid, [{"type": "text", "text": "one more"}])
    assert third["result"] == {"stopReason": "end_turn"}, third
    compact = converse(c, sid, [{"type": "text", "text": "/compact keep the notes"}])
    assert compact["result"] == {"stopReason": "end_turn"}, compact


def behaviours() -> list[Any]:
    return [
        text_stream("I read the notes."),
        bash_stream("call_x", "echo $HOME"),  # nothing granted: it asks
        text_stream("Done, with tabs."),
        text_stream("Once more."),
        text_stream("Notes read; echo run; tabs asked for."),  # the summary of /compact
        OK_STREAM,  # the next request, the one compared
    ]


def normalised(body: bytes, scenario: Scenario, sid: str) -> str:
    text = body.decode()
    for key in ("CWD", "DATA", "TMP"):
        text = text.replace(scenario.vars[key], f"<{key}>")
    return text.replace(sid, "<session>")


def test_the_history_after_a_reload_is_the_history_before_it(tmp_path: Path) -> None:
    bodies = []
    for name, kill in (("kept", False), ("killed", True)):
        with Server() as server:
            server.behaviours.extend(behaviours())
            c = twin(tmp_path / name, server)
            sid = c.start()
            live_through(c, sid, Path(c.scenario.vars["CWD"]))
            if kill:
                c.kill()
                c = Client(tmp_path / name, "--model", "openai/m1", scenario=c.scenario)
                c.result("initialize", {"protocolVersion": 1})
                c.result(
                    "session/load",
                    {"sessionId": sid, "cwd": c.scenario.vars["CWD"], "mcpServers": []},
                )
            last = converse(c, sid, [{"type": "text", "text": "and now?"}])
            assert last["result"] == {"stopReason": "end_turn"}, last
            assert c.close() == 0
            bodies.append(normalised(server.bodies[-1], c.scenario, sid))
    kept, killed = bodies
    messages = json.loads(kept)["messages"]
    said = json.dumps(messages)
    # What the live session sent, and what used to be lost on a reload:
    assert "Notes read; echo run; tabs asked for." in messages[1]["content"]  # the compaction
    assert "line one" not in said  # summarised
    assert any("use tabs" in str(m.get("content")) for m in messages if m["role"] == "user")
    assert killed == kept


def test_a_transcript_from_before_history_events_compacts_and_reloads_the_same(
    tmp_path: Path,
) -> None:
    """A session stored before the model's messages were kept (`history` events): its history
    is read from what it showed; `/compact` and a reload must still agree."""
    bodies = []
    for name, kill in (("kept", False), ("killed", True)):
        with Server() as server:
            server.behaviours.extend([text_stream("Summary of the old part."), OK_STREAM])
            c = twin(tmp_path / name, server, {})
            (tmp_path / name / "config").mkdir(exist_ok=True)
            (tmp_path / name / "config" / "config.toml").write_text(
                "[context]\nkeep_turns = 1\n", encoding="utf-8"
            )
            store = Store(Path(c.scenario.vars["DATA"]))
            sid = f"legacy-{name}"
            record = SessionRecord(id=sid, cwd=c.scenario.vars["CWD"], model="openai/m1")
            store.create_session(record)
            for turn, (asked, said) in enumerate((("first", "one"), ("second", "two")), 1):
                events = [
                    ("user_message", {"content": [{"type": "text", "text": asked}]}),
                    ("agent_message", {"text": said}),
                ]
                store.append_events(sid, turn, events)
            store.close()
            c.result("initialize", {"protocolVersion": 1})
            cwd = c.scenario.vars["CWD"]
            c.result("session/resume", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
            compact = converse(c, sid, [{"type": "text", "text": "/compact"}])
            assert compact["result"] == {"stopReason": "end_turn"}, compact
            if kill:
                c.kill()
                c = Client(tmp_path / name, "--model", "openai/m1", scenario=c.scenario)
                c.result("initialize", {"protocolVersion": 1})
                c.result("session/resume", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
            last = converse(c, sid, [{"type": "text", "text": "and now?"}])
            assert last["result"] == {"stopReason": "end_turn"}, last
            assert c.close() == 0
            messages = json.loads(server.bodies[-1])["messages"]
            bodies.append([m["content"] for m in messages[1:]])
    kept, killed = bodies
    assert kept[1:] == ["second", "two", "and now?"]
    assert killed == kept
