"""Background commands through a real `acp`: `bash` with `run_in_background` returns at once,
`bash_output` reads what is new, `bash_kill` stops the whole group; a command belongs to its
session (another cannot read or stop it), closing the session or the agent's exit stops it
(no orphan), at most eight run at once, and one that ends on its own is told to the model at
its next request (tests/deepseek_server.py records what the model was sent)."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from tests.client import Client
from tests.deepseek_server import KEY, DeepSeek
from tests.test_deepseek import agent, config, prompt
from tests.transcript import Scenario

SERVE = "echo tick; echo $$ > pid.txt; exec sleep 30"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"steps": [{"tool_call": {"name": name, "arguments": arguments}}]}


def full(c: Client, another: bool = False) -> str:
    """A session whose commands run unasked (the gate is not what these tests are about)."""
    if another:
        opened = {"cwd": c.scenario.vars["CWD"], "mcpServers": []}
        sid: str = c.result("session/new", opened)["sessionId"]
    else:
        sid = c.start()
    params = {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"}
    c.result("session/set_config_option", params)
    return sid


def offline(tmp_path: Path, steps: list[dict[str, Any]]) -> Client:
    tmp_path.mkdir(parents=True, exist_ok=True)
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    return Client(tmp_path, "--model", "offline", "--script", str(script))


def go(c: Client, sid: str, text: str = "go") -> list[dict[str, Any]]:
    """One prompt; its tool calls' last updates, in order."""
    c.notes.clear()
    answer = c.call(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
    )
    assert answer["result"]["stopReason"] == "end_turn", answer
    ends: dict[str, dict[str, Any]] = {}
    for note in c.notes:
        update = note.get("params", {}).get("update", {})
        if update.get("sessionUpdate") in ("tool_call", "tool_call_update"):
            ends.setdefault(update["toolCallId"], {}).update(update)
    return list(ends.values())


def text_of(call: dict[str, Any]) -> str:
    return "".join(
        c["content"]["text"] for c in call.get("content") or [] if c["type"] == "content"
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for our purpose only once reaped: it is not ours to reap here
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split(") ", 1)[1][0] != "Z"


def gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def pid_in(ws: Path) -> int:
    deadline = time.monotonic() + 5
    while not (ws / "pid.txt").exists() or not (ws / "pid.txt").read_text().strip():
        assert time.monotonic() < deadline, "the command did not start"
        time.sleep(0.02)
    return int((ws / "pid.txt").read_text())


def test_started_read_and_killed_without_holding_the_turn(tmp_path: Path) -> None:
    c = offline(
        tmp_path,
        [
            call("bash", command=SERVE, run_in_background=True),
            {"steps": [{"text": "started"}]},
            call("bash_output", id="bg-1"),
            {"steps": [{"text": "read"}]},
            call("bash_kill", id="bg-1"),
            {"steps": [{"text": "stopped"}]},
            call("bash_output", id="bg-1"),
            {"steps": [{"text": "read again"}]},
        ],
    )
    sid = full(c)
    start = time.monotonic()
    (started,) = go(c, sid)
    assert time.monotonic() - start < 5  # the turn did not wait for `sleep 30`
    assert started["status"] == "completed"
    assert started["title"] == f"Run {SERVE} in the background"
    assert text_of(started).startswith(f"Started background command bg-1: {SERVE}\n")
    pid = pid_in(tmp_path / "ws")
    time.sleep(0.3)
    status = c.result("_reasonix.io/session/status", {"sessionId": sid})
    assert status["backgroundCommands"] == [{"id": "bg-1", "command": SERVE}]
    (output,) = go(c, sid)
    assert text_of(output) == "tick\n[bg-1: running]"
    assert alive(pid)
    (killed,) = go(c, sid)
    assert text_of(killed) == "bg-1 stopped: killed by signal 15"
    assert not alive(pid)
    (after,) = go(c, sid)
    assert text_of(after) == "(no new output)\n[bg-1: killed by signal 15]"
    assert "backgroundCommands" not in c.result("_reasonix.io/session/status", {"sessionId": sid})
    assert c.close() == 0


def test_a_command_belongs_to_its_session_and_dies_with_it(tmp_path: Path) -> None:
    c = offline(
        tmp_path,
        [
            call("bash", command=SERVE, run_in_background=True),
            {"steps": [{"text": "started"}]},
            call("bash_output", id="bg-1"),
            {"steps": [{"text": "not mine"}]},
            call("bash_kill", id="bg-1"),
            {"steps": [{"text": "not mine either"}]},
        ],
    )
    first = full(c)
    go(c, first)
    pid = pid_in(tmp_path / "ws")
    other = full(c, another=True)
    (read,) = go(c, other)
    (kill,) = go(c, other)
    assert [read["status"], kill["status"]] == ["failed", "failed"]
    assert text_of(read) == text_of(kill) == "no background command 'bg-1' in this session"
    assert alive(pid)
    c.result("session/close", {"sessionId": first})
    assert not alive(pid)
    assert c.close() == 0


def test_the_agents_exit_leaves_no_background_command_behind(tmp_path: Path) -> None:
    for how in ("eof", "sigterm"):
        here = tmp_path / how
        c = offline(here, [call("bash", command=SERVE, run_in_background=True)])
        sid = full(c)
        go(c, sid)
        pid = pid_in(here / "ws")
        start = time.monotonic()
        if how == "sigterm":
            c.agent.proc.send_signal(signal.SIGTERM)
        assert c.close() == 0
        assert time.monotonic() - start <= 2.5
        assert not alive(pid), how


def test_at_most_eight_run_at_once(tmp_path: Path) -> None:
    steps = [call("bash", command="exec sleep 30", run_in_background=True) for _ in range(9)]
    c = offline(tmp_path, [*steps, {"steps": [{"text": "enough"}]}])
    sid = full(c)
    calls = go(c, sid)
    assert [x["status"] for x in calls] == ["completed"] * 8 + ["failed"]
    assert text_of(calls[-1]) == (
        "8 background commands are running in this session already: stop one with bash_kill first"
    )
    answer = c.call(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "/status"}]}
    )
    assert answer["result"]["stopReason"] == "end_turn"
    shown = "".join(
        n["params"]["update"]["content"]["text"]
        for n in c.notes
        if n.get("params", {}).get("update", {}).get("sessionUpdate") == "agent_message_chunk"
    )
    assert "background commands: bg-1 (exec sleep 30), bg-2 (exec sleep 30)" in shown
    assert c.close() == 0


def test_one_that_ends_on_its_own_is_told_at_the_next_request(tmp_path: Path) -> None:
    with DeepSeek() as server:
        started = {
            "name": "bash",
            "arguments": {"command": "sleep 1; echo hi", "run_in_background": True},
        }
        server.replies.extend(
            [
                {"thought": "Start it.", "tool_calls": [started]},
                {
                    "thought": "Wait.",
                    "tool_calls": [{"name": "bash", "arguments": {"command": "sleep 2"}}],
                },
                {"thought": "It ended.", "text": "Done."},
            ]
        )
        c = agent(tmp_path, config(server))
        sid = full(c)
        assert prompt(c, sid, "start it")["result"] == {"stopReason": "end_turn"}
        assert c.close() == 0
    assert server.refused == []
    last = server.requests()[-1]["messages"]
    assert last[-1] == {
        "role": "user",
        "content": "[background command bg-1 (sleep 1; echo hi) exited 0]",
    }
    assert last[-2]["role"] == "tool"
    told = [m for r in server.requests() for m in r["messages"] if "exited 0]" in str(m["content"])]
    assert len(told) == 1  # told once, in the last request (where it stays in the history)


@pytest.mark.parametrize("end", ["session/close", "eof"])
def test_what_a_plain_command_leaves_running_stops_with_the_session(
    tmp_path: Path, end: str
) -> None:
    c = offline(tmp_path, [call("bash", command="sleep 30 & echo $! > pid.txt"), {"steps": []}])
    sid = full(c)
    (ran,) = go(c, sid)
    assert "a background process is still running" in text_of(ran)
    pid = pid_in(tmp_path / "ws")
    assert alive(pid)
    if end == "session/close":
        c.result("session/close", {"sessionId": sid})
        # Its shell was reaped long ago, so the group is sent its signals without a wait on
        # it: the kernel ends the process a moment after the answer.
        assert gone(pid, within=2)
    assert c.close() == 0
    assert gone(pid, within=2)


def _pieces(secret: str, size: int = 12) -> list[str]:
    """Every `size`-character stretch of `secret`: a half of it shown somewhere shows some."""
    return [secret[i : i + size] for i in range(len(secret) - size + 1)]


def test_a_key_across_two_reads_reaches_neither_the_model_nor_the_client(
    tmp_path: Path,
) -> None:
    """The command prints padding so that the key it prints straddles the first read's end
    (READ_CAP bytes): the model reads the output in two calls, and neither the model, nor the
    client, nor the store, nor the session's temp directory sees any part of the key; every
    other byte of the output reaches the model."""
    read_cap = 32 * 1024
    line = f"DEEPSEEK_API_KEY={KEY}\n"
    pad = read_cap - len("DEEPSEEK_API_KEY=") - len(KEY) // 2  # the key's middle at the boundary
    command = f"head -c {pad} /dev/zero | tr '\\0' x; cat .env"
    read = {"name": "bash_output", "arguments": {"id": "bg-1"}}
    with DeepSeek() as server:
        server.replies.extend(
            [
                {
                    "thought": "Start it.",
                    "tool_calls": [
                        {
                            "name": "bash",
                            "arguments": {"command": command, "run_in_background": True},
                        }
                    ],
                },
                {"thought": "Started.", "text": "Started."},
                {"thought": "Read.", "tool_calls": [read]},
                {"thought": "Read on.", "tool_calls": [read]},
                {"thought": "Done.", "text": "Read."},
            ]
        )
        scenario = Scenario(tmp_path)
        scenario.env["TMPDIR"] = str(tmp_path / "tmp")
        (tmp_path / "tmp").mkdir()
        c = agent(tmp_path, config(server), scenario)
        (tmp_path / "ws" / ".env").write_text(line + "PLAIN=keep-me\n", encoding="utf-8")
        sid = full(c)
        assert prompt(c, sid, "start it")["result"] == {"stopReason": "end_turn"}
        deadline = time.monotonic() + 10
        while c.result("_reasonix.io/session/status", {"sessionId": sid}).get("backgroundCommands"):
            assert time.monotonic() < deadline, "the command did not end"
            time.sleep(0.05)
        c.notes.clear()
        assert prompt(c, sid, "read it")["result"] == {"stopReason": "end_turn"}
        reads = [
            u
            for u in (n["params"]["update"] for n in c.notes if n.get("method") == "session/update")
            if u.get("status") == "completed"
        ]
        frames = json.dumps(c.notes)
        assert c.close() == 0
    assert server.refused == []
    first, second = (text_of(r) for r in reads)
    assert first.endswith(" more bytes: read again]") and second.endswith("[bg-1: exited 0]")
    shown = first.rsplit("\n", 1)[0] + second.rsplit("\n", 1)[0]
    assert shown.count("x") == pad and "DEEPSEEK_API_KEY=" in shown
    assert "[redacted]\nPLAIN=keep-me" in shown
    sent = [m["content"] for r in server.requests() for m in r["messages"] if m["role"] == "tool"]
    assert sum(s.count("x") for s in sent[-2:]) >= pad * 0.9  # the model read it (cut to its cap)
    assert "DEEPSEEK_API_KEY=[redacted]\nPLAI" in sent[-2] and sent[-1].startswith("N=keep-me\n")
    requests = b"".join(server.bodies).decode()
    stored = b"".join(p.read_bytes() for p in (tmp_path / "data").rglob("*") if p.is_file())
    temp = b"".join(p.read_bytes() for p in (tmp_path / "tmp").rglob("*") if p.is_file())
    assert b"[redacted]\\nPLAI" in stored and b"N=keep-me" in stored  # both reads are kept
    assert b"[redacted]\nPLAIN=keep-me" in temp  # the command's log
    for piece in _pieces(KEY):
        assert piece not in requests, f"the model was sent {piece!r}"
        assert piece not in frames, f"the client was sent {piece!r}"
        assert piece.encode() not in stored, f"the store keeps {piece!r}"
        assert piece.encode() not in temp, f"the session's temp keeps {piece!r}"


def test_an_unfinished_line_waits_and_the_read_says_how_many_bytes(tmp_path: Path) -> None:
    """With a key known, the end of a line not finished yet could begin it: the read shows
    the finished lines and the words before, says how many bytes wait, and the rest shows
    once the command ends."""
    read = {"name": "bash_output", "arguments": {"id": "bg-1"}}
    started = {
        "command": "printf 'ready\\nprogress 50%%'; exec sleep 30",
        "run_in_background": True,
    }
    with DeepSeek() as server:
        server.replies.extend(
            [
                {"thought": "Start.", "tool_calls": [{"name": "bash", "arguments": started}]},
                {"thought": "Started.", "text": "Started."},
                {"thought": "Read.", "tool_calls": [read]},
                {
                    "thought": "Stop.",
                    "tool_calls": [{"name": "bash_kill", "arguments": {"id": "bg-1"}}],
                },
                {"thought": "Read.", "tool_calls": [read]},
                {"thought": "Done.", "text": "Done."},
            ]
        )
        c = agent(tmp_path, config(server))
        sid = full(c)
        assert prompt(c, sid, "start it")["result"] == {"stopReason": "end_turn"}
        time.sleep(0.5)
        c.notes.clear()
        assert prompt(c, sid, "read, stop, read")["result"] == {"stopReason": "end_turn"}
        ends = [
            text_of(u)
            for u in (n["params"]["update"] for n in c.notes if n.get("method") == "session/update")
            if u.get("status") == "completed"
        ]
        assert c.close() == 0
    assert ends == [
        "ready\nprogress \n[bg-1: running] [3 more bytes, a line not finished yet: shown once it is]",
        "bg-1 stopped: killed by signal 15",
        "50%\n[bg-1: killed by signal 15]",
    ]
