"""Deny rules from config.toml hold under every preset, danger-full-access included."""

from __future__ import annotations

import json
from pathlib import Path

from tests.client import Client
from tests.test_sessions import updates_of
from tests.transcript import Scenario


def test_deny_rules_hold_under_full_access(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    config_dir = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
    config_dir.mkdir(parents=True)
    secret = tmp_path / "secrets"
    secret.mkdir()
    (config_dir / "config.toml").write_text(
        f'[permissions]\ndeny_commands = ["rm"]\ndeny_paths = ["{secret}/**"]\n', encoding="utf-8"
    )
    calls = [
        {"tool_call": {"name": "bash", "arguments": {"command": "rm -rf ."}}},
        {
            "tool_call": {
                "name": "write",
                "arguments": {"path": str(secret / "key"), "content": "x"},
            }
        },
        {"tool_call": {"name": "bash", "arguments": {"command": "ls; rm -rf ."}}},
        {"tool_call": {"name": "bash", "arguments": {"command": f"echo x > {secret}/key"}}},
        {"tool_call": {"name": "bash", "arguments": {"command": "echo allowed"}}},
    ]
    script = tmp_path / "deny.jsonl"
    script.write_text(
        json.dumps({"steps": calls}) + "\n" + json.dumps({"steps": [{"text": "ok"}]}) + "\n",
        encoding="utf-8",
    )
    c = Client(tmp_path, "--model", "offline", "--script", str(script), scenario=scenario)
    sid = c.start()
    c.result(
        "session/set_config_option",
        {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"},
    )
    assert c.result(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]}
    ) == {"stopReason": "end_turn"}
    done = [u for u in updates_of(c.take_notes(), sid) if u["sessionUpdate"] == "tool_call_update"]
    assert [(u["status"], u["content"][0]["content"]["text"].strip()) for u in done] == [
        ("failed", "denied by the permission rules in config.toml: `rm` is in deny_commands"),
        ("failed", "denied by the permission rules in config.toml"),
        ("failed", "denied by the permission rules in config.toml: `rm` is in deny_commands"),
        (
            "failed",
            f"denied by the permission rules in config.toml: {secret}/key matches deny_paths",
        ),
        ("completed", "allowed"),
    ]
    assert not (secret / "key").exists() and Path(scenario.vars["CWD"]).exists()
    assert c.close() == 0
