"""One `initialize` before the `reasonix` suite: an agent that advertises no `_reasonix.io`
surface in its capabilities gets every scenario of the suite SKIP without a process each."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from acp_conformance.checks import obj
from acp_conformance.client import Client
from acp_conformance.frames import Frames
from acp_conformance.remote import agent_for
from acp_conformance.results import ScenarioResult, Settings, Skip, skipped
from acp_conformance.scenario import Scenario

NO_SURFACE = "the agent advertises no _reasonix.io surface in initialize (probed once)"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": 1, "clientCapabilities": {}},
}


def advertises_reasonix(settings: Settings) -> bool:
    """Whether initialize's agentCapabilities._meta names `reasonix.io` anywhere in its keys;
    True when the probe cannot tell (the scenarios then run and say what happened)."""
    tmp = tempfile.mkdtemp(prefix="acp-conformance-probe-")
    cwd = Path(tmp) / "ws"
    cwd.mkdir()
    places = {"tmp": tmp, "cwd": str(cwd), "model_url": ""}
    agent = agent_for(settings, places)
    client = Client(agent.send, str(cwd))
    try:
        frames = Frames(agent, client, None, settings.timeout, start=settings.start)
        frames.send(INITIALIZE)
        response = frames.response(1)
    except Skip:
        return True
    finally:
        agent.stop()
        client.close()
        shutil.rmtree(tmp, ignore_errors=True)
    meta: dict[str, Any] = obj(
        obj(obj(response.get("result")).get("agentCapabilities")).get("_meta")
    )
    return any("reasonix.io" in key for key in meta)


def skipped_suite(scenario: Scenario) -> ScenarioResult:
    result = ScenarioResult(scenario.id, scenario.suite, scenario.title, reason=NO_SURFACE)
    result.checks = [skipped(c, NO_SURFACE) for c in scenario.checks]
    return result
