"""The suite runs in parallel (pytest-xdist, `--dist load`: noxfile.py): every test is
independent of which worker runs it and of the tests run before it there. The modules that
take longest start first (`FIRST`, their order kept): a long one left for the end would run
alone while the other workers have finished. The tests of a module of `SHARED` run on one
worker: a module fixture runs once in each worker that gets a test of its module, and theirs are
long (test_acp_wire.py's runs every conformance scenario against `acp`)."""

from __future__ import annotations

from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

from tests import agent_process

FIRST = (
    "tests/conformance/test_sdk_examples.py",
    "tests/conformance/test_acp_wire.py",
    "tests/conformance/test_runner.py",
    "tests/tools/test_gate_differential.py",
    "tests/test_packaging.py",
    "tests/hostile/test_hostile.py",
    "tests/hostile/test_classes.py",
    "tests/test_mcp_servers.py",
    "tests/test_golden.py",
    "tests/test_session_wedges.py",
    "tests/test_sessions.py",
    "tests/test_protocol_robustness.py",
    "tests/test_process_lifecycle.py",
    "tests/test_compaction.py",
    "tests/tools/test_sandbox.py",
    "tests/providers/test_http_end_to_end.py",
    "tests/tools/test_web_fetch.py",
    "tests/tools/test_gate_proof.py",
    "tests/test_mcp_url_credentials.py",
    "tests/test_inbox_durability.py",
    "tests/test_deepseek.py",
    "tests/test_goal.py",
    "tests/test_context_window.py",
)


# Modules whose tests share a module fixture long to make, each run whole on one worker.
SHARED = (
    "tests/conformance/test_acp_wire.py",
    "tests/conformance/test_peers.py",
    "tests/test_packaging.py",  # builds the sdist and the wheel, installs the wheel in a venv
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    rank = {module: i for i, module in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.path.relative_to(root).as_posix(), len(FIRST)))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist load` (what `-n` alone means too) as xdist's scope scheduling: tests handed out
    one by one, in the collection's order (`FIRST`), as workers free up; a module of `SHARED`
    whole to one worker. (xdist's `loadgroup` would do it by marks, but pytest 9.2's node ids
    no longer take the group xdist 3.8 writes into them: pytest-xdist#1386.)"""
    if config.getoption("dist") != "load":
        return None
    config.option.loadscopereorder = False  # FIRST's order, not the largest unit first
    return SharedModules(config, log)


class SharedModules(LoadScopeScheduling):
    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return module if module in SHARED else nodeid


@pytest.fixture(autouse=True)
def _how_agents_start(request: pytest.FixtureRequest) -> Any:
    """A test marked `exec_acp` starts its agents as execs (tests/forks.py says when)."""
    agent_process.EXEC = request.node.get_closest_marker("exec_acp") is not None
    yield
    agent_process.EXEC = False
