"""Every command of `acp` answers `--help` and `-h` with its own usage on stdout, exits 0, and
does nothing else: no config written, no store created, no session listed."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.test_setup_keys import fresh
from tests.transcript import acp_command

COMMANDS = [
    [],
    ["setup"],
    ["demo"],
    ["doctor"],
    ["sessions"],
    ["sessions", "list"],
    ["sessions", "show"],
    ["sessions", "export"],
    ["sessions", "delete"],
]


def test_every_command_answers_help_with_its_usage(tmp_path: Path) -> None:
    env = fresh(tmp_path)
    for command in COMMANDS:
        for flag in ("--help", "-h"):
            done = subprocess.run(
                [*acp_command(), *command, flag],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=30,
                env=env,
                cwd=tmp_path,
            )
            said = (command, flag, done.stdout, done.stderr)
            assert (done.returncode, done.stderr) == (0, ""), said
            usage = " ".join(["usage: acp", *command])
            assert done.stdout.startswith(usage), said
            assert "unknown" not in done.stdout, said
    made = sorted(p.name for p in tmp_path.iterdir())
    assert made == ["home"], made  # no config, no data directory, no store
