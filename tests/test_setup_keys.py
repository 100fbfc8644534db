"""`acp setup` for a provider that needs a key, as a new user meets it (a fresh HOME, nothing
in the environment): the key is asked in a terminal without echo, checked against the endpoint
with the key that will be used, and a setup that cannot work does not end green. Against the
DeepSeek stand-in (tests/deepseek_server.py), which refuses a wrong or missing key as DeepSeek
does (401)."""

from __future__ import annotations

import os
import stat
import subprocess
import tomllib
from pathlib import Path
from typing import Any

from tests.deepseek_server import KEY, DeepSeek
from tests.terminal import in_terminal
from tests.transcript import acp_command

CLEARED = ("DEEPSEEK_", "OPENAI_", "ACP_", "REASONIX_ACP_", "XDG_")


def fresh(tmp: Path, **extra: str) -> dict[str, str]:
    """A new user's environment: a fresh HOME and config dir, no provider variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(CLEARED)}
    (tmp / "home").mkdir(exist_ok=True)
    env.update(
        HOME=str(tmp / "home"),
        REASONIX_ACP_CONFIG_DIR=str(tmp / "config"),
        REASONIX_ACP_DATA_DIR=str(tmp / "data"),
        **extra,
    )
    return env


def setup(tmp: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`acp setup ARGS` without a terminal: stdin, stdout and stderr are pipes."""
    return subprocess.run(
        [*acp_command(), "setup", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env=fresh(tmp, **env),
    )


def written(tmp: Path) -> dict[str, Any]:
    target = tmp / "config" / "config.toml"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    return tomllib.loads(target.read_text(encoding="utf-8"))


def test_in_a_terminal_the_key_is_asked_hidden_and_where_it_is_kept_is_said(
    tmp_path: Path,
) -> None:
    with DeepSeek() as server:
        argv = [*acp_command(), "setup", "--provider", "deepseek", "--base-url", server.url]
        status, shown = in_terminal(argv, fresh(tmp_path), [["API key", KEY + "\n"]])
    assert status == 0, shown
    assert KEY not in shown, "the key was echoed or printed"
    target = tmp_path / "config" / "config.toml"
    assert written(tmp_path)["providers"]["deepseek"]["api_key"] == KEY
    assert f"the key is stored in {target}" in shown and "0600" in shown, shown


def test_in_a_terminal_the_name_of_a_variable_holding_the_key_is_taken(tmp_path: Path) -> None:
    with DeepSeek() as server:
        argv = [*acp_command(), "setup", "--provider", "deepseek", "--base-url", server.url]
        env = fresh(tmp_path, MY_DEEPSEEK=KEY)
        status, shown = in_terminal(argv, env, [["API key", "MY_DEEPSEEK\n"]])
    assert status == 0, shown
    table = written(tmp_path)["providers"]["deepseek"]
    assert table["api_key_env"] == "MY_DEEPSEEK" and "api_key" not in table
    assert "MY_DEEPSEEK" in shown and "not stored" in shown, shown


def test_without_a_terminal_or_a_key_setup_fails_and_says_how_to_give_one(
    tmp_path: Path,
) -> None:
    for args in ((), ("--no-check",)):
        done = setup(tmp_path, "--provider", "deepseek", *args)
        assert done.returncode != 0, done.stderr
        said = done.stderr
        assert "DEEPSEEK_API_KEY" in said and "--api-key-env" in said, said
        assert "Next:" not in said and "Traceback" not in said, said
        assert not (tmp_path / "config" / "config.toml").exists()


def test_the_endpoint_is_checked_with_the_key_that_will_be_used(tmp_path: Path) -> None:
    with DeepSeek() as server:
        given = ("--provider", "deepseek", "--base-url", server.url)
        done = setup(tmp_path, *given, "--api-key-env", "DEEPSEEK_API_KEY", DEEPSEEK_API_KEY=KEY)
        assert server.unauthorized == 0, done.stderr
    assert done.returncode == 0, done.stderr
    assert "answers" in done.stderr and "refused" not in done.stderr, done.stderr
    assert written(tmp_path)["providers"]["deepseek"]["api_key_env"] == "DEEPSEEK_API_KEY"


def test_a_refused_key_fails_and_writes_nothing(tmp_path: Path) -> None:
    with DeepSeek() as server:
        given = ("--provider", "deepseek", "--base-url", server.url)
        for key in ("--api-key-env", "DEEPSEEK_API_KEY"), ():
            done = setup(tmp_path, *given, *key, DEEPSEEK_API_KEY="sk-not-the-key-0000")
            assert done.returncode != 0, done.stderr
            assert "refused the key" in done.stderr and "Nothing was written" in done.stderr
            assert "run `acp setup`" not in done.stderr, done.stderr
            assert not (tmp_path / "config" / "config.toml").exists()
        # --no-check writes it anyway, and says it was not checked.
        done = setup(tmp_path, *given, "--no-check", DEEPSEEK_API_KEY="sk-not-the-key-0000")
        assert done.returncode == 0, done.stderr
        assert server.unauthorized == 2
    assert written(tmp_path)["providers"]["deepseek"]["api_key_env"] == "DEEPSEEK_API_KEY"
    assert "not checked" in done.stderr, done.stderr


def test_an_unreachable_endpoint_fails_and_writes_nothing_unless_told_not_to_check(
    tmp_path: Path,
) -> None:
    given = ("--provider", "ollama", "--model", "m", "--base-url", "http://127.0.0.1:9/v1")
    done = setup(tmp_path, *given)
    assert done.returncode != 0 and "did not answer" in done.stderr, done.stderr
    assert "--no-check" in done.stderr and "Nothing was written" in done.stderr, done.stderr
    assert not (tmp_path / "config" / "config.toml").exists()
    done = setup(tmp_path, *given, "--no-check")
    assert done.returncode == 0, done.stderr
    assert written(tmp_path)["default_model"] == "ollama/m"


def test_a_retired_deepseek_model_is_refused_naming_the_current_ones(tmp_path: Path) -> None:
    with DeepSeek() as server:
        for model, check in (
            ("deepseek-chat", ()),
            ("deepseek-reasoner", ("--no-check",)),
            ("deepseek/deepseek-reasoner", ("--no-check",)),  # as the agent names models
        ):
            given = ("--provider", "deepseek", "--base-url", server.url, "--model", model)
            done = setup(tmp_path, *given, *check, DEEPSEEK_API_KEY=KEY)
            assert done.returncode != 0, done.stderr
            said = done.stderr
            assert "retired" in said and model.rsplit("/", 1)[-1] in said, said
            assert "deepseek-flash" in said and "deepseek-v4-pro" in said, said
            assert not (tmp_path / "config" / "config.toml").exists()


def test_a_model_named_as_the_agent_names_it_is_the_providers_model(tmp_path: Path) -> None:
    """`--model deepseek/deepseek-flash` (provider/model, as the agent and its docs name
    models) is the provider's deepseek-flash, not a model named deepseek/deepseek-flash."""
    with DeepSeek() as server:
        given = ("--provider", "deepseek", "--base-url", server.url)
        done = setup(tmp_path, *given, "--model", "deepseek/deepseek-flash", DEEPSEEK_API_KEY=KEY)
    assert done.returncode == 0, done.stderr
    written = (tmp_path / "config" / "config.toml").read_text(encoding="utf-8")
    assert 'default_model = "deepseek/deepseek-flash"' in written, written
    assert "does not list" not in done.stderr, done.stderr


def test_a_usual_variable_that_would_win_over_the_key_given_is_noted(tmp_path: Path) -> None:
    """The agent takes DEEPSEEK_API_KEY over config.toml's key: setup says so when it is set
    and the key given is another one."""
    with DeepSeek() as server:
        given = ("--provider", "deepseek", "--base-url", server.url, "--api-key-env", "MINE")
        done = setup(tmp_path, *given, MINE=KEY, DEEPSEEK_API_KEY="sk-another-0000")
    assert done.returncode == 0, done.stderr
    assert "DEEPSEEK_API_KEY is set here" in done.stderr, done.stderr
