"""A scenario ends once the agent has gone quiet: a notification an agent sends right after
its last answer (acp's available_commands_update after session/new) is read, and logged,
before the runner's end of input, so a wire log does not depend on how fast the machine is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# Answers every request with {} and, 50 ms after answering session/new, a notification.
LATE = """
import json, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    result = {"protocolVersion": 1, "agentCapabilities": {}} if msg["method"] == "initialize" else {}
    if msg["method"] == "session/new":
        result = {"sessionId": "s1"}
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
    if msg["method"] == "session/new":
        time.sleep(0.05)
        update = {"sessionUpdate": "available_commands_update", "availableCommands": []}
        note = {"sessionId": "s1", "update": update}
        print(json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": note}), flush=True)
"""


def test_a_notification_right_after_the_last_answer_comes_before_the_end_of_input(
    tmp_path: Path,
) -> None:
    logged = _wire(tmp_path, LATE, "robustness.id-long-string")
    order = [
        f["line"] if f["dir"] == "c2a" and f["line"].startswith("<") else f["dir"]
        for f in logged
        if f["dir"] in ("c2a", "a2c")
    ]
    assert order[-2:] == ["a2c", "<end of input>"], order


# Advertises MCP over ACP; as session/new is answered it asks the client's server what it
# supports, and only 1.2 s after that answer (a loaded machine) for its tools.
SLOW_MCP = """
import json, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if "method" not in msg:
        if msg.get("id") == "discover":
            time.sleep(1.2)
            ask = {"serverId": msg_server, "method": "tools/list", "requestId": "r2"}
            print(json.dumps({"jsonrpc": "2.0", "id": "list", "method": "mcp/message",
                              "params": ask}), flush=True)
        continue
    if "id" not in msg:
        continue
    result = {}
    if msg["method"] == "initialize":
        caps = {"mcpCapabilities": {"acp": True}}
        result = {"protocolVersion": 1, "agentCapabilities": caps, "authMethods": []}
    if msg["method"] == "session/new":
        result = {"sessionId": "s1"}
        msg_server = msg["params"]["mcpServers"][0]["serverId"]
    if msg["method"] == "session/prompt":
        result = {"stopReason": "end_turn"}
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
    if msg["method"] == "session/new":
        ask = {"serverId": msg_server, "method": "server/discover", "requestId": "r1"}
        print(json.dumps({"jsonrpc": "2.0", "id": "discover", "method": "mcp/message",
                          "params": ask}), flush=True)
"""


def test_an_mcp_connection_begun_as_the_session_opens_ends_before_the_prompt(
    tmp_path: Path,
) -> None:
    """client.mcp.acp-server prompts once the agent has asked for the server's tools, however
    long after server/discover that comes (the wire golden once differed under load)."""
    logged = _wire(tmp_path, SLOW_MCP, "client.mcp.acp-server", "--env", "MODEL={model_url}")
    said = [(f["dir"], json.loads(f["line"])) for f in logged if f["line"].startswith("{")]
    # The client's answer to tools/list, which its MCP server sends after a hold.
    listed = next(i for i, (d, m) in enumerate(said) if d == "c2a" and m.get("id") == "list")
    prompted = next(
        i for i, (d, m) in enumerate(said) if d == "c2a" and m.get("method") == "session/prompt"
    )
    assert listed < prompted, [m for _, m in said]


def _wire(tmp_path: Path, agent: str, scenario: str, *more: str) -> list[dict[str, str]]:
    """The wire log of `scenario` run against the agent whose source is `agent`."""
    script = tmp_path / "agent.py"
    script.write_text(agent, encoding="utf-8")
    wire = tmp_path / "wire"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "acp_conformance", "--agent", f"{sys.executable} {script}"),
            *("--only", scenario, "--wire-dir", str(wire), "--quiet", *more),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    return [json.loads(line) for line in (wire / f"{scenario}.ndjson").open()]
