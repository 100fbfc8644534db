"""`auth/status` and `auth/status_update` (unstable, advertised as `auth.status`), through a
real `acp`, driven as raw JSON-RPC (the official Python SDK, agent-client-protocol 0.12.1, has
neither): what the agent holds for the providers `acp setup` (the `reasonix-setup` method)
configures, never a key; an update when `authenticate` or `logout` changes it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.transcript import Scenario, acp_command

KEY = "sk-auth-status-0123456789"
CONFIG = f"""default_model = "openai/m1"
[providers.openai]
base_url = "http://127.0.0.1:9/v1"
api_key = "{KEY}"
models = ["m1"]
[providers.deepseek]
"""
SETUP_URL = ("--base-url", "http://127.0.0.1:9/v1", "--no-check")


def _client(tmp: Path, *args: str, config: str | None = None) -> Client:
    scenario = Scenario(tmp)
    for name in ("OPENAI_API_KEY", "DEEPSEEK_API_KEY", "OPENAI_BASE_URL", "ACP_MODEL"):
        scenario.env[name] = ""
    if config is not None:
        where = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
        where.mkdir(parents=True, exist_ok=True)
        (where / "config.toml").write_text(config, encoding="utf-8")
    c = Client(tmp, *args, scenario=scenario)
    c.result("initialize", {"protocolVersion": 1})
    return c


def _updates(c: Client) -> list[dict[str, Any]]:
    return [n["params"] for n in c.take_notes() if n.get("method") == "auth/status_update"]


def test_auth_status_is_advertised(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    init = c.result("initialize", {"protocolVersion": 1})
    assert init["agentCapabilities"]["auth"] == {"logout": {}, "status": {}}
    assert c.close() == 0


def test_the_offline_model_needs_no_sign_in(tmp_path: Path) -> None:
    c = _client(tmp_path, "--model", "offline")
    status = c.result("auth/status", {})
    assert status["state"] == "not_required"
    assert [a["label"] for a in status["accounts"]] == ["offline model (no key)"]
    assert status["accounts"][0]["active"] is True
    assert c.close() == 0


def test_each_provider_is_an_account_and_no_key_is_echoed(tmp_path: Path) -> None:
    c = _client(tmp_path, config=CONFIG)
    status = c.result("auth/status", {})
    assert KEY not in json.dumps(status)
    assert status["state"] == "authenticated"
    accounts = {a["label"]: a for a in status["accounts"]}
    openai, deepseek = accounts["openai API key"], accounts["deepseek API key"]
    assert openai["active"] is True and deepseek["active"] is False
    assert openai["_meta"]["reasonix.io"] == {"provider": "openai", "key": "set"}
    assert deepseek["_meta"]["reasonix.io"] == {"provider": "deepseek", "key": "missing"}
    assert c.close() == 0


def test_nothing_configured_is_unauthenticated(tmp_path: Path) -> None:
    c = _client(tmp_path)
    assert c.result("auth/status", {}) == {"state": "unauthenticated", "accounts": []}
    assert c.close() == 0


def test_authenticate_and_logout_send_an_update_when_what_is_held_changes(
    tmp_path: Path,
) -> None:
    c = _client(tmp_path)
    assert c.result("auth/status", {})["state"] == "unauthenticated"
    c.take_notes()
    auth = {"methodId": "reasonix-setup"}
    assert c.call("authenticate", auth)["error"]["code"] == -32000  # still nothing
    assert _updates(c) == []
    done = subprocess.run(
        [*acp_command(), "setup", *("--provider", "openai", "--model", "m1"), *SETUP_URL],
        env={**os.environ, **c.scenario.env},
        capture_output=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    # config.toml is not watched: what the agent holds changes when authenticate reads it
    assert c.result("auth/status", {})["state"] == "unauthenticated"
    assert _updates(c) == []
    assert c.result("authenticate", auth) == {}
    (update,) = _updates(c)
    assert update["state"] == "not_required"  # a keyless OpenAI-compatible endpoint
    assert update == c.result("auth/status", {})
    assert c.result("authenticate", auth) == {}
    assert _updates(c) == [], "nothing changed: nothing sent"
    assert c.close() == 0

    keyed = _client(tmp_path / "keyed", config=CONFIG)
    assert keyed.result("logout", {}) == {}
    (update,) = _updates(keyed)
    assert update["state"] == "not_required"  # the active provider is keyless now
    assert {a["label"]: a["_meta"]["reasonix.io"]["key"] for a in update["accounts"]} == {
        "openai API key": "missing",
        "deepseek API key": "missing",
    }
    assert KEY not in json.dumps(update)
    assert keyed.close() == 0


def test_a_reload_that_changes_what_is_held_sends_an_update(tmp_path: Path) -> None:
    c = _client(tmp_path, "--model", "offline", config=CONFIG)
    sid = c.result("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})["sessionId"]
    assert c.result("auth/status", {})["state"] == "not_required"
    config = Path(c.scenario.env["REASONIX_ACP_CONFIG_DIR"]) / "config.toml"
    config.write_text(CONFIG.replace(f'api_key = "{KEY}"\n', ""), encoding="utf-8")
    c.take_notes()
    c.result("_reasonix.io/session/reloadExtensions", {"sessionId": sid})
    (update,) = _updates(c)
    keys = {a["label"]: a["_meta"]["reasonix.io"]["key"] for a in update["accounts"]}
    assert keys["openai API key"] == "missing" and update["state"] == "not_required"
    assert c.close() == 0
