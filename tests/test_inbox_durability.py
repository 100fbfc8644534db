"""Every inbox item the client got a reply for survives SIGKILL of the agent, and the inbox
opens paused and recovered afterwards. Real processes, a real SQLite file, a burst of 200
enqueues and steers cut at a random point; run with several seeds."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.client import Client
from tests.transcript import Scenario

BURST = 200


@pytest.mark.parametrize("seed", range(8))
def test_replied_items_survive_sigkill(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    scenario = Scenario(tmp_path)
    first = Client(tmp_path, "--model", "offline", scenario=scenario)
    sid = first.start()
    burst = []
    for i in range(BURST):
        if i % 3 == 2:
            method = "_reasonix.io/session/steer"
            params = {"sessionId": sid, "prompt": [{"type": "text", "text": f"steer {i}"}]}
        else:
            method = "_reasonix.io/session/inbox/enqueue"
            params = {"sessionId": sid, "text": f"follow-up {i}", "idempotencyKey": f"k{i}"}
        burst.append(
            json.dumps({"jsonrpc": "2.0", "id": 1000 + i, "method": method, "params": params})
        )
    first.agent.send(("\n".join(burst) + "\n").encode())
    cut = rng.randrange(0, BURST)
    replied: set[str] = set()
    answers = 0
    while answers < cut:
        frame = first.agent.receive()
        if frame.get("id", 0) >= 1000:
            answers += 1
            if "error" in frame:  # past 64 items the inbox is full, and says so
                assert frame["error"]["message"].endswith("session inbox item limit reached")
                continue
            replied.add(frame["result"]["itemId"])
    first.kill()

    second = Client(tmp_path, "--model", "offline", scenario=scenario)
    second.result("initialize", {"protocolVersion": 1})
    second.result("session/resume", {"sessionId": sid, "cwd": scenario.vars["CWD"]})
    snapshot = second.result("_reasonix.io/session/inbox/list", {"sessionId": sid})
    stored = {item["id"] for item in snapshot["items"]}
    assert replied <= stored
    assert len(stored) <= 64  # the capacity held through the burst
    if stored:
        assert snapshot["paused"] is True and snapshot["recovered"] is True
        assert snapshot["recoveredCount"] == len(stored)
    assert second.close() == 0


def test_a_refused_steer_logs_nothing(tmp_path: Path) -> None:
    """A steer with no turn to take it is kept as a follow-up, quietly: the agent's log (what
    editors show as its stderr) gets no warning for an ordinary answer."""
    client = Client(tmp_path, "--model", "offline")
    sid = client.start()
    steer = {"sessionId": sid, "prompt": [{"type": "text", "text": "use tabs"}]}
    assert client.result("_reasonix.io/session/steer", steer)["disposition"] == "queued_followup"
    assert client.close() == 0
    log = client.agent.stderr.decode(errors="replace")
    assert "WARNING" not in log and "ERROR" not in log, log
