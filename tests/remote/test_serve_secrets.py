"""The token `acp serve` admits clients with is a secret of the agent's: no command it runs
gets it (in its environment, or by reading the token file), and no output carries it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from tests.remote.serving import Served


async def _session(url: str, token: str, cwd: str) -> list[dict[str, Any]]:
    """initialize, session/new, one prompt, every permission allowed once: what came back."""
    seen: list[dict[str, Any]] = []
    headers = {"authorization": f"Bearer {token}"}
    async with connect(url.replace("http", "ws", 1), additional_headers=headers) as ws:
        requests = [
            {"method": "initialize", "params": {"protocolVersion": 1}},
            {"method": "session/new", "params": {"cwd": cwd, "mcpServers": []}},
            {"method": "session/prompt", "params": {"prompt": [{"type": "text", "text": "go"}]}},
        ]
        session = ""
        for rid, request in enumerate(requests, 1):
            if request["method"] == "session/prompt":
                request["params"]["sessionId"] = session
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": rid, **request}))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 60))
                seen.append(message)
                if message.get("method") == "session/request_permission":
                    allow = next(
                        o for o in message["params"]["options"] if o["kind"] == "allow_once"
                    )
                    outcome = {"outcome": {"outcome": "selected", "optionId": allow["optionId"]}}
                    await ws.send(
                        json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": outcome})
                    )
                if message.get("id") == rid and "method" not in message:
                    break
            if rid == 2:
                session = message["result"]["sessionId"]
    return seen


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_a_command_gets_neither_the_token_nor_its_file(tmp_path: Path, sandbox: str) -> None:
    config = tmp_path / "config"  # no config.toml in it: the token file alone
    token_file = config / "serve-token"
    line = f'cat {token_file}; echo "env:$REASONIX_ACP_TOKEN:"; echo marker-survives'
    call = {"tool_call": {"name": "bash", "arguments": {"command": line}}}
    script = tmp_path / "script.jsonl"
    steps = [{"steps": [call]}, {"steps": [{"text": "done"}]}]
    script.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    env = {
        "REASONIX_ACP_TOKEN": "",
        "REASONIX_ACP_CONFIG_DIR": str(config),
        "REASONIX_ACP_SANDBOX": sandbox,
    }
    served = Served(tmp_path, "--model", "offline", "--script", str(script), env=env)
    try:
        token = token_file.read_text(encoding="ascii").strip()
        seen = asyncio.run(_session(served.url, token, str(served.workspace)))
    finally:
        assert served.stop() == 0
    wire = json.dumps(seen)
    assert "marker-survives" in wire and "env::" in wire  # the command ran, its output came back
    assert token not in wire
    assert token not in "\n".join(served.log)
