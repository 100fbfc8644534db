"""`_reasonix.io/session/reloadExtensions` over a real process: a failed rebuild keeps the old
runtime and answers -32603; a good one takes config.toml's MCP servers into the session."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.client import Client

RELOAD = "_reasonix.io/session/reloadExtensions"
TOOLS = Path(__file__).parent / "mcp_servers" / "tools_server.py"


def test_reload_is_all_or_nothing(tmp_path: Path) -> None:
    client = Client(tmp_path, "--model", "offline")
    config = Path(client.scenario.env["REASONIX_ACP_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    sid = client.start()
    config.write_text("max_steps = [this is not toml\n", encoding="utf-8")
    frame = client.call(RELOAD, {"sessionId": sid})
    assert frame["error"]["code"] == -32603
    assert (
        frame["error"]["message"].startswith(f"{RELOAD}: ")
        and "config.toml" in frame["error"]["message"]
    )
    # The old runtime still serves prompts.
    prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "still there?"}]}
    assert client.result("session/prompt", prompt) == {"stopReason": "end_turn"}

    config.write_text(
        f'[mcp_servers.tools]\ncommand = "{sys.executable}"\nargs = ["{TOOLS}"]\n',
        encoding="utf-8",
    )
    client.take_notes()
    assert client.result(RELOAD, {"sessionId": sid}) == {}
    mcp = {"sessionId": sid, "prompt": [{"type": "text", "text": "/mcp"}]}
    client.result("session/prompt", mcp)
    texts = [
        n["params"]["update"]["content"]["text"]
        for n in client.take_notes()
        if n.get("method") == "session/update"
        and n["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    ]
    assert any("- tools (stdio" in t and "connected" in t for t in texts), texts
    assert client.close() == 0
