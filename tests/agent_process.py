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

from tests import forks

WAIT_SECONDS = 20
# Agents are forked from a process that imported `acp` once (tests/forks.py), unless the test is
# marked `exec_acp` (tests/conftest.py sets EXEC for it) or ACP_FORK=0.
FORK = os.environ.get("ACP_FORK", "1") != "0"
EXEC = False


def _forking() -> bool:
    return FORK and not EXEC


def acp_command() -> list[str]:
    script = Path(sys.executable).with_name("acp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "reasonix_acp"]


def acp_forked() -> list[str]:
    """A command line for `acp` that a client starts itself (the conformance runner, an SDK's
    client): forked as AgentProcess's agents are, or `acp_command()` where they are not."""
    return forks.FORKER.command() if _forking() else acp_command()


def python_forked(script: Path) -> list[str]:
    """`python SCRIPT` as a command line, forked (a script on the official SDK starts in
    milliseconds instead of a CPU-second), or as it is where agents are not forked."""
    return forks.FORKER.command(script) if _forking() else [sys.executable, str(script)]


class AgentProcess:
    def __init__(
        self, args: list[str], env: dict[str, str] | None = None, cwd: str | None = None
    ) -> None:
        full = {**os.environ, **(env or {})}
        forked = forks.FORKER.spawn(args, full, cwd) if _forking() else None
        self.proc: subprocess.Popen[bytes] | forks.Forked
        if forked is not None:
            self.proc = forked
        else:
            self.proc = subprocess.Popen(
                [*acp_command(), *args],
                cwd=cwd,  # as an editor may start it: in the project's directory
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=full,
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
