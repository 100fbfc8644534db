from __future__ import annotations

import subprocess

from tests.transcript import acp_command


def test_acp_demo_plays_a_whole_session() -> None:
    done = subprocess.run([*acp_command(), "demo"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for expected in (
        '"stopReason": "end_turn"',
        '"stopReason": "cancelled"',
        "plan     │ [>] Fix",
        "→ session/load",
        "agent exited with 0",
    ):
        assert expected in out
    assert out.index("→ session/load") < out.rindex("plan     │ [x] Read the failing test")
