"""The runner's calibration against lawful peers: for each behaviour seen in a real agent that
the runner once took for a fault, the small agent behaves that way (QUIRK, broken_agent.py and
broken_tools.py) and the scenarios that misjudged it now find nothing, while `passed` names
what must still have been judged (not only skipped). Real processes, a few scenarios each."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.test_runner import BROKEN, WIRED, conformance, statuses

# (quirk, the scenarios it once failed, checks that must pass there, checks that must be SKIP)
PEERS: list[tuple[str, list[str], set[str], set[str]]] = [
    (
        "side-requests",
        ["client.fs.write", "client.tools.two-turns"],
        {"fs-write.file-written", "two-turns.second-written"},
        set(),
    ),
    ("shell-line", ["client.terminal.run"], {"terminal-run.model-result"}, set()),
    (
        "verify-on-disk",
        ["client.fs.write", "client.tools.write-then-read", "client.fs.read"],
        {"fs-write.file-written", "write-read.read-sees-write"},
        {"fs-read.sees-buffer"},
    ),
    ("careful-dirs", ["client.permission.allow-once"], {"permission-allow-once.written"}, set()),
    (
        "no-always",
        ["client.permission.allow-always", "client.permission.reject-always"],
        {"permission-allow-always.second-written"},
        {"permission-allow-always.asked-once", "permission-reject-always.asked-once"},
    ),
    (
        "always-per-path",
        ["client.permission.allow-always", "client.permission.reject-always"],
        {"permission-allow-always.asked-once", "permission-reject-always.asked-once"},
        set(),
    ),
    (
        "no-config",
        ["core.config.unknown-option"],
        {"config.unknown.refused"},
        {"config.unknown.code"},
    ),
    ("strict-init", ["core.initialize.legacy-string"], {"init.legacy.still-serving"}, set()),
    (
        "late-session-updates",
        ["core.prompt.end-turn", "client.fs.write"],
        {"prompt.nothing-after", "fs-write.nothing-after"},
        set(),
    ),
    (
        "stop-on-reject",
        ["client.permission.reject"],
        {"permission-reject.not-written"},
        {"permission-reject.model-result"},
    ),
    (
        "write-locally",
        ["client.fs.write-refused", "client.fs.write"],
        {"fs-write.file-written"},
        {"fs-write-refused.not-written"},
    ),
    ("own-shell", ["client.terminal.cancel"], set(), {"terminal-cancel.stop-reason"}),
    ("done-before-cancel", ["core.prompt.cancel-during-tool"], set(), {"cancel-tool.stop-reason"}),
    ("list-after-turn", ["core.list.includes-new"], {"list.has-new"}, set()),
    ("legacy-models", ["core.session-new.valid"], {"new.known-fields"}, set()),
    ("unstable-usage", ["core.prompt.end-turn"], {"prompt.known-fields"}, set()),
    (
        "plan-first",
        ["core.mode.config-option"],
        {"mode-option.set-mode-says-both", "mode-option.set-option-says-both"},
        set(),
    ),
    (
        "retry-errors",
        ["core.prompt.model-failure"],
        {"failure.answered", "failure.next-turn"},
        set(),
    ),
    ("tool-search", ["client.elicitation.accept"], {"elicit-accept.model-result"}, set()),
    (
        "mcp-acp-eager",
        ["client.mcp.acp-server"],
        {"mcp-acp.meta", "mcp-acp.request-ids", "mcp-acp.tool-called", "mcp-acp.model-result"},
        set(),
    ),
    (
        "legacy-plan",
        ["client.plan.by-id", "client.plan.not-advertised"],
        {"plan-id.updates-valid", "plan-unadvertised.items", "plan-unadvertised.fallback"},
        {"plan-id.items", "plan-id.same-id", "plan-id.emptied", "plan-id.removed"},
    ),
    (
        "lax",
        [
            "core.extension.unknown-request",
            "core.session-new.relative-cwd",
            "robustness.parse-error",
            "robustness.invalid-request",
            "robustness.batch-line",
            "robustness.no-jsonrpc-member",
        ],
        # Left unanswered, a parse error is counted once (parse.code); the agent is still
        # serving, so the scenario goes on with a fresh request.
        {"batch.still-serving", "parse.still-serving", "invalid.still-serving"},
        {"parse.error-shape"},
    ),
]


# Peers whose only departures are from SHOULD-level hardening (frames an ACP client never
# sends) and MAY-level refusals: warnings at most, never a failure.
HARDENING_ONLY = {"lax"}


def _run(tmp: Path, peer: tuple[str, list[str], set[str], set[str]]) -> dict[str, Any]:
    where = tmp / peer[0]
    where.mkdir()
    env = {"QUIRK": peer[0], **WIRED}
    agent = f"{sys.executable} {BROKEN}"
    waits = ("--timeout", "4", "--start-timeout", "5")
    return conformance(where, agent, *waits, "--only", *peer[1], env=env)


# One worker runs the module's tests (SHARED, tests/conftest.py): the runs are made once.
@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("peers")
    with ThreadPoolExecutor(6) as pool:
        found = list(pool.map(lambda p: _run(tmp, p), PEERS))
    return {peer[0]: result for peer, result in zip(PEERS, found, strict=True)}


@pytest.mark.parametrize("peer", PEERS, ids=[p[0] for p in PEERS])
def test_a_lawful_peer_gets_no_finding(
    runs: dict[str, dict[str, Any]], peer: tuple[str, list[str], set[str], set[str]]
) -> None:
    results = runs[peer[0]]
    found = statuses(results)
    findings = ("fail",) if peer[0] in HARDENING_ONLY else ("fail", "warn")
    wrong = {c: s for c, s in found.items() if s in findings}
    assert wrong == {}, results["stdout"]
    assert results["exit"] == 0, results["stdout"]
    assert {c for c in peer[2] if found.get(c) != "pass"} == set(), results["stdout"]
    assert {c for c in peer[3] if found.get(c) != "skip"} == set(), results["stdout"]
