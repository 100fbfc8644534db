"""Goal mode through a real `acp`: arming, continuations inside one prompt, each outcome, the
limits, cancel, a SIGKILL restart, the refused config switch, and a request prefix that stays
byte-identical from one continuation to the next (a real HTTP model on 127.0.0.1)."""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import Any

from reasonix_acp.session.store_rows import DB_NAME
from tests.client import Client
from tests.sse_server import OK_STREAM, Server, chunk
from tests.test_store_robustness import write_lock_held
from tests.tools.driver import send_prompt
from tests.transcript import Scenario


def goal_update(status: str, reason: str = "") -> dict[str, Any]:
    return {"tool_call": {"name": "goal_update", "arguments": {"status": status, "reason": reason}}}


def offline(tmp_path: Path, lines: list[list[dict[str, Any]]], config: str = "") -> Client:
    scenario = Scenario(tmp_path)
    if config:
        config_dir = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
        config_dir.mkdir(parents=True)
        (config_dir / "config.toml").write_text(config, encoding="utf-8")
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps({"steps": s}) + "\n" for s in lines), encoding="utf-8")
    return Client(tmp_path, "--model", "offline", "--script", str(script), scenario=scenario)


def run_prompt(c: Client, sid: str, text: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The prompt's response and the notifications before it (permissions answered allow)."""
    rid = send_prompt(c, sid, text)
    notes = []
    while True:
        frame = c.agent.receive()
        if frame.get("method") == "session/request_permission":
            outcome = {"outcome": "selected", "optionId": "allow_once"}
            c.send({"jsonrpc": "2.0", "id": frame["id"], "result": {"outcome": outcome}})
        elif "method" in frame:
            notes.append(frame)
        elif frame.get("id") == rid:
            return frame, notes


def updates(notes: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [
        n["params"]["update"]
        for n in notes
        if n.get("method") == "session/update" and n["params"]["update"]["sessionUpdate"] == kind
    ]


def shown_text(notes: list[dict[str, Any]]) -> str:
    return "".join(u["content"]["text"] for u in updates(notes, "agent_message_chunk"))


def final_status(notes: list[dict[str, Any]]) -> dict[str, Any]:
    done = [n for n in notes if n.get("method") == "_reasonix.io/session/status_update"]
    status: dict[str, Any] = done[-1]["params"]["status"]
    return status


def status(c: Client, sid: str) -> dict[str, Any]:
    result: dict[str, Any] = c.result("_reasonix.io/session/status", {"sessionId": sid})
    return result


def test_a_goal_keeps_going_until_the_model_reports_it_complete(tmp_path: Path) -> None:
    c = offline(
        tmp_path,
        [
            [{"text": "Started on it. [goal:continue]"}],
            [{"tool_call": {"name": "todo_write", "arguments": {"todos": []}}}],
            [{"text": "One step done."}],
            [goal_update("complete", "all checks pass")],
            [{"text": "Finished: the summary."}],
        ],
    )
    sid = c.start()
    assert c.call("session/set_mode", {"sessionId": sid, "modeId": "goal"})["result"] == {}
    assert status(c, sid)["goal"] == {"status": "none"} and status(c, sid)["mode"] == "goal"
    reply, notes = run_prompt(c, sid, "Ship the feature")
    assert reply["result"] == {"stopReason": "end_turn"}
    text = shown_text(notes)
    assert "[goal:" not in text and "Started on it." in text and "Finished: the summary." in text
    # The continuation notes are for the model: never shown as the user's words.
    assert updates(notes, "user_message_chunk") == []
    assert updates(notes, "current_mode_update") == [
        {"sessionUpdate": "current_mode_update", "currentModeId": "normal"}
    ]
    last = final_status(notes)
    assert (last["phase"], last["turnOutcome"], last["mode"]) == (
        "review_ready",
        {"kind": "completed"},
        "normal",
    )
    assert last["finalReadiness"]["readyForReview"] is True
    goal = status(c, sid)["goal"]
    assert goal["status"] == "complete" and goal["objective"] == "Ship the feature"
    runtime = goal["runtime"]
    assert (runtime["turnsUsed"], runtime["requestsUsed"], runtime["lastReason"]) == (
        3,
        5,
        "all checks pass",
    )
    assert c.close() == 0


def test_a_blocked_goal_pauses_and_leaves_goal_mode(tmp_path: Path) -> None:
    c = offline(
        tmp_path, [[goal_update("blocked", "needs the API key")], [{"text": "I need a key."}]]
    )
    sid = c.start()
    c.result("session/set_mode", {"sessionId": sid, "modeId": "goal"})
    reply, notes = run_prompt(c, sid, "Deploy it")
    assert reply["result"] == {"stopReason": "end_turn"}
    last = final_status(notes)
    assert (last["phase"], last["turnOutcome"]) == (
        "paused",
        {"kind": "paused", "reason": "goal blocked"},
    )
    assert last["goal"]["status"] == "blocked"
    assert last["goal"]["runtime"]["stopCause"] == "blocked"
    assert last["mode"] == "normal"
    reply, notes = run_prompt(c, sid, "/status")
    assert "; goal blocked: Deploy it (1 turn, stopped by blocked); " in shown_text(notes)
    assert c.close() == 0


def test_a_limit_pauses_the_goal_and_the_next_prompt_resumes_it(tmp_path: Path) -> None:
    c = offline(
        tmp_path,
        [
            [{"text": "working"}],
            [{"text": "still working"}],
            [goal_update("complete")],
            [{"text": "done"}],
        ],
        "[goal]\nmax_turns = 2\n",
    )
    sid = c.start()
    c.result("session/set_mode", {"sessionId": sid, "modeId": "goal"})
    reply, notes = run_prompt(c, sid, "Refactor the parser")
    assert reply["result"] == {"stopReason": "max_turn_requests"}
    assert "[warning] goal paused: turn limit (2 turns)" in shown_text(notes)
    last = final_status(notes)
    assert last["turnOutcome"] == {"kind": "paused", "reason": "goal is not complete"}
    assert last["goal"]["status"] == "running" and last["mode"] == "goal"
    assert last["goal"]["runtime"]["stopCause"] == "turn limit (2 turns)"
    assert {u["currentModeId"] for u in updates(notes, "current_mode_update")} <= {"goal"}
    reply, notes = run_prompt(c, sid, "go on")  # resumes: the objective stays
    assert reply["result"] == {"stopReason": "end_turn"}
    goal = status(c, sid)["goal"]
    assert (goal["status"], goal["objective"], goal["runtime"]["turnsUsed"]) == (
        "complete",
        "Refactor the parser",
        3,  # two turns to the limit, one more after the resume
    )
    assert c.close() == 0


def test_a_goal_making_no_progress_pauses(tmp_path: Path) -> None:
    lines = [[{"text": f"thinking {i}"}] for i in range(5)]
    c = offline(tmp_path, lines, "[goal]\nno_progress_turns = 2\n")
    sid = c.start()
    c.result("session/set_mode", {"sessionId": sid, "modeId": "goal"})
    reply, notes = run_prompt(c, sid, "Tidy up")
    assert reply["result"] == {"stopReason": "end_turn"}
    runtime = final_status(notes)["goal"]["runtime"]
    assert (runtime["turnsUsed"], runtime["noProgressTurns"]) == (3, 2)
    assert runtime["stopCause"] == "no progress (2 turns without a tool call)"
    assert c.close() == 0


def _wait_running(c: Client, sid: str) -> None:
    while True:
        frame = c.agent.receive()
        update = frame.get("params", {}).get("update", {})
        if frame.get("method") == "session/update" and update.get("content", {}).get("text") == (
            "partial "
        ):
            return


SLOW = [{"text": "partial "}, {"delay_ms": 5000}, {"text": "never"}]


def test_cancel_mid_goal_shows_it_cancelled(tmp_path: Path) -> None:
    c = offline(tmp_path, [[{"text": "first"}], SLOW])
    sid = c.start()
    c.result("session/set_mode", {"sessionId": sid, "modeId": "goal"})
    rid = send_prompt(c, sid, "Long job")
    _wait_running(c, sid)  # in the first continuation
    refused = c.call(
        "session/set_config_option",
        {"sessionId": sid, "configId": "model", "value": "offline/default"},
    )
    assert refused["error"]["code"] == -32600
    assert refused["error"]["message"] == (
        "session config: active Goal continuation must finish before switching config"
    )
    c.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
    while (frame := c.agent.receive()).get("id") != rid or "method" in frame:
        pass
    assert frame["result"] == {"stopReason": "cancelled"}
    current = status(c, sid)
    assert current["goal"]["status"] == "cancelled" and current["phase"] == "cancelled"
    assert current["mode"] == "normal"
    assert c.close() == 0


def test_a_goal_interrupted_by_a_crash_comes_back_paused(tmp_path: Path) -> None:
    c = offline(tmp_path, [[{"text": "first"}], SLOW])
    sid = c.start()
    c.result("session/set_mode", {"sessionId": sid, "modeId": "goal"})
    send_prompt(c, sid, "Migrate the database")
    _wait_running(c, sid)
    c.kill()
    time.sleep(0.1)
    script = tmp_path / "again.jsonl"
    lines = [{"steps": [goal_update("complete")]}, {"steps": [{"text": "resumed and done"}]}]
    script.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    again = Client(tmp_path, "--model", "offline", "--script", str(script), scenario=c.scenario)
    again.result("initialize", {"protocolVersion": 1})
    loaded = again.result(
        "session/load", {"sessionId": sid, "cwd": c.scenario.vars["CWD"], "mcpServers": []}
    )
    assert loaded["modes"]["currentModeId"] == "goal"
    goal = status(again, sid)["goal"]
    assert goal["status"] == "running" and goal["runtime"]["stopCause"] == "interrupted"
    assert goal["objective"] == "Migrate the database"
    assert goal["runtime"]["turnsUsed"] == 1  # the run that finished before the crash is kept
    time.sleep(0.2)
    assert status(again, sid)["goal"] == goal  # paused: nothing resumed it on its own
    reply, _ = run_prompt(again, sid, "carry on")
    assert reply["result"] == {"stopReason": "end_turn"}
    assert status(again, sid)["goal"]["status"] == "complete"
    assert again.close() == 0


def test_normal_and_plan_clear_the_goal_durably(tmp_path: Path) -> None:
    c = offline(tmp_path, [[goal_update("blocked", "stuck")], [{"text": "stuck"}]])
    sid = c.start()
    c.result("session/set_mode", {"sessionId": sid, "modeId": "goal"})
    run_prompt(c, sid, "Something hard")
    assert status(c, sid)["goal"]["status"] == "blocked"
    c.result("session/set_mode", {"sessionId": sid, "modeId": "goal"})  # a blocked goal is kept
    assert status(c, sid)["goal"]["objective"] == "Something hard"
    for mode in ("plan", "auto"):
        c.result("session/set_mode", {"sessionId": sid, "modeId": mode})
        assert status(c, sid)["goal"] == {"status": "none"}
    assert c.close() == 0


def _goal_call(status_word: str) -> list[bytes]:
    call = {
        "index": 0,
        "id": "call_goal",
        "type": "function",
        "function": {"name": "goal_update", "arguments": json.dumps({"status": status_word})},
    }
    return [
        chunk({"role": "assistant", "tool_calls": [call]}),
        chunk({}, finish="tool_calls"),
        b"data: [DONE]\n\n",
    ]


def test_every_continuation_extends_the_request_byte_for_byte(tmp_path: Path) -> None:
    with Server() as server:
        server.behaviours.extend(["ok", "ok", _goal_call("complete"), "ok"])
        scenario = Scenario(tmp_path)
        scenario.env.update({"OPENAI_BASE_URL": server.url, "OPENAI_MODEL": "m1"})
        c = Client(tmp_path, scenario=scenario)
        sid = c.start()
        c.result("session/set_mode", {"sessionId": sid, "modeId": "goal"})
        reply, _ = run_prompt(c, sid, "Write the docs")
        assert reply["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    bodies = [json.loads(b) for b in server.bodies]
    assert len(bodies) == 4
    for earlier, later in itertools.pairwise(bodies):
        assert later["tools"] == earlier["tools"]
        before = [json.dumps(m, sort_keys=True) for m in earlier["messages"]]
        after = [json.dumps(m, sort_keys=True) for m in later["messages"]]
        assert after[: len(before)] == before and len(after) > len(before)
    continuation = bodies[1]["messages"][-1]
    assert continuation["role"] == "user" and continuation["content"].startswith("[goal]")
    assert "Write the docs" in continuation["content"]  # the model is told the goal again
    assert any(t["function"]["name"] == "goal_update" for t in bodies[0]["tools"])
    assert OK_STREAM  # the "ok" answers are the server's standard stream


def test_a_goal_that_cannot_be_stored_changes_nothing(tmp_path: Path) -> None:
    c = offline(tmp_path, [[goal_update("complete")], [{"text": "done"}]])
    c.scenario.env["REASONIX_ACP_SQLITE_BUSY_MS"] = "200"
    c.agent.proc.kill()
    c = Client(tmp_path, *c_args(tmp_path), scenario=c.scenario)
    sid = c.start()
    db = Path(c.scenario.vars["DATA"]) / DB_NAME
    with write_lock_held(db):
        refused = c.call("session/set_mode", {"sessionId": sid, "modeId": "goal"})
    assert refused["error"]["code"] == -32603
    assert refused["error"]["message"].startswith("session/set_mode: persist goal: ")
    assert status(c, sid)["mode"] == "normal" and status(c, sid)["goal"] == {"status": "none"}
    c.result("session/set_mode", {"sessionId": sid, "modeId": "goal"})
    with write_lock_held(db):
        refused = c.call(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "Do it"}]}
        )
    assert refused["error"]["code"] == -32603
    assert refused["error"]["message"].startswith("session/prompt: persist goal: ")
    assert status(c, sid)["goal"] == {"status": "none"}  # still a draft: nothing adopted
    reply, _ = run_prompt(c, sid, "Do it")
    assert reply["result"] == {"stopReason": "end_turn"}
    assert status(c, sid)["goal"]["status"] == "complete"
    assert c.close() == 0


def c_args(tmp_path: Path) -> list[str]:
    return ["--model", "offline", "--script", str(tmp_path / "script.jsonl")]


def test_the_runners_own_pause_wins_over_a_goal_reported_complete(tmp_path: Path) -> None:
    c = offline(
        tmp_path,
        [
            [{"tool_call": {"name": "write", "arguments": {"path": "a.txt", "content": "x\n"}}}],
            [goal_update("complete", "wrote it")],
            [{"text": "All done."}],
        ],
        "[readiness]\nrequire_checks = true\n",
    )
    sid = c.start()
    c.result("session/set_mode", {"sessionId": sid, "modeId": "goal"})
    reply, notes = run_prompt(c, sid, "Write a.txt")
    assert reply["result"] == {"stopReason": "end_turn"}
    last = final_status(notes)
    assert last["phase"] == "readiness_paused"  # not review_ready: no check ran after the write
    assert last["finalReadiness"]["readyForReview"] is False
    assert last["goal"]["status"] == "complete"
    assert c.close() == 0


def test_a_mode_change_that_cannot_be_stored_leaves_a_running_goal_running(tmp_path: Path) -> None:
    c = offline(tmp_path, [[{"text": "first"}], SLOW])
    c.scenario.env["REASONIX_ACP_SQLITE_BUSY_MS"] = "200"
    c.agent.proc.kill()
    c = Client(tmp_path, *c_args(tmp_path), scenario=c.scenario)
    sid = c.start()
    c.result("session/set_mode", {"sessionId": sid, "modeId": "goal"})
    rid = send_prompt(c, sid, "Long job")
    _wait_running(c, sid)
    with write_lock_held(Path(c.scenario.vars["DATA"]) / DB_NAME):
        refused = c.call("session/set_mode", {"sessionId": sid, "modeId": "normal"})
    assert refused["error"]["message"].startswith("session/set_mode: persist goal: ")
    goal = status(c, sid)["goal"]
    assert goal["status"] == "running" and goal["runtime"]["stopCause"] == ""
    c.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
    while (frame := c.agent.receive()).get("id") != rid or "method" in frame:
        pass
    assert frame["result"] == {"stopReason": "cancelled"}
    assert status(c, sid)["goal"]["status"] == "cancelled"
    assert c.close() == 0
