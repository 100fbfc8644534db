"""What a new user's first session meets before its first prompt works, against real `acp`
processes: a DeepSeek provider with no key, an endpoint that refuses connections, a model id
with a typo. Each is said where it is first known, with the step that fixes it."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.deepseek_server import KEY, DeepSeek
from tests.sse_server import Server
from tests.test_config_keys import doctor, scenario


def opened(tmp: Path, text: str, *args: str) -> tuple[Client, dict[str, Any]]:
    c = Client(tmp, *args, scenario=scenario(tmp, text))
    c.result("initialize", {"protocolVersion": 1})
    return c, c.call("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})


def test_a_deepseek_provider_without_a_key_is_refused_at_session_new(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c, answer = opened(tmp_path, f'[providers.deepseek]\nbase_url = "{server.url}"\n')
        error = answer.get("error")
        assert error is not None and error["code"] == -32000, answer  # auth_required
        said = error["message"]
        assert "no key is set" in said, said
        assert "DEEPSEEK_API_KEY" in said and "acp setup --provider deepseek" in said, said
        missing = c.call("authenticate", {"methodId": "reasonix-setup"})["error"]
        assert missing["code"] == -32000 and "no key is set" in missing["message"], missing
        assert c.close() == 0
        assert server.calls == 0 and server.bodies == []


def test_doctor_says_no_key_is_set_rather_than_refused(tmp_path: Path) -> None:
    with DeepSeek() as server:
        scenario(tmp_path, f'[providers.deepseek]\nbase_url = "{server.url}"\n')
        done: subprocess.CompletedProcess[str] = doctor(tmp_path)
        assert server.unauthorized == 0  # nothing is sent that must be refused
    out = done.stdout
    assert done.returncode == 1, out
    lines = [line for line in out.splitlines() if "provider deepseek" in line]
    assert len(lines) == 1 and lines[0].startswith("! "), out
    assert "no key is set" in lines[0] and "DEEPSEEK_API_KEY" in lines[0], out
    assert "refused" not in out, out
    assert out.count("no key is set") == 1, out


def test_a_key_from_the_named_variable_opens_the_session(tmp_path: Path) -> None:
    with DeepSeek() as server:
        text = f'[providers.deepseek]\nbase_url = "{server.url}"\napi_key_env = "DS_KEY"\n'
        s = scenario(tmp_path, text)
        s.env["DS_KEY"] = KEY
        c = Client(tmp_path, scenario=s)
        c.result("initialize", {"protocolVersion": 1})
        assert "sessionId" in c.result("session/new", {"cwd": s.vars["CWD"], "mcpServers": []})
        assert c.close() == 0


def test_a_refused_connection_names_the_next_step(tmp_path: Path) -> None:
    text = (
        '[providers.local]\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\nmodels = ["m1"]\n'
    )
    c, answer = opened(tmp_path, text, "--model", "local/m1")
    sid = answer["result"]["sessionId"]
    prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
    error = c.call("session/prompt", prompt)["error"]
    assert error["code"] == -32603, error  # the provider's failure
    said = error["message"]
    assert "ConnectError" in said and "base_url" in said and "acp doctor" in said, said
    assert c.close() == 0


def test_a_model_id_with_a_typo_is_refused_at_session_new_naming_the_configured_ones(
    tmp_path: Path,
) -> None:
    """As docs/providers.md promises: -32602 listing the configured models, not a session
    that fails at its first prompt."""
    local = '[providers.local]\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n'
    c, answer = opened(tmp_path / "a", local + 'models = ["m1", "m2"]\n', "--model", "local/m3")
    error = answer.get("error")
    assert error is not None and error["code"] == -32602, answer
    assert "local/m3" in error["message"] and "local/m1, local/m2" in error["message"], error
    assert c.close() == 0
    with DeepSeek() as server:
        text = f'[providers.deepseek]\nbase_url = "{server.url}"\napi_key = "{KEY}"\n'
        c, answer = opened(tmp_path / "b", text, "--model", "deepseek/deepseek-flsh")
        error = answer.get("error")
        assert error is not None and error["code"] == -32602, answer
        said = error["message"]
        assert "deepseek/deepseek-flsh" in said and "deepseek/deepseek-flash" in said, said
        assert c.close() == 0
        # A model the endpoint serves, though the built-in list does not name it, opens.
        server.models = [*server.models, "deepseek-v5-preview"]
        c, answer = opened(tmp_path / "c", text, "--model", "deepseek/deepseek-v5-preview")
        assert "result" in answer, answer
        assert c.close() == 0
        assert server.calls == 0 and server.unauthorized == 0


def test_doctor_names_a_default_model_its_endpoint_does_not_serve(tmp_path: Path) -> None:
    with Server() as server:
        server.models = ["m1", "m2"]
        text = f'default_model = "local/m3"\n[providers.local]\nkind = "openai"\nbase_url = "{server.url}"\n'
        scenario(tmp_path, text)
        done = doctor(tmp_path)
    out = done.stdout
    assert done.returncode == 1, out
    assert "! default model local/m3: its endpoint does not serve it: local/m1, local/m2" in out
