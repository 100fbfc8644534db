"""`providers/list`, `providers/set`, `providers/disable` (unstable, advertised as
`agentCapabilities.providers`), through a real `acp` driven as raw JSON-RPC: config.toml's
`[providers.<name>]` tables as ProviderInfo, edited in place (comments kept, 0600), never a key
echoed; a session opened after `providers/set` goes to the new base URL with the new key."""

from __future__ import annotations

import json
import stat
import tomllib
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.sse_server import Server
from tests.test_auth_status import _client, _updates
from tests.transcript import Scenario

OLD_KEY = "sk-providers-old-0123456789"
NEW_KEY = "sk-providers-new-9876543210"
PASSWORD = "hunter2-providers-url-secret"
CONFIG = f"""# my providers, by hand
default_model = "openai/m1"

[providers.openai]  # the main one
base_url = "http://127.0.0.1:9/v1"
api_key = "{OLD_KEY}"
models = ["m1"]

[providers.local]
base_url = "http://bob:{PASSWORD}@127.0.0.1:9/v1"
models = ["q"]

[permissions]
deny_commands = ["rm"]  # keep this
"""


def _config_file(c: Client) -> Path:
    return Path(c.scenario.env["REASONIX_ACP_CONFIG_DIR"]) / "config.toml"


def _error(c: Client, method: str, params: dict[str, Any]) -> dict[str, Any]:
    frame = c.call(method, params)
    assert "error" in frame, frame
    error: dict[str, Any] = frame["error"]
    return error


def _secrets_gone(c: Client, *seen: Any) -> None:
    code = c.close()
    assert code == 0
    stderr = c.agent.stderr.decode("utf-8", "replace")
    for secret in (OLD_KEY, NEW_KEY, PASSWORD):
        for text in (*(json.dumps(s) for s in seen), json.dumps(c.notes), stderr):
            assert secret not in text


def test_providers_is_advertised(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    init = c.result("initialize", {"protocolVersion": 1})
    assert init["agentCapabilities"]["providers"] == {}
    assert c.close() == 0


def test_each_provider_is_listed_without_credentials(tmp_path: Path) -> None:
    c = _client(tmp_path, config=CONFIG)
    listed = c.result("providers/list", {})
    assert listed == {
        "providers": [
            {
                "providerId": "openai",
                "supported": ["openai"],
                "required": True,
                "current": {"apiType": "openai", "baseUrl": "http://127.0.0.1:9/v1"},
            },
            {
                "providerId": "local",
                "supported": ["openai"],
                "required": False,
                "current": {"apiType": "openai", "baseUrl": "http://127.0.0.1:9/v1"},
            },
        ]
    }
    _secrets_gone(c, listed)


def test_set_rewrites_the_table_keeping_the_file_and_sends_an_update(tmp_path: Path) -> None:
    c = _client(tmp_path, config=CONFIG.replace(f'api_key = "{OLD_KEY}"\n', ""))
    assert c.result("auth/status", {})["state"] == "not_required"
    c.take_notes()
    params = {
        "providerId": "openai",
        "apiType": "openai",
        "baseUrl": "https://example.invalid/v2",
        "headers": {"AUTHORIZATION": f"Bearer {NEW_KEY}"},
    }
    assert c.result("providers/set", params) == {}
    (update,) = _updates(c)
    assert update["state"] == "authenticated"
    path = _config_file(c)
    text = path.read_text(encoding="utf-8")
    assert "# my providers, by hand" in text and "# the main one" in text
    assert 'deny_commands = ["rm"]  # keep this' in text
    table = tomllib.loads(text)["providers"]["openai"]
    routing = {"base_url": "https://example.invalid/v2", "client_routing": True}
    assert table == {**routing, "api_key": NEW_KEY, "models": ["m1"]}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    listed = c.result("providers/list", {})
    first = listed["providers"][0]
    assert first["current"] == {"apiType": "openai", "baseUrl": "https://example.invalid/v2"}
    assert c.result("providers/set", params) == {}
    assert _updates(c) == [], "nothing changed: nothing sent"
    _secrets_gone(c, listed)


def test_set_without_authorization_removes_the_stored_key(tmp_path: Path) -> None:
    c = _client(tmp_path, config=CONFIG)
    c.take_notes()
    params = {"providerId": "openai", "apiType": "openai", "baseUrl": "http://127.0.0.1:9/v1"}
    assert c.result("providers/set", params) == {}
    (update,) = _updates(c)
    assert update["state"] == "not_required"
    assert "api_key" not in tomllib.loads(_config_file(c).read_text())["providers"]["openai"]
    _secrets_gone(c)


def test_a_session_opened_after_set_uses_the_new_endpoint_and_key(tmp_path: Path) -> None:
    with Server() as server:
        c = _client(tmp_path, config=CONFIG)
        params = {
            "providerId": "openai",
            "apiType": "openai",
            "baseUrl": server.url,
            "headers": {"Authorization": f"bearer {NEW_KEY}"},
        }
        assert c.result("providers/set", params) == {}
        sid = c.result("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})
        prompt = {"sessionId": sid["sessionId"], "prompt": [{"type": "text", "text": "hi"}]}
        assert c.result("session/prompt", prompt)["stopReason"] == "end_turn"
        assert server.bodies, "the new endpoint got the request"
        assert server.headers[-1]["Authorization"] == f"Bearer {NEW_KEY}"
        assert c.close() == 0


def test_set_refuses_what_it_cannot_store_naming_it_and_writes_nothing(tmp_path: Path) -> None:
    c = _client(tmp_path, config=CONFIG)
    before = _config_file(c).read_text(encoding="utf-8")
    good = {"providerId": "openai", "apiType": "openai", "baseUrl": "https://example.invalid/v1"}
    cases = [
        ({"apiType": "anthropic"}, "apiType"),
        ({"apiType": "_custom"}, "apiType"),
        ({"baseUrl": "/v1"}, "baseUrl"),
        ({"baseUrl": "ftp://example.invalid/v1"}, "baseUrl"),
        ({"baseUrl": "example.invalid/v1"}, "baseUrl"),
        ({"headers": {"X-Route": f"secret {NEW_KEY}"}}, "X-Route"),
        ({"headers": {"Authorization": f"Basic {NEW_KEY}"}}, "Authorization"),
        ({"providerId": "a/b"}, "providerId"),
    ]
    seen = []
    for change, named in cases:
        error = _error(c, "providers/set", {**good, **change})
        seen.append(error)
        assert error["code"] == -32602, error
        assert named in error["message"], error
    assert _config_file(c).read_text(encoding="utf-8") == before
    _secrets_gone(c, seen)


def test_disable_marks_the_table_and_lists_it_without_current(tmp_path: Path) -> None:
    c = _client(tmp_path, config=CONFIG)
    assert c.result("providers/disable", {"providerId": "local"}) == {}
    text = _config_file(c).read_text(encoding="utf-8")
    assert "# keep this" in text
    assert tomllib.loads(text)["providers"]["local"]["disabled"] is True
    listed = c.result("providers/list", {})["providers"]
    assert [p["providerId"] for p in listed] == ["openai", "local"]
    assert listed[1] == {
        "providerId": "local",
        "supported": ["openai"],
        "required": False,
        "current": None,
    }
    assert "local/q" not in json.dumps(
        c.result("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})
    )
    assert c.result("providers/disable", {"providerId": "local"}) == {}  # again: nothing to do
    set_again = {"providerId": "local", "apiType": "openai", "baseUrl": "http://127.0.0.1:9/v1"}
    assert c.result("providers/set", set_again) == {}
    assert c.result("providers/list", {})["providers"][1]["current"] is not None
    _secrets_gone(c)


def test_disable_refuses_the_required_and_an_unknown_provider(tmp_path: Path) -> None:
    c = _client(tmp_path, config=CONFIG)
    before = _config_file(c).read_text(encoding="utf-8")
    required = _error(c, "providers/disable", {"providerId": "openai"})
    assert required["code"] == -32602 and "required" in required["message"]
    unknown = _error(c, "providers/disable", {"providerId": "nowhere"})
    assert unknown["code"] == -32602 and "nowhere" in unknown["message"]
    assert _config_file(c).read_text(encoding="utf-8") == before
    _secrets_gone(c)


def test_a_set_wins_over_the_environment_s_base_url_now_and_at_the_next_start(
    tmp_path: Path,
) -> None:
    """OPENAI_BASE_URL wins over config.toml, but not over a routing a client chose with
    providers/set: the set shows in providers/list at once and in a later process with the
    same environment; the environment's key still applies where the set stored none."""
    scenario = Scenario(tmp_path)
    scenario.env.update(OPENAI_BASE_URL="http://127.0.0.1:9/from-env", OPENAI_API_KEY="")
    scenario.env.update(DEEPSEEK_API_KEY="", ACP_MODEL="")
    where = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
    where.mkdir(parents=True, exist_ok=True)
    (where / "config.toml").write_text(CONFIG, encoding="utf-8")

    def current(c: Client) -> str:
        listed = c.result("providers/list", {})["providers"]
        return str(next(p for p in listed if p["providerId"] == "openai")["current"]["baseUrl"])

    c = Client(tmp_path, scenario=scenario)
    c.result("initialize", {"protocolVersion": 1})
    assert current(c) == "http://127.0.0.1:9/from-env"
    chosen = {"providerId": "openai", "apiType": "openai", "baseUrl": "http://127.0.0.1:9/chosen"}
    assert c.result("providers/set", chosen) == {}
    assert current(c) == "http://127.0.0.1:9/chosen"
    assert c.close() == 0
    later = Client(tmp_path, scenario=scenario)
    later.result("initialize", {"protocolVersion": 1})
    assert current(later) == "http://127.0.0.1:9/chosen"
    assert later.close() == 0
