"""The documented environment setups work on the first try, against a local OpenAI-compatible
server: with and without a key, with and without a named model, the model list from /models."""

from __future__ import annotations

import json
import os
import subprocess
import threading
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


def offered_later(c: Client, sid: str) -> list[str]:
    """The model choices of the next `config_option_update` the session is sent."""
    while True:
        frame = c.agent.receive()
        update = frame.get("params", {}).get("update", {})
        if (
            frame.get("params", {}).get("sessionId") == sid
            and update.get("sessionUpdate") == "config_option_update"
        ):
            return model_option(update)[1]


def test_a_named_model_opens_at_once_and_the_others_are_offered_when_listed(
    tmp_path: Path,
) -> None:
    """With a named model, session/new does not wait for the endpoint's model list (a remote
    endpoint costs a handshake and a request, an unreachable one its whole timeout): it offers
    the models it knows, and the ones the endpoint serves follow in a config_option_update."""
    with Server() as server:
        server.models = ["m1", "m2", "m3"]
        server.get_gate = threading.Event()  # GET /models is answered only when the test says
        c = agent(tmp_path, server, OPENAI_API_KEY="sk-first-run-0003", OPENAI_MODEL="m2")
        result = opened(c)["result"]
        assert model_option(result) == ("openai/m2", ["openai/m2"])
        server.get_gate.set()
        assert offered_later(c, result["sessionId"]) == ["openai/m2", "openai/m1", "openai/m3"]
        answer = c.call(
            "session/prompt",
            {"sessionId": result["sessionId"], "prompt": [{"type": "text", "text": "hi"}]},
        )
        assert answer["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    assert len(server.gets) == 1, server.gets  # one request lists the models and connects
    assert server.gets[0]["Authorization"] == "Bearer sk-first-run-0003"


def test_every_endpoint_without_a_model_list_is_asked_after_the_session_opens(
    tmp_path: Path,
) -> None:
    """Two OpenAI-compatible providers in config.toml: the session's own (naming only the
    default model) and another naming none. Both are asked after the response, the second
    with a request of its own, and what they serve is offered in one update."""
    with Server() as own, Server() as other:
        own.models, other.models = ["x", "y"], ["z"]
        scenario = Scenario(tmp_path)
        config = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.toml").write_text(
            'default_model = "a/x"\n'
            f'[providers.a]\nkind = "openai"\nbase_url = "{own.url}"\nmodels = ["x"]\n'
            f'[providers.b]\nkind = "openai"\nbase_url = "{other.url}"\n'
        )
        c = Client(tmp_path, scenario=scenario)
        result = opened(c)["result"]
        assert model_option(result) == ("a/x", ["a/x"])
        assert offered_later(c, result["sessionId"]) == ["a/x", "a/y", "b/z"]
        again = c.result("session/new", {"cwd": scenario.vars["CWD"], "mcpServers": []})
        assert model_option(again)[1] == ["a/x", "a/y", "b/z"]
        assert c.close() == 0
    assert len(other.gets) == 1  # asked once per process


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
