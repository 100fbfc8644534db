"""The documented environment setups work on the first try, against a local OpenAI-compatible
server: with and without a key, with and without a named model, the model list from /models."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.sse_server import Server
from tests.transcript import Scenario, acp_command


def agent(tmp_path: Path, server: Server, **env: str) -> Client:
    scenario = Scenario(tmp_path)
    scenario.env.update({"OPENAI_BASE_URL": server.url, **env})
    return Client(tmp_path, scenario=scenario)


def opened(c: Client) -> dict[str, Any]:
    c.result("initialize", {"protocolVersion": 1})
    cwd = c.scenario.vars["CWD"]
    return c.call("session/new", {"cwd": cwd, "mcpServers": []})


def model_option(result: dict[str, Any]) -> tuple[str, list[str]]:
    option = next(o for o in result["configOptions"] if o["id"] == "model")
    return option["currentValue"], [v["value"] for v in option["options"]]


def test_an_endpoint_without_key_or_model_name_serving_one_model(tmp_path: Path) -> None:
    with Server() as server:
        server.models = ["qwen3:8b"]
        c = agent(tmp_path, server)
        result = opened(c)["result"]
        assert model_option(result) == ("openai/qwen3:8b", ["openai/qwen3:8b"])
        answer = c.call(
            "session/prompt",
            {"sessionId": result["sessionId"], "prompt": [{"type": "text", "text": "hi"}]},
        )
        assert answer["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    assert json.loads(server.bodies[0])["model"] == "qwen3:8b"
    assert "Authorization" not in server.headers[0] and "Authorization" not in server.gets[0]


def test_a_key_and_a_named_model_with_the_others_offered(tmp_path: Path) -> None:
    with Server() as server:
        server.models = ["m1", "m2", "m3"]
        c = agent(tmp_path, server, OPENAI_API_KEY="sk-first-run-0001", OPENAI_MODEL="m2")
        result = opened(c)["result"]
        assert c.close() == 0
    current, offered = model_option(result)
    assert current == "openai/m2" and offered == ["openai/m2", "openai/m1", "openai/m3"]
    assert server.gets[0]["Authorization"] == "Bearer sk-first-run-0001"


def test_several_models_and_none_named_says_how_to_choose(tmp_path: Path) -> None:
    with Server() as server:
        server.models = ["m1", "m2"]
        c = agent(tmp_path, server, OPENAI_API_KEY="sk-first-run-0002")
        error = opened(c)["error"]
        assert c.close() == 0
    assert error["code"] == -32000
    assert "serves several models (openai/m1, openai/m2)" in error["message"]
    assert "OPENAI_MODEL" in error["message"]


def test_a_named_model_works_without_a_model_list(tmp_path: Path) -> None:
    with Server() as server:  # no GET /models at all (404)
        c = agent(tmp_path, server, OPENAI_MODEL="only")
        result = opened(c)["result"]
        assert model_option(result) == ("openai/only", ["openai/only"])
        assert c.close() == 0


def test_authenticate_after_setup_in_a_terminal_needs_no_restart(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    c = Client(tmp_path, scenario=scenario)
    assert opened(c)["error"]["code"] == -32000
    auth = {"methodId": "reasonix-setup"}
    missing = c.call("authenticate", auth)["error"]
    assert missing["code"] == -32000 and "acp setup" in missing["message"]
    with Server() as server:
        done = subprocess.run(
            [
                *acp_command(),
                "setup",
                "--provider",
                "openai",
                "--model",
                "m1",
                "--base-url",
                server.url,
                "--no-check",
            ],
            env={**os.environ, **scenario.env},
            capture_output=True,
            timeout=30,
        )
        assert done.returncode == 0, done.stderr
        assert c.result("authenticate", auth) == {}
        cwd = scenario.vars["CWD"]
        sid = c.result("session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]
        answer = c.call(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
        )
        assert answer["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    assert json.loads(server.bodies[0])["model"] == "m1"


def test_a_host_that_does_not_resolve_is_named_with_the_cause(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    scenario.env.update({"OPENAI_BASE_URL": "http://no-such-host.invalid/v1", "OPENAI_MODEL": "m1"})
    c = Client(tmp_path, scenario=scenario)
    sid = opened(c)["result"]["sessionId"]
    error = c.call(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
    )["error"]
    assert c.close() == 0
    assert error["code"] == -32603  # an upstream failure, not bad input
    assert error["message"].startswith(
        "session/prompt: openai at http://no-such-host.invalid/v1/chat/completions: ConnectError: "
    )
