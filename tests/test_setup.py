from __future__ import annotations

import os
import stat
import subprocess
import tomllib
from pathlib import Path

from tests.sse_server import Server
from tests.transcript import acp_command


def test_setup_writes_a_private_config(tmp_path: Path) -> None:
    env = {**os.environ, "REASONIX_ACP_CONFIG_DIR": str(tmp_path)}
    with Server() as server:
        server.models = ["llama3"]
        answers = f'openai\n{server.url}\nsk-test-"quoted"\nllama3\n'.encode()
        done = subprocess.run(
            [*acp_command(), "setup"], input=answers, capture_output=True, env=env, timeout=30
        )
    assert done.returncode == 0, done.stderr
    assert server.gets[0]["Authorization"] == 'Bearer sk-test-"quoted"'
    assert done.stdout == b""
    target = tmp_path / "config.toml"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    config = tomllib.loads(target.read_text(encoding="utf-8"))
    assert config == {
        "default_model": "openai/llama3",
        "providers": {"openai": {"base_url": server.url, "api_key": 'sk-test-"quoted"'}},
    }


def test_setup_refuses_an_unknown_provider_and_short_input(tmp_path: Path) -> None:
    env = {**os.environ, "REASONIX_ACP_CONFIG_DIR": str(tmp_path)}
    for answers in (b"anthropic\n", b"deepseek\n"):
        done = subprocess.run(
            [*acp_command(), "setup"], input=answers, capture_output=True, env=env, timeout=30
        )
        assert done.returncode == 2
    assert not (tmp_path / "config.toml").exists()


FULL_CONFIG = """# my settings, with comments
default_model = "deepseek/deepseek-chat"  # the usual one
max_steps = 40

[permissions]
deny_commands = ["rm"]   # never
deny_paths = ["/etc/**"]

[providers.deepseek]
api_key = "sk-keep-this-0001"

[providers.work]
kind = "openai"
base_url = "https://llm.example.com/v1"
models = ["big"]

[mcp_servers.docs]
command = "docs-mcp"

[plugins]
paths = ["/opt/plugins"]

[pricing."work/big"]
input = 1.0
output = 2.0
"""


def setup(tmp_path: Path, *args: str, answers: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "REASONIX_ACP_CONFIG_DIR": str(tmp_path)}
    return subprocess.run(
        [*acp_command(), "setup", *args], input=answers, capture_output=True, env=env, timeout=30
    )


def test_setup_edits_an_existing_config_in_place_and_keeps_a_backup(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text(FULL_CONFIG, encoding="utf-8")
    with Server() as server:
        server.models = ["qwen3", "llama3"]
        done = setup(tmp_path, "--provider", "Ollama", "--model", "qwen3", "--base-url", server.url)
    assert done.returncode == 0, done.stderr
    text = target.read_text(encoding="utf-8")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert (tmp_path / "config.toml.bak").read_text(encoding="utf-8") == FULL_CONFIG
    for kept in (
        "# my settings, with comments",
        'deny_commands = ["rm"]   # never',
        "sk-keep-this-0001",
        "[mcp_servers.docs]",
        'paths = ["/opt/plugins"]',
        '[pricing."work/big"]',
        "max_steps = 40",
        'models = ["big"]',
    ):
        assert kept in text, kept
    config = tomllib.loads(text)
    assert config["default_model"] == "ollama/qwen3"
    assert config["providers"]["ollama"] == {"kind": "openai", "base_url": server.url}
    said = done.stderr.decode()
    assert "serves qwen3, llama3" in said and str(target) in said


def test_setup_leaves_a_config_it_cannot_read_alone(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text("[providers.deepseek\napi_key = 'x'\n", encoding="utf-8")
    done = setup(tmp_path, "--provider", "deepseek", "--no-check")
    assert done.returncode == 2
    assert "does not parse" in done.stderr.decode() and "line 1" in done.stderr.decode()
    assert target.read_text(encoding="utf-8") == "[providers.deepseek\napi_key = 'x'\n"


def test_setup_refuses_a_url_without_a_scheme(tmp_path: Path) -> None:
    done = setup(
        tmp_path, "--provider", "openai", "--model", "m", "--base-url", "api.example.com/v1"
    )
    assert done.returncode == 2 and "http:// or https://" in done.stderr.decode()
    assert not (tmp_path / "config.toml").exists()


def test_setup_stores_a_key_variable_and_refuses_an_endpoint_that_fails(tmp_path: Path) -> None:
    """An endpoint that does not answer stops setup (nothing written); `--no-check` writes the
    settings anyway, the variable's name and not its value."""
    given = ("--provider", "LM Studio", "--model", "m", "--base-url", "http://127.0.0.1:9/v1")
    env = {**os.environ, "REASONIX_ACP_CONFIG_DIR": str(tmp_path), "MY_KEY": "sk-lm-0001"}
    done = subprocess.run(
        [*acp_command(), "setup", *given, "--api-key-env", "MY_KEY"],
        capture_output=True,
        env=env,
        timeout=30,
    )
    assert done.returncode == 1 and "did not answer as expected" in done.stderr.decode()
    assert not (tmp_path / "config.toml").exists()
    done = setup(tmp_path, *given, "--api-key-env", "MY_KEY", "--no-check")
    assert done.returncode == 0, done.stderr
    config = tomllib.loads((tmp_path / "config.toml").read_text(encoding="utf-8"))
    assert config["providers"]["lmstudio"]["api_key_env"] == "MY_KEY"


def test_setup_refuses_providers_that_are_not_tables(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text('providers = "x"\n', encoding="utf-8")
    done = setup(tmp_path, "--provider", "ollama", "--model", "m", "--no-check")
    assert done.returncode == 2 and "`providers` is not a table" in done.stderr.decode()
    assert target.read_text(encoding="utf-8") == 'providers = "x"\n'
    assert b"Traceback" not in done.stderr
