"""The bash tool's process groups against a real `acp`: a second cancel never interrupts the
kill sequence, and SIGTERM, SIGINT or end of input leave no process of a command behind.

The commands ignore SIGTERM (and pass that on to their children), so only the whole sequence,
SIGTERM → grace → SIGKILL → reap, gets rid of them."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.client import Client
from tests.transcript import acp_command

# Writes its process group id (the shell is the group leader) to group.pid in the workspace,
# then runs until it is killed: SIGTERM is ignored by the shell and by every `sleep`.
STUBBORN = "echo $$ > group.pid; trap '' TERM; while :; do sleep 1; done"
PROMPT_ID = 50
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


def members(pgid: int) -> list[int]:
    """Live (not zombie) processes of the process group `pgid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state ppid pgrp ...
        if fields[0] != "Z" and int(fields[2]) == pgid:
            found.append(int(entry.name))
    return found


def leftovers(client: Client) -> list[int]:
    """Live processes started under this test's agent: all of them, the agent's included,
    inherit its private data directory in their environment."""
    mark = f"\0REASONIX_ACP_DATA_DIR={client.scenario.vars['DATA']}\0".encode()
    found = []
    for entry in Path("/proc").iterdir():
        try:
            environ = b"\0" + (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if mark in environ and state != "Z":
            found.append(int(entry.name))
    return found


def settles(probe: Callable[[], list[int]], seconds: float) -> bool:
    """Whether `probe()` comes back empty within `seconds`."""
    deadline = time.monotonic() + seconds
    while probe():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def clients() -> Iterator[list[Client]]:
    """Agents a test started; whatever the outcome, nothing they started outlives the test."""
    started: list[Client] = []
    yield started
    for client in started:
        for pid in leftovers(client):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def agent(tmp_path: Path, clients: list[Client], command: str = STUBBORN) -> tuple[Client, str]:
    """An agent whose model runs `command` with bash, under danger-full-access (no question)."""
    script = tmp_path / "script.jsonl"
    call = {"tool_call": {"name": "bash", "arguments": {"command": command}}}
    script.write_text(
        json.dumps({"steps": [call]}) + "\n" + json.dumps({"steps": [{"text": "done"}]}) + "\n",
        encoding="utf-8",
    )
    client = Client(tmp_path, "--model", "offline", "--script", str(script))
    clients.append(client)
    sid = client.start()
    client.result(
        "session/set_config_option",
        {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"},
    )
    return client, sid


def send_prompt(client: Client, sid: str) -> None:
    params = {"sessionId": sid, "prompt": [{"type": "text", "text": "run it"}]}
    client.send({"jsonrpc": "2.0", "id": PROMPT_ID, "method": "session/prompt", "params": params})


def group_of(client: Client, seconds: float = 10) -> int:
    """The command's process group id, once the command has written it."""
    pidfile = Path(client.scenario.vars["CWD"]) / "group.pid"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = pidfile.read_text() if pidfile.exists() else ""
        if text.endswith("\n"):
            return int(text)
        time.sleep(0.02)
    raise AssertionError("the command did not start")


def answer(client: Client, request_id: int) -> dict[str, Any]:
    while True:
        frame = client.agent.receive()
        if frame.get("id") == request_id and "method" not in frame:
            return frame
        client.notes.append(frame)


def stderr_of(client: Client) -> str:
    return client.agent.stderr.decode(errors="replace")


@pytest.mark.parametrize("second", ["cancel_request", "close"])
def test_a_second_cancel_does_not_stop_the_kill_sequence(
    tmp_path: Path, clients: list[Client], second: str
) -> None:
    client, sid = agent(tmp_path, clients)
    send_prompt(client, sid)
    pgid = group_of(client)
    client.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
    time.sleep(0.3)  # the kill sequence is in its grace period: the group ignored SIGTERM
    if second == "cancel_request":
        cancel = {"requestId": PROMPT_ID}
        client.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": cancel})
        assert answer(client, PROMPT_ID)["result"] == {"stopReason": "cancelled"}
    else:
        assert client.call("session/close", {"sessionId": sid})["result"] == {}
    assert settles(lambda: members(pgid), 5), members(pgid)
    assert client.agent.proc.poll() is None  # the agent itself lives on
    assert client.agent.finish()[0] == 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_mid_command_kills_the_group_and_exits(
    tmp_path: Path, clients: list[Client], sig: int
) -> None:
    client, sid = agent(tmp_path, clients)
    send_prompt(client, sid)
    pgid = group_of(client)
    start = time.monotonic()
    client.agent.proc.send_signal(sig)
    code = client.agent.proc.wait(10)
    took = time.monotonic() - start
    expected = 130 if sig == signal.SIGINT else 0  # Ctrl-C's status; SIGTERM is orderly
    assert (code, took < 2) == (expected, True), (took, stderr_of(client))
    assert settles(lambda: members(pgid), 0.5), members(pgid)
    assert settles(lambda: leftovers(client), 0.5), leftovers(client)


# Seconds between the prompt and the end of input: the turn is cancelled before its command,
# while it starts, or (None) once it runs. The shell has two children that ignore SIGTERM.
@pytest.mark.parametrize("delay", [0.0, 0.01, 0.02, 0.04, None])
def test_end_of_input_right_after_the_prompt_leaves_no_process(
    tmp_path: Path, clients: list[Client], delay: float | None
) -> None:
    command = "echo $$ > group.pid; trap '' TERM; sleep 30 & sleep 30 & wait"
    client, sid = agent(tmp_path, clients, command)
    send_prompt(client, sid)
    if delay is None:
        group_of(client)
    else:
        time.sleep(delay)
    assert client.agent.proc.stdin is not None
    client.agent.proc.stdin.close()
    assert client.agent.proc.wait(5) == 0, stderr_of(client)
    assert settles(lambda: leftovers(client), 0.5), leftovers(client)


def caught(pid: int, sig: int) -> bool:
    """Whether process `pid` has a handler installed for `sig`."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_during_the_handshake_exits_cleanly(sig: int) -> None:
    proc = subprocess.Popen(
        acp_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 5
        while not caught(proc.pid, sig) and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)  # blocked on reading the first frame by now
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=2)
    finally:
        proc.kill()
        proc.wait()
    # Quietly: no traceback; Ctrl-C's status is 130, an editor's SIGTERM is an orderly 0.
    assert (proc.returncode, out, err) == (130 if sig == signal.SIGINT else 0, b"", b"")


def _slow_ca_bundle(tmp_path: Path) -> Path:
    """A CA bundle that takes the TLS set-up most of a second to load (the system's, 40 times)."""
    import certifi

    system = Path("/etc/ssl/certs/ca-certificates.crt")
    source = (system if system.exists() else Path(certifi.where())).read_bytes()
    bundle = tmp_path / "slow-ca.pem"
    bundle.write_bytes(source * 40)
    return bundle


@pytest.mark.slow
@pytest.mark.exec_acp  # what loads ahead, and when, is what an exec does
def test_exit_while_the_provider_client_is_built_ahead_is_clean(tmp_path: Path) -> None:
    """The provider's HTTP client (its TLS context) is built ahead on a background thread; a
    process told to stop meanwhile waits for it instead of tearing OpenSSL down under it
    (it died of SIGSEGV in OPENSSL_cleanup)."""
    from tests.transcript import Scenario

    bundle = _slow_ca_bundle(tmp_path)
    for attempt in range(3):
        scenario = Scenario(tmp_path / str(attempt))
        scenario.env["SSL_CERT_FILE"] = str(bundle)
        config = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
        config.mkdir(parents=True)
        (config / "config.toml").write_text(
            '[providers.local]\nkind = "openai"\nbase_url = "127.0.0.1:9/v1"\nmodels = ["m1"]\n'
        )
        c = Client(tmp_path / str(attempt), "--model", "local/m1", scenario=scenario)
        sid = c.start()
        params = {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
        assert "error" in c.call("session/prompt", params)  # no scheme: it fails at once
        time.sleep(0.3)  # the client's TLS context is being built now
        assert c.close() == 0
