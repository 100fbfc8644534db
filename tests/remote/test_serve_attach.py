"""A session another connection of one `acp serve` holds is not this connection's until it
loads or resumes it, as a session open in another process is not on stdio: its prompt, mode,
model, config, status, steering, reload and rewind are refused as for an unknown session
(-32602), its cancel is ignored, its close closes nothing (as for any session not open), and its
delete is refused while another connection holds it (-32600, as for a session in use by another
process); the holder's session goes on untouched. Once loaded here, it is this connection's
too."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.remote.serving import Served
from tests.remote.test_serve_peers import two_clients

TEXT = [{"type": "text", "text": "hello"}]


async def _drive(url: str, cwd: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with two_clients(url, ("editor", "other")) as (a, b):
        await a.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        await b.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        sid = (await a.call("session/new", {"cwd": cwd, "mcpServers": []}))["result"]["sessionId"]
        session = {"sessionId": sid}
        seen["prompt"] = await b.call("session/prompt", {**session, "prompt": TEXT})
        seen["mode"] = await b.call("session/set_mode", {**session, "modeId": "plan"})
        seen["status"] = await b.call("_reasonix.io/session/status", session)
        seen["close"] = await b.call("session/close", session)
        seen["delete"] = await b.call("session/delete", session)
        cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": session}
        await b.ws.send(json.dumps(cancel))  # a notification: ignored
        await a.drain()
        seen["a_heard_before"] = list(a.heard)
        seen["a_prompt"] = await a.call("session/prompt", {**session, "prompt": TEXT})
        seen["a_mode"] = await a.call("session/set_mode", {**session, "modeId": "plan"})
        load = {**session, "cwd": cwd, "mcpServers": []}
        seen["load"] = await b.call("session/load", load)
        b.heard.clear()
        seen["b_prompt"] = await b.call("session/prompt", {**session, "prompt": TEXT})
        seen["b_heard"] = list(b.heard)
        seen["b_delete"] = await b.call("session/delete", session)  # A holds it still
    return seen


def test_a_session_held_by_another_connection_is_not_this_ones(tmp_path: Path) -> None:
    served = Served(tmp_path, "--model", "offline")
    try:
        seen = asyncio.run(_drive(served.url, str(served.workspace)))
    finally:
        assert served.stop() == 0
    assert seen["close"]["result"] == {}  # not open here: nothing to close, as for any session
    for method in ("prompt", "mode", "status"):
        error = seen[method].get("error")
        assert error is not None and error["code"] == -32602, (method, seen[method])
        assert "unknown session" in error["message"], (method, error)
        assert "load or resume it" in error["message"], (method, error)
    refused = seen["delete"].get("error")
    assert refused is not None and refused["code"] == -32600, seen["delete"]
    assert "in use by another connection" in refused["message"], refused
    kinds = {n["params"]["update"]["sessionUpdate"] for n in seen["a_heard_before"]}
    assert kinds <= {"available_commands_update"}, kinds  # no turn, no mode change of B's
    assert seen["a_prompt"]["result"] == {"stopReason": "end_turn"}  # not cancelled by B
    assert seen["a_mode"].get("result") is not None
    assert "result" in seen["load"]
    assert seen["b_prompt"]["result"] == {"stopReason": "end_turn"}
    assert any(
        n["params"]["update"].get("sessionUpdate") == "agent_message_chunk" for n in seen["b_heard"]
    )  # its own turn heard, now that it holds the session
    assert seen["b_delete"]["error"]["code"] == -32600
