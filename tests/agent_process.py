"""A real `acp` process on pipes, its stdout read line by line on a thread (tests/transcript.py
drives one through a golden scenario; other tests start their own)."""

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


class AgentProcess:
    def __init__(
        self, args: list[str], env: dict[str, str] | None = None, cwd: str | None = None
    ) -> None:
        self.proc = subprocess.Popen(
            [*acp_command(), *args],
            cwd=cwd,  # as an editor may start it: in the project's directory
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr = b""
        self._stderr_reader = threading.Thread(target=self._drain_stderr, daemon=True)
        threading.Thread(target=self._pump, daemon=True).start()
        self._stderr_reader.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        self._stderr = self.proc.stderr.read()

    @property
    def stderr(self) -> bytes:
        """All the agent wrote to stderr, once it has exited (the reader thread may still be
        taking the last of it when the exit is seen); nothing while it runs."""
        if self.proc.poll() is not None:
            self._stderr_reader.join(WAIT_SECONDS)
        return self._stderr

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
