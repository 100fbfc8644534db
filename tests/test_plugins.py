"""Plugins (plugins.py), their actions and hooks (extensions.py) and the surfaces they publish
(extension_surface.py): manifests unit by unit, then a real `acp` with real plugin commands."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.plugins import surface as extension_surface
from reasonix_acp.plugins.actions import parse_args
from reasonix_acp.plugins.manifest import PluginError, discover, parse_manifest
from reasonix_acp.plugins.plugin import parse_output
from reasonix_acp.session import commands
from tests import wire
from tests.client import Client
from tests.transcript import Scenario

PLUGINS = Path(__file__).parent / "plugins"
RELOAD = "_reasonix.io/session/reloadExtensions"


def test_the_test_plugins_load() -> None:
    found = discover([PLUGINS], strict=True)
    assert [p.id for p in found] == ["ci", "greeter"]
    ci = found[0]
    assert [t.name for t in ci.tools] == ["ci__lint"]
    assert sorted(ci.actions) == ["broken", "deploy", "explain"]
    assert ci.actions["deploy"].form[0].options == ("staging", "production")
    names = [c["name"] for c in commands.available(found)]
    assert names[: len(commands.COMMANDS)] == [n for n, _ in commands.COMMANDS]
    assert names[len(commands.COMMANDS) :] == ["ci:broken", "ci:deploy", "ci:explain", "ci:review"]


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ({"id": "Bad Id"}, "is not a plugin id"),
        ({"id": "mcp"}, "is not a plugin id"),
        ({"surprise": 1}, "unknown key surprise"),
        ({"timeout_seconds": 0}, "timeout_seconds must be a positive number"),
        ({"tools": {"t": {"command": "lint"}}}, "tools.t.command: expected a non-empty list"),
        ({"tools": {"t": {"command": ["x"], "parameters": []}}}, "tools.t.parameters"),
        ({"tools": {"t": {"command": ["x"], "kind": "magic"}}}, "tools.t.kind: expected one of"),
        ({"tools": {"bad name": {"command": ["x"]}}}, "names are letters"),
        ({"commands": {"c": {"prompt": " "}}}, "commands.c.prompt"),
        ({"actions": {"a": {"command": ["x"], "form": [{"label": "L"}]}}}, "form[0].key"),
        (
            {"actions": {"a": {"command": ["x"], "form": [{"key": "k", "options": "ab"}]}}},
            "form[0].options",
        ),
        (
            {"commands": {"a": {"prompt": "p"}}, "actions": {"a": {"command": ["x"]}}},
            "actions.a: a command of this plugin has the same name",
        ),
        ({"hooks": {"on_boot": ["x"]}}, "hooks.on_boot: expected one of"),
    ],
)
def test_bad_manifests_name_the_key(manifest: dict[str, Any], message: str, tmp_path: Path) -> None:
    with pytest.raises(PluginError) as caught:
        parse_manifest(tmp_path, manifest)
    assert message in str(caught.value)
    assert str(tmp_path / "plugin.toml") in str(caught.value)


def test_discovery_skips_a_bad_plugin_unless_strict(tmp_path: Path) -> None:
    shutil.copytree(PLUGINS / "ci", tmp_path / "ci")
    (tmp_path / "zz").mkdir()
    (tmp_path / "zz" / "plugin.toml").write_text("id = [", encoding="utf-8")
    assert [p.id for p in discover([tmp_path], strict=False)] == ["ci"]
    with pytest.raises(PluginError, match="zz"):
        discover([tmp_path], strict=True)
    with pytest.raises(PluginError, match=r"no plugin\.toml"):
        discover([tmp_path / "missing"], strict=True)
    assert discover([tmp_path / "missing"], strict=False) == []


def test_templates_args_and_outputs() -> None:
    ci = discover([PLUGINS / "ci"], strict=True)[0]
    assert ci.templates["review"].expand("a.py b.py") == (
        "Review a.py and list the risks (asked: a.py b.py)"
    )
    assert parse_args("target=prod now fast=") == {"target": "prod", "arg1": "now", "fast": ""}
    assert parse_output("plain words\n").text == "plain words"
    assert parse_output('{"prompt": "go", "surfaces": [1]}').prompt == "go"
    assert parse_output('{"prompt": "  "}').prompt is None
    assert commands.plugin_entry("/ci:review x y", [ci]) == (ci, ci.templates["review"], "x y")
    assert commands.plugin_entry("/ci:nothing", [ci]) is None
    assert commands.plugin_entry("/other:review", [ci]) is None
    assert commands.plugin_entry("ci:review", [ci]) is None


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ({"kind": "status", "status": {"label": "lint", "detail": "clean"}}, "\n\n[p] lint: clean"),
        (
            {"kind": "status", "status": {"label": "lint", "severity": "error"}},
            "\n\n[warning] [p] lint",
        ),
        (
            {
                "kind": "card",
                "card": {"title": "T", "text": "body", "fields": [{"key": "k", "value": "v"}]},
            },
            "\n\nT\nbody\nk: v",
        ),
        ({"kind": "card", "card": {"title": "T", "markdown": "*m*", "text": "t"}}, "\n\nT\n*m*"),
        ({"kind": "form", "form": {"title": "F", "message": "M", "fields": []}}, "\n\nF\nM"),
        (
            {
                "kind": "notification",
                "notification": {"title": "N", "body": "B", "severity": "warn"},
            },
            "\n\n[warning] N\nB",
        ),
    ],
)
def test_fallback_text_by_kind(raw: dict[str, Any], text: str) -> None:
    (surface,) = extension_surface.normalise("p", [raw], "s1")
    assert surface["pluginId"] == "p" and surface["sessionId"] == "s1"
    assert extension_surface.fallback_text(surface) == text
    structured, fallback = extension_surface.updates(surface)
    assert wire.errors(structured, "ReasonixExtensionSurfaceUpdate") == []
    assert fallback["content"]["text"] == text


def test_surfaces_that_are_not_surfaces_are_dropped() -> None:
    raw = [
        "text",
        {"kind": "dial", "status": {"label": "x"}},
        {"kind": "status"},
        {"kind": "status", "status": {}},
        {"kind": "status", "pluginId": "someone-else", "status": {"label": "ok"}},
    ]
    kept = extension_surface.normalise("p", raw, None)
    assert kept == [
        {"kind": "status", "pluginId": "p", "status": {"label": "ok"}, "surfaceId": "status-5"}
    ]


def _client(
    tmp_path: Path, *paths: Path, opt_in: bool = False, scenario: Scenario | None = None
) -> tuple[Client, str, Path]:
    client = Client(tmp_path, "--model", "offline", scenario=scenario)
    config = Path(client.scenario.env["REASONIX_ACP_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    listed = ", ".join(f'"{p}"' for p in paths)
    config.write_text(f"[plugins]\npaths = [{listed}]\n", encoding="utf-8")
    meta = {"reasonix.io": {"extensionSurface": {"supported": True}}} if opt_in else {}
    client.result("initialize", {"protocolVersion": 1, "clientCapabilities": {"_meta": meta}})
    cwd = client.scenario.vars["CWD"]
    sid = client.result("session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]
    return client, sid, config


def _updates(client: Client, kind: str) -> list[dict[str, Any]]:
    return [
        n["params"]["update"]
        for n in client.notes
        if n.get("method") == "session/update" and n["params"]["update"]["sessionUpdate"] == kind
    ]


def test_session_hooks_run_at_start_and_end(tmp_path: Path) -> None:
    client, sid, _ = _client(tmp_path, PLUGINS / "greeter", opt_in=True)
    deadline = time.monotonic() + 10
    while not _updates(client, "agent_message_chunk") and time.monotonic() < deadline:
        client.notes.append(client.agent.receive())  # the surface, then its text
    (surface,) = _updates(client, extension_surface.UPDATE)
    assert surface["_meta"]["reasonix.io"]["extensionSurface"]["status"]["label"] == "hello"
    chunks = [u["content"]["text"] for u in _updates(client, "agent_message_chunk")]
    assert chunks == ["\n\n[warning] [greeter] hello"]
    assert client.result("session/close", {"sessionId": sid}) == {}
    ended = Path(client.scenario.vars["CWD"]) / "ended.txt"
    assert ended.read_text(encoding="utf-8") == sid + "\n"
    assert client.close() == 0


def test_reload_takes_new_plugins_and_refuses_bad_ones(tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    shutil.copytree(PLUGINS / "ci", plugins / "ci")
    client, sid, _ = _client(tmp_path, plugins)
    client.result("session/list", {})  # the commands update follows session/new's answer
    (advertised,) = _updates(client, "available_commands_update")
    assert "ci:deploy" in [c["name"] for c in advertised["availableCommands"]]

    (plugins / "ci" / "plugin.toml").write_text('id = "ci"\nsurprise = 1\n', encoding="utf-8")
    frame = client.call(RELOAD, {"sessionId": sid})
    assert frame["error"]["code"] == -32603
    assert "unknown key surprise" in frame["error"]["message"]
    # The old plugin set still serves its actions.
    deploy = {"sessionId": sid, "prompt": [{"type": "text", "text": "/ci:deploy target=qa"}]}
    client.take_notes()
    assert client.result("session/prompt", deploy) == {"stopReason": "end_turn"}
    assert "Deployed to qa." in [
        u["content"]["text"] for u in _updates(client, "agent_message_chunk")
    ]

    shutil.rmtree(plugins / "ci")
    shutil.copytree(PLUGINS / "greeter", plugins / "greeter")
    client.take_notes()
    assert client.result(RELOAD, {"sessionId": sid}) == {}
    client.result("session/list", {})  # the commands update follows the reload's answer
    (advertised,) = _updates(client, "available_commands_update")
    names = [c["name"] for c in advertised["availableCommands"]]
    assert not any(n.startswith("ci:") for n in names)
    client.take_notes()
    gone = {"sessionId": sid, "prompt": [{"type": "text", "text": "/ci:deploy target=qa"}]}
    assert client.result("session/prompt", gone) == {"stopReason": "end_turn"}
    texts = [u["content"]["text"] for u in _updates(client, "agent_message_chunk")]
    assert "".join(texts) == "Offline reply: /ci:deploy target=qa"  # a prompt like any other
    assert client.close() == 0


def test_plugin_programs_are_never_the_workspaces(tmp_path: Path) -> None:
    """A plugin command runs in the session's cwd, the workspace: a relative PATH entry (here
    `.` first) would let the workspace choose its program by name, and the interpreter of its
    `#!/usr/bin/env python3` line; a relative command not in the plugin's directory would be the
    workspace's file."""
    scenario = Scenario(tmp_path)
    ws = Path(scenario.vars["CWD"])
    canary = tmp_path / "canary"
    for planted in ("python3", "plug-thing", "lib/run"):
        _executable(ws / planted, f"#!/bin/sh\necho {planted} >> '{canary}'\nexit 1\n")
    _executable(tmp_path / "bin" / "plug-thing", "#!/bin/sh\necho the real plug-thing\n")
    plugin = tmp_path / "plugins" / "p"
    plugin.mkdir(parents=True)
    (plugin / "plugin.toml").write_text(
        'id = "p"\n[actions.named]\ncommand = ["plug-thing"]\n'
        '[actions.relative]\ncommand = ["lib/run"]\n',
        encoding="utf-8",
    )
    scenario.env["PATH"] = os.pathsep.join([".", str(tmp_path / "bin"), os.environ["PATH"]])
    client, sid, _ = _client(tmp_path, PLUGINS / "ci", plugin.parent, scenario=scenario)
    replies = []
    for text in ("/ci:deploy target=qa", "/p:named", "/p:relative"):
        client.take_notes()
        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
        assert client.result("session/prompt", prompt) == {"stopReason": "end_turn"}
        replies.append(
            "".join(u["content"]["text"] for u in _updates(client, "agent_message_chunk"))
        )
    assert not canary.exists(), canary.read_text(encoding="utf-8")
    assert replies[0].endswith("Deployed to qa.")  # after the surfaces' text
    assert replies[1] == "the real plug-thing"
    assert '"lib/run" is not a file of the plugin' in replies[2]
    assert client.close() == 0


def _executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
