"""The forked agents the suite runs (tests/forks.py) are `acp` as an exec would start it: the
test's environment, folder, arguments and pipes, a pid of its own that signals reach, its exit
status; gone when whoever asked for it is gone; an exec where a fork cannot honour the
environment."""

from __future__ import annotations

import ast
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reasonix_acp.server import connection
from reasonix_acp.turn import runner
from tests import agent_process, forks
from tests.agent_process import AgentProcess, acp_forked, python_forked
from tests.client import Client
from tests.transcript import Scenario

DEBUG_READ = "DEBUG = os.environ.get('REASONIX_ACP_DEBUG', '') not in ('', '0')"
pytestmark = pytest.mark.skipif(not agent_process.FORK, reason="ACP_FORK=0: no agent is forked")


def _gone(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split()[2]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def test_a_forked_agent_has_the_test_s_environment_folder_and_arguments(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline", cwd=str(tmp_path / "ws"))
    assert isinstance(c.agent.proc, forks.Forked)
    sid = c.start()
    assert os.readlink(f"/proc/{c.agent.proc.pid}/cwd") == str(tmp_path / "ws")
    # The store lives where the test's environment says (REASONIX_ACP_DATA_DIR).
    assert list(Path(c.scenario.vars["DATA"]).rglob("*.sqlite*")), "no store in the test's data dir"
    params = {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
    assert c.result("session/prompt", params)["stopReason"] == "end_turn"
    assert c.close() == 0
    # Its arguments are the test's: one the agent refuses is refused with its usage, status 2.
    bad = AgentProcess(["--no-such-option"], Scenario(tmp_path / "b").env)
    assert bad.proc.wait(20) == 2
    assert b"--no-such-option" in bad.stderr


def test_a_signal_reaches_the_forked_agent_and_its_status_comes_back(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    c.start()
    pid = c.agent.proc.pid
    assert Path(f"/proc/{pid}").exists() and pid != os.getpid()
    os.kill(pid, signal.SIGKILL)
    assert c.agent.proc.wait(20) == -signal.SIGKILL
    # A SIGKILLed agent is gone when its status is known, as a child of the test would be.
    assert _gone(pid, within=0)


def test_the_environment_read_at_import_is_read_again_as_the_child_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A module reading the environment when it is imported read the forker's: the child runs
    each such statement again with the test's (REASONIX_ACP_DEBUG: every frame validated)."""
    reads = forks.environment_reads()
    assert {(module, ast.unparse(code)) for module, code in reads} >= {
        ("reasonix_acp.server.connection", DEBUG_READ),
        ("reasonix_acp.turn.runner", DEBUG_READ),
    }
    before = connection.DEBUG, runner.DEBUG
    try:
        for value, expected in (("1", True), ("0", False), ("yes", True)):
            monkeypatch.setenv("REASONIX_ACP_DEBUG", value)
            forks.read_again(reads)
            assert connection.DEBUG is expected and runner.DEBUG is expected
    finally:
        connection.DEBUG, runner.DEBUG = before


def test_an_interpreter_variable_gets_an_exec(tmp_path: Path) -> None:
    env = {**Scenario(tmp_path).env, "PYTHONWARNINGS": "error::DeprecationWarning"}
    agent = AgentProcess(["--version"], env)
    assert isinstance(agent.proc, subprocess.Popen)
    assert agent.proc.wait(20) == 0


def _command_agent(tmp_path: Path) -> tuple[subprocess.Popen[bytes], int]:
    """An agent started from the command line a client is given (acp_forked), its pid found
    as the child the forker made for it."""
    command = acp_forked()
    assert command[-1].endswith("acp") and "fork_client.py" in command[-2 - 1]
    client = subprocess.Popen(
        [*command, "--model", "offline"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **Scenario(tmp_path).env},
        cwd=tmp_path,  # the agent's folder: how it is told from the forker's other children
    )
    assert client.stdin is not None and client.stdout is not None
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    client.stdin.write(json.dumps(init).encode() + b"\n")
    client.stdin.flush()
    assert json.loads(client.stdout.readline())["id"] == 1
    forker = forks.FORKER._proc
    assert forker is not None
    children = Path(f"/proc/{forker.pid}/task/{forker.pid}/children").read_text().split()
    found = [int(p) for p in children if Path(f"/proc/{p}/cwd").resolve() == tmp_path]
    assert found, "the agent is not the forker's child"
    return client, found[-1]


def test_a_command_line_agent_ends_as_the_agent_ends(tmp_path: Path) -> None:
    client, _ = _command_agent(tmp_path)
    client.send_signal(signal.SIGTERM)  # passed on: the agent's own handler ends it
    assert client.wait(20) == 0
    client, pid = _command_agent(tmp_path)
    assert client.stdin is not None
    client.stdin.close()  # end of input: the agent leaves, its status passed on
    assert client.wait(20) == 0 and _gone(pid)


def test_an_agent_whose_client_is_killed_is_killed_too(tmp_path: Path) -> None:
    client, pid = _command_agent(tmp_path)
    client.kill()
    client.wait(20)
    assert _gone(pid), "the agent outlived the client that started it"


@pytest.mark.exec_acp
def test_a_test_marked_exec_acp_gets_an_exec(tmp_path: Path) -> None:
    agent = AgentProcess(["--version"], Scenario(tmp_path).env)
    assert isinstance(agent.proc, subprocess.Popen)
    assert agent.proc.wait(20) == 0
    assert acp_forked()[0] != sys.executable or "fork_client.py" not in " ".join(acp_forked())


def test_a_forked_script_runs_as_python_would_run_it(tmp_path: Path) -> None:
    """`python_forked(SCRIPT)`: the script as `__main__`, its arguments, its folder first on
    the path, the client's folder and environment, its exit status."""
    script = tmp_path / "tool" / "show.py"
    script.parent.mkdir()
    script.write_text(
        "import json, os, sys\n"
        "print(json.dumps([__name__, sys.argv, sys.path[0], os.getcwd(), os.environ['MARK']]))\n"
        "sys.exit(3)\n",
        encoding="utf-8",
    )
    command = python_forked(script)
    assert "fork_client.py" in " ".join(command)
    env = {**os.environ, "MARK": "m-1"}
    done = subprocess.run(
        [*command, "a", "b c"], capture_output=True, cwd=tmp_path, env=env, timeout=30
    )
    assert done.returncode == 3, done.stderr
    shown = json.loads(done.stdout)
    assert shown == [
        "__main__",
        [str(script), "a", "b c"],
        str(script.parent),
        str(tmp_path),
        "m-1",
    ]
