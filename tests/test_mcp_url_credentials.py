"""Credentials in an MCP server's URL (userinfo, secret-named query values) given in
`mcpServers` are used for the connection of this process, never stored or shown: not in the
SQLite files, `acp sessions show` or `export`, `/mcp`, or the log. The rest of the URL (scheme,
host, port, path, other query parameters) is kept. After a restart, `session/load` (whose
`mcpServers` ACP requires) connects with the client's URL again; a `session/resume` without
`mcpServers` does not start the server from the stripped copy, and `/mcp` says why. Through a
real `acp`, a real MCP server that refuses requests without the credentials, and the real
SQLite files."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.client import Client
from tests.test_mcp_servers import free_port, wait_for_port
from tests.transcript import Scenario

GUARDED = str(Path(__file__).parent / "mcp_servers" / "guarded_server.py")
PASSWORD, KEY = "PWSECRET4242", "QUERYSECRET77"
SECRETS = (PASSWORD, KEY)


@pytest.fixture(scope="module")
def guarded() -> Iterator[int]:
    """The port of an MCP server that answers only bob:PWSECRET4242 with api_key=QUERYSECRET77."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, GUARDED, str(port), "bob", PASSWORD, KEY],
        env={**os.environ, "TEST_MCP_NAME": "guarded"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_port(port, "the guarded server")
    yield port
    proc.terminate()
    proc.wait(10)


def servers(port: int) -> list[dict[str, Any]]:
    url = f"http://bob:{PASSWORD}@127.0.0.1:{port}/mcp?team=core&api_key={KEY}&region=eu-1"
    return [{"type": "http", "name": "remote", "url": url, "headers": []}]


def kept(port: int) -> str:
    """The URL as stored and shown: everything but the credentials."""
    return f"http://127.0.0.1:{port}/mcp?team=core&api_key=[redacted]&region=eu-1"


def mcp_reply(c: Client, sid: str) -> str:
    c.take_notes()
    answer = c.call(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "/mcp"}]}
    )
    assert answer.get("result") == {"stopReason": "end_turn"}, answer
    return "".join(
        n["params"]["update"]["content"]["text"]
        for n in c.take_notes()
        if n.get("method") == "session/update"
        and n["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    )


def on_disk(data_dir: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(data_dir.rglob("*")) if p.is_file())


def sessions_cli(scenario: Scenario, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "reasonix_acp", "sessions", *args],
        env={**scenario.env, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def opened(scenario: Scenario, tmp_path: Path, method: str, params: dict[str, Any]) -> Client:
    c = Client(tmp_path, "--model", "offline", scenario=scenario)
    c.result("initialize", {"protocolVersion": 1})
    c.result(method, {"cwd": scenario.vars["CWD"], **params})
    return c


def test_url_credentials_are_used_but_never_stored_or_shown(tmp_path: Path, guarded: int) -> None:
    scenario = Scenario(tmp_path)
    c = Client(tmp_path, "--model", "offline", scenario=scenario)
    c.result("initialize", {"protocolVersion": 1})
    new = {"cwd": scenario.vars["CWD"], "mcpServers": servers(guarded)}
    sid = c.result("session/new", new)["sessionId"]
    text = mcp_reply(c, sid)
    assert c.close() == 0
    # connected: the server refuses any request without both credentials
    assert f"- remote (http, {kept(guarded)}): connected; tools: " in text
    stored = on_disk(Path(scenario.vars["DATA"]))
    assert f'"url": "{kept(guarded)}"'.encode() in stored  # the session row
    show = sessions_cli(scenario, "show", sid)
    assert kept(guarded) in show
    export = sessions_cli(scenario, "export", sid) + sessions_cli(
        scenario, "export", sid, "--format", "markdown"
    )
    assert kept(guarded) in export
    for secret in SECRETS:
        assert secret not in text and secret not in show and secret not in export
        assert secret.encode() not in stored
        assert secret.encode() not in c.agent.stderr


@pytest.mark.slow
def test_after_a_restart_load_connects_again_and_resume_without_servers_says_why_not(
    tmp_path: Path, guarded: int
) -> None:
    scenario = Scenario(tmp_path)
    first = Client(tmp_path, "--model", "offline", scenario=scenario)
    first.result("initialize", {"protocolVersion": 1})
    new = {"cwd": scenario.vars["CWD"], "mcpServers": servers(guarded)}
    sid = first.result("session/new", new)["sessionId"]
    assert first.close() == 0

    load = opened(
        scenario, tmp_path, "session/load", {"sessionId": sid, "mcpServers": servers(guarded)}
    )
    assert f"- remote (http, {kept(guarded)}): connected" in mcp_reply(load, sid)
    assert load.close() == 0

    resume = opened(scenario, tmp_path, "session/resume", {"sessionId": sid})
    text = mcp_reply(resume, sid)
    assert f"- remote (http, {kept(guarded)}): failed; " in text
    assert "its credentials (url) were not stored" in text
    assert "send mcpServers again" in text
    again = {"sessionId": sid, "cwd": scenario.vars["CWD"], "mcpServers": servers(guarded)}
    resume.result("session/resume", again)
    assert f"- remote (http, {kept(guarded)}): connected" in mcp_reply(resume, sid)
    assert resume.close() == 0
    stored = on_disk(Path(scenario.vars["DATA"]))
    for secret in SECRETS:
        assert secret.encode() not in stored
        assert secret not in text
        assert secret.encode() not in load.agent.stderr + resume.agent.stderr


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        (
            "https://u:SEKRIT1@h.example:8443/a/b?x=1&token=SEKRIT2&y=2#frag",
            "https://h.example:8443/a/b?x=1&token=[redacted]&y=2#frag",
        ),
        ("https://SEKRIT1@h.example/mcp", "https://h.example/mcp"),
        (
            "http://h/mcp?accessToken=SEKRIT1&X-Amz-Signature=SEKRIT2&client_secret=SEKRIT3&q=%2Fa+b",
            "http://h/mcp?accessToken=[redacted]&X-Amz-Signature=[redacted]"
            "&client_secret=[redacted]&q=%2Fa+b",
        ),
        (
            "http://h/mcp?key=SEKRIT1&sig=SEKRIT2&password=SEKRIT3&monkey=banana&flag",
            "http://h/mcp?key=[redacted]&sig=[redacted]&password=[redacted]&monkey=banana&flag",
        ),
        ("http://[::1]:9/mcp?api%5Fkey=SEKRIT1", "http://[::1]:9/mcp?api%5Fkey=[redacted]"),
        ("http://h/mcp#access_token=SEKRIT1", "http://h/mcp#access_token=[redacted]"),
        ("http://h:80/plain?page=2", "http://h:80/plain?page=2"),
    ],
)
def test_what_is_kept_of_a_url(given: str, stored: str) -> None:
    from reasonix_acp.config.mcp_entries import secret_values, shown_url, stored_url

    assert stored_url(given) == stored
    found = secret_values([{"name": "s", "url": given}])
    assert found == [f"SEKRIT{n}" for n in (1, 2, 3) if f"SEKRIT{n}" in given]
    assert not [s for s in found if s.startswith("SEKRIT") and s in shown_url(given)]
