"""The model asks the user (`ask_user`) and plan mode ends with the plan (`present_plan`),
through a real `acp` on the offline model: the question as a permission request or as a form,
the answer (or the refusal) back to the model, a cancel cancelling the turn, and leaving plan
mode mid-prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.tools.driver import send_prompt
from tests.transcript import Scenario

QUESTION = {"question": "Which database?", "options": ["sqlite", "postgres", "mysql"]}


def ask_turn() -> dict[str, Any]:
    return {"steps": [{"tool_call": {"name": "ask_user", "arguments": QUESTION}}]}


def run(
    c: Client, sid: str, answer: Any, text: str = "go"
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One prompt; every request from the agent answered by `answer(method, params)`.
    → (the agent's requests, the prompt's response)."""
    rid = send_prompt(c, sid, text)
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


def messages(c: Client) -> list[str]:
    """The agent's messages so far, each joined from its chunks."""
    joined: dict[str, str] = {}
    for n in c.notes:
        update = (
            n.get("params", {}).get("update", {}) if n.get("method") == "session/update" else {}
        )
        if update.get("sessionUpdate") == "agent_message_chunk":
            key = update.get("messageId") or "-"
            joined[key] = joined.get(key, "") + update["content"]["text"]
    return list(joined.values())


def asking(tmp_path: Path) -> Client:
    """An offline agent whose first model call asks; the calls after it answer by default
    (with the first line of what the model was sent)."""
    scenario = Scenario(tmp_path)
    script = tmp_path / "ask.jsonl"
    script.write_text(json.dumps(ask_turn()) + "\n")
    return Client(tmp_path, "--model", "offline", "--script", str(script), scenario=scenario)


def test_without_forms_the_question_is_asked_in_the_conversation(tmp_path: Path) -> None:
    """Every client shows an agent message; a permission request's options are drawn by kind
    alone in some (three `allow_once` choices would look the same), so none is sent."""
    c = asking(tmp_path)
    sid = c.start()
    asked, reply = run(c, sid, selected("allow_once"))
    assert asked == [] and reply["result"] == {"stopReason": "end_turn"}
    (call,) = [
        n["params"]["update"]
        for n in c.notes
        if n.get("method") == "session/update"
        and n["params"]["update"]["sessionUpdate"] == "tool_call"
    ]
    assert call["title"] == "Which database?"  # not "Ask: …": editors show "Kind: title"
    question = "**Which database?**\n\n1. sqlite\n2. postgres\n3. mysql\n\n"
    assert messages(c)[-1].startswith(question), messages(c)
    assert finals(c)[-1]["status"] == "completed"
    # The turn ended on the question: the model's next call is the next prompt's, which the
    # offline model answers with the first line of what it was sent.
    c.notes.clear()
    run(c, sid, selected("allow_once"), text="2")
    assert messages(c)[-1] == "Offline reply: 2 (choice 2 of your question: postgres)"
    assert c.close() == 0


def test_a_bare_number_is_an_answer_only_to_a_question_still_open(tmp_path: Path) -> None:
    c = asking(tmp_path)
    sid = c.start()
    run(c, sid, selected("allow_once"))
    c.notes.clear()
    run(c, sid, selected("allow_once"), text="9")  # no such choice: the user's own words
    assert messages(c)[-1] == "Offline reply: 9"
    c.notes.clear()
    run(c, sid, selected("allow_once"), text="2")  # the question was answered already
    assert messages(c)[-1] == "Offline reply: 2"
    assert c.close() == 0


def test_a_cancel_while_the_form_is_open_cancels_the_turn(tmp_path: Path) -> None:
    c = form_client(tmp_path, [ask_turn()])
    sid = c.result("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})["sessionId"]

    def cancel(frame: dict[str, Any]) -> dict[str, Any]:
        c.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
        return {"action": "cancel"}

    _, reply = run(c, sid, cancel)
    assert reply["result"] == {"stopReason": "cancelled"}
    assert c.close() == 0


def form_client(tmp_path: Path, lines: list[dict[str, Any]]) -> Client:
    """An initialized offline agent whose client shows forms, running `lines`."""
    scenario = Scenario(tmp_path)
    script = tmp_path / "ask.jsonl"
    script.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    c = Client(tmp_path, "--model", "offline", "--script", str(script), scenario=scenario)
    capabilities = {"elicitation": {"form": {}}}
    c.result("initialize", {"protocolVersion": 1, "clientCapabilities": capabilities})
    return c


def test_a_question_as_a_form_where_the_client_shows_forms(tmp_path: Path) -> None:
    c = form_client(tmp_path, [ask_turn(), {"steps": [{"text": "ok"}]}] * 2)
    sid = c.result("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})["sessionId"]
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
    before: list[list[Any]] = []

    def stay(frame: dict[str, Any]) -> Any:
        plans = [
            n["params"]["update"]["entries"]
            for n in c.notes
            if n["params"]["update"]["sessionUpdate"] == "plan"
        ]
        before.append([messages(c), plans])
        return selected("stay")(frame)

    asked, reply = run(c, sid, stay)
    (question,) = asked
    assert question["params"]["toolCall"]["kind"] == "switch_mode"
    assert [(o["name"], o["kind"]) for o in question["params"]["options"]] == [
        ("Start in normal mode", "allow_once"),
        # Not reject_once: some clients cancel the turn on it, and staying must not end it.
        ("Stay in plan mode and revise", "allow_always"),
    ]
    # Shown once, before the question, where every client shows it: a message (no plan
    # update, and no copy in the question).
    ((said_before, plans),) = before
    assert said_before[-1] == "**The plan**\n\n1. write plan.txt"
    assert plans == [] and "rawInput" not in question["params"]["toolCall"]
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
