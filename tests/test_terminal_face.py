"""`acp` as a person at a terminal meets it: help and version on stdout, a note when stdin is a
terminal, `acp doctor` for bug reports (secrets left out), a demo that reads well."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.sse_server import Server
from tests.transcript import acp_command

MCP = Path(__file__).parent / "mcp_servers"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*acp_command(), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def test_help_and_version_go_to_stdout() -> None:
    for args in (["--help"], ["-h"], ["help"]):
        done = run(*args)
        assert (done.returncode, done.stderr) == (0, "") and "acp doctor" in done.stdout
    version = run("--version")
    assert version.returncode == 0 and version.stdout.startswith("acp (reasonix-acp) ")


def test_a_terminal_on_stdin_gets_a_note_and_the_protocol_still_works(tmp_path: Path) -> None:
    script = (
        "import os, pty, sys, json\n"
        "pid, fd = pty.fork()\n"
        "if pid == 0:\n"
        f"    os.execv({sys.executable!r}, [{sys.executable!r}, '-m', 'reasonix_acp'])\n"
        'os.write(fd, b\'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\\n\')\n'
        "seen = b''\n"
        "while b'\"result\"' not in seen:\n"
        "    seen += os.read(fd, 4096)\n"
        "os.write(fd, b'\\x04')\n"
        "print(seen.decode(errors='replace'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "REASONIX_ACP_DATA_DIR": str(tmp_path / "d")},
        cwd=Path(__file__).parents[1],
    )
    assert done.returncode == 0, done.stderr
    assert "this is an Agent Client Protocol agent" in done.stdout
    assert '"result":{"protocolVersion":1' in done.stdout.replace(" ", "")


def test_doctor_reports_what_a_bug_report_needs_without_secrets(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    with Server() as server:
        server.models = ["m1", "m2"]
        (config / "config.toml").write_text(
            f'default_model = "corp/m1"\n[providers.corp]\nkind = "openai"\n'
            f'base_url = "{server.url}"\napi_key = "corp-SECRET-key-0042"\n'
            f'[providers.down]\nkind = "openai"\nbase_url = "http://u:pw-SECRET-9@127.0.0.1:9/v1"\n'
            f'[mcp_servers.tools]\ncommand = "{sys.executable}"\nargs = ["{MCP / "tools_server.py"}"]\n'
            f'[mcp_servers.broken]\ncommand = "/nonexistent/mcp-server"\n',
            encoding="utf-8",
        )
        env = {"REASONIX_ACP_CONFIG_DIR": str(config), "REASONIX_ACP_DATA_DIR": str(tmp_path / "d")}
        done = run("doctor", env=env)
    out = done.stdout
    assert done.returncode == 1, (out, done.stderr)
    assert "SECRET" not in out + done.stderr
    assert (
        f"provider corp (openai) at {server.url}, key set: answers; serves 2 models: m1, m2" in out
    )
    assert "! provider down (openai) at http://127.0.0.1:9/v1, no key: does not answer" in out
    assert "default model: corp/m1" in out
    assert "MCP server tools (stdio" in out and " tools\n" in out
    assert "! MCP server broken (stdio, /nonexistent/mcp-server): fails" in out
    assert "reasonix-acp" in out.splitlines()[0] and "packages: pydantic" in out
