"""`present_plan`'s text reaches a client once, in the shape it can draw: as the plan `proposal`
(`plan_update`, markdown) for a client that advertises the unstable `plan`, as an agent message
for one that does not; live, and again on `session/load` in the loading client's shape.
Through real `acp` processes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.test_history_exact import converse
from tests.test_sessions import updates_of

PLAN = "1. write plan.txt\n2. run the tests"
STAY = {"outcome": {"outcome": "selected", "optionId": "stay"}}


def capabilities(plans: bool) -> dict[str, Any]:
    return {"plan": {}} if plans else {}


def shown(notes: list[dict[str, Any]], sid: str) -> tuple[int, list[str]]:
    """How many times the plan's first line is in the session's updates, and their kinds."""
    updates = [u for u in updates_of(notes, sid) if "write plan.txt" in json.dumps(u)]
    return len(updates), [u["sessionUpdate"] for u in updates]


def planned(tmp: Path, plans: bool) -> tuple[Client, str]:
    """A session in plan mode whose model presents PLAN; the user stays in plan mode."""
    script = tmp / "script.jsonl"
    present = {"name": "present_plan", "arguments": {"plan": PLAN}}
    steps = [[{"text": "Here it is."}, {"tool_call": present}], [{"text": "revising"}]]
    script.write_text("".join(json.dumps({"steps": s}) + "\n" for s in steps), encoding="utf-8")
    c = Client(tmp, "--model", "offline", "--script", str(script))
    c.result("initialize", {"protocolVersion": 1, "clientCapabilities": capabilities(plans)})
    sid = c.result("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})["sessionId"]
    c.result("session/set_mode", {"sessionId": sid, "modeId": "plan"})
    c.take_notes()
    converse(c, sid, [{"type": "text", "text": "go"}], on_request=lambda _: STAY)
    return c, sid


def loaded(tmp: Path, c: Client, sid: str, plans: bool) -> list[dict[str, Any]]:
    again = Client(tmp, "--model", "offline", scenario=c.scenario)
    again.result("initialize", {"protocolVersion": 1, "clientCapabilities": capabilities(plans)})
    cwd = c.scenario.vars["CWD"]
    again.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
    notes = again.take_notes()
    assert again.close() == 0
    return notes


def test_a_client_that_takes_plans_gets_the_plan_once_as_the_proposal(tmp_path: Path) -> None:
    c, sid = planned(tmp_path, plans=True)
    live = c.take_notes()
    assert c.close() == 0
    assert shown(live, sid) == (1, ["plan_update"]), updates_of(live, sid)
    assert shown(loaded(tmp_path, c, sid, plans=True), sid) == (1, ["plan_update"])
    assert shown(loaded(tmp_path, c, sid, plans=False), sid) == (1, ["agent_message_chunk"])


def test_a_client_without_plans_gets_the_plan_once_as_a_message(tmp_path: Path) -> None:
    c, sid = planned(tmp_path, plans=False)
    live = c.take_notes()
    assert c.close() == 0
    assert shown(live, sid) == (1, ["agent_message_chunk"]), updates_of(live, sid)
    said = "".join(
        u["content"]["text"]
        for u in updates_of(live, sid)
        if u["sessionUpdate"] == "agent_message_chunk"
    )
    assert "Here it is.\n\n**The plan**\n\n1. write plan.txt" in said, said  # its own paragraph
    assert shown(loaded(tmp_path, c, sid, plans=False), sid) == (1, ["agent_message_chunk"])
    assert shown(loaded(tmp_path, c, sid, plans=True), sid) == (1, ["plan_update"])
