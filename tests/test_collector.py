"""The garbage collector is paused while the agent starts and runs again once a session is
open, or shortly after the connection starts when none opens (server/collector.py); real `acp`
processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.transcript import acp_command

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
RESUMED = "collector resumed"

# The real entry point, noting whether the collector runs while the session machinery is built.
WATCHING = """
import gc, sys
from reasonix_acp.server import services
path = sys.argv.pop(1)
build = services.Shared._build
def watched(self):
    with open(path, "a") as out:
        out.write(f"building enabled={gc.isenabled()}\\n")
    return build(self)
services.Shared._build = watched
from reasonix_acp.cli.main import main
status = main()
with open(path, "a") as out:
    out.write(f"exit enabled={gc.isenabled()}\\n")
sys.exit(status)
"""


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "REASONIX_ACP_DATA_DIR": str(tmp_path / "d"),
        "REASONIX_ACP_CONFIG_DIR": str(tmp_path),
        "REASONIX_ACP_LOG_LEVEL": "debug",
    }


def _frames(*frames: dict[str, object]) -> bytes:
    return b"".join(json.dumps(f).encode() + b"\n" for f in frames)


def test_paused_while_the_first_session_is_built_and_running_once_it_is_open(
    tmp_path: Path,
) -> None:
    log = tmp_path / "gc"
    new = {"jsonrpc": "2.0", "id": 2, "method": "session/new"}
    new["params"] = {"cwd": str(tmp_path), "mcpServers": []}
    agent = subprocess.Popen(
        [sys.executable, "-c", WATCHING, str(log), "--model", "offline"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(tmp_path),
    )
    assert agent.stdin is not None and agent.stderr is not None
    agent.stdin.write(_frames(INIT, new))
    agent.stdin.flush()
    said = b""
    for line in agent.stderr:  # running again while the session is open, not at its end
        said += line
        if RESUMED.encode() in line:
            break
    out, rest = agent.communicate(b"", timeout=60)
    said += rest
    answers = [json.loads(line) for line in out.splitlines()]
    assert any(a.get("id") == 2 and "result" in a for a in answers), said[-2000:]
    assert log.read_text().splitlines() == ["building enabled=False", "exit enabled=True"]
    assert said.decode().count(RESUMED) == 1


def test_a_process_ending_before_it_resumed_collects_nothing_more_on_its_way_out(
    tmp_path: Path,
) -> None:
    """The end of input before the collector resumed: collection is turned back on, without
    the collection and freeze that resuming does (the process is ending)."""
    log = tmp_path / "gc"
    new = {"jsonrpc": "2.0", "id": 2, "method": "session/new"}
    new["params"] = {"cwd": str(tmp_path), "mcpServers": []}
    done = subprocess.run(
        [sys.executable, "-c", WATCHING, str(log), "--model", "offline"],
        input=_frames(INIT, new),
        capture_output=True,
        timeout=60,
        env=_env(tmp_path),
    )
    assert log.read_text().splitlines() == ["building enabled=False", "exit enabled=True"]
    assert RESUMED not in done.stderr.decode(), done.stderr[-2000:]


def test_running_again_soon_when_no_session_opens(tmp_path: Path) -> None:
    agent = subprocess.Popen(
        acp_command(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(tmp_path),
    )
    assert agent.stdin is not None and agent.stdout is not None and agent.stderr is not None
    agent.stdin.write(_frames(INIT))
    agent.stdin.flush()
    assert json.loads(agent.stdout.readline())["id"] == 1
    time.sleep(2.5)  # RESUME_AFTER is 1 s; the input stays open meanwhile
    os.set_blocking(agent.stderr.fileno(), False)
    before_close = (agent.stderr.read() or b"").decode()
    agent.stdin.close()
    agent.wait(30)
    os.set_blocking(agent.stderr.fileno(), True)
    after_close = agent.stderr.read().decode()
    assert RESUMED in before_close, before_close  # the timer, not the end of input
    assert (before_close + after_close).count(RESUMED) == 1
