"""A command-line ACP client nobody on this project wrote, acpx (the npm package, pinned in
tests/acpx_client), drives `acp` through `acp connect URL` against a real `acp serve` on
127.0.0.1 with the offline model (tests/remote/serving.py): acpx launches `acp connect` as its
agent command, as an editor would.

acpx has no network transport of its own (an `http://` or `ws://` URL given as its agent is
spawned as a command and fails with ENOENT), so the bridge is how it reaches a served agent.

acpx runs with its own HOME and XDG directories under tmp_path, is always given its agent with
`--agent` (never one of its registry names, which would run npx or uvx), and has stand-ins for
npx, npm, uvx and the like first on its PATH that fail and leave a mark: the only network it
reaches is `acp connect` to 127.0.0.1. acpx 0.19.1 declares Node >= 22.13 and runs on Node 20
for what is used here."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.agent_process import acp_command
from tests.npm_packages import installed, node
from tests.remote.serving import TOKEN, Served

CLIENT_DIR = Path(__file__).parents[1] / "acpx_client"
ACPX_VERSION = "0.19.1"
RUN_SECONDS = 60
# A persistent-session prompt leaves an acpx "queue owner" process (and the `acp connect` it
# launched) for this long after its queue drains; kept short so each prompt's bridge ends.
TTL_SECONDS = "0.2"
ENDED = re.compile(r"a WebSocket connection ended \(1000\)")
DOWNLOADERS = ("npx", "npm", "pnpm", "yarn", "bunx", "bun", "uvx", "uv", "pipx")


@pytest.fixture(scope="session")
def acpx() -> list[str]:
    """acpx's command line: the pinned package, installed from the committed lock file
    (tests/npm_packages.py)."""
    where = installed(CLIENT_DIR, "acpx", "acpx") / "acpx"
    package = json.loads((where / "package.json").read_text(encoding="utf-8"))
    assert package["version"] == ACPX_VERSION
    return [node(), str(where / package["bin"]["acpx"])]


class Acpx:
    """acpx runs, each with `acp connect URL` as its agent, in an environment of its own."""

    def __init__(self, command: list[str], tmp_path: Path, served: Served) -> None:
        self.command = command
        self.served = served
        self.home = tmp_path / "acpx-home"
        dirs = {
            "HOME": self.home,
            "XDG_CONFIG_HOME": self.home / ".config",
            "XDG_DATA_HOME": self.home / ".local" / "share",
            "XDG_STATE_HOME": self.home / ".local" / "state",
            "XDG_CACHE_HOME": self.home / ".cache",
        }
        for path in dirs.values():
            path.mkdir(parents=True, exist_ok=True)
        stand_ins = tmp_path / "no-downloads"
        stand_ins.mkdir()
        self.downloads = tmp_path / "downloads-tried"
        for name in DOWNLOADERS:
            stub = stand_ins / name
            stub.write_text(f'#!/bin/sh\necho "{name} $*" >> "{self.downloads}"\nexit 1\n')
            stub.chmod(0o755)
        inherited = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ACPX_", "REASONIX_ACP_", "npm_", "NPM_"))
        }
        self.env = {
            **inherited,
            **{k: str(v) for k, v in dirs.items()},
            "PATH": os.pathsep.join([str(stand_ins), inherited.get("PATH", "")]),
            "npm_config_offline": "true",
            "REASONIX_ACP_TOKEN": TOKEN,  # for acp connect, which acpx launches with its env
        }
        # The same in every run: acpx finds a named session by agent command, cwd and name.
        self.agent = shlex.join([*acp_command(), "connect", served.url])
        self.cwd = served.workspace

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [
                *self.command,
                "--agent",
                self.agent,
                "--cwd",
                str(self.cwd),
                "--ttl",
                TTL_SECONDS,
                "--non-interactive-permissions",
                "deny",
                *args,
            ],
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_SECONDS,
        )
        assert done.returncode == 0, (
            f"acpx {args} exited {done.returncode}\n{done.stdout}\n{done.stderr}\n"
            "--- acp serve:\n" + "\n".join(self.served.log)
        )
        return done

    def owners(self) -> list[Path]:
        return sorted((self.home / ".acpx" / "queues").glob("*.lock"))

    def wait_for_the_bridge_to_end(self, timeout: float = 15.0) -> None:
        """Each queue owner gone, its TTL run out, and with it its `acp connect`: the server
        saw that connection end."""
        deadline = time.monotonic() + timeout
        while self.owners() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not self.owners(), [p.read_text(encoding="utf-8") for p in self.owners()]
        self.served.wait_for(ENDED)

    def close(self) -> None:
        """Ends a queue owner left behind (its process group: acpx starts it detached), and
        removes acpx's socket directory, which it makes in /tmp from a hash of HOME."""
        for lock in self.owners():
            with contextlib.suppress(OSError, ValueError, KeyError):
                os.killpg(int(json.loads(lock.read_text(encoding="utf-8"))["pid"]), signal.SIGTERM)
        digest = hashlib.sha256(str(self.home).encode()).hexdigest()[:10]
        shutil.rmtree(Path("/tmp") / f"acpx-{digest}", ignore_errors=True)

    def tried_downloads(self) -> str:
        return self.downloads.read_text(encoding="utf-8") if self.downloads.exists() else ""


def _messages(stdout: str) -> list[dict[str, object]]:
    """acpx's `--format json` output: every JSON-RPC message it sent and received."""
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def _said(messages: list[dict[str, object]], session: str) -> str:
    chunks = []
    for m in messages:
        params = m.get("params")
        if m.get("method") != "session/update" or not isinstance(params, dict):
            continue
        update = params["update"]
        if params["sessionId"] == session and update["sessionUpdate"] == "agent_message_chunk":
            chunks.append(update["content"]["text"])
    return "".join(chunks)


def _answer(messages: list[dict[str, object]], method: str) -> dict[str, object]:
    [request] = [m for m in messages if m.get("method") == method and "id" in m]
    [answer] = [m for m in messages if m.get("id") == request["id"] and "method" not in m]
    assert "result" in answer, answer
    result: dict[str, object] = answer["result"]  # type: ignore[assignment]
    return result


def _connections_ended(served: Served) -> int:
    return sum(bool(ENDED.search(line)) for line in served.log)


def test_acpx_drives_acp_through_acp_connect(tmp_path: Path, acpx: list[str]) -> None:
    """One server for four acpx runs, each launching its own `acp connect` (its own WebSocket
    connection, initialize again): a one-shot `acpx exec`, answered in acpx's text output as a
    person sees it; then `acpx sessions new --name` and two `acpx prompt -s` runs resuming that
    one session, which holds both turns in the end."""
    served = Served(tmp_path, "--model", "offline")
    client = Acpx(acpx, tmp_path, served)
    try:
        once = client.run("exec", "hello from acpx")
        client.wait_for_the_bridge_to_end()
        made = client.run("sessions", "new", "--name", "remote")
        session = made.stdout.strip()
        client.wait_for_the_bridge_to_end()
        runs = []
        for text in ("first prompt", "second prompt"):
            done = client.run("--format", "json", "prompt", "-s", "remote", text)
            client.wait_for_the_bridge_to_end()  # so the next run launches a new acp connect
            runs.append(_messages(done.stdout))
    finally:
        client.close()
        assert served.stop() == 0
    assert _connections_ended(served) == 4
    assert client.tried_downloads() == ""

    assert "Offline reply: hello from acpx" in once.stdout, once.stdout
    assert "[done] end_turn" in once.stdout, once.stdout

    for messages, text in zip(runs, ("first prompt", "second prompt"), strict=True):
        assert _answer(messages, "initialize")["protocolVersion"] == 1
        [resume] = [m for m in messages if m.get("method") == "session/resume"]
        assert resume["params"]["sessionId"] == session  # type: ignore[index]
        assert not [m for m in messages if m.get("method") in ("session/new", "session/load")]
        assert _answer(messages, "session/prompt") == {"stopReason": "end_turn"}
        assert _said(messages, session) == f"Offline reply: {text}"

    exported = subprocess.run(
        [*acp_command(), "sessions", "export", session, "--data-dir", str(tmp_path / "data")],
        env=served.env,
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
    )
    assert exported.returncode == 0, exported.stderr
    updates = [json.loads(line) for line in exported.stdout.splitlines()]
    turns = [
        (u["sessionUpdate"], u["content"]["text"])
        for u in updates
        if u["sessionUpdate"] in ("user_message_chunk", "agent_message_chunk")
    ]
    assert turns == [
        ("user_message_chunk", "first prompt"),
        ("agent_message_chunk", "Offline reply: first prompt"),
        ("user_message_chunk", "second prompt"),
        ("agent_message_chunk", "Offline reply: second prompt"),
    ]
