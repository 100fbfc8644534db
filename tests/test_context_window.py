"""The context size a session reports (`usage_update.size`) is the model's: from config.toml,
from what its endpoint says, DeepSeek's published sizes, then the stated default; it is sent
after every turn, again after a model switch, and on load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.config.context import ContextSettings, window_size
from reasonix_acp.providers.discovery import local_kind, parse_windows
from tests.client import Client
from tests.sse_server import Server
from tests.test_sessions import updates_of
from tests.transcript import Scenario


def sizes(c: Client, sid: str) -> list[int]:
    return [u["size"] for u in updates_of(c.notes, sid) if u["sessionUpdate"] == "usage_update"]


def endpoint_client(tmp: Path, server: Server, config: str = "") -> Client:
    scenario = Scenario(tmp)
    scenario.env.update({"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-window-key-0123"})
    if config:
        (tmp / "config").mkdir(exist_ok=True)
        (tmp / "config" / "config.toml").write_text(config, encoding="utf-8")
    return Client(tmp, "--model", "openai/m1", scenario=scenario)


def prompt(c: Client, sid: str, text: str = "hi") -> None:
    answer = c.call(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
    )
    assert answer["result"] == {"stopReason": "end_turn"}, answer


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"id": "m1", "context_length": 12345}, 12345),  # OpenRouter
        ({"id": "m1", "max_model_len": 23456}, 23456),  # vLLM
        ({"id": "m1", "max_context_length": 34567}, 34567),  # LM Studio
        ({"id": "m1", "top_provider": {"context_length": 45678}}, 45678),
        ({"id": "m1"}, 65536),  # nothing said: the default
    ],
)
def test_the_size_the_endpoint_lists(tmp_path: Path, entry: dict[str, Any], expected: int) -> None:
    with Server() as server:
        server.models = ["m1"]
        server.entries = [entry, {"id": "other", "context_length": 999}]
        c = endpoint_client(tmp_path, server)
        sid = c.start()
        prompt(c, sid)
        c.result("session/list", {})
        assert c.close() == 0
    assert sizes(c, sid)[-1] == expected


def test_llama_cpp_is_asked_for_its_props(tmp_path: Path) -> None:
    with Server() as server:
        server.models = ["m1"]
        server.entries = [{"id": "m1", "object": "model", "owned_by": "llamacpp"}]
        server.props = {"default_generation_settings": {"n_ctx": 8192}}
        c = endpoint_client(tmp_path, server)
        sid = c.start()
        prompt(c, sid)
        c.result("session/list", {})
        assert c.close() == 0
    assert sizes(c, sid)[-1] == 8192


def test_ollama_is_asked_to_show_the_model(tmp_path: Path) -> None:
    with Server() as server:
        server.models = ["m1"]
        server.entries = [{"id": "m1", "object": "model", "owned_by": "library"}]
        server.show = {"model_info": {"qwen2.general": 1, "qwen2.context_length": 32768}}
        c = endpoint_client(tmp_path, server)
        sid = c.start()
        prompt(c, sid)
        c.result("session/list", {})
        assert c.close() == 0
    assert json.loads(server.shown[0]) == {"model": "m1"}
    assert sizes(c, sid)[-1] == 32768


def test_config_wins_and_a_model_switch_sends_the_new_size(tmp_path: Path) -> None:
    config = (
        '[providers.openai]\nkind = "openai"\nmodels = ["m1", "m2"]\ncontext_window = 40000\n'
        '[context.windows]\n"openai/m1" = 20000\n'
    )
    with Server() as server:
        server.models = ["m1", "m2"]
        server.entries = [{"id": "m1", "context_length": 99999}]
        c = endpoint_client(tmp_path, server, config)
        sid = c.start()
        prompt(c, sid)
        assert sizes(c, sid)[-1] == 20000  # [context.windows] before what the endpoint says
        c.result(
            "session/set_config_option",
            {"sessionId": sid, "configId": "model", "value": "openai/m2"},
        )
        c.result("session/list", {})
        assert sizes(c, sid)[-1] == 40000  # the provider's own context_window for m2
        assert c.close() == 0


def test_a_load_reports_the_context_as_it_was(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.toml").write_text(
        '[context.windows]\n"offline/default" = 16384\n', encoding="utf-8"
    )
    c = Client(tmp_path, "--model", "offline", scenario=scenario)
    sid = c.start()
    prompt(c, sid, "something to remember")
    used = [u for u in updates_of(c.notes, sid) if u["sessionUpdate"] == "usage_update"][-1]
    assert used["size"] == 16384 and used["used"] > 0
    assert c.close() == 0
    again = Client(tmp_path, "--model", "offline", scenario=scenario)
    again.result("initialize", {"protocolVersion": 1})
    again.result("session/load", {"sessionId": sid, "cwd": scenario.vars["CWD"], "mcpServers": []})
    again.result("session/list", {})
    assert again.close() == 0
    loaded = [u for u in updates_of(again.notes, sid) if u["sessionUpdate"] == "usage_update"]
    assert loaded == [used]


def test_window_order() -> None:
    settings = ContextSettings.parse({"windows": {"p/a": 5000, "b": 6000}, "default_window": 7000})
    assert window_size(settings, "p/a", 9000, {"a": 1}) == (5000, "config")
    assert window_size(settings, "q/b", None, {}) == (6000, "config")  # by bare id
    assert window_size(settings, "p/c", 9000, {"c": 1234}) == (9000, "config")
    assert window_size(settings, "p/c", None, {"c": 1234}) == (1234, "endpoint")
    assert window_size(settings, "deepseek/deepseek-flash", None, {}) == (1_048_576, "published")
    assert window_size(settings, "p/c", None, {}) == (7000, "default")


@pytest.mark.parametrize(
    ("table", "named"),
    [
        ({"compact_at": 1.5}, "compact_at"),
        ({"compact_at": True}, "compact_at"),
        ({"keep_turns": -1}, "keep_turns"),
        ({"default_window": 10}, "default_window"),
        ({"windows": {"m": "big"}}, "'m'"),
        ({"windows": []}, "windows"),
        ([], "[context]"),
    ],
)
def test_a_bad_context_table_names_the_key(table: Any, named: str) -> None:
    with pytest.raises(ValueError, match=named.replace("[", r"\[").replace("]", r"\]")):
        ContextSettings.parse(table)


def test_parse_windows_reads_only_sizes() -> None:
    body = {
        "data": [
            {"id": "a", "context_length": 100},
            {"id": "b", "context_length": True},
            {"id": "c", "max_model_len": "big"},
            {"name": "d", "max_context_length": 200},
            "e",
        ]
    }
    assert parse_windows(body) == {"a": 100, "d": 200}
    assert local_kind({"data": [{"id": "x", "owned_by": "llamacpp"}]}) == "llama.cpp"
    assert local_kind({"data": [{"id": "x", "owned_by": "openai"}]}) is None
