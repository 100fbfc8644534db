"""The official ACP Python SDK's example agents under the conformance runner, their results
pinned (tests/conformance/sdk_examples.json): a change in what a check catches shows here.
They do not call a model; their prompt scenarios run all the same (WIRED), on what they do.
The examples come from the SDK's source distribution, fetched from PyPI at test time; set
UPDATE_SDK_PINS=1 to record new results.

Each run of an example scenario starts a new interpreter that loads the SDK's models (about a
second of CPU), so the suite plays against `agent` the scenarios whose pin is not SKIP (and any
scenario not pinned yet), and against `echo_agent` (the same SDK code but for its `initialize`;
their pins differ nowhere else) the initialize scenarios only; SDK_EXAMPLES=all (set by `nox -s
soak`) plays both whole. A SKIP pinned judges no check: what would change it (a capability the
examples start to advertise, a runner that stops skipping) shows in the soak."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tarfile
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from acp_conformance.scenario import load_all
from tests.agent_process import python_forked
from tests.conformance.test_runner import WIRED, conformance

PINS = Path(__file__).with_name("sdk_examples.json")
EXAMPLES = ("echo_agent", "agent")
# Scenarios at once for each example (acp-conformance --jobs): they spend most of their time
# waiting out --timeout for answers that never come.
JOBS = "8"
# What `echo_agent` plays in the suite unless SDK_EXAMPLES=all: where it differs from `agent`.
ECHO_ONLY = tuple(s.id for s in load_all() if s.id.startswith("core.initialize."))


def judged() -> tuple[str, ...]:
    """The scenarios `agent` plays in the suite: those whose pin is not SKIP, and new ones."""
    pinned = json.loads(PINS.read_text(encoding="utf-8"))["agent"]
    return tuple(s.id for s in load_all() if pinned.get(s.id, {}).get("status", "new") != "skip")


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    version = metadata.version("agent-client-protocol")
    where = tmp_path_factory.mktemp("sdk")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            f"agent-client-protocol=={version}",
            "--no-binary",
            ":all:",
            "--no-deps",
            "-q",
            "-d",
            str(where),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    archives = list(where.glob("*.tar.gz"))
    if done.returncode != 0 or not archives:
        pytest.skip(f"the SDK's source distribution could not be fetched: {done.stderr[-300:]}")
    with tarfile.open(archives[0]) as tar:
        tar.extractall(where, filter="data")
    return next(where.glob("agent_client_protocol-*/examples"))


def test_the_sdk_examples_get_their_pinned_results(examples: Path, tmp_path: Path) -> None:
    whole = os.environ.get("SDK_EXAMPLES") == "all" or os.environ.get("UPDATE_SDK_PINS")

    def results(name: str) -> dict[str, Any]:
        where = tmp_path / name
        where.mkdir()
        agent = shlex.join(python_forked(examples / f"{name}.py"))
        only = ("--only", *(ECHO_ONLY if name == "echo_agent" else judged())) if not whole else ()
        found = conformance(where, agent, "--timeout", "2", "--jobs", JOBS, *only, env=WIRED)
        return {
            s["id"]: {
                "status": s["status"],
                "failing": sorted(c["id"] for c in s["checks"] if c["status"] in ("fail", "warn")),
            }
            for s in found["scenarios"]
        }

    with ThreadPoolExecutor(len(EXAMPLES)) as pool:  # mostly waiting on timeouts
        found = dict(zip(EXAMPLES, pool.map(results, EXAMPLES), strict=True))
    if os.environ.get("UPDATE_SDK_PINS"):
        PINS.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    pinned = json.loads(PINS.read_text(encoding="utf-8"))
    pinned = {name: {k: v for k, v in pinned[name].items() if k in found[name]} for name in found}
    assert len(found["agent"]) == (len(load_all()) if whole else len(judged()))
    assert len(found["echo_agent"]) >= len(ECHO_ONLY)
    changed = {
        f"{name}/{sid}": (pinned.get(name, {}).get(sid), got)
        for name, scenarios in found.items()
        for sid, got in scenarios.items()
        if pinned.get(name, {}).get(sid) != got
    }
    assert found == pinned, f"results that differ from the pins (pinned, now): {changed}"
