"""Configured secrets stay secret: not in errors, status, logs, the store, `acp sessions show`,
`/mcp`, or the environment of commands. Each test checks the secret is gone and the text
around it survives. Through a real `acp`, a real HTTP server and the real SQLite files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.client import Client
from tests.sse_server import OK_STREAM, Server
from tests.transcript import Scenario

KEY = "TESTSECRETplain0123456789xyz"  # no known key prefix


def on_disk(data_dir: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(data_dir.rglob("*")) if p.is_file())


def with_key_in_config(tmp_path: Path, server: Server, extra: str = "") -> Client:
    scenario = Scenario(tmp_path)
    config_dir = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
    config_dir.mkdir(parents=True)
    (config_dir / "config.toml").write_text(
        f'default_model = "corp/m1"\n{extra}\n[providers.corp]\nkind = "openai"\n'
        f'base_url = "{server.url}"\napi_key = "{KEY}"\nmodels = ["m1"]\n',
        encoding="utf-8",
    )
    return Client(tmp_path, scenario=scenario)


def prompt(c: Client, sid: str, text: str = "hi") -> dict[str, object]:
    return c.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})


def test_a_key_echoed_by_the_provider_is_redacted_everywhere(tmp_path: Path) -> None:
    body = {"error": {"message": f"Incorrect API key provided: {KEY}. Check your key."}}
    with Server() as server:
        server.behaviours.append((401, json.dumps(body).encode()))
        c = with_key_in_config(tmp_path, server)
        sid = c.start()
        error = prompt(c, sid)["error"]
        status = c.result("_reasonix.io/session/status", {"sessionId": sid})
        assert c.close() == 0
    assert server.headers[0]["Authorization"] == f"Bearer {KEY}"  # it was really used
    shown = json.dumps([error, status, c.notes])
    assert KEY not in shown
    assert error["code"] == -32000  # a refused key: the editor can offer to authenticate
    assert (
        "authentication failed (HTTP 401): Incorrect API key provided: [redacted]. Check your key."
        in error["message"]
    )
    assert "Incorrect API key provided: [redacted]. Check" in status["turnOutcome"]["reason"]
    assert KEY.encode() not in on_disk(Path(c.scenario.vars["DATA"]))
    assert KEY.encode() not in c.agent.stderr


def test_a_key_at_the_end_of_the_providers_error_excerpt_is_not_cut_in_half(
    tmp_path: Path,
) -> None:
    """The provider's error body is shown cut to its first 500 bytes: a key it echoes across
    that cut is shown as [redacted], not as its first half."""
    lead = "Incorrect API key provided: "
    message = lead + "x" * (500 - len('{"error": {"message": "') - len(lead) - 10) + KEY
    body = {"error": {"message": message + ". Check your key."}}
    with Server() as server:
        server.behaviours.append((401, json.dumps(body).encode()))
        c = with_key_in_config(tmp_path, server)
        sid = c.start()
        error = prompt(c, sid)["error"]
        status = c.result("_reasonix.io/session/status", {"sessionId": sid})
        assert c.close() == 0
    assert json.dumps(body).index(KEY) == 490  # the cut falls in the key
    shown = json.dumps([error, status, c.notes])
    assert not [KEY[i : i + 8] for i in range(len(KEY) - 7) if KEY[i : i + 8] in shown]
    assert f"{lead}xxxx" in error["message"] and "[redacted]" in error["message"]
    stored = on_disk(Path(c.scenario.vars["DATA"]))
    assert not [KEY[i : i + 8] for i in range(len(KEY) - 7) if KEY[i : i + 8].encode() in stored]


def test_a_stream_line_that_is_not_json_is_logged_without_credentials(tmp_path: Path) -> None:
    proxy = f"data: <html>502 from proxy; Authorization: Bearer {KEY}. retry</html>\n\n".encode()
    with Server() as server:
        server.behaviours.append([*OK_STREAM[:2], proxy, *OK_STREAM[2:]])
        c = with_key_in_config(tmp_path, server)
        sid = c.start()
        assert prompt(c, sid)["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    log = c.agent.stderr.decode()
    assert KEY not in log
    assert "skipped a stream chunk that is not JSON" in log
    assert "Authorization: Bearer [redacted]. retry" in log


def test_mcp_header_and_env_values_are_not_stored_or_shown(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    c = Client(tmp_path, "--model", "offline", scenario=scenario)
    c.result("initialize", {"protocolVersion": 1})
    servers = [
        {
            "type": "http",
            "name": "remote",
            "url": "http://bob:PWSECRET4242@127.0.0.1:9/mcp?api_key=QUERYSECRET77&team=core",
            "headers": [{"name": "X-Api-Key", "value": "HEADERSECRET123456"}],
        },
        {
            "name": "local",
            "command": sys.executable,
            "args": ["-c", "import sys; sys.exit(3)"],
            "env": [{"name": "SERVICE_TOKEN", "value": "ENVSECRET654321"}],
        },
    ]
    cwd = scenario.vars["CWD"]
    sid = c.result("session/new", {"cwd": cwd, "mcpServers": servers})["sessionId"]
    answer = prompt(c, sid, "/mcp")
    assert answer["result"] == {"stopReason": "end_turn"}
    text = "".join(
        n["params"]["update"]["content"]["text"]
        for n in c.notes
        if n.get("method") == "session/update"
        and n["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    )
    assert c.close() == 0
    secrets = ["PWSECRET4242", "QUERYSECRET77", "HEADERSECRET123456", "ENVSECRET654321"]
    assert not [s for s in secrets if s in text]
    assert "remote (http, http://127.0.0.1:9/mcp?api_key=[redacted]&team=core)" in text
    stored = on_disk(Path(scenario.vars["DATA"]))
    assert not [s for s in secrets if s.encode() in stored]
    assert b"X-Api-Key" in stored and b"SERVICE_TOKEN" in stored
    show = subprocess.run(
        [sys.executable, "-m", "reasonix_acp", "sessions", "show", sid],
        env={**scenario.env, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert show.returncode == 0, show.stderr
    assert not [s for s in secrets if s in show.stdout]
    assert "X-Api-Key" in show.stdout and "SERVICE_TOKEN" in show.stdout


def test_commands_run_without_the_configured_secrets(tmp_path: Path) -> None:
    script = tmp_path / "env.jsonl"
    call = {"tool_call": {"name": "bash", "arguments": {"command": "env"}}}
    script.write_text(
        json.dumps({"steps": [call]}) + "\n" + json.dumps({"steps": [{"text": "ok"}]}) + "\n"
    )
    scenario = Scenario(tmp_path)
    scenario.env.update(
        {
            "DEEPSEEK_API_KEY": "sk-deepseekSECRET0001",
            "MY_SERVICE_TOKEN": "tokenSECRET0002",
            "GITHUB_TOKEN": "ghpassedSECRET0003",
            "PLAIN_SETTING": "keep-me",
        }
    )
    config_dir = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
    config_dir.mkdir(parents=True)
    (config_dir / "config.toml").write_text('pass_env = ["GITHUB_TOKEN"]\n', encoding="utf-8")
    c = Client(tmp_path, "--model", "offline", "--script", str(script), scenario=scenario)
    sid = c.start()
    c.result(
        "session/set_config_option",
        {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"},
    )
    assert prompt(c, sid)["result"] == {"stopReason": "end_turn"}
    assert c.close() == 0
    done = [
        n["params"]["update"]
        for n in c.notes
        if n.get("method") == "session/update"
        and n["params"]["update"].get("status") == "completed"
    ]
    output = done[0]["rawOutput"], json.dumps(done[0]["content"])
    text = json.dumps(output)
    assert "sk-deepseekSECRET0001" not in text and "tokenSECRET0002" not in text
    assert "PLAIN_SETTING=keep-me" in text and "GITHUB_TOKEN=ghpassedSECRET0003" in text


def test_a_key_a_slow_command_prints_is_redacted_in_progress_results_store_and_kept_output(
    tmp_path: Path,
) -> None:
    """A command running long enough to show its output as it goes (`in_progress` updates),
    and long enough to be cut (the whole output kept in the session's temp): the key it
    prints is redacted wherever the output goes, and the rest of the output stays."""
    key = "sk-deepseekSECRET0009"
    command = "sleep 0.4; cat .env; sleep 0.4; head -c 60000 /dev/zero | tr '\\0' x; echo; cat .env"
    call = {"tool_call": {"name": "bash", "arguments": {"command": command}}}
    script = tmp_path / "slow.jsonl"
    script.write_text(
        json.dumps({"steps": [call]}) + "\n" + json.dumps({"steps": [{"text": "ok"}]}) + "\n"
    )
    scenario = Scenario(tmp_path)
    scenario.env["DEEPSEEK_API_KEY"] = key
    cwd = Path(scenario.vars["CWD"])
    c = Client(tmp_path, "--model", "offline", "--script", str(script), scenario=scenario)
    sid = c.start()
    (cwd / ".env").write_text(f"DEEPSEEK_API_KEY={key}\nPLAIN=keep-me\n")
    c.result(
        "session/set_config_option",
        {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"},
    )
    assert prompt(c, sid)["result"] == {"stopReason": "end_turn"}
    assert c.close() == 0
    updates = [n["params"]["update"] for n in c.notes if n.get("method") == "session/update"]
    progress = [u for u in updates if u.get("status") == "in_progress" and u.get("content")]
    assert progress, "the command ran long enough to show its output as it went"
    wire = json.dumps(updates)
    assert key not in wire
    assert "DEEPSEEK_API_KEY=[redacted]" in wire and "PLAIN=keep-me" in wire
    kept = list(Path(scenario.env.get("TMPDIR", "/tmp")).glob("reasonix-acp-*/*/bash-*.log"))
    kept = [p for p in kept if sid in str(p)]
    assert kept, "the cut output was kept whole"
    assert key not in kept[0].read_text() and "PLAIN=keep-me" in kept[0].read_text()
    data = Path(scenario.vars["DATA"])
    stored = b"".join(p.read_bytes() for p in data.rglob("*") if p.is_file())
    assert key.encode() not in stored and b"PLAIN=keep-me" in stored
