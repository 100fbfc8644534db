"""The process contract: stdout carries protocol frames only, and the agent exits cleanly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.transcript import acp_command

INIT = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n'


def run(stdin: bytes | None = None, *args: str, **kw: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*acp_command(), *args], input=stdin, capture_output=True, timeout=30, **kw
    )  # type: ignore[call-overload, no-any-return]


def test_echo_initialize_prints_one_valid_line_and_nothing_else() -> None:
    done = run(INIT)
    assert done.returncode == 0
    assert done.stdout.count(b"\n") == 1 and done.stdout.endswith(b"\n")
    reply = json.loads(done.stdout)
    assert reply["id"] == 1 and reply["result"]["protocolVersion"] == 1
    assert done.stderr == b""


def test_initialize_without_trailing_newline_is_still_answered() -> None:
    done = run(INIT.rstrip(b"\n"))
    assert json.loads(done.stdout)["id"] == 1


def test_stdin_may_be_a_regular_file(tmp_path: Path) -> None:
    script = tmp_path / "in.ndjson"
    script.write_bytes(
        INIT
        + b'{"jsonrpc":"2.0","id":2,"method":"authenticate","params":{"methodId":"reasonix-setup"}}\n'
    )
    with script.open("rb") as fh:
        done = subprocess.run(acp_command(), stdin=fh, capture_output=True, timeout=30)
    assert [json.loads(line)["id"] for line in done.stdout.splitlines()] == [1, 2]


def test_empty_input_exits_zero_silently() -> None:
    done = run(b"")
    assert (done.returncode, done.stdout) == (0, b"")


def test_bad_options_never_touch_stdout_and_help_is_printed_there() -> None:
    for args in (["--frobnicate"], ["bogus"], ["--log-level", "loud"]):
        done = run(b"", *args)
        assert (done.returncode, done.stdout) == (2, b""), args
        assert done.stderr
    for args in (["--version"], ["--help"]):  # asked for by a person: on stdout, status 0
        done = run(b"", *args)
        assert (done.returncode, done.stderr) == (0, b"") and done.stdout, args


def test_claimed_stdout_is_out_of_reach_of_prints_and_children() -> None:
    code = (
        "import os, subprocess, sys\n"
        "from reasonix_acp.server.stdio import claim_stdio\n"
        "in_fd, out_fd = claim_stdio()\n"
        "print('stray print')\n"
        "os.write(1, b'raw fd 1\\n')\n"
        "subprocess.run(['sh', '-c', 'echo child; cat'], check=True)\n"
        "os.write(out_fd, b'FRAME\\n')\n"
        "print(os.read(in_fd, 100).decode(), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=b"protocol bytes", capture_output=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"FRAME\n"
    assert b"stray print" in done.stderr and b"raw fd 1" in done.stderr and b"child" in done.stderr
    assert b"protocol bytes" in done.stderr  # the child's `cat` read /dev/null, not our input


def test_log_level_debug_writes_to_stderr_only() -> None:
    done = run(INIT + b'{"jsonrpc":"2.0","method":"_x/y"}\n', "--log-level", "debug")
    assert done.stdout.count(b"\n") == 1
    assert b"ignored notification _x/y" in done.stderr
