"""The conformance runner calibrated: a correct small agent passes every applicable check, and
every check is seen failing against an agent broken on purpose (a check that cannot fail is a
defect); `acp` passes every applicable check in test_acp_wire.py but its known defects (kept
seen failing there), and that run of every other scenario also pins its wire. Real agent
processes throughout; the calibrations run the runner in this process (cli.results_of), the
other tests as the `acp-conformance` command."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

from acp_conformance import cli
from acp_conformance.scenario import Scenario, load_all
from tests.conformance.faults import RX_SCENARIOS, RX_SUITES, SCENARIOS, SUITES

BROKEN = Path(__file__).with_name("broken_agent.py")
BROKEN_RX = Path(__file__).with_name("broken_reasonix.py")  # the `reasonix` suite's
WIRED = {"SCRIPTED_MODEL": "{model_url}"}  # the broken agent asks it for tool calls
AUTH = ("--auth-method", "key")  # the broken agent's one authentication method (an API key)
# How each broken agent's faults are run (test_every_check_is_seen_failing, and its reasonix
# twin): the agent, the runner's options.
CALIBRATIONS = {
    "broken_agent": (BROKEN, ("--timeout", "1", "--start-timeout", "5", *AUTH)),
    "broken_reasonix": (BROKEN_RX, ("--timeout", "2", "--jobs", "4")),
}

# The broken agent advertises no image, audio or embedded context: these are SKIP for it.
UNADVERTISED = {"prompt-image.served", "prompt-audio.served", "prompt-embedded.served"}


def conformance(
    tmp: Path, agent: str, *args: str, env: dict[str, str] | None = None
) -> dict[str, Any]:
    out = tmp / "results.json"
    extra = [a for k, v in (env or {}).items() for a in ("--env", f"{k}={v}")]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "acp_conformance",
            "--agent",
            agent,
            "--json",
            str(out),
            *extra,
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode in (0, 1), done.stderr
    results: dict[str, Any] = json.loads(out.read_text())
    results["exit"] = done.returncode
    results["stdout"] = done.stdout
    return results


def statuses(results: dict[str, Any]) -> dict[str, str]:
    return {c["id"]: c["status"] for s in results["scenarios"] for c in s["checks"]}


def failing(scenarios: list[Scenario], agent: Path, fault: str, *args: str) -> dict[str, set[str]]:
    """Scenario id → the checks that fail or warn in it, of `acp-conformance --agent "python
    AGENT" ARGS` with BREAK=FAULT, run in this process (cli.results_of: the command's own path
    but its reports). A calibration runs many at once, on threads, with no runner process (and
    its imports: jsonschema, the schemas) for each."""
    env = {"BREAK": fault, **WIRED}
    extra = [a for k, v in env.items() for a in ("--env", f"{k}={v}")]
    argv = ["--agent", f"{sys.executable} {agent}", "--quiet", *extra, *args]
    return {
        r.id: {c.id for c in r.checks if c.status in ("fail", "warn")}
        for r in cli.results_of(argv, scenarios)
    }


def test_the_scenarios_load_with_unique_check_ids_and_citations() -> None:
    scenarios = load_all()
    checks = [c for s in scenarios for c in s.checks]
    assert len(scenarios) >= 60 and len(checks) >= 200
    assert len({c.id for c in checks}) == len(checks)
    assert all(c.cite and c.level in ("MUST", "SHOULD", "MAY") for c in checks)
    assert {s.suite for s in scenarios} == {"core", "client", "robustness", "reasonix"}


def test_a_correct_small_agent_passes(tmp_path: Path) -> None:
    suites = "core,client,robustness"  # it has no _reasonix.io surface
    agent = f"{sys.executable} {BROKEN}"
    results = conformance(tmp_path, agent, "--suite", suites, "--jobs", "4", *AUTH, env=WIRED)
    assert results["exit"] == 0, results["stdout"]
    skipped = {c for c, status in statuses(results).items() if status != "pass"}
    assert skipped == UNADVERTISED, results["stdout"]  # it takes no image, audio or resource


def test_a_correct_small_reasonix_agent_passes(tmp_path: Path) -> None:
    agent = f"{sys.executable} {BROKEN_RX}"
    results = conformance(tmp_path, agent, "--suite", "reasonix", env=WIRED)
    assert results["exit"] == 0, results["stdout"]
    assert set(statuses(results).values()) == {"pass"}, results["stdout"]


def test_every_reasonix_check_is_seen_failing() -> None:
    scenarios = load_all()
    every = {c.id for s in scenarios if s.suite == "reasonix" for c in s.checks}
    agent, waits = CALIBRATIONS["broken_reasonix"]

    def seen(fault: tuple[str, tuple[str, ...]]) -> set[str]:
        found = failing(scenarios, agent, fault[0], *waits, "--only", *fault[1])
        return set().union(*found.values())

    # Each fault runs the scenarios where it fails a check (RX_SCENARIOS, faults.py), four
    # faults at once, four scenarios of each.
    with ThreadPoolExecutor(4) as pool:
        seen_failing = set().union(*pool.map(seen, RX_SCENARIOS.items()))
    missed = sorted(every - seen_failing)
    assert not missed, f"reasonix checks no broken agent fails: {missed}"


def test_each_fault_runs_scenarios_of_its_own_suites() -> None:
    suites = {s.id: s.suite for s in load_all()}
    for table, faults in ((SCENARIOS, SUITES), (RX_SCENARIOS, RX_SUITES)):
        assert list(table) == [name for name, _ in faults]
        for name, meets in faults:
            allowed = meets.split(",")
            for scenario in table[name]:
                assert suites[scenario] in allowed or scenario in allowed, (name, scenario)
            assert table[name], f"{name} fails no check: its scenarios are empty"


def test_every_check_is_seen_failing() -> None:
    scenarios = load_all()
    every = {c.id for s in scenarios if s.suite != "reasonix" for c in s.checks}
    agent, waits = CALIBRATIONS["broken_agent"]

    def seen(fault: tuple[str, tuple[str, ...]]) -> set[str]:
        found = failing(scenarios, agent, fault[0], *waits, "--only", *fault[1])
        return set().union(*found.values())

    # Each fault runs the scenarios where it fails a check (SCENARIOS, faults.py).
    with ThreadPoolExecutor(12) as pool:  # mostly waiting on timeouts
        seen_failing = set().union(*pool.map(seen, SCENARIOS.items()))
    missed = sorted(every - seen_failing)
    assert not missed, f"checks no broken agent fails: {missed}"


def test_a_scenario_whose_tool_is_not_offered_is_skip_with_the_reason(tmp_path: Path) -> None:
    env = {"BREAK": "no-tools", **WIRED}
    only = ("--only", "client.fs.write", "client.terminal.run")
    results = conformance(tmp_path, f"{sys.executable} {BROKEN}", *only, env=env)
    assert [s["status"] for s in results["scenarios"]] == ["skip", "skip"]
    assert {s["reason"] for s in results["scenarios"]} == {"the agent offers its model no tools"}
    assert set(statuses(results).values()) == {"skip"}


def test_a_refused_request_is_judged_once_not_by_every_check_after_it(tmp_path: Path) -> None:
    """A method the agent advertises and answers -32601 (qwen-code's `session/resume`) fails
    as unserved, and as not resumed where the session had a turn, and makes no refusal or
    replay check pass; a session with no turn yet that cannot be loaded (gemini-cli's) is a
    warning, its result's schema not judged."""
    env = {"BREAK": "resume-unserved,load-fresh-refused", **WIRED}
    only = ("--only", "core.resume.valid", "core.resume.unknown-session", "core.resume.no-replay")
    results = conformance(
        tmp_path, f"{sys.executable} {BROKEN}", *only, "core.load.fresh-session", env=env
    )
    found = statuses(results)
    assert found["resume.served"] == "fail"
    assert (found["resume.resumed"], found["resume.result-schema"]) == ("warn", "skip")
    assert found["resume.unknown.refused"] == "skip"
    assert found["resume-quiet.resumed"] == "fail"
    assert found["resume-quiet.result-schema"] == found["resume-quiet.no-history"] == "skip"
    assert found["load-fresh.loaded"] == "warn"
    assert found["load-fresh.result-schema"] == "skip"


def test_a_turn_that_needs_its_script_is_skip_where_the_agent_offers_no_tools(
    tmp_path: Path,
) -> None:
    """gptme's requests carry no tools (its tools are code blocks in the reply). A script that
    needs no tool call (a failure, a stall, a text) is played for it all the same: its turn's
    request holds the prompt, where a side request would not. So its cancelled prompt answered
    end_turn is caught, and a scenario that needs a tool call is SKIP, never a pass or a fail."""
    only = ("core.prompt.model-failure", "core.prompt.unicode", "core.prompt.cancel")
    agent = f"{sys.executable} {BROKEN}"
    env = {"BREAK": "no-tools", **WIRED}
    results = conformance(tmp_path, agent, "--only", *only, "client.fs.write", env=env)
    reasons = {s["id"]: s.get("reason", "") for s in results["scenarios"]}
    assert reasons == {
        **dict.fromkeys(only, ""),
        "client.fs.write": "the agent offers its model no tools",
    }
    found = statuses(results)
    for check in ("failure.answered", "unicode.served", "cancel.stop-reason"):
        assert found[check] == "pass", (check, found)
    ignoring = {"BREAK": "no-tools,ignore-cancel", **WIRED}
    found = statuses(conformance(tmp_path, agent, "--only", "core.prompt.cancel", env=ignoring))
    assert found["cancel.stop-reason"] == "fail"


def test_authenticating_and_logging_out_are_skip_with_the_reason(tmp_path: Path) -> None:
    """core.auth.authenticate runs only with --auth-method naming an advertised method, and
    credentials the agent refuses are no failure; core.auth.logout never logs out in a home
    the agent was given (--keep-home). core.auth.status-update, which logs out and then
    authenticates, does neither where it may not."""
    agent = f"{sys.executable} {BROKEN}"

    def reasons(*args: str, env: dict[str, str] | None = None) -> dict[str, str]:
        only = ("--only", "core.auth.authenticate", "core.auth.logout", "core.auth.status-update")
        found = conformance(tmp_path, agent, *only, *args, env=env)
        return {s["id"]: s.get("reason", "") for s in found["scenarios"]}

    unnamed = reasons()
    assert unnamed["core.auth.authenticate"].startswith("requires --auth-method ID")
    assert unnamed["core.auth.logout"] == ""
    assert unnamed["core.auth.status-update"].startswith("requires --auth-method ID")
    assert reasons("--auth-method", "other")["core.auth.authenticate"] == (
        'requires caps.authMethods to hold an item with id "other"; the agent advertised '
        '[{"id": "key"}]'
    )
    refusing = reasons(*AUTH, env={"QUIRK": "auth-refused"})
    for refused in (refusing["core.auth.authenticate"], refusing["core.auth.status-update"]):
        assert refused.startswith("the agent refused to authenticate (it may"), refused
        assert "-32000" in refused
    kept = reasons(*AUTH, "--keep-home")
    assert kept["core.auth.authenticate"] == ""
    assert kept["core.auth.logout"].startswith("requires the agent to run in a home of its own")
    assert kept["core.auth.status-update"].startswith("requires the agent to run in a home")


def test_the_provider_scenarios_are_skip_in_a_home_the_agent_was_given(tmp_path: Path) -> None:
    """providers/set and providers/disable change the agent's configuration: only in a home of
    its own, never in yours (--keep-home)."""
    only = ("--only", "core.providers.set", "core.providers.disable")
    found = conformance(tmp_path, f"{sys.executable} {BROKEN}", *only, "--keep-home")
    reasons = [s.get("reason", "") for s in found["scenarios"]]
    assert len(reasons) == 2, found["stdout"]
    assert all(r.startswith("requires the agent to run in a home of its own") for r in reasons)
    assert set(statuses(found).values()) == {"skip"}


def test_an_agent_that_refuses_every_resume_fails_the_run(tmp_path: Path) -> None:
    """Resuming a session with no turn yet is a SHOULD; one that had a turn a MUST."""
    only = ("--only", "core.resume.valid", "core.resume.no-replay")
    env = {"BREAK": "resume-refused", **WIRED}
    results = conformance(tmp_path, f"{sys.executable} {BROKEN}", *only, env=env)
    found = statuses(results)
    assert (found["resume.resumed"], found["resume-quiet.resumed"]) == ("warn", "fail")
    assert results["exit"] == 1


def test_an_agent_slow_to_start_gets_time_for_its_first_answer(tmp_path: Path) -> None:
    """--timeout is for answers; a process that takes longer to start (an interpreter loading
    its packages on a busy machine) still gets its first answer judged."""
    agent = f"sh -c 'sleep 2.5; exec {sys.executable} {BROKEN}'"
    results = conformance(tmp_path, agent, "--only", "core.initialize.v1", "--timeout", "1")
    assert results["exit"] == 0, results["stdout"]
    assert set(statuses(results).values()) == {"pass"}, results["stdout"]


def test_an_agent_that_cannot_start_is_said_once(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "acp_conformance"),
            *("--agent", str(tmp_path / "no-such-agent"), "--only", "core.initialize.v1"),
            *("--json", str(out)),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "cannot start the agent" in done.stderr and "no-such-agent" in done.stderr


def test_a_lost_answer_is_counted_once_and_stdout_is_judged_all_the_same(tmp_path: Path) -> None:
    """A prompt never answered by an agent that writes text on its stdout: one check fails
    for the hang, the stdout check for the text, the step's others have nothing to judge, and
    the agent, still serving, gets the scenario's next steps."""
    env = {"BREAK": "banner,drop-3", **WIRED}
    only = ("--only", "client.elicitation.accept", "--timeout", "1")
    found = statuses(conformance(tmp_path, f"{sys.executable} {BROKEN}", *only, env=env))
    failing = {c for c, s in found.items() if s == "fail"}
    assert failing == {"elicit-accept.result-schema", "elicit-accept.stdout-only-json"}, found
    assert found["elicit-accept.updates-valid"] == found["elicit-accept.model-result"] == "skip"
    assert found["elicit-accept.nothing-after"] == "pass"


def needed(calibration: str, fault: tuple[str, str]) -> tuple[str, list[str]]:
    """(the fault, the fewest scenarios of its suites that fail every check it fails there)."""
    name, what = fault
    only = ("--only", *what.split(",")) if "." in what else ("--suite", what)
    agent, waits = CALIBRATIONS[calibration]
    bad = {k: v for k, v in failing(load_all(), agent, name, *waits, *only).items() if v}
    wanted: set[str] = set().union(*bad.values())
    chosen: list[str] = []
    covered: set[str] = set()
    while covered != wanted:
        best = max(sorted(bad), key=lambda k: len(bad[k] - covered))
        chosen.append(best)
        covered |= bad[best]
    return name, sorted(chosen)


if __name__ == "__main__":  # the tables of faults.py, anew
    for calibration, faults in (("broken_agent", SUITES), ("broken_reasonix", RX_SUITES)):
        print(f"# {calibration}")
        with ThreadPoolExecutor(10) as pool:
            for name, chosen in pool.map(partial(needed, calibration), faults):
                print(f"    {name!r}: {tuple(chosen)!r},")


def test_the_json_report_carries_tiers_and_each_failures_wire(tmp_path: Path) -> None:
    """Like acp-tck's report: each check's tier, counts per tier, and for a scenario that
    failed its wire transcript and the tail of the agent's stderr."""
    only = ("--only", "core.prompt.resource-link", "core.list.unmatched-cwd")
    agent = f"sh -c 'echo starting >&2; exec {sys.executable} {BROKEN}'"
    found = conformance(tmp_path, agent, *only, env={"BREAK": "no-links", **WIRED})
    scenarios = {s["id"]: s for s in found["scenarios"]}
    failed, passed = scenarios["core.prompt.resource-link"], scenarios["core.list.unmatched-cwd"]
    assert failed["status"] == "fail" and passed["status"] == "pass"
    assert [c["tier"] for c in failed["checks"]] == ["mandatory", "advisory"]
    assert [c["tier"] for c in passed["checks"]] == ["capability"]  # it needs list advertised
    sent = [w["line"] for w in failed["wire"] if w["dir"] == "c2a"]
    assert any('"resource_link"' in line for line in sent)
    assert any("resource_link is not supported" in w["line"] for w in failed["wire"])
    assert failed["stderrTail"] == ["starting"]
    assert "wire" not in passed
    assert found["tiers"]["mandatory"]["fail"] == 1 and found["tiers"]["capability"]["pass"] == 1


def test_a_precise_refusal_of_session_new_is_no_robustness_defect(tmp_path: Path) -> None:
    """An agent with no model configured refuses session/new (-32000): the robustness suite's
    checks that the agent still serves after a bad frame take that refusal as served."""
    env = {"QUIRK": "no-model", **WIRED}
    results = conformance(tmp_path, f"{sys.executable} {BROKEN}", "--suite", "robustness", env=env)
    judged = statuses(results)
    assert {k: v for k, v in judged.items() if v in ("fail", "warn")} == {}
    assert judged["emptyline.still-serving"] == judged["pair.second"] == "pass"


def test_an_agent_that_reads_no_request_after_a_bad_frame_is_not_still_serving(
    tmp_path: Path,
) -> None:
    """What still_serving takes as served stops short of an agent whose reading broke: after a
    bad frame it answers every request -32600."""
    env = {"BREAK": "stuck", **WIRED}
    only = ("--only", "robustness.parse-error", "robustness.params-array")
    results = conformance(tmp_path, f"{sys.executable} {BROKEN}", *only, env=env)
    judged = statuses(results)
    assert judged["parse.still-serving"] == "warn"
    assert judged["params.array.still-serving"] == "fail"
