"""acp-conformance --url: the suites against a real `acp serve` on 127.0.0.1, over Streamable
HTTP and over a WebSocket (tests/remote/serving.py starts it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acp_conformance.remote import NO_PROCESS
from tests.remote.serving import TOKEN, Served


def _conformance(*args: str, token: str = TOKEN) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_conformance", *args, "--quiet"],
        env={**os.environ, "REASONIX_ACP_TOKEN": token},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("transport", ["http", "ws"])
def test_the_core_and_robustness_suites_run_against_acp_serve(
    tmp_path: Path, transport: str
) -> None:
    served = Served(tmp_path, "--model", "offline")
    out = tmp_path / "results.json"
    try:
        done = _conformance(
            *("--url", served.url, "--transport", transport, "--suite", "core,robustness"),
            *("--jobs", "4", "--json", str(out)),
        )
    finally:
        assert served.stop() == 0
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads(out.read_text(encoding="utf-8"))
    statuses = {s["id"]: s for s in results["scenarios"]}
    assert results["agent"] == served.url
    assert statuses["core.session-new.valid"]["status"] == "pass"
    assert statuses["robustness.eof"]["status"] == "skip"
    assert NO_PROCESS in statuses["robustness.eof"]["reason"]
    assert statuses["core.auth.logout"]["status"] == "skip"  # the server's own home: untouched
    passed = [s for s in results["scenarios"] if s["status"] == "pass"]
    assert len(passed) >= 40, [s["id"] for s in results["scenarios"] if s["status"] != "pass"]
    assert not [s for s in results["scenarios"] if s["status"] in ("fail", "warn")]


@pytest.mark.parametrize("transport", ["http", "ws"])
def test_a_refused_token_is_said_once(tmp_path: Path, transport: str) -> None:
    served = Served(tmp_path, "--model", "offline")
    try:
        done = _conformance(
            "--url",
            served.url,
            "--transport",
            transport,
            "--only",
            "core.initialize.v1",
            token="not-the-token-0123456789",
        )
    finally:
        assert served.stop() == 0
    assert done.returncode == 2
    assert "cannot start the agent" in done.stderr and "401" in done.stderr
    assert "not-the-token" not in done.stderr + done.stdout
