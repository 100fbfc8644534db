"""bash with real processes: output, exit status, timeout and cancel kill the whole group,
long output is cut and kept whole in a file."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from reasonix_acp.tools.base import ToolContext, ToolFailed
from reasonix_acp.tools.shell import OUTPUT_CAP, Bash
from reasonix_acp.tools.workspace import Workspace


def ctx(tmp: Path) -> ToolContext:
    (tmp / "ws").mkdir(exist_ok=True)
    return ToolContext(
        cwd=str(tmp / "ws"),
        session_id="s1",
        workspace=Workspace(str(tmp / "ws"), temp=str(tmp / "t")),
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def gone(pid: int, seconds: float = 2.5) -> bool:
    for _ in range(int(seconds / 0.05)):
        if not alive(pid):
            return True
        await asyncio.sleep(0.05)
    return not alive(pid)


async def test_output_and_cwd(tmp_path: Path) -> None:
    result = await Bash().run({"command": "pwd; echo err >&2"}, ctx(tmp_path))
    assert result.text == f"{tmp_path / 'ws'}\nerr\n"
    assert result.raw_output == {"exitCode": 0, "truncated": False}


async def test_non_zero_exit_fails_with_the_output(tmp_path: Path) -> None:
    with pytest.raises(ToolFailed, match=r"(?s)nope.*\[exit status 3\]"):
        await Bash().run({"command": "echo nope; exit 3"}, ctx(tmp_path))


async def test_timeout_kills_the_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    command = f"sleep 30 & echo $! > {pidfile}; wait"
    start = time.monotonic()
    with pytest.raises(ToolFailed, match="timed out"):
        await Bash().run({"command": command, "timeout_ms": 300}, ctx(tmp_path))
    assert time.monotonic() - start < 5
    assert await gone(int(pidfile.read_text()))


async def test_cancel_kills_the_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    task = asyncio.create_task(
        Bash().run({"command": f"sleep 30 & echo $! > {pidfile}; wait"}, ctx(tmp_path))
    )
    for _ in range(100):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await gone(int(pidfile.read_text()))


async def test_long_output_is_cut_and_kept(tmp_path: Path) -> None:
    result = await Bash().run({"command": "head -c 200000 /dev/zero | tr '\\0' x"}, ctx(tmp_path))
    assert result.raw_output["truncated"] is True
    assert len(result.text.encode()) < OUTPUT_CAP + 300
    kept = result.text.rsplit("the full output is in ", 1)[1].rstrip("]")
    assert Path(kept).read_text() == "x" * 200000


async def test_a_long_command_shows_bounded_partial_output(tmp_path: Path) -> None:
    seen: list[str] = []
    context = ctx(tmp_path)
    context.progress = lambda content: seen.append(content[0]["content"]["text"])
    command = "for i in 1 2 3 4; do head -c 3000 /dev/zero | tr '\\0' $i; echo; sleep 0.2; done"
    result = await Bash().run({"command": command}, context)
    assert result.raw_output["exitCode"] == 0 and len(result.text) == 4 * 3001
    assert seen and all(len(t.encode()) <= 4096 for t in seen)
    assert seen[-1].rstrip().endswith("3" * 10) or seen[-1].rstrip().endswith("4" * 10)


async def test_a_quick_command_shows_no_partial_output(tmp_path: Path) -> None:
    seen: list[object] = []
    context = ctx(tmp_path)
    context.progress = seen.append
    await Bash().run({"command": "echo quick"}, context)
    assert seen == []
