"""The runner as people use it: progress on stderr (or none with --quiet), totals, --help on
the placeholders, timestamped wire logs beside the scripted model's traffic, one probe for the
`reasonix` suite, and bounded waits for answers to frames no ACP client sends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from acp_conformance.gates import required
from acp_conformance.results import CheckResult, ScenarioResult
from acp_conformance.scenario import load_all
from tests.conformance.test_runner import BROKEN, WIRED


def runner(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    extra = [a for k, v in (env or {}).items() for a in ("--env", f"{k}={v}")]
    return subprocess.run(
        [sys.executable, "-m", "acp_conformance", *extra, *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_help_explains_the_placeholders_with_an_example() -> None:
    done = runner("--help")
    for word in ("{model_url}", "{tmp}", "{cwd}", "example:", "--unanswered-timeout", "--quiet"):
        assert word in done.stdout
    assert "--auth-method ID" in done.stdout and "core.auth.logout" in done.stdout


def test_a_scenario_is_partial_when_some_checks_passed_and_others_were_skipped() -> None:
    def result(*statuses: str) -> str:
        made = ScenarioResult("s", "core", "t")
        made.checks = [CheckResult(f"c{i}", "MUST", s) for i, s in enumerate(statuses)]
        return made.status

    assert result("pass", "pass") == "pass"
    assert result("skip", "skip") == "skip"
    assert result("pass", "skip") == "partial"
    assert result("pass", "skip", "warn") == "warn"
    assert result("warn", "fail") == "fail"


def test_an_agent_that_leaves_bad_frames_unanswered_costs_seconds_not_timeouts() -> None:
    """The robustness suite against an agent that answers no bad frame (it may not: ACP
    clients never send them), with progress and totals on stderr."""
    began = time.monotonic()
    env = {"QUIRK": "lax", **WIRED}
    done = runner("--agent", f"{sys.executable} {BROKEN}", "--suite", "robustness", env=env)
    took = time.monotonic() - began
    assert done.returncode == 0, done.stdout
    assert took < 45, f"{took:.0f} s"
    lines = done.stderr.splitlines()
    assert lines[0].startswith("[1/") and "robustness." in lines[0]
    assert " scenarios in " in lines[-1] and "pass" in lines[-1]
    quiet = runner("--agent", f"{sys.executable} {BROKEN}", "--only", "robustness.eof", "--quiet")
    assert quiet.stderr == "" and "scenarios: 1 pass" in quiet.stdout


def test_wire_logs_have_times_and_the_model_traffic(tmp_path: Path) -> None:
    wire = tmp_path / "wire"
    only = ("--only", "client.fs.write", "--wire-dir", str(wire), "--quiet")
    done = runner("--agent", f"{sys.executable} {BROKEN}", *only, env=WIRED)
    assert done.returncode == 0, done.stdout
    lines = [json.loads(x) for x in (wire / "client.fs.write.ndjson").read_text().splitlines()]
    assert all(isinstance(x["t"], float) for x in lines)
    model = [
        json.loads(x) for x in (wire / "client.fs.write.model.ndjson").read_text().splitlines()
    ]
    assert model[0]["tools"] == ["write", "bash", "read", "write_todos"]
    assert model[0]["messages"][0]["role"] == "user"
    assert any("tool_call" in action for action in model[0]["reply"])


def test_the_reasonix_suite_probes_once_an_agent_without_its_surface(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    agent = f"sh -c 'echo started >> {starts}; exec {sys.executable} {BROKEN}'"
    done = runner("--agent", agent, "--suite", "reasonix", "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    assert starts.read_text().splitlines() == ["started"]
    assert "advertises no _reasonix.io surface" in done.stdout
    suite = [s for s in load_all() if s.suite == "reasonix"]
    assert f"scenarios: 0 pass, 0 fail, 0 warn, {len(suite)} skip" in done.stdout


def closed_stdout(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """The runner with its stdout a pipe whose reader is gone before it writes (`| head`)."""
    extra = [a for k, v in (env or {}).items() for a in ("--env", f"{k}={v}")]
    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_conformance", *extra, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(timeout=300), err


def test_a_closed_stdout_ends_the_list_quietly() -> None:
    code, err = closed_stdout("--list")
    assert (code, err) == (0, "")


def test_a_closed_stdout_ends_a_run_with_its_verdict_and_its_reports(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    agent = f"{sys.executable} {BROKEN}"
    code, err = closed_stdout("--agent", agent, "--only", "robustness.eof", "--json", str(out))
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert code == 0 and json.loads(out.read_text())["scenarios"][0]["status"] == "pass"


def test_skip_reasons_say_what_was_required_and_what_was_advertised(tmp_path: Path) -> None:
    def reason(sid: str, env: dict[str, str]) -> str:
        out = tmp_path / f"{sid}.json"
        runner("--agent", f"{sys.executable} {BROKEN}", "--json", str(out), "--only", sid, env=env)
        return str(json.loads(out.read_text())["scenarios"][0]["reason"])

    caps = "caps.agentCapabilities.promptCapabilities"
    rich = {"BREAK": "refuse-advertised", **WIRED}
    assert reason("core.prompt.embedded-context-unadvertised", rich) == (
        f"requires {caps}.embeddedContext absent or false; the agent advertised true"
    )
    assert reason("core.prompt.audio", WIRED) == (
        f"requires {caps}.audio true; the agent did not advertise it"
    )
    fork = "caps.agentCapabilities.sessionCapabilities.fork"
    assert (
        required(fork, [{}], None) == f"requires {fork} advertised; the agent did not advertise it"
    )
    assert required(fork, [{}], False) == f"requires {fork} advertised; the agent advertised false"
    steer = "/caps/agentCapabilities/_meta/reasonix.io/sessionSteer/method"
    assert required(steer, ["_x/steer"], "_y") == (
        f'requires {steer} "_x/steer"; the agent advertised "_y"'
    )


def elsewhere(config: Path) -> Path:
    """A config directory whose config.toml makes an unreachable provider the default model."""
    config.mkdir(parents=True)
    (config / "config.toml").write_text(
        'default_model = "elsewhere/big"\n\n[providers.elsewhere]\nkind = "openai"\n'
        'base_url = "http://127.0.0.1:9/v1"\napi_key = "k"\nmodels = ["big"]\n',
        encoding="utf-8",
    )
    return config


def test_the_user_s_own_config_is_not_what_is_tested(tmp_path: Path) -> None:
    """The documented command against `acp`, run by a user whose config.toml names another,
    unreachable provider as default_model: each agent gets a home of its own, so the run
    judges acp, not the machine's config (--keep-home keeps the user's, and its verdict)."""
    home = tmp_path / "home"
    elsewhere(home / ".config" / "reasonix-acp")
    acp = Path(sys.executable).with_name("acp")
    env = {"OPENAI_BASE_URL": "{model_url}", "OPENAI_MODEL": "conformance-model"}
    only = ("--only", "core.prompt.end-turn", "core.prompt.two-turns")
    extra = [
        a for k, v in {**env, "OPENAI_API_KEY": "unused"}.items() for a in ("--env", f"{k}={v}")
    ]
    command = [sys.executable, "-m", "acp_conformance", "--agent", f"{acp} --data-dir {{tmp}}/d"]
    user = {**os.environ, "HOME": str(home)}
    user.pop("XDG_CONFIG_HOME", None)
    done = subprocess.run(
        [*command, *extra, *only, "--quiet"], capture_output=True, text=True, env=user, timeout=300
    )
    assert done.returncode == 0, done.stdout
    assert "scenarios: 2 pass" in done.stdout, done.stdout
    kept = subprocess.run(
        [*command, *extra, *only, "--quiet", "--keep-home"],
        capture_output=True,
        text=True,
        env=user,
        timeout=300,
    )
    assert kept.returncode == 1, kept.stdout


def test_the_user_s_own_environment_is_not_what_is_tested(tmp_path: Path) -> None:
    """The same run by a user who exports variables that configure the agent (a config directory
    acp reads, a model): the agent gets of the runner's environment only what finds programs,
    the locale, the network and temp files, so the run judges acp; --keep-home keeps them."""
    config = elsewhere(tmp_path / "mine")
    acp = Path(sys.executable).with_name("acp")
    given = {"OPENAI_BASE_URL": "{model_url}", "OPENAI_API_KEY": "unused"}
    extra = [a for k, v in given.items() for a in ("--env", f"{k}={v}")]
    command = [sys.executable, "-m", "acp_conformance", "--agent", f"{acp} --data-dir {{tmp}}/d"]
    only = ("--only", "core.prompt.end-turn", "--quiet")
    user = {**os.environ, "REASONIX_ACP_CONFIG_DIR": str(config), "OPENAI_MODEL": "big"}
    done = subprocess.run(
        [*command, *extra, "--env", "OPENAI_MODEL=conformance-model", *only],
        capture_output=True,
        text=True,
        env=user,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout
    assert "scenarios: 1 pass" in done.stdout, done.stdout
    kept = subprocess.run(
        [*command, *extra, *only, "--keep-home"],
        capture_output=True,
        text=True,
        env=user,
        timeout=300,
    )
    assert kept.returncode == 1, kept.stdout  # the user's config directory and model


def test_acp_with_no_model_configured_is_robust_without_warnings(tmp_path: Path) -> None:
    """The robustness suite against a real `acp` that has no model at all (a new user's): its
    precise refusal of session/new is not counted against it, every scenario passes."""
    acp = Path(sys.executable).with_name("acp")
    done = subprocess.run(
        [
            *(sys.executable, "-m", "acp_conformance", "--agent", f"{acp} --data-dir {{tmp}}/d"),
            *("--suite", "robustness", "--jobs", "2", "--json", str(tmp_path / "r.json")),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    statuses = {r["status"] for r in results["scenarios"]}
    warned = [c for r in results["scenarios"] for c in r["checks"] if c["status"] != "pass"]
    assert statuses == {"pass"} and warned == [], (statuses, warned)
    assert len(results["scenarios"]) >= 17, results["scenarios"]
