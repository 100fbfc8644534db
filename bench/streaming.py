"""Streaming benchmark (issue "The prompt turn").

1. Text deltas per second reaching a client that reads the pipe (an agent may carry several in
   one `session/update`; they are counted by their text): our agent with the offline model
   streaming COUNT chunks, against an agent on the official SDK
   (bench/sdk_agent.py) sending the same chunks, in the same run. Each process answers one
   prompt first, unmeasured, and is given a second (as a user takes to read it) for what loads
   ahead on a background thread to finish, so the figure is the streaming rate and not the
   loading (bench/ready.py measures that). Targets (issue "Ready in a blink"): ≥ 50,000/s and
   ≥ 5x the SDK agent.
2. Agent overhead from `session/prompt` to the first reply chunk with the offline model (whose
   own time is nil), median of 50 prompts. Target ≤ 2 ms.
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

COUNT = 20000
SETTLE = 1.0  # seconds after the first prompt: the prompt path has loaded ahead by then
TEXT = "chunk-8b"
ACP = shutil.which("acp") or str(Path(sys.executable).with_name("acp"))


class Peer:
    def __init__(self, cmd: list[str], env: dict[str, str]) -> None:
        self.p = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            bufsize=1 << 20,
        )
        self.n = 0

    def send(self, method: str, params: dict[str, Any]) -> int:
        assert self.p.stdin
        self.n += 1
        self.p.stdin.write(
            (
                json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
                + "\n"
            ).encode()
        )
        self.p.stdin.flush()
        return self.n

    def until(self, request_id: int, on_note: Any = None) -> dict[str, Any]:
        assert self.p.stdout
        for line in self.p.stdout:
            # A response has "id" and no "method" in its head (a result may name methods).
            if b'"id":' in line[:40] and b'"method"' not in line[:40]:
                frame: dict[str, Any] = json.loads(line)
                if frame.get("id") == request_id:
                    return frame
            elif on_note is not None:
                on_note(line)
        raise EOFError

    def close(self) -> None:
        assert self.p.stdin
        self.p.stdin.close()
        self.p.wait(30)


def stream_script() -> str:
    """The offline model's script for `stream_rate`: a short first reply, then the stream (two
    streams would make the second prompt compact the first away first, its summary taking the
    second stream's line)."""
    stream = json.dumps({"steps": [{"text": TEXT * COUNT, "chunk": len(TEXT)}]})
    return json.dumps({"steps": [{"text": "ready"}]}) + f"\n{stream}\n"


def stream_rate(cmd: list[str], env: dict[str, str], cwd: str) -> float:
    peer = Peer(cmd, env)
    peer.until(peer.send("initialize", {"protocolVersion": 1}))
    sid = peer.until(peer.send("session/new", {"cwd": cwd, "mcpServers": []}))["result"][
        "sessionId"
    ]
    go = {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]}
    peer.until(peer.send("session/prompt", go))  # unmeasured: the first prompt's loading
    time.sleep(SETTLE)
    counted = 0

    def note(line: bytes) -> None:
        nonlocal counted
        if b"agent_message_chunk" in line:  # the deltas it carries (one update may hold several)
            counted += line.count(TEXT.encode())

    start = time.perf_counter()
    reply = peer.until(peer.send("session/prompt", go), note)
    elapsed = time.perf_counter() - start
    peer.close()
    assert reply["result"]["stopReason"] == "end_turn" and counted == COUNT, (reply, counted)
    return counted / elapsed


def first_chunk_ms(env: dict[str, str], cwd: str) -> float:
    peer = Peer([ACP, "--model", "offline"], env)
    peer.until(peer.send("initialize", {"protocolVersion": 1}))
    sid = peer.until(peer.send("session/new", {"cwd": cwd, "mcpServers": []}))["result"][
        "sessionId"
    ]
    times = []
    assert peer.p.stdout
    for i in range(60):
        start = time.perf_counter()
        rid = peer.send(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": f"ping {i}"}]}
        )
        first = None
        for line in peer.p.stdout:
            if first is None and (b"agent_thought_chunk" in line or b"agent_message_chunk" in line):
                first = (time.perf_counter() - start) * 1000
            if b'"method"' not in line[:40] and json.loads(line).get("id") == rid:
                break
        if i >= 10:  # the first prompts pay for imports
            assert first is not None
            times.append(first)
    peer.close()
    return statistics.median(times)


def main() -> int:
    tmp = Path(tempfile.mkdtemp())
    cwd = str(tmp / "ws")
    os.makedirs(cwd)
    script = tmp / "stream.jsonl"
    script.write_text(stream_script(), encoding="utf-8")
    env = {
        **os.environ,
        "REASONIX_ACP_DATA_DIR": str(tmp / "data"),
        "REASONIX_ACP_CONFIG_DIR": str(tmp / "cfg"),
        "BENCH_CHUNKS": str(COUNT),
        "BENCH_TEXT": TEXT,
    }
    env.pop("REASONIX_ACP_DEBUG", None)
    ours_cmd = [ACP, "--model", "offline", "--script", str(script)]
    sdk_cmd = [sys.executable, str(Path(__file__).with_name("sdk_agent.py"))]
    ours = [stream_rate(ours_cmd, env, cwd) for _ in range(3)]
    sdk = [stream_rate(sdk_cmd, env, cwd) for _ in range(3)]
    overhead = first_chunk_ms(env, cwd)
    shutil.rmtree(tmp)
    ro, rs = statistics.median(ours), statistics.median(sdk)
    print(f"streaming ({COUNT} chunks of {len(TEXT)} bytes, 3 runs each, median)")
    print(f"  reasonix-acp   {ro:10,.0f} deltas per second")
    print(f"  sdk agent      {rs:10,.0f} deltas per second")
    print(f"  ratio {ro / rs:.2f}x the SDK agent   target ≥ 50,000/s and ≥ 5x")
    print(f"  prompt → first chunk, offline model: {overhead:.2f} ms median   target ≤ 2 ms")
    ok = ro >= 50_000 and ro / rs >= 5 and overhead <= 2
    print("  PASS" if ok else "  OVER TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
