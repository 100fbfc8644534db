"""Where MCP stdio servers start and which program runs: never a place or a program the workspace
chooses (mcp_servers/link.py, mcp_servers/launch.py, config/programs.py). A real `acp` starts
real servers next to a workspace the model could have written: a module that shadows the
server's, a program of the server's name in a relative PATH entry, a relative command; the
workspace's never runs. The workspace reaches servers as MCP roots instead, and a config.toml
entry may name the directory its server starts in."""

from __future__ import annotations

import logging
import os
import stat
import sys
from pathlib import Path

import pytest

from reasonix_acp.config.mcp_entries import from_config
from tests.test_mcp_servers import SERVERS, StandIn, run_prompt, stdio
from tests.transcript import Scenario

ROOTS = str(SERVERS / "roots_server.py")


def executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)


def canary_script(canary: Path) -> str:
    """A program the workspace planted: it leaves a mark outside and exits."""
    return f"#!/bin/sh\necho ran > '{canary}'\nexit 1\n"


def real_server() -> str:
    """A program that is the roots server."""
    return f"#!/bin/sh\nexec '{sys.executable}' '{ROOTS}' \"$@\"\n"


def warnings_of(client: StandIn) -> str:
    return "".join(
        u.content.text
        for u in client.updates
        if getattr(u, "session_update", "") == "agent_message_chunk"
    )


async def test_a_workspace_module_never_shadows_the_servers_own(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    ws, ws2 = Path(scenario.vars["CWD"]), Path(scenario.vars["CWD2"])
    canary = tmp_path / "canary"
    lib = tmp_path / "lib"
    (lib / "mcp_named").mkdir(parents=True)
    (lib / "mcp_named" / "__main__.py").write_text(
        f"import runpy, sys\nsys.path.insert(0, {str(SERVERS)!r})\n"
        f"runpy.run_path({ROOTS!r}, run_name='__main__')\n",
        encoding="utf-8",
    )
    (ws / "mcp_named").mkdir()
    (ws / "mcp_named" / "__main__.py").write_text(
        f"open({str(canary)!r}, 'w').write('ran')\n", encoding="utf-8"
    )
    server = {
        "name": "s",
        "command": sys.executable,
        "args": ["-m", "mcp_named"],
        "env": [{"name": "PYTHONPATH", "value": str(lib)}],
        "cwd": str(ws),  # not a field of a client's entry: left out
    }
    calls = [("mcp__s__echo", {"text": "the real one"}), ("mcp__s__cwd", {})]
    client = await run_prompt(
        tmp_path, [server], calls, params={"additionalDirectories": [str(ws2)]}
    )
    assert not canary.exists(), "the workspace's module ran"
    (echo, (status, where)) = client.results()
    assert echo == ("completed", "the real one")
    assert status == "completed"
    place = Path(where)
    for root in (ws, ws2):
        assert not place.is_relative_to(os.path.realpath(root)), where
    info = place.stat()
    assert stat.S_IMODE(info.st_mode) == 0o700 and info.st_uid == os.getuid()


@pytest.mark.parametrize("entry", [".", "", "bin"])
async def test_a_relative_path_entry_never_chooses_the_program(tmp_path: Path, entry: str) -> None:
    ws = Path(Scenario(tmp_path).vars["CWD"])
    canary = tmp_path / "canary"
    executable(ws / entry / "mcp-thing", canary_script(canary))
    executable(tmp_path / "bin" / "mcp-thing", real_server())
    path = os.pathsep.join([entry, str(tmp_path / "bin"), os.environ["PATH"]])
    server = {"name": "s", "command": "mcp-thing", "args": [], "env": []}
    calls = [("mcp__s__echo", {"text": "found on PATH"}), ("mcp__s__env", {"name": "PATH"})]
    client = await run_prompt(tmp_path, [server], calls, env={"PATH": path})
    assert not canary.exists(), "the workspace's program ran"
    absolute = [e for e in path.split(os.pathsep) if os.path.isabs(e)]
    assert client.results() == [
        ("completed", "found on PATH"),
        ("completed", os.pathsep.join(absolute)),  # what the server runs by name is not either
    ]


@pytest.mark.parametrize("command", ["./mcp-thing", "servers/mcp-thing"])
async def test_a_client_server_named_by_a_relative_path_is_refused(
    tmp_path: Path, command: str
) -> None:
    ws = Path(Scenario(tmp_path).vars["CWD"])
    canary = tmp_path / "canary"
    executable(ws / command, canary_script(canary))
    server = {"name": "s", "command": command, "args": [], "env": []}
    client = await run_prompt(tmp_path, [server], [("mcp__s__echo", {"text": "x"})])
    assert not canary.exists(), "the workspace's program ran"
    said = warnings_of(client)
    assert "MCP server s is not available" in said
    assert f'its command "{command}" is a relative path' in said


async def test_a_config_server_runs_its_config_dirs_program_where_it_says(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    ws, ws2 = Path(scenario.vars["CWD"]), scenario.vars["CWD2"]
    config = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
    canary = tmp_path / "canary"
    executable(ws / "servers" / "mcp-thing", canary_script(canary))
    executable(config / "servers" / "mcp-thing", real_server())
    (config / "config.toml").write_text(
        f'[mcp_servers.s]\ncommand = "servers/mcp-thing"\ncwd = "{ws2}"\n', encoding="utf-8"
    )
    client = await run_prompt(tmp_path, [], [("mcp__s__cwd", {})])
    assert not canary.exists(), "the workspace's program ran"
    assert client.results() == [("completed", os.path.realpath(ws2))]


async def test_servers_are_offered_the_sessions_roots(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    ws = scenario.vars["CWD"]
    other = tmp_path / "other dir"
    other.mkdir()
    client = await run_prompt(
        tmp_path,
        [stdio("s", ROOTS)],
        [("mcp__s__roots", {})],
        params={"additionalDirectories": [str(other)]},
    )
    assert client.results() == [("completed", f"{Path(ws).as_uri()}\n{other.as_uri()}")]
    assert "%20" in other.as_uri()


async def test_no_provider_key_reaches_a_server(tmp_path: Path) -> None:
    keys = {
        "DEEPSEEK_API_KEY": "sk-deepseek-test-0123456789",
        "OPENAI_API_KEY": "sk-openai-test-9876543210",
        "ANTHROPIC_API_KEY": "sk-ant-test-5555555555",
        "GITHUB_TOKEN": "ghp_test0123456789abcdef",
    }
    calls = [("mcp__s__env", {"name": name}) for name in [*keys, "HOME"]]
    client = await run_prompt(tmp_path, [stdio("s")], calls, env=keys)
    texts = [text for _status, text in client.results()]
    assert texts[-1] == os.environ["HOME"]  # the tool reads the server's environment
    assert not any(value in text for value in keys.values() for text in texts)


def test_a_config_entrys_cwd_is_absolute_and_its_relative_command_is_the_config_dirs(
    tmp_path: Path,
) -> None:
    (server,) = from_config(
        {"s": {"command": "bin/server", "cwd": str(tmp_path)}}, base=tmp_path / "config"
    )
    assert server["command"] == str(tmp_path / "config" / "bin" / "server")
    assert server["cwd"] == str(tmp_path)
    (named,) = from_config({"s": {"command": "server"}}, base=tmp_path)
    assert named["command"] == "server" and "cwd" not in named  # looked up on PATH at start
    bad = [
        ({"command": "x", "cwd": "work"}, 'mcp_servers.s.cwd: "work" is a relative path'),
        ({"command": "x", "cwd": ""}, 'mcp_servers.s.cwd: "" is a relative path'),
        ({"command": "x", "cwd": 3}, "mcp_servers.s.cwd must be a string"),
        (
            {"type": "http", "url": "https://example.com/mcp", "cwd": "/srv"},
            "mcp_servers.s.cwd: only a stdio server starts in a directory",
        ),
    ]
    for body, message in bad:
        with pytest.raises(ValueError) as caught:
            from_config({"s": body}, base=tmp_path)
        assert message in str(caught.value)


def test_a_name_is_found_on_the_absolute_entries_of_path_only(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reasonix_acp.config import programs

    monkeypatch.chdir(tmp_path)
    executable(tmp_path / "thing", "#!/bin/sh\n")
    executable(tmp_path / "abs" / "thing", "#!/bin/sh\n")
    path = os.pathsep.join([".", "", "rel", str(tmp_path / "abs")])
    with caplog.at_level(logging.WARNING, "reasonix_acp.config"):
        assert programs.find("thing", path) == str(tmp_path / "abs" / "thing")
        assert programs.find("thing", path) == str(tmp_path / "abs" / "thing")
    skipped = [r.getMessage() for r in caplog.records if "PATH" in r.getMessage()]
    assert len(skipped) == 1  # said once
    assert all(f'"{entry}"' in skipped[0] for entry in (".", "", "rel"))
    with pytest.raises(programs.NotFound) as caught:
        programs.find("thing", ".")
    assert 'no "thing" in the absolute entries of PATH' in str(caught.value)
    assert programs.absolute_path(f".{os.pathsep}/usr/bin{os.pathsep}{os.pathsep}x") == "/usr/bin"
