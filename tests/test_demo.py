from __future__ import annotations

import subprocess

from reasonix_acp.cli.demo import brief
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


def test_the_demo_reads_well() -> None:
    done = subprocess.run([*acp_command(), "demo"], capture_output=True, text=True, timeout=60)
    lines = done.stdout.splitlines()
    assert all(line.strip() != "None" for line in lines)
    assert "  status   │ completion: idle, cancelled, outcome cancelled" in lines
    thoughts = [line for line in lines if line.startswith("  thinking │")]
    assert "  thinking │ This will take a while..." in thoughts  # one run, never split
    assert all(len(line) < 200 for line in lines if line.startswith(("←", "→")))


def test_long_payloads_are_cut_between_words() -> None:
    payload = {"description": "Work on the request directly; stop to ask when input is needed " * 4}
    shown = brief(payload, 60)
    assert shown.endswith(" …") and len(shown) <= 62
    assert payload["description"].startswith(shown.removeprefix('{"description": "')[:-2].rstrip())
