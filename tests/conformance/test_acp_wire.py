"""The conformance scenarios against `acp`, pinned byte for byte: the files the runner takes to
any agent (judged there by structure) are also this agent's golden transcripts. Each snapshot
is the scenario's wire log, both directions (not the agent's log), with what differs between runs and machines put
in placeholders (temporary paths, ids, times, the model server's port, the interpreter, where the
runner is installed).
tests/golden/ keeps the transcripts only `acp` can run: its offline model, config files,
restarts, plugins, MCP servers of its own.

Scenarios whose wire depends on timing are not pinned (below, each with its reason); the
runner still judges them structurally, here: one run of every scenario (`wire`) gives the
snapshots their logs and `test_acp_passes_every_check` its results. Its tests run on one worker
(SHARED, tests/conftest.py): a module fixture runs once in each worker that gets a test of its
module."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

import acp_conformance
from acp_conformance.scenario import load_all
from reasonix_acp.server.capabilities import SETUP_METHOD_ID
from reasonix_acp.tools.sandbox import probe
from tests.agent_process import acp_forked
from tests.conformance.test_runner import conformance, statuses
from tests.snapshot_ext import NDJSONSnapshotExtension
from tests.titles import labelled, titles
from tests.transcript import INTERPRETER

UNPINNED = {
    # Two requests in one write: acp may answer them in either order (both are valid).
    "robustness.back-to-back": "responses in either order",
    # Whether the terminal's exit status reaches the agent before it releases the terminal.
    "client.terminal.cancel": "the client's reply races the cancel",
    # Which model step the steer lands after depends on when it arrives.
    "reasonix.steer.running": "the steer races the turn's steps",
    # Whether the agent withdraws its question ($/cancel_request) before the client's answer.
    "core.prompt.cancel-during-permission": "the cancel races the permission answer",
    # Whether acp's permission question for the command goes out before the cancel comes (the
    # scenario cancels 300 ms after the call is announced; a loaded machine asks later).
    "core.prompt.cancel-during-tool": "the cancel races the permission question",
    # Whether the runner's next request goes out before the available_commands_update acp sends
    # right after session/new's answer (seen once, from a clean clone, under the suite's load).
    "reasonix.inbox.invalid": "the next request races the commands update",
}
# What `acp` is known to fail, by scenario: the scenario is left out of the pinned run, and
# test_acp_still_fails_what_it_is_known_to keeps each failure seen until it is fixed (then that
# test fails: drop the entry, and the scenario joins the pinned run).
ACP_DEFECTS: dict[str, set[str]] = {}
SCENARIOS = [s.id for s in load_all() if s.id not in UNPINNED and s.id not in ACP_DEFECTS]
# `acp` asks no permission for a write inside the workspace (its default preset): these
# checks have nothing to judge there and are SKIP; every other check must pass.
ACP_SKIPS = {
    "fs-write.permission-schema",
    "fs-write.permission-options",
    "fs-write.permission-option-ids",
    "fs-write.permission-tool-known",
    # Capabilities it does not advertise with the test's model (images, audio) or does
    # (embedded context): the other side's check has nothing to judge, nor the message of a
    # refusal that never came.
    "prompt-image.served",
    "prompt-audio.served",
    "prompt-embedded.refused",
    "prompt-embedded.refused.message",
    # Its key is in the environment (ENV), which neither logout nor authenticate changes: the
    # state auth/status reports stays, so no auth/status_update comes to judge
    # (test_acp_sends_an_auth_status_update_when_logout_changes_its_state has one).
    "auth-update.valid",
    "auth-update.on-logout",
    "auth-update.only-on-change",
    "auth-update.authenticate-valid",
    "auth-update.on-authenticate",
}
# The scenarios whose model has a command run: run again with the sandbox as `acp` has it by
# default (bubblewrap where it works), which the pinned run turns off (a sandboxed command
# reaches the editor's terminal as a bwrap command line, whose mounts name the machine's paths).
COMMANDS = [
    s.id for s in load_all() if any(a.get("call") == "shell" for r in s.model or [] for a in r)
]
# Scenarios at once (acp-conformance --jobs): a few, as the pinned bytes of the scenarios that
# cancel a running command hold only while `acp` answers within their settle windows.
JOBS = "4"
# Seconds each answer may take (acp-conformance's --timeout, 10 by default): the suite's other
# workers load the machine, and a turn whose session starts an MCP server (client.elicitation.*)
# took more than 10 s under that load. The pinned bytes do not depend on it.
TIMEOUT = "30"
ENV = {
    "OPENAI_BASE_URL": "{model_url}",
    "OPENAI_MODEL": "conformance-model",
    "OPENAI_API_KEY": "k",
    "ACP_MODEL": "",
    "REASONIX_ACP_CONFIG_DIR": "{tmp}/config",
    "REASONIX_ACP_SANDBOX": "off",
}
# core.auth.authenticate's method (--auth-method): acp's setup method reads config.toml again,
# and the provider ENV gives makes it complete, so authenticate succeeds and sessions open.
AUTH = ("--auth-method", SETUP_METHOD_ID)
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
HEX = re.compile(r"\b[0-9a-f]{32}\b|\b[0-9a-f]{64}\b")
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?")
PORT = re.compile(r"127\.0\.0\.1:\d+")
TEMP = re.compile(re.escape(tempfile.gettempdir()) + r"/acp-conformance-[A-Za-z0-9_]+")
TEMP_BASE = re.compile(r"reasonix-acp-\d+")
VERSION = re.compile(r'("agentInfo":\{[^{}]*"version":")[^"]*')
DURATION = re.compile(r'("workDurationMs":)\d+')
# The context meter: a count of the request, which holds paths that depend on where the suite
# runs (tests/test_golden.py pins what the protocol promises of it instead).
USED = re.compile(r'("sessionUpdate":"usage_update","used":)\d+')
LONG = 16384
PACKAGE = str(Path(acp_conformance.__file__).parent)  # the runner's MCP server lives there


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("wire")
    command = " ".join([*acp_forked(), "--data-dir", "{tmp}/data"])
    env = [a for k, v in ENV.items() for a in ("--env", f"{k}={v}")]
    done = subprocess.run(
        [
            *(sys.executable, "-m", "acp_conformance", "--agent", command, *env),
            *("--wire-dir", str(where), "--json", str(where / "results.json")),
            *("--junit", str(where / "junit.xml"), "--jobs", JOBS, "--timeout", TIMEOUT),
            *AUTH,
            *(("--skip", *ACP_DEFECTS) if ACP_DEFECTS else ()),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return where


def normalise(text: str) -> str:
    """Placeholders for what changes between runs, numbered in order of appearance so that
    one id stays one placeholder through the transcript."""
    names: dict[str, str] = {}

    def numbered(kind: str) -> Any:
        def name(match: re.Match[str]) -> str:
            return names.setdefault(match.group(0), f"<{kind}-{len(names) + 1}>")

        return name

    text = TEMP.sub("<tmp>", text)
    text = text.replace(PACKAGE, "<acp_conformance>")
    text = TEMP_BASE.sub("reasonix-acp-<uid>", text)
    text = INTERPRETER.sub("<python>", text)
    text = PORT.sub("127.0.0.1:<port>", text)
    text = TIME.sub("<time>", text)
    text = VERSION.sub(r"\1<version>", text)
    text = DURATION.sub(r"\1<ms>", text)
    text = USED.sub(r"\1<tokens>", text)
    text = UUID.sub(numbered("id"), text)
    return HEX.sub(numbered("hex"), text)


def pin(frame: dict[str, Any]) -> dict[str, Any]:
    """A wire log entry as pinned: its line normalised, a long one cut (the 2 MB line of
    robustness.overlong-line is pinned by its length)."""
    line = frame.get("line")
    if not isinstance(line, str):
        return {k: v for k, v in frame.items() if k != "t"}  # the time is the log's, not pinned
    if len(line) > LONG:
        line = f"{line[:200]}<... {len(line)} characters>"
    return {**{k: v for k, v in frame.items() if k != "t"}, "line": normalise(line)}


def test_every_scenario_has_a_wire_log(wire: Path) -> None:
    results = json.loads((wire / "results.json").read_text())
    assert not {s["status"] for s in results["scenarios"]} & {"fail", "warn"}
    assert {p.stem for p in wire.glob("*.ndjson")} >= set(SCENARIOS)


def test_titles_put_their_content_first(wire: Path) -> None:
    """No tool call or question of any scenario has a title that starts with a label and a
    colon (tests/titles.py: CodeCompanion shows such a title up to the colon)."""
    shown = [
        title
        for path in sorted(wire.glob("*.ndjson"))
        for f in map(json.loads, path.read_text(encoding="utf-8").splitlines())
        if f.get("dir") == "a2c" and isinstance(f.get("line"), str) and len(f["line"]) < LONG
        for title in titles(json.loads(f["line"]))
    ]
    assert shown and not [t for t in shown if labelled(t)], sorted(set(shown))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_wire(scenario: str, wire: Path, snapshot: Any) -> None:
    lines = (wire / f"{scenario}.ndjson").read_text(encoding="utf-8").splitlines()
    # The protocol both ways; the agent's log interleaves with it as threads happen to run.
    frames = [f for f in map(json.loads, lines) if f.get("dir") in ("c2a", "a2c")]
    pinned = "".join(json.dumps(pin(f), ensure_ascii=False) + "\n" for f in frames)
    assert pinned == snapshot(extension_class=NDJSONSnapshotExtension)


def test_acp_passes_every_check(wire: Path) -> None:
    results = json.loads((wire / "results.json").read_text())
    found = statuses(results)
    assert {c for c, status in found.items() if status != "pass"} == ACP_SKIPS
    assert {found[c] for c in ACP_SKIPS} == {"skip"}
    assert results["totals"]["checks"]["fail"] == 0
    suites = ET.parse(wire / "junit.xml").getroot()
    assert sum(int(s.get("tests", "0")) for s in suites) == len(found)
    first = (wire / "core.initialize.v1.ndjson").read_text().splitlines()[0]
    assert json.loads(first)["dir"] == "c2a"


def test_acp_still_fails_what_it_is_known_to(tmp_path: Path) -> None:
    if not ACP_DEFECTS:
        pytest.skip("acp fails no scenario it is known to")
    command = " ".join([*acp_forked(), "--data-dir", "{tmp}/data"])
    results = conformance(tmp_path, command, "--only", *ACP_DEFECTS, env=ENV)
    found = statuses(results)
    failing = {c for c, status in found.items() if status in ("fail", "warn")}
    assert failing == set().union(*ACP_DEFECTS.values()), results["stdout"]
    assert {c for c, status in found.items() if status == "skip"} == set(), results["stdout"]


# A provider whose key is in config.toml, which logout clears.
KEYED = """default_model = "openai/m1"
[providers.openai]
base_url = "http://127.0.0.1:9/v1"
api_key = "sk-conformance-0123456789"
models = ["m1"]
"""


def test_acp_sends_an_auth_status_update_when_logout_changes_its_state(tmp_path: Path) -> None:
    """With its key in config.toml (written into each scenario's {tmp} before `acp` starts),
    logout clears it: auth/status goes from authenticated to not_required (a keyless
    OpenAI-compatible endpoint), and the update that says so validates. authenticate then
    reads the keyless config again and changes nothing: those checks are SKIP."""
    config = (
        'mkdir -p "$0/config" && printf %s "$1" > "$0/config/config.toml" && shift && exec "$@"'
    )
    acp = [*acp_forked(), "--data-dir", "{tmp}/data"]
    command = shlex.join(["sh", "-c", config, "{tmp}", KEYED, *acp])
    env = {
        **{k: "" for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "ACP_MODEL")},
        "REASONIX_ACP_CONFIG_DIR": "{tmp}/config",
    }
    only = ("--only", "core.auth.status-update", *AUTH)
    found = statuses(conformance(tmp_path, command, *only, env=env))
    passed = {"auth-update.valid", "auth-update.on-logout", "auth-update.only-on-change"}
    assert {c for c, status in found.items() if status == "pass"} == passed, found
    assert {found["auth-update.authenticate-valid"], found["auth-update.on-authenticate"]} == {
        "skip"
    }


def test_acp_passes_the_command_scenarios_in_its_sandbox(tmp_path: Path) -> None:
    """Where bubblewrap works, the commands reach the editor's terminal wrapped in it
    (tests/tools/test_sandbox.py pins what the sandbox does)."""
    command = " ".join([*acp_forked(), "--data-dir", "{tmp}/data"])
    env = {k: v for k, v in ENV.items() if k != "REASONIX_ACP_SANDBOX"}
    only = ("--only", *COMMANDS, "--jobs", str(len(COMMANDS)), "--wire-dir", str(tmp_path))
    results = conformance(tmp_path, command, *only, env=env)
    assert results["exit"] == 0, results["stdout"]
    assert set(statuses(results).values()) == {"pass"}, results["stdout"]
    engine = probe()
    log = (tmp_path / "client.terminal.run.ndjson").read_text(encoding="utf-8").splitlines()
    sent = [json.loads(f["line"]) for f in map(json.loads, log) if f["dir"] == "a2c"]
    created = [f["params"] for f in sent if f.get("method") == "terminal/create"]
    assert created and all((c["command"] == engine.path) == engine.available for c in created)
