"""Images in prompts: advertised when a configured model takes them, sent to the model as
OpenAI `image_url` parts, stored with the prompt and replayed by a load (and read by the model
again after it); refused with -32602 saying what to change when the model takes none, and for
a type, an encoding or a size the agent does not take."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from reasonix_acp.providers.discovery import parse_vision
from reasonix_acp.session.images import MAX_IMAGE_BYTES
from tests.client import Client
from tests.sse_server import Server
from tests.test_context_window import endpoint_client
from tests.test_sessions import updates_of

# A 1x1 transparent PNG.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
IMAGE = {"type": "image", "mimeType": "image/png", "data": PNG}


def initialize(c: Client) -> dict[str, Any]:
    result: dict[str, Any] = c.result("initialize", {"protocolVersion": 1})
    return result


def new_session(c: Client) -> str:
    opened = c.result("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})
    sid: str = opened["sessionId"]
    return sid


def prompt(c: Client, sid: str, blocks: list[dict[str, Any]]) -> dict[str, Any]:
    return c.call("session/prompt", {"sessionId": sid, "prompt": blocks})


def last_user(body: bytes) -> Any:
    messages = json.loads(body)["messages"]
    return next(m for m in reversed(messages) if m["role"] == "user")["content"]


def test_an_image_reaches_the_model_and_a_load_replays_it(tmp_path: Path) -> None:
    with Server() as server:
        server.models = ["m1"]
        c = endpoint_client(tmp_path, server, '[providers.openai]\nvision = ["m1"]\n')
        assert initialize(c)["agentCapabilities"]["promptCapabilities"]["image"] is True
        sid = new_session(c)
        answer = prompt(c, sid, [{"type": "text", "text": "what is this?"}, IMAGE])
        assert answer["result"] == {"stopReason": "end_turn"}, answer
        uri = f"data:image/png;base64,{PNG}"
        sent = [
            {"type": "text", "text": "what is this?"},
            {"type": "image_url", "image_url": {"url": uri}},
        ]
        assert last_user(server.bodies[-1]) == sent
        c.take_notes()
        cwd = c.scenario.vars["CWD"]
        c.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
        shown = [
            u["content"]
            for u in updates_of(c.take_notes(), sid)
            if u["sessionUpdate"] == "user_message_chunk"
        ]
        assert shown == [{"type": "text", "text": "what is this?"}, IMAGE]
        # The model reads the image again in the next request, after the reload.
        assert prompt(c, sid, [{"type": "text", "text": "and now?"}])["result"]
        messages = json.loads(server.bodies[-1])["messages"]
        assert [m["content"] for m in messages if m["role"] == "user"] == [sent, "and now?"]
        assert c.close() == 0


def test_an_image_resource_blob_is_an_image_too(tmp_path: Path) -> None:
    with Server() as server:
        server.models = ["m1"]
        c = endpoint_client(tmp_path, server, "[providers.openai]\nvision = true\n")
        initialize(c)
        sid = new_session(c)
        blob = {"uri": "file:///tmp/dot.png", "mimeType": "image/png", "blob": PNG}
        answer = prompt(c, sid, [{"type": "resource", "resource": blob}])
        assert answer["result"] == {"stopReason": "end_turn"}, answer
        uri = f"data:image/png;base64,{PNG}"
        assert last_user(server.bodies[-1]) == [{"type": "image_url", "image_url": {"url": uri}}]
        assert c.close() == 0


def test_a_model_that_takes_no_images_is_named_with_what_to_change(tmp_path: Path) -> None:
    with Server() as server:
        server.models = ["m1"]
        c = endpoint_client(tmp_path, server)
        assert initialize(c)["agentCapabilities"]["promptCapabilities"]["image"] is False
        sid = new_session(c)
        answer = prompt(c, sid, [{"type": "text", "text": "look"}, IMAGE])
        assert answer["error"]["code"] == -32602, answer
        message = answer["error"]["message"]
        assert "prompt[1]" in message and "openai/m1" in message
        assert "vision = true" in message and "[providers.openai]" in message
        # Nothing was kept: a load shows no prompt, the model was never asked.
        cwd = c.scenario.vars["CWD"]
        c.take_notes()
        c.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
        kinds = [u["sessionUpdate"] for u in updates_of(c.take_notes(), sid)]
        assert "user_message_chunk" not in kinds
        assert server.bodies == []
        assert c.close() == 0


def test_what_the_endpoint_says_of_a_model_is_believed(tmp_path: Path) -> None:
    with Server() as server:
        server.models = ["m1"]
        server.entries = [{"id": "m1", "architecture": {"input_modalities": ["text", "image"]}}]
        c = endpoint_client(tmp_path, server)
        initialize(c)
        sid = new_session(c)
        # The endpoint is reached by the first turn; from then on its word counts.
        assert prompt(c, sid, [{"type": "text", "text": "hi"}])["result"]
        answer = prompt(c, sid, [IMAGE])
        assert answer["result"] == {"stopReason": "end_turn"}, answer
        assert c.close() == 0


def oversized() -> str:
    return base64.b64encode(b"\0" * (MAX_IMAGE_BYTES + 1)).decode()


REFUSED = [
    ({"type": "image", "mimeType": "image/tiff", "data": PNG}, "image/tiff"),
    ({"type": "image", "mimeType": "image/png", "data": "not base64!"}, "not valid base64"),
    ({"type": "image", "mimeType": "image/png", "data": oversized()}, "bytes; at most"),
    ({"type": "audio", "mimeType": "audio/wav", "data": PNG}, "promptCapabilities.audio"),
]


def test_what_the_agent_does_not_take_is_refused(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    assert initialize(c)["agentCapabilities"]["promptCapabilities"]["image"] is True
    sid = new_session(c)
    for image, said in REFUSED:
        answer = prompt(c, sid, [{"type": "text", "text": "look"}, image])
        assert answer["error"]["code"] == -32602, answer
        assert said in answer["error"]["message"], answer
    ok = prompt(c, sid, [{"type": "text", "text": "what is it?"}, IMAGE])["result"]
    assert ok == {"stopReason": "end_turn"}
    replies = "".join(
        u["content"]["text"]
        for u in updates_of(c.take_notes(), sid)
        if u["sessionUpdate"] == "agent_message_chunk"
    )
    assert "[1 image: image/png, 70 bytes]" in replies
    assert c.close() == 0


def test_parse_vision_reads_each_way_an_endpoint_says_it() -> None:
    body = {
        "data": [
            {"id": "a", "architecture": {"input_modalities": ["text", "image"]}},
            {"id": "b", "input_modalities": ["image"]},
            {"id": "c", "modalities": ["text", "image"]},
            {"id": "d", "capabilities": ["completion", "vision"]},
            {"id": "e", "architecture": {"input_modalities": ["text"]}},
            {"id": "f"},
        ]
    }
    assert parse_vision(body) == {"a", "b", "c", "d"}


def test_an_image_over_the_frame_budget_is_replayed_as_a_link_to_its_file(tmp_path: Path) -> None:
    data = bytes(range(256)) * 400  # 100 KiB, past the 60 KiB frame budget once encoded
    big = {"type": "image", "mimeType": "image/png", "data": base64.b64encode(data).decode()}
    c = Client(tmp_path, "--model", "offline")
    initialize(c)
    sid = new_session(c)
    assert prompt(c, sid, [{"type": "text", "text": "a big one"}, big])["result"]
    c.take_notes()
    cwd = c.scenario.vars["CWD"]
    c.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
    notes = c.take_notes()
    assert max(len(json.dumps(n, separators=(",", ":"))) for n in notes) <= 61440
    shown = [
        u["content"] for u in updates_of(notes, sid) if u["sessionUpdate"] == "user_message_chunk"
    ]
    assert shown[0] == {"type": "text", "text": "a big one"}
    link = shown[1]
    assert link["type"] == "resource_link" and link["mimeType"] == "image/png"
    assert link["size"] == len(data)
    assert Path(link["uri"].removeprefix("file://")).read_bytes() == data
    # Loaded again, the same file is named.
    c.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
    again = [
        u["content"]
        for u in updates_of(c.take_notes(), sid)
        if u["sessionUpdate"] == "user_message_chunk"
    ]
    assert again == shown
    assert c.close() == 0
