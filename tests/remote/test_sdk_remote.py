"""`acp serve` driven by clients nobody on this project wrote: the official TypeScript SDK's
own HTTP and WebSocket client transports (tests/ts_client/remote.mjs), against a real
`acp serve` on 127.0.0.1 (tests/remote/serving.py)."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.npm_packages import node
from tests.remote.serving import TOKEN, Served
from tests.test_ts_sdk_client import CLIENT_DIR, node_modules  # noqa: F401 (a fixture)

RUN_SECONDS = 60


def _client(tmp_path: Path, modules: Path) -> Path:
    where = tmp_path / "ts_client"
    where.mkdir()
    shutil.copy(CLIENT_DIR / "remote.mjs", where / "remote.mjs")
    (where / "node_modules").symlink_to(modules, target_is_directory=True)
    return where / "remote.mjs"


def _run(client: Path, served: Served, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [node(), str(client), *args],
        cwd=client.parent,
        env={**served.env, "REASONIX_ACP_TOKEN": TOKEN},
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
    )
    assert done.returncode == 0, f"{done.stderr}\n--- acp serve:\n" + "\n".join(served.log)
    out: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return out


@pytest.mark.parametrize("mode", ["http", "ws"])
def test_two_connections_share_a_session(
    tmp_path: Path,
    node_modules: Path,  # noqa: F811
    mode: str,
) -> None:
    """A session made on one connection is loaded on a second while the first stays: the
    second gets the replay (the first does not get it again), each hears the other's turns,
    and the second leaving leaves the session open for the first."""
    served = Served(tmp_path, "--model", "offline")
    try:
        out = _run(
            _client(tmp_path, node_modules),
            served,
            "share",
            mode,
            served.url,
            str(served.workspace),
        )
    finally:
        assert served.stop() == 0
    assert out["initialize"]["protocolVersion"] == 1  # type: ignore[index]
    assert out["stops"] == ["end_turn"] * 4
    assert out["bReplayed"] == "first"
    assert out["aUserChunksAfterLoad"] == 0
    a_said, b_said = str(out["aSaid"]), str(out["bSaid"])
    for word in ("first", "second", "third", "fourth"):
        assert f"Offline reply: {word}" in a_said, a_said
    assert "Offline reply: second" in b_said and "Offline reply: third" in b_said, b_said
    assert "fourth" not in b_said  # it had left


@pytest.mark.parametrize("mode", ["http", "ws"])
def test_a_client_that_vanishes_mid_turn_leaves_its_session_loadable(
    tmp_path: Path,
    node_modules: Path,  # noqa: F811
    mode: str,
) -> None:
    script = tmp_path / "slow.jsonl"
    slow = {"steps": [{"text": "working on it"}, {"delay_ms": 60000}, {"text": "never"}]}
    script.write_text(json.dumps(slow) + "\n", encoding="utf-8")
    served = Served(
        tmp_path, "--model", "offline", "--script", str(script), "--orphan-timeout", "1"
    )
    client = _client(tmp_path, node_modules)
    try:
        hanging = subprocess.Popen(
            [node(), str(client), "hang", mode, served.url, str(served.workspace)],
            cwd=client.parent,
            env=served.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert hanging.stdout is not None
        session = json.loads(hanging.stdout.readline())["sessionId"]
        hanging.send_signal(signal.SIGKILL)
        hanging.wait(10)
        ended = (
            r"remote connection \S+ ends: no stream"
            if mode == "http"
            else r"WebSocket connection ended"
        )
        served.wait_for(re.compile(ended))
        out = _run(client, served, "load", mode, served.url, str(served.workspace), session)
    finally:
        assert served.stop() == 0
    assert out["replayed"] == "a long one"
    assert out["stop"] == "end_turn"
    assert "Offline reply: again" in str(out["said"])
