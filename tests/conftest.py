"""The suite runs in parallel (pytest-xdist, `--dist load`: noxfile.py): every test is
independent of which worker runs it and of the tests run before it there. The modules that
take longest start first (`FIRST`, their order kept): a long one left for the end would run
alone while the other workers have finished."""

from __future__ import annotations

import pytest

FIRST = (
    "tests/conformance/test_sdk_examples.py",
    "tests/conformance/test_acp_wire.py",
    "tests/conformance/test_runner.py",
    "tests/tools/test_gate_differential.py",
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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    rank = {module: i for i, module in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.path.relative_to(root).as_posix(), len(FIRST)))
