from __future__ import annotations

import os
import stat
import subprocess
import tomllib
from pathlib import Path

from tests.transcript import acp_command


def test_setup_writes_a_private_config(tmp_path: Path) -> None:
    answers = b'openai\nhttp://127.0.0.1:11434/v1\nsk-test-"quoted"\nllama3\n'
    env = {**os.environ, "REASONIX_ACP_CONFIG_DIR": str(tmp_path)}
    done = subprocess.run(
        [*acp_command(), "setup"], input=answers, capture_output=True, env=env, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == b""
    target = tmp_path / "config.toml"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    config = tomllib.loads(target.read_text(encoding="utf-8"))
    assert config == {
        "default_model": "openai/llama3",
        "providers": {
            "openai": {"base_url": "http://127.0.0.1:11434/v1", "api_key": 'sk-test-"quoted"'}
        },
    }


def test_setup_refuses_an_unknown_provider_and_short_input(tmp_path: Path) -> None:
    env = {**os.environ, "REASONIX_ACP_CONFIG_DIR": str(tmp_path)}
    for answers in (b"anthropic\n", b"deepseek\n"):
        done = subprocess.run(
            [*acp_command(), "setup"], input=answers, capture_output=True, env=env, timeout=30
        )
        assert done.returncode == 2
    assert not (tmp_path / "config.toml").exists()
