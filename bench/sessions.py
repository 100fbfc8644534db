"""Session store benchmarks against a real `acp` process (issue "Session lifecycle").

- `session/load` of a stored transcript of 12,010 events (10,000 shown, the model's messages
  beside them, ten compactions), request → response (the replayed
  notifications are read by the client as they come), to the response, which follows the last
  replayed update. Target (issue "Ready in a blink") ≤ 100 ms.
- `session/list` over 1,000 stored sessions, request → response. Target ≤ 50 ms.
Each is measured warm (after one session/list has loaded the session machinery) as the median of
several runs; the cold first request is printed too.
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

from reasonix_acp.session.store import SessionRecord, Store

ACP = shutil.which("acp") or str(Path(sys.executable).with_name("acp"))


def fill(data: Path, cwd: str) -> str:
    store = Store(data)
    big = SessionRecord(id="bench-load", cwd=cwd, model="offline/default", title="big")
    store.create_session(big)
    for turn in range(1, 1001):
        events: list[tuple[str, dict[str, Any]]] = [
            (
                "user_message",
                {"content": [{"type": "text", "text": f"turn {turn}: do the next thing"}]},
            ),
            ("agent_thought", {"text": "thinking about it " * 5}),
            ("agent_message", {"text": "here is some reply text " * 8}),
            (
                "tool_call",
                {
                    "toolCallId": f"tc-{turn}-1",
                    "title": "Update plan",
                    "kind": "think",
                    "status": "pending",
                    "rawInput": {"todos": []},
                    "x-tool": "todo_write",
                },
            ),
            ("plan", {"entries": [{"content": "step", "priority": "medium", "status": "pending"}]}),
            (
                "tool_call_update",
                {
                    "toolCallId": f"tc-{turn}-1",
                    "status": "completed",
                    "content": [{"type": "content", "content": {"type": "text", "text": "ok"}}],
                    "x-model-text": "{}",
                },
            ),
        ]
        events += [
            ("agent_message", {"text": "more "}),
            ("agent_thought", {"text": "and "}),
            ("agent_message", {"text": "done."}),
            ("agent_thought", {"text": "."}),
        ]
        # The model's messages of the turn, stored as the runner stores them (`history`); ten
        # turns in the thousand end with a compaction.
        call = {"id": f"call_{turn}", "type": "function", "function": {"name": "todo_write"}}
        call["function"]["arguments"] = '{"todos": []}'
        events.insert(0, ("history", {"messages": [{"role": "user", "content": f"turn {turn}"}]}))
        events.insert(
            5,
            (
                "history",
                {
                    "messages": [
                        {
                            "role": "assistant",
                            "content": "here is some reply text " * 8,
                            "tool_calls": [call],
                        },
                        {"role": "tool", "tool_call_id": f"call_{turn}", "content": "{}"},
                    ]
                },
            ),
        )
        if turn % 100 == 0:
            summary = {"compactionId": f"c{turn}", "summary": "summary " * 200}
            events.append(("compaction", {**summary, "compacted": 40, "kept": 4}))
        store.append_events("bench-load", turn, events)
    for i in range(1000):
        store.create_session(
            SessionRecord(
                id=f"bench-{i:04d}",
                cwd=cwd,
                model="offline/default",
                title=f"session {i}",
                turn_count=1,
            )
        )
    store.close()
    return "bench-load"


class Agent:
    def __init__(self, env: dict[str, str]) -> None:
        self.p = subprocess.Popen(
            [ACP, "--model", "offline"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.n = 0

    def call(self, method: str, params: dict[str, Any]) -> tuple[float, int]:
        assert self.p.stdin and self.p.stdout
        self.n += 1
        start = time.perf_counter()
        self.p.stdin.write(
            (
                json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
                + "\n"
            ).encode()
        )
        self.p.stdin.flush()
        notes = 0
        while True:
            line = self.p.stdout.readline()
            if b'"method"' in line[:40]:  # a notification (read, not decoded, as in streaming.py)
                notes += 1
                continue
            frame = json.loads(line)
            if frame.get("id") == self.n:
                assert "result" in frame, frame
                return (time.perf_counter() - start) * 1000, notes

    def close(self) -> None:
        assert self.p.stdin
        self.p.stdin.close()
        self.p.wait(30)


def main() -> int:
    tmp = Path(tempfile.mkdtemp())
    cwd = str(tmp / "ws")
    os.makedirs(cwd)
    sid = fill(tmp / "data", cwd)
    env = {
        **os.environ,
        "REASONIX_ACP_DATA_DIR": str(tmp / "data"),
        "REASONIX_ACP_CONFIG_DIR": str(tmp / "cfg"),
    }
    loads, lists, colds = [], [], []
    replayed = 0
    for _ in range(5):
        agent = Agent(env)
        agent.call("initialize", {"protocolVersion": 1})
        cold, _ = agent.call("session/list", {})
        colds.append(cold)
        for _ in range(5):
            lists.append(agent.call("session/list", {})[0])
        ms, replayed = agent.call("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
        loads.append(ms)
        agent.call("session/close", {"sessionId": sid})
        agent.close()
    shutil.rmtree(tmp)
    ml, mls = statistics.median(loads), statistics.median(lists)
    print("sessions benchmark (warm requests, median)")
    print(
        f"  session/load, 12,010 stored events, 10 compactions ({replayed} notifications): {ml:7.1f} ms   target ≤ 100 ms"
    )
    print(
        f"  session/list over 1,000 stored sessions (page of 50):          {mls:7.1f} ms   target ≤ 50 ms"
    )
    print(
        f"  first session request of a process (loads the store code):     {statistics.median(colds):7.1f} ms"
    )
    ok = ml <= 100 and mls <= 50
    print("  PASS" if ok else "  OVER TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
