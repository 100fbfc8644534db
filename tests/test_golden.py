"""Every scenario in tests/golden/ against a real `acp` process, pinned as an NDJSON snapshot;
every frame the agent sends is validated against the published schemas."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from reasonix_acp.tools.sandbox import probe
from tests import transcript, wire
from tests.snapshot_ext import NDJSONSnapshotExtension
from tests.titles import labelled as is_labelled
from tests.titles import titles

GOLDEN = Path(__file__).parent / "golden"
SCENARIOS = sorted(GOLDEN.glob("*.ndjson"))


def test_there_are_scenarios() -> None:
    assert len(SCENARIOS) >= 10


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_golden(scenario: Path, snapshot: Any, tmp_path: Path) -> None:
    header = json.loads(scenario.read_text(encoding="utf-8").splitlines()[0])
    if "bwrap" in header.get("needs", []):
        found = probe()
        if not found.available:
            if os.environ.get("REASONIX_ACP_REQUIRE_SANDBOX"):
                pytest.fail(f"REASONIX_ACP_REQUIRE_SANDBOX is set, and: {found.problem}")
            pytest.skip(f"no working bubblewrap here: {found.problem}")
    frames, context = transcript.run(scenario, tmp_path)
    request_methods: dict[Any, str] = {}
    for frame in frames:
        if "dir" not in frame:
            continue
        msg = frame.get("msg")
        if (
            frame["dir"] == "c2a"
            and isinstance(msg, dict)
            and isinstance(msg.get("id"), int | str)
            and isinstance(msg.get("method"), str)
        ):
            request_methods[msg["id"]] = msg["method"]
        if frame["dir"] == "a2c":
            assert wire.check_agent_frame(msg, request_methods) == [], msg
            labelled = [t for t in titles(msg) if is_labelled(t)]
            assert not labelled, f"a title that puts a label before a colon: {labelled}"
    frames = promised_usage(frames)
    assert transcript.normalise(frames, context) == snapshot(
        extension_class=NDJSONSnapshotExtension
    )


def promised_usage(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`used` is the gauge's count of the context, calibrated on the provider's counts (the
    offline model's are characters / 4, the DeepSeek stand-in's the request's bytes); the
    request holds the workspace's path, whose length depends on where the suite runs, and a
    DeepSeek cost depends on the hour (peak or off-peak). What the protocol promises is pinned
    instead: a whole number of tokens, at most the context's size, and a cost that is a
    positive amount in a currency."""
    out = []
    for frame in frames:
        msg = frame.get("msg")
        params = msg.get("params") if isinstance(msg, dict) else None
        update = params.get("update") if isinstance(params, dict) else None
        if (
            frame.get("dir") == "a2c"
            and isinstance(update, dict)
            and update.get("sessionUpdate") == "usage_update"
        ):
            used, size = update["used"], update["size"]
            assert type(used) is int and type(size) is int and 0 <= used <= size, update
            assert isinstance(msg, dict)
            shown = {**update, "used": "<tokens>"}
            if "cost" in update:
                cost = update["cost"]
                assert isinstance(cost["amount"], float | int) and cost["amount"] > 0, cost
                assert len(cost["currency"]) == 3, cost
                shown["cost"] = {**cost, "amount": "<amount>"}
            params = {**msg["params"], "update": shown}
            frame = {**frame, "msg": {**msg, "params": params}}
        out.append(frame)
    return out


def test_each_difference_from_reasonix_is_pinned_by_a_golden() -> None:
    """docs/differences.md ("Differences from Reasonix's ACP") names, for each row, the goldens
    that pin it: each one exists."""
    page = (Path(__file__).parents[1] / "docs" / "differences.md").read_text(encoding="utf-8")
    section = page.split("# Differences from Reasonix's ACP", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    named = [re.findall(r"`([a-z0-9_]+)`", row.rsplit("|", 2)[-2]) for row in rows[1:]]
    assert len(named) >= 10 and all(named), rows
    for names in named:
        for name in names:
            assert (GOLDEN / f"{name}.ndjson").is_file(), name
