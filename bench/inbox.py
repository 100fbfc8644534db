"""Durable steer and inbox enqueue, in the library and through a real `acp` process (issue
"vendor surface").

Durability: the inbox sidecar is SQLite in WAL mode with `synchronous = FULL`, so every commit
syncs the WAL (one fsync per commit) before the call returns, and a reply is written only after
that. Nothing here weakens it.
- Library: `SessionInbox.enqueue` (one commit), and a steer as the steer handler admits it,
  `enqueue` + `accept_steer` (two commits), on a real file in a temporary directory.
- Process: `_reasonix.io/session/inbox/enqueue` and `_reasonix.io/session/steer` round trips,
  one request at a time (with no turn running a steer is refused into `queued_followup`).
500 of each (the inbox is emptied with `delete` between rounds, outside the timing, to stay
under its 64-item limit); target: p50 ≤ 5 ms on this machine, p99 reported.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from reasonix_acp.reasonix_io.inbox import InboxStore

ACP = shutil.which("acp") or str(Path(sys.executable).with_name("acp"))
ROUNDS = 500
TARGET_MS = 5.0


class Agent:
    def __init__(self, data: str, cwd: str) -> None:
        env = {**os.environ, "REASONIX_ACP_DATA_DIR": data, "REASONIX_ACP_CONFIG_DIR": data}
        self.proc = subprocess.Popen(
            [ACP, "--model", "offline"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.ids = 0
        self.call("initialize", {"protocolVersion": 1})
        self.sid = self.call("session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]

    def call(self, method: str, params: dict[str, Any]) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.ids += 1
        frame = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params}
        self.proc.stdin.write(json.dumps(frame).encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == self.ids and "method" not in reply:
                assert "result" in reply, reply
                return reply["result"]

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(10)


def measure(agent: Agent, method: str, params: Any) -> list[float]:
    times = []
    for i in range(ROUNDS):
        started = time.perf_counter()
        result = agent.call(method, params(i))
        times.append((time.perf_counter() - started) * 1000)
        agent.call(
            "_reasonix.io/session/inbox/delete",
            {"sessionId": agent.sid, "itemId": result["itemId"]},
        )
    return times


def library(data: Path) -> None:
    store = InboxStore(data)
    inbox = store.open("bench")
    enqueue, steer = [], []
    for i in range(ROUNDS):
        started = time.perf_counter()
        item = inbox.enqueue(f"follow-up {i}", idempotency_key=f"k{i}")
        enqueue.append((time.perf_counter() - started) * 1000)
        inbox.delete(item["itemId"])
    for i in range(ROUNDS):
        started = time.perf_counter()
        item = inbox.enqueue(f"steer {i}", intent="steer")
        inbox.accept_steer(item["itemId"])
        steer.append((time.perf_counter() - started) * 1000)
        inbox.delete(item["itemId"])
    store.close()
    report("library enqueue", enqueue)
    report("library enqueue + accept_steer", steer)


def report(name: str, times: list[float]) -> None:
    times.sort()
    p50 = statistics.median(times)
    p99 = times[int(len(times) * 0.99) - 1]
    print(
        f"{name}: p50 {p50:.2f} ms ({p50 / TARGET_MS:.2f}x of the {TARGET_MS:g} ms target), p99 {p99:.2f} ms"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        library(Path(tmp) / "library")
        cwd = os.path.join(tmp, "ws")
        os.makedirs(cwd)
        agent = Agent(os.path.join(tmp, "data"), cwd)
        sid = agent.sid
        report(
            "durable enqueue",
            measure(
                agent,
                "_reasonix.io/session/inbox/enqueue",
                lambda i: {"sessionId": sid, "text": f"follow-up {i}", "idempotencyKey": f"k{i}"},
            ),
        )
        report(
            "durable steer (no active turn: queued_followup)",
            measure(
                agent,
                "_reasonix.io/session/steer",
                lambda i: {"sessionId": sid, "prompt": [{"type": "text", "text": f"steer {i}"}]},
            ),
        )
        agent.close()


if __name__ == "__main__":
    main()
