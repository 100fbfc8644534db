"""Run a command in a pseudo-terminal, as a person at a terminal would: answer each prompt once
its text has been shown, then read to the end.

`python -m tests.terminal '<json>'` with {"argv": [...], "env": {...}, "steps": [[shown, typed],
...]} prints {"output": all the terminal showed, "status": the exit status}. A separate process:
`pty.fork` is not safe in a test process with threads. `in_terminal` runs it from a test.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

DEADLINE = 30.0


def _read(fd: int, until: float) -> bytes:
    ready, _, _ = select.select([fd], [], [], max(0.0, until - time.monotonic()))
    if not ready:
        return b""
    try:
        return os.read(fd, 4096)
    except OSError:  # EIO: the other side is closed
        return b""


def drive(argv: list[str], env: dict[str, str], steps: list[list[str]]) -> dict[str, Any]:
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(argv[0], argv, env)
    seen = b""
    until = time.monotonic() + DEADLINE
    status: int | None = None  # once the command has ended before its prompt showed
    for shown, typed in steps:
        while shown.encode() not in seen and status is None and time.monotonic() < until:
            piece = _read(fd, until)
            seen += piece
            if not piece:
                reaped, code = os.waitpid(pid, os.WNOHANG)
                status = code if reaped else None
        if status is None:
            os.write(fd, typed.encode())
    while time.monotonic() < until:
        piece = _read(fd, until)
        if not piece:
            break
        seen += piece
    if status is None:
        status = os.waitpid(pid, 0)[1]
    os.close(fd)
    return {"output": seen.decode(errors="replace"), "status": os.waitstatus_to_exitcode(status)}


def in_terminal(argv: list[str], env: dict[str, str], steps: list[list[str]]) -> tuple[int, str]:
    """(exit status, what the terminal showed) of `argv` run in a pseudo-terminal."""
    request = json.dumps({"argv": argv, "env": env, "steps": steps})
    done = subprocess.run(
        [sys.executable, "-m", "tests.terminal", request],
        capture_output=True,
        text=True,
        timeout=DEADLINE + 15,
        cwd=Path(__file__).parents[1],
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    return answer["status"], answer["output"]


if __name__ == "__main__":
    given = json.loads(sys.argv[1])
    print(json.dumps(drive(given["argv"], given["env"], given["steps"])))
