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


def test_a_reader_that_stops_reading_ends_a_command_quietly(tmp_path: Path) -> None:
    """`acp demo | head -1`: once the reader has gone, what is left to print goes nowhere; no
    traceback on stderr, exit 0 (the reader has what it wanted)."""
    env = fresh(tmp_path)
    for command in (["demo"], ["doctor"]):
        agent = subprocess.Popen(
            [*acp_command(), *command],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=tmp_path,
        )
        assert agent.stdout is not None and agent.stderr is not None
        assert agent.stdout.readline()  # what `head -1` reads, then it closes the pipe
        agent.stdout.close()
        said = agent.stderr.read().decode()
        assert agent.wait(timeout=60) == 0 or command == ["doctor"], (command, said)
        assert "Traceback" not in said and "BrokenPipe" not in said, (command, said)
