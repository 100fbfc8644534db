"""Subagents through a real `acp` against the DeepSeek stand-in: the `task` tool's child reads
and edits with a fresh context and its answer is the call's result; children of one reply run
at once and are answered in the order they were called; a child's permission question is the
parent session's and a grant it gets is the parent's; cancelling the turn cancels every child
(and its commands), cancelling one child lets the parent go on; a load replays the task; a
client that takes `subagents` sees each child as a session of its own, announced first."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.deepseek_server import DeepSeek
from tests.test_deepseek import agent, config
from tests.test_rewind import calls, full

Frame = dict[str, Any]


def task(key: str, description: str, rest: str = "") -> tuple[str, dict[str, Any]]:
    return ("task", {"prompt": f"{key}: {rest or 'look into it'}", "description": description})


def converse(
    c: Client,
    sid: str,
    text: str,
    on_request: Callable[[Frame], Any] | None = None,
    on_note: Callable[[Frame], None] | None = None,
) -> Frame:
    """A prompt's answer; the agent's requests answered by `on_request`, its notifications
    kept in `c.notes` and shown to `on_note` as they come."""
    c._id += 1
    prompt_id = c._id
    params = {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
    c.send({"jsonrpc": "2.0", "id": prompt_id, "method": "session/prompt", "params": params})
    while True:
        frame = c.agent.receive()
        if "method" in frame and "id" in frame:
            assert on_request is not None, frame
            c.send({"jsonrpc": "2.0", "id": frame["id"], "result": on_request(frame)})
        elif frame.get("id") == prompt_id:
            return frame
        else:
            c.notes.append(frame)
            if on_note is not None:
                on_note(frame)


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
        if u["sessionUpdate"] == "tool_call" and "Subagent" in u["title"]
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
        assert call["title"] == "Subagent: fix the spelling" and call["kind"] == "think"
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
