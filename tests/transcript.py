"""Drive a real `acp` process with a scenario file and record both directions.

Scenario files (tests/golden/*.ndjson) hold one entry per line:
- `{"args": [...]}` (first line only): extra command-line arguments for `acp`;
- `{"dir": "c2a", "msg": <any JSON>}`: a frame to send, serialised compactly;
- `{"dir": "c2a", "raw": "<text>", "repeat": n, "suffix": "<text>"}`: raw text to send
  (`raw` n times, then `suffix`), for malformed and over-long lines;
- optional `"expect": n` on any entry: how many agent frames to wait for after sending it
  (default: 1 for a request, i.e. a `msg` object with `id` and `method`, or for `raw`; else 0).

After the last entry stdin is closed; the agent must exit 0 and may not write anything more.
The recorded transcript lists the sent entries and the agent's frames in order.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

WAIT_SECONDS = 20


def acp_command() -> list[str]:
    script = Path(sys.executable).with_name("acp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "reasonix_acp"]


def _default_expect(entry: dict[str, Any]) -> int:
    if "raw" in entry:
        return 1
    msg = entry.get("msg")
    return int(isinstance(msg, dict) and "id" in msg and "method" in msg)


class AgentProcess:
    def __init__(self, args: list[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [*acp_command(), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr = b""
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def receive(self) -> dict[str, Any]:
        line = self.lines.get(timeout=WAIT_SECONDS)
        if line is None:
            raise AssertionError(
                f"agent closed stdout early; stderr:\n{self.stderr.decode(errors='replace')}"
            )
        frame: dict[str, Any] = json.loads(line)  # a non-JSON line on stdout fails here
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        return frame

    def finish(self) -> tuple[int, list[bytes]]:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=WAIT_SECONDS)
        rest: list[bytes] = []
        while (line := self.lines.get(timeout=WAIT_SECONDS)) is not None:
            rest.append(line)
        return code, rest


def run(path: Path, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    entries = [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    args: list[str] = entries.pop(0)["args"] if entries and "args" in entries[0] else []
    agent = AgentProcess(args, env)
    transcript: list[dict[str, Any]] = []
    try:
        for entry in entries:
            if "raw" in entry:
                text = entry["raw"] * entry.get("repeat", 1) + entry.get("suffix", "")
                agent.send(text.encode("utf-8") + b"\n")
                transcript.append({k: v for k, v in entry.items() if k != "expect"})
            else:
                agent.send(json.dumps(entry["msg"], ensure_ascii=False).encode("utf-8") + b"\n")
                transcript.append({"dir": "c2a", "msg": entry["msg"]})
            for _ in range(entry.get("expect", _default_expect(entry))):
                transcript.append({"dir": "a2c", "msg": agent.receive()})
        code, rest = agent.finish()
    finally:
        if agent.proc.poll() is None:
            agent.proc.kill()
    assert not rest, f"frames after end of input: {rest!r}"
    assert code == 0, f"exit code {code}; stderr:\n{agent.stderr.decode(errors='replace')}"
    return transcript


def normalise(transcript: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Replace values that change between runs or machines."""

    def walk(node: Any, key: str | None = None) -> Any:
        if isinstance(node, dict):
            out = {k: walk(v, k) for k, v in node.items()}
            if key == "agentInfo" and "version" in out:
                out["version"] = "<version>"
            return out
        if isinstance(node, list):
            return [walk(x) for x in node]
        return node

    return [walk(frame) for frame in transcript]
