"""What a new user's first session meets before its first prompt works, against real `acp`
processes: a DeepSeek provider with no key, an endpoint that refuses connections, a model id
with a typo. Each is said where it is first known, with the step that fixes it."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.deepseek_server import KEY, DeepSeek
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
