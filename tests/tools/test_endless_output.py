"""A command that never stops printing still ends at its timeout, and the agent's memory stays
bounded while it prints: through a real `acp`, `yes` with a two-second timeout (the output
arrives faster than it is read, so every read of the pipe completes at once)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.tools.driver import agent, call, prompt


def allow(params: dict[str, Any]) -> str:
    return "allow_once"


def peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_endless_output_ends_at_the_timeout_in_bounded_memory(tmp_path: Path) -> None:
    turns = [call("bash", command="yes 'a line of output'", timeout_ms=2000)]
    c = agent(tmp_path, turns, env={"REASONIX_ACP_SANDBOX": "off"})
    sid = c.start()
    before = peak_kib(c.agent.proc.pid)
    started = time.monotonic()
    asked, results = prompt(c, sid, allow)
    took = time.monotonic() - started
    assert len(asked) == 1 and [r.get("status") for r in results] == ["failed"]
    assert "timed out after 2 s" in str(results[0])
    assert took < 30, f"the command ran {took:.0f} s past a 2 s timeout"
    grown = peak_kib(c.agent.proc.pid) - before
    assert grown < 128 * 1024, f"the agent's peak memory grew by {grown} KiB"
    assert c.close() == 0
