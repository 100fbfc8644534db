"""`--jobs N`: scenarios run at once, each with its own agent process, report as they would one
after the other (the same results, in the same order); the `reasonix` suite's probe is made
once, before any of its scenarios; progress is numbered as scenarios end; an agent that cannot
start stops the scenarios not started yet."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from acp_conformance import cli
from acp_conformance.process import Agent, CannotStart
from acp_conformance.results import CheckResult, ScenarioResult, Settings
from acp_conformance.scenario import Scenario, load_all
from tests.conformance.test_runner import BROKEN, WIRED, conformance

# A little of each suite, a failure among them (no-links fails core.prompt.resource-link), and
# two of the `reasonix` suite, which the broken agent's missing surface makes SKIP by the probe.
ONLY = (
    "core.initialize.v1",
    "core.prompt.resource-link",
    "core.prompt.end-turn",
    "client.fs.write",
    "client.terminal.run",
    "robustness.parse-error",
    "robustness.eof",
    "reasonix.capabilities",
    "reasonix.status.idle",
)


def outline(results: dict[str, Any]) -> list[tuple[str, str, list[tuple[str, str]]]]:
    return [
        (s["id"], s["status"], [(c["id"], c["status"]) for c in s["checks"]])
        for s in results["scenarios"]
    ]


def most_at_once(wire: Path) -> int:
    """The most scenarios whose exchanges with their agents overlapped in time, by the "t" of
    the lines of their wire logs."""
    events: list[tuple[float, int]] = []
    for log in wire.glob("*.ndjson"):
        if log.name.endswith(".model.ndjson"):
            continue
        times = [json.loads(line)["t"] for line in log.read_text().splitlines()]
        if times:
            events += [(min(times), 1), (max(times), -1)]
    running = most = 0
    for _, step in sorted(events):  # at the same time, an end before a start
        running += step
        most = max(most, running)
    return most


def test_scenarios_run_at_once_give_the_report_of_one_after_the_other(tmp_path: Path) -> None:
    env = {"BREAK": "no-links", **WIRED}

    def results(jobs: int) -> tuple[dict[str, Any], int]:
        where = tmp_path / f"jobs-{jobs}"
        where.mkdir()
        extra = ("--jobs", str(jobs), "--wire-dir", str(where / "wire"))
        found = conformance(where, f"{sys.executable} {BROKEN}", "--only", *ONLY, *extra, env=env)
        return found, most_at_once(where / "wire")

    alone, one_at_a_time = results(1)
    together, at_once = results(4)
    assert [s["id"] for s in alone["scenarios"]] == [s.id for s in load_all() if s.id in ONLY]
    assert outline(together) == outline(alone)
    assert together["stdout"] == alone["stdout"]  # the table, the totals
    assert (together["exit"], alone["exit"]) == (1, 1)
    assert one_at_a_time == 1
    assert at_once >= 2


def picked() -> list[Scenario]:
    scenarios = load_all()
    return [s for s in scenarios if s.suite == "core"][:6] + [
        s for s in scenarios if s.suite == "reasonix"
    ][:2]


def args(jobs: int) -> argparse.Namespace:
    return argparse.Namespace(jobs=jobs, quiet=False, wire_dir=None)


def test_jobs_run_together_probe_once_first_and_keep_the_order(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scenarios = picked()
    events: list[str] = []
    lock = threading.Lock()
    together = threading.Barrier(4, timeout=30)  # only passed by four runs at once

    def probe(settings: Settings) -> bool:
        events.append("probe")
        time.sleep(0.2)  # the other reasonix scenario comes meanwhile, and waits
        return True

    def run(scenario: Scenario, settings: Settings) -> tuple[ScenarioResult, str, list[Any]]:
        with lock:
            events.append(scenario.id)
        together.wait()
        time.sleep(0.05 * (len(scenarios) - scenarios.index(scenario)))  # the last end first
        result = ScenarioResult(scenario.id, scenario.suite, scenario.title)
        result.checks = [CheckResult(c.id, c.level, "pass") for c in scenario.checks]
        return result, "", []

    monkeypatch.setattr(cli.probe, "advertises_reasonix", probe)
    monkeypatch.setattr(cli, "run", run)
    results = cli.run_all(scenarios, Settings("agent"), args(4))
    assert [r.id for r in results] == [s.id for s in scenarios]
    assert events.count("probe") == 1
    reasonix = [s.id for s in scenarios if s.suite == "reasonix"]
    assert events.index("probe") < min(events.index(sid) for sid in reasonix)
    lines = capsys.readouterr().err.splitlines()
    ended = [re.fullmatch(r"\[(\d+)/8\] pass +(\S+) \(\d+\.\d s\)", line) for line in lines[:-1]]
    assert [int(m.group(1)) for m in ended if m] == list(range(1, 9))
    assert sorted(m.group(2) for m in ended if m) == sorted(r.id for r in results)
    assert [m.group(2) for m in ended if m] != [r.id for r in results]  # numbered as they end
    assert lines[-1].startswith("8 scenarios in ")


def test_an_agent_that_cannot_start_stops_the_scenarios_not_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scenarios = [s for s in load_all() if s.suite == "core"][:12]
    started: list[str] = []

    def run(scenario: Scenario, settings: Settings) -> tuple[ScenarioResult, str, list[Any]]:
        started.append(scenario.id)
        if scenario is scenarios[1]:
            raise CannotStart("no-such-agent: not found")
        time.sleep(0.2)
        return ScenarioResult(scenario.id, scenario.suite, scenario.title), "", []

    monkeypatch.setattr(cli, "run", run)
    with pytest.raises(CannotStart):
        cli.run_all(scenarios, Settings("no-such-agent"), args(2))
    assert 2 <= len(started) < len(scenarios)


@pytest.mark.parametrize(("given", "jobs"), [("1", 1), ("8", 8), ("0", os.cpu_count() or 1)])
def test_jobs_is_a_count_and_zero_is_one_per_cpu(given: str, jobs: int) -> None:
    assert cli._parser().parse_args(["--jobs", given]).jobs == jobs
    assert cli._parser().parse_args([]).jobs == 1


def test_a_negative_or_wordy_count_of_jobs_is_a_usage_error() -> None:
    for given in ("-1", "many"):
        with pytest.raises(SystemExit) as stopped:
            cli._parser().parse_args(["--jobs", given])
        assert stopped.value.code == 2


def test_lines_read_together_are_logged_before_an_answer_to_the_first(tmp_path: Path) -> None:
    """An agent's lines that came in one read are in the wire log before what the runner sent
    on reading the first of them, however the interpreter switches threads (with --jobs, many
    threads want it; here, busy ones: before, the runner's answer came among the lines in most
    runs). The agent writes its lines at once, fewer bytes than a pipe holds."""
    burst = tmp_path / "burst.py"
    line = '{"jsonrpc": "2.0", "method": "n", "params": {}}'
    burst.write_text(f"import os, sys\nos.write(1, b'{line}\\n' * 1200)\nsys.stdin.read()\n")
    stop = threading.Event()

    def busy() -> None:
        while not stop.is_set():
            sum(range(1000))

    spinners = [threading.Thread(target=busy, daemon=True) for _ in range(4)]
    for spinner in spinners:
        spinner.start()
    try:
        for _ in range(10):
            agent = Agent(f"{sys.executable} {burst}", {}, {"cwd": str(tmp_path)})
            assert agent.next(10) == json.loads(line)
            agent.send_line("answer")
            agent.stop()
            order = [d for d, _, _ in agent.wire.lines if d != "stderr"]
            assert order == ["a2c"] * 1200 + ["c2a", "c2a"], order.index("c2a")
    finally:
        stop.set()
