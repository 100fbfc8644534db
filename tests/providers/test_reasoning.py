"""Reasoning kept as each server sends it and sent back on tool stretches
(providers/reasoning.py): `reasoning_content`, `reasoning`, `reasoning_details`; a server that
sends none gets the request bytes it always got."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reasonix_acp.providers.reasoning import MISSING, Reasoning, in_tool_stretch, outgoing
from tests.client import Client
from tests.sse_server import Server, chunk
from tests.test_sessions import updates_of
from tests.transcript import Scenario

CALL = {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}


def test_each_field_is_joined_and_the_text_shown_once() -> None:
    """OpenRouter streams every `reasoning_details` piece at index 0: a piece continues the
    last item unless it names another type or id."""
    r = Reasoning()
    text = {"type": "reasoning.text", "index": 0}
    shown = [
        r.feed(
            {"reasoning": "Let ", "reasoning_details": [{**text, "text": "Let ", "format": "f"}]}
        ),
        r.feed({"reasoning": "me.", "reasoning_details": [{**text, "text": "me."}]}),
        r.feed({"reasoning_details": [{"index": 0, "signature": "sig"}]}),
        r.feed({"reasoning_details": [{"type": "reasoning.encrypted", "data": "xyz", "index": 0}]}),
        r.feed({"content": "answer"}),
    ]
    assert shown == ["Let ", "me.", "", "", ""]
    assert r.kept() == {
        "reasoning": "Let me.",
        "reasoning_details": [
            {
                "type": "reasoning.text",
                "index": 0,
                "text": "Let me.",
                "format": "f",
                "signature": "sig",
            },
            {"type": "reasoning.encrypted", "data": "xyz", "index": 0},
        ],
    }
    plain = Reasoning()
    assert plain.feed({"reasoning_content": "Hmm"}) == "Hmm" and plain.kept() == {
        "reasoning_content": "Hmm"
    }
    assert Reasoning().kept() == {}


def test_a_tool_stretch_runs_from_a_call_to_the_next_user_message() -> None:
    user = {"role": "user", "content": "q"}
    call = {"role": "assistant", "content": None, "tool_calls": [CALL]}
    answer = {"role": "tool", "tool_call_id": "c1", "content": "r"}
    final = {"role": "assistant", "content": "done"}
    assert in_tool_stretch([user], call)
    assert in_tool_stretch([user, call, answer], final)
    assert not in_tool_stretch([user, call, answer, final, user], final)
    assert not in_tool_stretch([user], final)


def test_outgoing_gives_deepseek_a_reasoning_on_every_assistant_message() -> None:
    kept = {"role": "assistant", "content": None, "reasoning_content": "r", "tool_calls": [CALL]}
    lacking = {"role": "assistant", "content": None, "tool_calls": [CALL]}
    stretch = [
        {"role": "user", "content": "q"},
        kept,
        {"role": "tool", "tool_call_id": "c1", "content": "r"},
    ]
    assert outgoing(stretch) is stretch  # nothing to add: the very list, no copy
    sent = outgoing(
        [{"role": "user", "content": "q"}, lacking, {"role": "assistant", "content": "a"}]
    )
    assert list(sent[1]) == ["role", "content", "reasoning_content", "tool_calls"]
    assert sent[1]["reasoning_content"] == MISSING == "" and "reasoning_content" not in lacking
    assert sent[2] == {"role": "assistant", "content": "a", "reasoning_content": ""}
    # The same bytes every time: what later requests send is what this one sent.
    assert json.dumps(outgoing([lacking])) == json.dumps(outgoing([lacking]))


def _reply(fields: dict[str, Any], call: bool) -> list[bytes]:
    frames = [chunk({"role": "assistant", **fields})]
    if call:
        head = {"index": 0, "id": "call_r", "type": "function"}
        fn = {"name": "read", "arguments": json.dumps({"path": "notes.txt"})}
        frames.append(chunk({"tool_calls": [{**head, "function": fn}]}))
        frames.append(chunk({}, finish="tool_calls"))
    else:
        frames += [chunk({"content": "It is 42."}), chunk({}, finish="stop")]
    return [*frames, b"data: [DONE]\n\n"]


def _run(tmp: Path, fields: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    with Server() as server:
        server.behaviours.extend([_reply(fields, True), _reply(fields, False), _reply({}, False)])
        scenario = Scenario(tmp)
        scenario.env.update({"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "k"})
        cwd = Path(scenario.vars["CWD"])
        cwd.mkdir(parents=True, exist_ok=True)
        (cwd / "notes.txt").write_text("42\n", encoding="utf-8")
        c = Client(tmp, "--model", "openai/m1", scenario=scenario)
        sid = c.start()
        for text in ("read the notes", "thanks"):
            frame = c.call(
                "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
            )
            assert frame["result"] == {"stopReason": "end_turn"}, frame
        assert c.close() == 0
    return [json.loads(b) for b in server.bodies], updates_of(c.notes, sid)


def test_vllm_and_ollama_reasoning_goes_back_in_its_own_field(tmp_path: Path) -> None:
    bodies, stream = _run(tmp_path, {"reasoning": "Read the notes first."})
    thoughts = [u["content"]["text"] for u in stream if u["sessionUpdate"] == "agent_thought_chunk"]
    assert thoughts == ["Read the notes first.", "Read the notes first."]
    sent = [m for m in bodies[2]["messages"] if m["role"] == "assistant"]
    assert [m.get("reasoning") for m in sent] == ["Read the notes first."] * 2
    assert all("reasoning_content" not in m for m in sent) and "thinking" not in bodies[0]


def test_openrouter_reasoning_details_go_back_unmodified(tmp_path: Path) -> None:
    details = [{"type": "reasoning.text", "text": "Look.", "signature": "s1", "index": 0}]
    bodies, stream = _run(tmp_path, {"reasoning": "Look.", "reasoning_details": details})
    thoughts = [u["content"]["text"] for u in stream if u["sessionUpdate"] == "agent_thought_chunk"]
    assert thoughts == ["Look.", "Look."]  # shown once, though streamed in two fields
    (call,) = [m for m in bodies[1]["messages"] if m["role"] == "assistant"]
    assert call["reasoning_details"] == details and call["reasoning"] == "Look."
    later = [m for m in bodies[2]["messages"] if m["role"] == "assistant"]
    assert [m.get("reasoning_details") for m in later] == [details, details]


def test_a_server_without_reasoning_gets_the_bytes_it_always_got(tmp_path: Path) -> None:
    bodies, _ = _run(tmp_path, {})
    for body in bodies:
        assert set(body) == {"model", "stream", "stream_options", "tools", "messages"}
        for message in body["messages"]:
            assert not {"reasoning", "reasoning_content", "reasoning_details"} & set(message)
