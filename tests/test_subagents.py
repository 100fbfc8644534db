"""Subagents through a real `acp` against the DeepSeek stand-in: the `task` tool's child reads
and edits with a fresh context and its answer is the call's result; children of one reply run
at once and are answered in the order they were called; a child's permission question is the
parent session's and a grant it gets is the parent's; cancelling the turn cancels every child
(and its commands), cancelling one child lets the parent go on; a load replays the task; a
client that takes `subagents` sees each child as a session of its own, announced first."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.client import STATUS_OPT_IN, Client
from tests.deepseek_server import KEY, DeepSeek
from tests.test_deepseek import agent, config
from tests.test_history_exact import converse as prompt_frames
from tests.test_rewind import calls, full

Frame = dict[str, Any]
STATUS = "_reasonix.io/session/status"


def task(key: str, description: str, rest: str = "") -> tuple[str, dict[str, Any]]:
    return ("task", {"prompt": f"{key}: {rest or 'look into it'}", "description": description})


def converse(
    c: Client,
    sid: str,
    text: str,
    on_request: Callable[[Frame], Any] | None = None,
    on_note: Callable[[Frame], None] | None = None,
) -> Frame:
    """A text prompt's answer (tests/test_history_exact.py `converse`)."""
    return prompt_frames(c, sid, [{"type": "text", "text": text}], on_request, on_note)


def updates(notes: list[Frame], sid: str) -> list[Frame]:
    return [
        n["params"]["update"]
        for n in notes
        if n.get("method") == "session/update" and n["params"]["sessionId"] == sid
    ]


def task_calls(seen: list[Frame]) -> dict[str, list[Frame]]:
    """The `task` calls' updates, by call id, in order."""
    ids = [
        u["toolCallId"]
        for u in seen
        if u["sessionUpdate"] == "tool_call" and u["title"].endswith("(subagent)")
    ]
    return {i: [u for u in seen if u.get("toolCallId") == i] for i in ids}


def texts(update: Frame) -> str:
    return "\n".join(
        c["content"]["text"] for c in update.get("content") or [] if c.get("type") == "content"
    )


def test_a_child_reads_and_edits_and_its_answer_is_the_result(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd = Path(c.scenario.vars["CWD"])
        (cwd / "a.txt").write_text("colour\n")
        sid = full(c)
        server.replies.extend([calls(task("TASK-A", "fix the spelling"))])
        server.tasks["TASK-A"] = deque(
            [
                calls(("read", {"path": "a.txt"})),
                calls(
                    (
                        "edit",
                        {"path": "a.txt", "edits": [{"old_text": "colour", "new_text": "color"}]},
                    )
                ),
                {"thought": "Both done.", "text": "a.txt now says color (was colour)."},
            ]
        )
        answer = converse(c, sid, "fix the spelling in a.txt")
        assert answer["result"] == {"stopReason": "end_turn"}, answer
        assert (cwd / "a.txt").read_text() == "color\n"
        bodies = server.requests()
        assert len(bodies) == 5 and server.refused == []  # parent, 3 child, parent
        child = bodies[1:4]
        assert all(server.task_of(b) == "TASK-A" for b in child)
        system = child[0]["messages"][0]["content"]
        assert system.startswith(bodies[0]["messages"][0]["content"].split("\n\n")[0])
        assert "You are a subagent" in system
        names = {t["function"]["name"] for t in child[0]["tools"]}
        assert {"read", "edit", "bash"} <= names
        assert not names & {"task", "ask_user"}
        assert "task" in {t["function"]["name"] for t in bodies[0]["tools"]}
        assert [m["role"] for m in child[0]["messages"]] == ["system", "user"]
        last = bodies[4]["messages"][-1]
        assert last["role"] == "tool" and last["content"] == "a.txt now says color (was colour)."

        seen = updates(c.take_notes(), sid)
        ((call, *later),) = task_calls(seen).values()
        # The task first, no label before a colon (CodeCompanion cuts there); not `think`,
        # which agent-shell folds under "Thought".
        assert call["title"] == "fix the spelling (subagent)" and call["kind"] == "other"
        progress = [texts(u) for u in later if u.get("status") == "in_progress"]
        assert progress[-1].splitlines() == ["✓ Read a.txt", "✓ Edit a.txt"], progress
        assert later[-1]["status"] == "completed"
        assert texts(later[-1]) == "a.txt now says color (was colour)."
        # no other session's traffic for a client that does not take subagents
        assert {n["params"]["sessionId"] for n in c.notes if "params" in n} <= {sid}
        assert not [
            u for u in seen if u["sessionUpdate"].startswith(("subagent", "session_message"))
        ]
        c.close()


def test_two_children_run_at_once_and_are_answered_in_call_order(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        sid = full(c)
        server.replies.extend([calls(task("TASK-A", "one"), task("TASK-B", "two"))])
        server.tasks["TASK-A"] = deque([calls(("bash", {"command": "sleep 0.3; echo a"}))])
        server.tasks["TASK-B"] = deque([{"thought": "Quick.", "text": "B is done."}])
        server.meet = True  # each child's first request waits for the other's: at once or 400
        answer = converse(c, sid, "do both")
        assert answer["result"] == {"stopReason": "end_turn"}, answer
        assert server.refused == [] and sorted(server.met) == ["TASK-A", "TASK-B"]
        last = server.requests()[-1]["messages"]
        made = last[-3]["tool_calls"]
        answers = last[-2:]
        assert [m["tool_call_id"] for m in answers] == [t["id"] for t in made]
        assert answers[0]["content"] == "Done." and answers[1]["content"] == "B is done."
        calls_seen = task_calls(updates(c.take_notes(), sid))
        assert [u[-1]["status"] for u in calls_seen.values()] == ["completed", "completed"]
        c.close()


def test_a_child_s_question_is_the_parent_s_and_its_grant_too(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        outside = tmp_path / "outside"
        outside.mkdir()
        sid = c.start()
        write = ("write", {"path": str(outside / "one.txt"), "content": "1\n"})
        server.replies.extend(
            [
                calls(task("TASK-A", "write outside")),
                calls(("write", {"path": str(outside / "two.txt"), "content": "2\n"})),
            ]
        )
        server.tasks["TASK-A"] = deque([calls(write)])
        asked: list[Frame] = []

        def allow_always(request: Frame) -> Any:
            assert request["method"] == "session/request_permission", request
            asked.append(request["params"])
            return {"outcome": {"outcome": "selected", "optionId": "allow_always"}}

        answer = converse(c, sid, "write both", allow_always)
        assert answer["result"] == {"stopReason": "end_turn"}, answer
        assert (outside / "one.txt").read_text() == "1\n"
        assert (outside / "two.txt").read_text() == "2\n"  # the parent was not asked again
        (question,) = asked
        assert question["sessionId"] == sid
        title = question["toolCall"]["title"]
        assert title.startswith("Write ") and title.endswith(" — Subagent 1 (write outside)")
        c.close()


def test_a_cancel_of_the_turn_cancels_every_child_and_its_command(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd = Path(c.scenario.vars["CWD"])
        sid = full(c)
        server.replies.extend([calls(task("TASK-A", "wait"), task("TASK-B", "wait too"))])
        for key in ("TASK-A", "TASK-B"):
            line = f"echo $$ > {key}.pid; sleep 30; echo late > {key}.late"
            server.tasks[key] = deque([calls(("bash", {"command": line}))])
        started = time.monotonic()

        def cancel_once_both_run() -> None:
            while not all((cwd / f"{k}.pid").exists() for k in ("TASK-A", "TASK-B")):
                time.sleep(0.02)
            c.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})

        threading.Thread(target=cancel_once_both_run, daemon=True).start()
        answer = converse(c, sid, "wait twice")
        assert answer["result"] == {"stopReason": "cancelled"}, answer
        assert time.monotonic() - started < 15
        for key in ("TASK-A", "TASK-B"):
            pid = int((cwd / f"{key}.pid").read_text())
            assert (
                not Path(f"/proc/{pid}").exists()
                or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
            )
            assert not (cwd / f"{key}.late").exists()
        ended = task_calls(updates(c.take_notes(), sid))
        assert [u[-1]["status"] for u in ended.values()] == ["failed", "failed"]
        # the next prompt goes on from a history where both calls are answered
        assert converse(c, sid, "again")["result"] == {"stopReason": "end_turn"}
        assert server.refused == []
        c.close()


def start_with_subagents(c: Client) -> str:
    caps = {**STATUS_OPT_IN, "subagents": {}}
    c.result("initialize", {"protocolVersion": 1, "clientCapabilities": caps})
    params = {"cwd": c.scenario.vars["CWD"], "mcpServers": []}
    sid: str = c.result("session/new", params)["sessionId"]
    c.result(
        "session/set_config_option",
        {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"},
    )
    return sid


def test_a_client_with_subagents_sees_each_child_as_a_session(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        sid = start_with_subagents(c)
        server.replies.extend([calls(task("TASK-A", "read the notes"))])
        server.tasks["TASK-A"] = deque(
            [calls(("read", {"path": "notes.txt"})), {"thought": "Read.", "text": "It says 42."}]
        )
        assert converse(c, sid, "what do the notes say")["result"] == {"stopReason": "end_turn"}
        notes = [n for n in c.take_notes() if n.get("method") == "session/update"]
        ids = [n["params"]["sessionId"] for n in notes]
        (child,) = {i for i in ids if i != sid}
        first_child = ids.index(child)
        announced = [
            k
            for k, n in enumerate(notes)
            if n["params"]["update"]["sessionUpdate"] == "subagent_update"
        ]
        opening = notes[announced[0]]["params"]
        assert announced[0] < first_child and opening["sessionId"] == sid
        assert opening["update"] == {
            "sessionUpdate": "subagent_update",
            "sessionId": child,
            "title": "Subagent 1 (read the notes)",
            "description": "TASK-A: look into it",
            "capabilities": {"cancel": {}},
            "state": {"state": "running"},
        }
        mine = updates(notes, child)
        kinds = [u["sessionUpdate"] for u in mine]
        assert kinds[:2] == ["session_message", "session_message_chunk"]
        assert mine[0]["senderSessionId"] == sid
        assert mine[1]["content"] == {"type": "text", "text": "TASK-A: look into it"}
        assert "tool_call" in kinds and "agent_message_chunk" in kinds
        said = "".join(
            u["content"]["text"] for u in mine if u["sessionUpdate"] == "agent_message_chunk"
        )
        assert said == "It says 42."
        closing = notes[announced[-1]]["params"]["update"]
        assert closing == {
            "sessionUpdate": "subagent_update",
            "sessionId": child,
            "state": {"state": "idle", "stopReason": "end_turn"},
        }
        assert announced[-1] > max(k for k, i in enumerate(ids) if i == child)
        # the parent's view: the message to the child, then the task call's result
        parent = [u["sessionUpdate"] for u in updates(notes, sid)]
        assert "session_message" in parent and "session_message_chunk" in parent
        c.close()


def test_a_client_may_cancel_one_child_and_the_parent_goes_on(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd = Path(c.scenario.vars["CWD"])
        sid = start_with_subagents(c)
        server.replies.extend([calls(task("TASK-A", "wait"), task("TASK-B", "answer"))])
        server.tasks["TASK-A"] = deque([calls(("bash", {"command": "touch started; sleep 30"}))])
        server.tasks["TASK-B"] = deque([{"thought": "Quick.", "text": "B answered."}])
        children: dict[str, str] = {}

        def cancel_the_waiting_one() -> None:
            while "Subagent 1 (wait)" not in children or not (cwd / "started").exists():
                time.sleep(0.02)
            child = children["Subagent 1 (wait)"]
            status = {"sessionId": sid}
            c.send({"jsonrpc": "2.0", "id": 999, "method": STATUS, "params": status})
            while not any(n.get("id") == 999 for n in list(c.notes)):
                time.sleep(0.02)
            c.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": child}})

        def note(frame: Frame) -> None:
            update = frame.get("params", {}).get("update", {})
            if update.get("sessionUpdate") == "subagent_update" and "title" in update:
                children[update["title"]] = update["sessionId"]

        threading.Thread(target=cancel_the_waiting_one, daemon=True).start()
        started = time.monotonic()
        answer = converse(c, sid, "two things", on_note=note)
        assert answer["result"] == {"stopReason": "end_turn"}, answer
        assert time.monotonic() - started < 15
        last = server.requests()[-1]["messages"]
        assert last[-2]["content"].startswith("the subagent was cancelled before it finished")
        assert last[-1]["content"] == "B answered."
        notes = c.take_notes()
        idle = [
            u
            for u in updates(notes, sid)
            if u["sessionUpdate"] == "subagent_update"
            and "state" in u
            and u["state"]["state"] == "idle"
        ]
        by_child = {u["sessionId"]: u["state"].get("stopReason") for u in idle}
        (during,) = [n["result"] for n in notes if n.get("id") == 999]
        waiting = {"sessionId": children["Subagent 1 (wait)"], "title": "Subagent 1 (wait)"}
        assert waiting in during["subagents"], during.get("subagents")
        assert "subagents" not in c.result(STATUS, {"sessionId": sid})
        assert by_child == {
            children["Subagent 1 (wait)"]: "cancelled",
            children["Subagent 2 (answer)"]: "end_turn",
        }
        c.close()


def test_a_load_replays_the_task_and_the_status_counts_the_child(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        sid = full(c)
        server.replies.extend([calls(task("TASK-A", "look"))])
        assert converse(c, sid, "look")["result"] == {"stopReason": "end_turn"}
        live = task_calls(updates(c.take_notes(), sid))
        status = c.result("_reasonix.io/session/status", {"sessionId": sid})
        tokens = sum(u["prompt_tokens"] + u["completion_tokens"] for u in server.usage)
        assert len(server.usage) == 3  # parent, child, parent
        prompted = sum(u["prompt_tokens"] for u in server.usage)
        turn, cumulative = status["usage"]["turn"], status["usage"]["cumulative"]
        assert (turn["totalTokens"], turn["promptTokens"]) == (tokens, prompted), turn
        assert cumulative["totalTokens"] == tokens and turn["costComplete"] is True
        assert float(turn["costQuote"]["original"]["amount"]) == turn["estimatedCost"] > 0
        c.close()

        again = agent(tmp_path / "again", config(server), c.scenario)
        again.result("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        params = {"sessionId": sid, "cwd": c.scenario.vars["CWD"], "mcpServers": []}
        again.result("session/load", params)
        replayed = task_calls(updates(again.take_notes(), sid))
        assert list(replayed) == list(live)
        (ended,) = [u[-1] for u in replayed.values()]
        assert ended["status"] == "completed" and texts(ended) == "Reply to: TASK-A: look into it"
        again.close()


def test_a_process_killed_while_a_child_runs_loads_with_the_task_interrupted(
    tmp_path: Path,
) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd = Path(c.scenario.vars["CWD"])
        sid = full(c)
        server.replies.extend([calls(task("TASK-A", "wait"))])
        server.tasks["TASK-A"] = deque([calls(("bash", {"command": "touch started; sleep 30"}))])
        c._id += 1
        params = {"sessionId": sid, "prompt": [{"type": "text", "text": "wait for it"}]}
        c.send({"jsonrpc": "2.0", "id": c._id, "method": "session/prompt", "params": params})
        deadline = time.monotonic() + 15
        while not (cwd / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        c.kill()

        again = Client(tmp_path, scenario=c.scenario)
        again.result("initialize", {"protocolVersion": 1})
        load = {"sessionId": sid, "cwd": str(cwd), "mcpServers": []}
        again.result("session/load", load)
        (ended,) = [u[-1] for u in task_calls(updates(again.take_notes(), sid)).values()]
        assert ended["status"] == "failed"
        assert converse(again, sid, "and now?")["result"] == {"stopReason": "end_turn"}
        assert server.refused == []  # the history the next request sent answers the task call
        last = server.requests()[-1]["messages"]
        answered = [m for m in last if m["role"] == "tool"]
        made = [
            t["id"] for m in last if m["role"] == "assistant" for t in m.get("tool_calls") or []
        ]
        assert [m["tool_call_id"] for m in answered] == made and len(made) == 1
        again.close()


def test_a_load_replays_the_child_s_session_to_a_client_that_takes_subagents(
    tmp_path: Path,
) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        sid = full(c)  # made by a client that does not take subagents
        server.replies.extend([calls(task("TASK-A", "read the notes"))])
        server.tasks["TASK-A"] = deque(
            [calls(("read", {"path": "notes.txt"})), {"thought": "Read.", "text": "It says 42."}]
        )
        assert converse(c, sid, "what do the notes say")["result"] == {"stopReason": "end_turn"}
        live = c.take_notes()
        assert {n["params"]["sessionId"] for n in live if "params" in n} == {sid}
        c.close()

        plain = Client(tmp_path, scenario=c.scenario)
        plain.result("initialize", {"protocolVersion": 1})
        load = {"sessionId": sid, "cwd": c.scenario.vars["CWD"], "mcpServers": []}
        plain.result("session/load", load)
        replayed = plain.take_notes()
        assert {n["params"]["sessionId"] for n in replayed if "params" in n} == {sid}
        assert not [
            u
            for u in updates(replayed, sid)
            if u["sessionUpdate"].startswith(("subagent", "session_message"))
        ]
        plain.close()

        taker = Client(tmp_path, scenario=c.scenario)
        caps = {"subagents": {}}
        taker.result("initialize", {"protocolVersion": 1, "clientCapabilities": caps})
        taker.result("session/load", load)
        notes = [n for n in taker.take_notes() if n.get("method") == "session/update"]
        ids = [n["params"]["sessionId"] for n in notes]
        (child,) = set(ids) - {sid}
        announced = [
            k
            for k, n in enumerate(notes)
            if n["params"]["update"]["sessionUpdate"] == "subagent_update"
        ]
        assert announced[0] < ids.index(child) and announced[-1] > max(
            k for k, i in enumerate(ids) if i == child
        )
        mine = updates(notes, child)
        kinds = [u["sessionUpdate"] for u in mine]
        assert kinds[:2] == ["session_message", "session_message_chunk"]
        assert "tool_call" in kinds and "user_message_chunk" not in kinds
        said = "".join(
            u["content"]["text"] for u in mine if u["sessionUpdate"] == "agent_message_chunk"
        )
        assert said == "It says 42."
        closing = notes[announced[-1]]["params"]["update"]
        assert closing["state"] == {"state": "idle", "stopReason": "end_turn"}
        taker.close()


def test_a_key_in_the_task_reaches_the_child_s_model_but_no_client(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        sid = start_with_subagents(c)
        words = f"TASK-A: call the API with {KEY} and report"
        server.replies.extend([calls(("task", {"prompt": words, "description": f"use {KEY}"}))])
        # (the child's model does not say the key: its own words are shown as they are)
        server.tasks["TASK-A"] = deque([{"thought": "Reporting.", "text": "Reported."}])
        assert converse(c, sid, "go")["result"] == {"stopReason": "end_turn"}
        child = next(b for b in server.requests() if server.task_of(b) == "TASK-A")
        assert child["messages"][1]["content"] == words  # the child's model has it as written
        wire = json.dumps(c.take_notes())
        assert KEY not in wire
        assert "TASK-A: call the API with [redacted] and report" in wire  # the rest survives
        assert "Subagent 1 (use [redacted])" in wire
        c.close()

        again = Client(tmp_path, scenario=c.scenario)
        caps = {"subagents": {}}
        again.result("initialize", {"protocolVersion": 1, "clientCapabilities": caps})
        load = {"sessionId": sid, "cwd": c.scenario.vars["CWD"], "mcpServers": []}
        again.result("session/load", load)
        replayed = json.dumps(again.take_notes())
        assert KEY not in replayed and "with [redacted] and report" in replayed
        again.close()


def test_at_once_bounds_the_children_and_zero_removes_the_tool(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server, "[subagents]\nat_once = 1\n"))
        sid = full(c)
        server.replies.extend([calls(task("TASK-A", "first"), task("TASK-B", "second"))])
        server.tasks["TASK-A"] = deque([calls(("bash", {"command": "sleep 0.3"}))])
        server.tasks["TASK-B"] = deque()
        assert converse(c, sid, "both")["result"] == {"stopReason": "end_turn"}
        order = [server.task_of(b) for b in server.requests()]
        assert order == [None, "TASK-A", "TASK-A", "TASK-B", None]  # B waited for A's slot
        c.close()

    with DeepSeek() as server:
        c = agent(tmp_path / "none", config(server, "[subagents]\nat_once = 0\n"))
        sid = full(c)
        assert converse(c, sid, "hello")["result"] == {"stopReason": "end_turn"}
        assert "task" not in {t["function"]["name"] for t in server.requests()[0]["tools"]}
        c.close()
