"""The model asks the user (`ask_user`) and plan mode ends with the plan (`present_plan`),
through a real `acp` on the offline model: the question as a permission request or as a form,
the answer (or the refusal) back to the model, a cancel cancelling the turn, and leaving plan
mode mid-prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.tools.driver import agent, send_prompt
from tests.transcript import Scenario

QUESTION = {"question": "Which database?", "options": ["sqlite", "postgres", "mysql"]}


def ask_turn() -> dict[str, Any]:
    return {"steps": [{"tool_call": {"name": "ask_user", "arguments": QUESTION}}]}


def run(c: Client, sid: str, answer: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One prompt; every request from the agent answered by `answer(method, params)`.
    → (the agent's requests, the prompt's response)."""
    rid = send_prompt(c, sid)
    requests = []
    while True:
        frame = c.agent.receive()
        if frame.get("id") == rid:
            return requests, frame
        if "method" in frame and "id" in frame:
            requests.append(frame)
            c.send({"jsonrpc": "2.0", "id": frame["id"], "result": answer(frame)})
        elif frame.get("method") == "session/update":
            c.notes.append(frame)


def finals(c: Client) -> list[dict[str, Any]]:
    return [
        n["params"]["update"]
        for n in c.notes
        if n.get("method") == "session/update"
        and n["params"]["update"].get("status") in ("completed", "failed")
    ]


def said(update: dict[str, Any]) -> str:
    return str(update["content"][0]["content"]["text"])


def selected(option: str) -> Any:
    return lambda frame: {"outcome": {"outcome": "selected", "optionId": option}}


def test_a_question_as_a_permission_request(tmp_path: Path) -> None:
    c = agent(tmp_path, [ask_turn(), ask_turn()])
    sid = c.start()
    asked, reply = run(c, sid, selected("choice-2"))
    assert reply["result"] == {"stopReason": "end_turn"}
    (question,) = asked
    assert question["method"] == "session/request_permission"
    options = question["params"]["options"]
    assert [(o["name"], o["kind"]) for o in options] == [
        ("sqlite", "allow_once"),
        ("postgres", "allow_once"),
        ("mysql", "allow_once"),
        ("Decline to answer", "reject_once"),
    ]
    assert question["params"]["toolCall"]["title"] == "Which database?"
    assert said(finals(c)[-1]) == "The user answered: postgres"
    run(c, sid, selected("decline"))
    assert said(finals(c)[-1]) == "The user declined to answer."
    assert c.close() == 0


def test_a_cancel_while_the_question_is_open_cancels_the_turn(tmp_path: Path) -> None:
    c = agent(tmp_path, [ask_turn()])
    sid = c.start()

    def cancel(frame: dict[str, Any]) -> dict[str, Any]:
        c.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
        return {"outcome": {"outcome": "cancelled"}}

    _, reply = run(c, sid, cancel)
    assert reply["result"] == {"stopReason": "cancelled"}
    assert c.close() == 0


def test_a_question_as_a_form_where_the_client_shows_forms(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    script = tmp_path / "ask.jsonl"
    lines = [ask_turn(), {"steps": [{"text": "ok"}]}] * 2
    script.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    c = Client(tmp_path, "--model", "offline", "--script", str(script), scenario=scenario)
    capabilities = {"elicitation": {"form": {}}}
    c.result("initialize", {"protocolVersion": 1, "clientCapabilities": capabilities})
    sid = c.result("session/new", {"cwd": scenario.vars["CWD"], "mcpServers": []})["sessionId"]
    answers = iter(
        [
            {"action": "accept", "content": {"choice": "mysql"}},
            {"action": "accept", "content": {"choice": "sqlite", "other": "duckdb, please"}},
        ]
    )
    for expected in ("The user answered: mysql", "The user answered: duckdb, please"):
        asked, reply = run(c, sid, lambda frame: next(answers))
        assert reply["result"] == {"stopReason": "end_turn"}
        (form,) = asked
        assert form["method"] == "elicitation/create"
        schema = form["params"]["requestedSchema"]
        assert schema["properties"]["choice"]["enum"] == QUESTION["options"]
        assert form["params"]["message"] == "Which database?" and form["params"]["toolCallId"]
        assert said(finals(c)[-1]) == expected
    assert c.close() == 0


def test_plan_mode_ends_with_the_plan_and_the_user_decides(tmp_path: Path) -> None:
    present = {"tool_call": {"name": "present_plan", "arguments": {"plan": "1. write plan.txt"}}}
    write = {"tool_call": {"name": "write", "arguments": {"path": "plan.txt", "content": "x"}}}
    turns = [{"steps": [present]}, {"steps": [{"text": "revising"}]}]  # the user stays
    turns += [{"steps": [present]}, {"steps": [write]}, {"steps": [{"text": "done"}]}]
    scenario = Scenario(tmp_path)
    script = tmp_path / "plan.jsonl"
    script.write_text("\n".join(json.dumps(t) for t in turns) + "\n")
    c = Client(tmp_path, "--model", "offline", "--script", str(script), scenario=scenario)
    sid = c.start()
    cwd = Path(scenario.vars["CWD"])
    c.result("session/set_mode", {"sessionId": sid, "modeId": "plan"})
    c.take_notes()
    asked, reply = run(c, sid, selected("stay"))
    (question,) = asked
    assert question["params"]["toolCall"]["kind"] == "switch_mode"
    assert [o["name"] for o in question["params"]["options"]] == [
        "Start in normal mode",
        "Stay in plan mode and revise",
    ]
    assert "revise the plan" in said(finals(c)[-1])
    asked, reply = run(c, sid, selected("start"))
    assert reply["result"] == {"stopReason": "end_turn"}
    modes = [
        n["params"]["update"]["currentModeId"]
        for n in c.notes
        if n.get("method") == "session/update"
        and n["params"]["update"]["sessionUpdate"] == "current_mode_update"
    ]
    assert modes[-1] == "normal" and modes.count("normal") == 1
    assert (cwd / "plan.txt").read_text() == "x", "the same prompt went on in normal mode"
    assert c.close() == 0
