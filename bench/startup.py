"""Start-up benchmark: spawn → `initialize` response, ours against an agent on the official SDK.

Both agents are spawned alternately in the same run, each `--runs` times (at least 20), and the
medians are compared. The baseline is bench/sdk_agent.py. Targets (issue "Foundation"):
our median ≤ 0.15x the SDK agent's, and ≤ 150 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

INIT = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": 1,
                "clientCapabilities": {
                    "fs": {"readTextFile": True, "writeTextFile": True},
                    "terminal": True,
                },
            },
        }
    )
    + "\n"
).encode()


def once(cmd: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(INIT)
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - start
    proc.stdin.close()
    proc.wait(timeout=30)
    reply = json.loads(line)
    if reply.get("id") != 1 or "result" not in reply:
        raise SystemExit(f"{cmd[0]}: unexpected reply {line[:200]!r}")
    return elapsed * 1000


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    runs = max(args.runs, 20)
    acp = shutil.which("acp") or str(Path(sys.executable).with_name("acp"))
    ours = [acp]
    sdk = [sys.executable, str(Path(__file__).with_name("sdk_agent.py"))]
    for cmd in (ours, sdk):  # warm the OS caches and .pyc files once, unmeasured
        once(cmd)
    a: list[float] = []
    b: list[float] = []
    for _ in range(runs):
        a.append(once(ours))
        b.append(once(sdk))
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"startup (spawn → initialize response), {runs} runs each, {os.cpu_count()} cpus")
    print(f"  reasonix-acp   median {ma:7.1f} ms  (min {min(a):.1f}, max {max(a):.1f})")
    print(f"  sdk agent      median {mb:7.1f} ms  (min {min(b):.1f}, max {max(b):.1f})")
    print(f"  ratio {ma / mb:.3f}x the SDK agent   target ≤ 0.15x and ≤ 150 ms")
    ok = ma / mb <= 0.15 and ma <= 150
    print("  PASS" if ok else "  OVER TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
