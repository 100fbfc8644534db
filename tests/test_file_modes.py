"""What the agent creates is private: config.toml holding keys 0600 whatever a leftover temp
file had, the data directory 0700 and its SQLite files 0600. Through real `acp` processes."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from tests.client import Client
from tests.sse_server import Server
from tests.transcript import Scenario, acp_command


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_setup_writes_0600_over_a_leftover_world_readable_temp_file(tmp_path: Path) -> None:
    leftover = tmp_path / "config.toml.tmp"
    leftover.write_text("stale\n")
    leftover.chmod(0o644)
    env = {**os.environ, "REASONIX_ACP_CONFIG_DIR": str(tmp_path)}
    with Server() as server:  # setup checks the endpoint it writes
        server.models = ["llama3"]
        answers = f"openai\n{server.url}\nsk-mode-test-000111\nllama3\n".encode()
        done = subprocess.run(
            [*acp_command(), "setup"], input=answers, capture_output=True, env=env, timeout=30
        )
    assert done.returncode == 0, done.stderr
    assert mode(tmp_path / "config.toml") == 0o600
    assert "sk-mode-test-000111" in (tmp_path / "config.toml").read_text()


def test_logout_rewrites_the_config_0600(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[providers.openai]\nbase_url = "http://x/v1"\napi_key = "sk-a-000111"\n')
    config.chmod(0o600)
    (tmp_path / "config.toml.tmp").write_text("stale\n")
    (tmp_path / "config.toml.tmp").chmod(0o666)
    scenario = Scenario(tmp_path)
    scenario.env["REASONIX_ACP_CONFIG_DIR"] = str(tmp_path)
    c = Client(tmp_path, "--model", "offline", scenario=scenario)
    c.result("initialize", {"protocolVersion": 1})
    c.result("logout", {})
    assert c.close() == 0
    assert mode(config) == 0o600 and "api_key" not in config.read_text()


def test_the_data_directory_and_its_databases_are_private(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    data = Path(scenario.vars["DATA"])
    c = Client(tmp_path, "--model", "offline", scenario=scenario)
    sid = c.start()
    c.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]})
    databases = [p for p in data.rglob("*") if p.is_file()]
    assert databases, "the store was created"
    assert mode(data) == 0o700
    assert {p.name: mode(p) for p in databases} == {p.name: 0o600 for p in databases}
    assert c.close() == 0
