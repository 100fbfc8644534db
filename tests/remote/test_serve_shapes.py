"""Two clients of one `acp serve` on one session, one advertising `session.compaction` and one
not: a compaction reaches each in the shape its client asked for (the structured updates for
the one, the short text that stands in for them for the other), whichever client prompted."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.remote.serving import Served
from tests.remote.test_serve_peers import Client, two_clients

CAPABLE = {"session": {"compaction": {}}}


def _say(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


async def _drive(url: str, cwd: str) -> tuple[Client, Client]:
    async with two_clients(url, ("capable", "plain")) as (a, b):
        await a.call("initialize", {"protocolVersion": 1, "clientCapabilities": CAPABLE})
        await b.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        sid = (await a.call("session/new", {"cwd": cwd, "mcpServers": []}))["result"]["sessionId"]
        await b.call("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
        for text in ("one", "two"):
            await a.call("session/prompt", {"sessionId": sid, "prompt": _say(text)})
        a.heard.clear()
        await b.drain()
        b.heard.clear()
        answer = await a.call("session/prompt", {"sessionId": sid, "prompt": _say("/compact")})
        assert answer["result"] == {"stopReason": "end_turn"}, answer
        await b.drain()
        return a, b


def _kinds(client: Client) -> list[str]:
    return [n["params"]["update"]["sessionUpdate"] for n in client.heard if "update" in n["params"]]


def _texts(client: Client) -> str:
    return json.dumps(
        [
            n["params"]["update"]["content"]["text"]
            for n in client.heard
            if n["params"]["update"].get("sessionUpdate") == "agent_message_chunk"
        ]
    )


def test_each_client_gets_a_compaction_as_it_asked(tmp_path: Path) -> None:
    steps = [{"steps": [{"text": "said one"}]}, {"steps": [{"text": "said two"}]}]
    steps.append({"steps": [{"text": "Kept: what was said."}]})  # the summary
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    served = Served(tmp_path, "--model", "offline", "--script", str(script))
    try:
        a, b = asyncio.run(_drive(served.url, str(served.workspace)))
    finally:
        assert served.stop() == 0
    assert "compaction_update" in _kinds(a), _kinds(a)
    assert "[compacted " not in _texts(a)
    assert not any(k.startswith("compaction") for k in _kinds(b)), _kinds(b)
    assert "[compacted " in _texts(b), _texts(b)
