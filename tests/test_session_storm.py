"""A seeded random storm against a real `acp` process: interleaved session methods, cancels,
steers, permission questions answered late or never, hostile values, and faults (the store held
by another process, a second process deleting, SIGTERM and end of input with a fresh process
after). Invariants are checked on every frame and after the storm; a failure names its seed.

CI runs STORM_SEEDS seeds (default 3) of STORM_STEPS steps (default 120); `nox -s soak` runs
many more. Set STORM_SEED to replay one seed.
"""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.transcript import AgentProcess, Scenario

SEEDS = int(os.environ.get("STORM_SEEDS", "3"))
STEPS = int(os.environ.get("STORM_STEPS", "120"))
ANSWER_BOUND = 15.0  # seconds within which every request must be answered
LIVE_ONLY = {"agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update"}
SURROGATE = "\ud800"


def script_lines(rng: random.Random, n: int) -> str:
    """Model calls: slow text, todo_write, a bash sleep (asks permission), a write."""
    out = []
    for _ in range(n):
        pick = rng.random()
        if pick < 0.45:
            steps: list[dict[str, Any]] = [
                {"text": "working "},
                {"delay_ms": rng.choice([0, 50, 200])},
                {"text": "done"},
            ]
        elif pick < 0.65:
            steps = [{"tool_call": {"name": "todo_write", "arguments": {"todos": []}}}]
        elif pick < 0.85:
            steps = [{"tool_call": {"name": "bash", "arguments": {"command": "sleep 0.3"}}}]
        else:
            args = {"path": "out.txt", "content": "x"}
            steps = [{"delay_ms": 50}, {"tool_call": {"name": "write", "arguments": args}}]
        out.append(json.dumps({"steps": steps}))
    return "\n".join(out) + "\n"


@dataclass
class Pending:
    method: str
    session: str | None
    sent: float
    hostile: bool = False


@dataclass
class Storm:
    rng: random.Random
    scenario: Scenario
    args: list[str]
    agent: AgentProcess | None = None
    next_id: int = 0
    pending: dict[int, Pending] = field(default_factory=dict)
    sessions: set[str] = field(default_factory=set)  # live in the current process
    stored: set[str] = field(default_factory=set)  # exist in the store
    gone: set[str] = field(default_factory=set)  # answered closed or deleted: silent from now
    # session → its unanswered prompts: a second one sent before the first's answer was read
    # may be the one that runs, once the first has ended
    prompting: dict[str, set[int]] = field(default_factory=dict)
    loading: dict[str, int] = field(default_factory=dict)  # session → open load id
    open_calls: dict[str, set[str]] = field(default_factory=dict)  # session → unfinished calls
    questions: list[int] = field(default_factory=list)  # the agent's unanswered requests
    maybe_deleted: set[str] = field(default_factory=set)  # a delete answered -32800
    log: list[str] = field(default_factory=list)
    # processes of the "store held" fault: the final prompts wait for them to let go
    holders: list[subprocess.Popen[bytes]] = field(default_factory=list)

    # -- process ----------------------------------------------------------------------------

    def start(self) -> None:
        self.agent = AgentProcess(self.args, self.scenario.env)
        self.sessions.clear()
        self.prompting.clear()
        self.loading.clear()
        self.questions.clear()
        self.call("initialize", {"protocolVersion": 1})

    def send(self, frame: dict[str, Any] | bytes) -> None:
        assert self.agent is not None
        data = frame if isinstance(frame, bytes) else json.dumps(frame).encode() + b"\n"
        self.agent.send(data)

    def call(self, method: str, params: dict[str, Any], hostile: bool = False) -> int:
        self.next_id += 1
        session = params.get("sessionId")
        self.pending[self.next_id] = Pending(method, session, time.monotonic(), hostile)
        frame = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        data = json.dumps(frame).encode() + b"\n"  # lone surrogates pass as \ud800 escapes
        self.send(data)
        if method == "session/prompt" and isinstance(session, str):
            self.prompting.setdefault(session, set()).add(self.next_id)
        if method == "session/load" and isinstance(session, str):
            self.loading[session] = self.next_id
        if method in ("session/load", "session/resume") and isinstance(session, str):
            self.gone.discard(session)  # it may speak again once opened
        self.log.append(f"{self.next_id} {method} {session}")
        return self.next_id

    # -- frames ------------------------------------------------------------------------------

    def pump(self, wait: float = 0.0) -> None:
        """Read what the agent has sent (waiting up to `wait` for the first), checking each."""
        assert self.agent is not None
        deadline = time.monotonic() + wait
        while True:
            timeout = max(0.0, deadline - time.monotonic())
            try:
                line = (
                    self.agent.lines.get(timeout=timeout)
                    if timeout
                    else self.agent.lines.get_nowait()
                )
            except queue.Empty:
                break
            if line is None:
                break
            frame = json.loads(line)  # a non-JSON line on stdout fails here
            self.check(frame)
        stale = [i for i, p in self.pending.items() if time.monotonic() - p.sent > ANSWER_BOUND]
        assert not stale, (
            f"not answered within {ANSWER_BOUND} s: {[self.pending[i] for i in stale]}"
        )

    def check(self, frame: dict[str, Any]) -> None:
        if "method" in frame and "id" in frame:
            self.questions.append(frame["id"])
            return
        if "method" in frame:
            self.check_update(frame)
            return
        request_id = frame.get("id")
        assert request_id in self.pending, f"answer to {request_id!r}, twice or never asked"
        asked = self.pending.pop(request_id)
        error = frame.get("error")
        if error is not None and asked.hostile and error["code"] == -32603:
            # Only an upstream failure may answer bad input with -32603: the store held by the
            # other process of a fault, never the input itself.
            assert "locked" in error["message"], (asked, error)
        self.answered(request_id, asked, frame.get("result"), error)

    def check_update(self, frame: dict[str, Any]) -> None:
        if frame["method"] != "session/update":
            return
        sid = frame["params"]["sessionId"]
        update = frame["params"]["update"]
        kind = update["sessionUpdate"]
        assert sid not in self.gone, f"update for {sid} after its close or delete: {update}"
        if kind == "user_message_chunk":
            assert sid in self.loading, f"live echo of the user's words: {frame}"
        if kind in LIVE_ONLY:
            assert self.prompting.get(sid) or sid in self.loading, (
                f"update outside a prompt: {frame}"
            )
        if sid in self.loading:
            return
        calls = self.open_calls.setdefault(sid, set())
        if kind == "tool_call":
            calls.add(update["toolCallId"])
        elif kind == "tool_call_update" and update.get("status") in ("completed", "failed"):
            calls.discard(update["toolCallId"])

    def reopening(self, sid: str, since: int) -> bool:
        """Whether a load or resume of `sid` sent after request `since` is still unanswered:
        requests run concurrently, so it may reopen the session after the close's answer and
        replay it then."""
        return any(
            rid > since and p.session == sid and p.method in ("session/load", "session/resume")
            for rid, p in self.pending.items()
        )

    def answered(
        self, request_id: int, asked: Pending, result: Any, error: dict[str, Any] | None
    ) -> None:
        sid = asked.session
        if asked.method == "session/new" and result:
            self.sessions.add(result["sessionId"])
            self.stored.add(result["sessionId"])
        elif asked.method in ("session/load", "session/resume") and sid:
            if self.loading.get(sid) == request_id:
                self.loading.pop(sid)
            if result is not None:
                self.sessions.add(sid)
                self.gone.discard(sid)
        elif asked.method == "session/prompt" and sid:
            open_prompts = self.prompting.get(sid, set())
            open_prompts.discard(request_id)
            if not open_prompts:
                self.prompting.pop(sid, None)
            if result is not None:  # a turn ran and ended: every tool call it began has ended
                left = self.open_calls.pop(sid, set())
                assert not left, f"tool calls {left} not finished before the prompt's answer"
        elif asked.method in ("session/close", "session/delete") and sid and not error:
            self.sessions.discard(sid)
            if not self.reopening(sid, request_id):
                self.gone.add(sid)
            if asked.method == "session/delete":
                self.stored.discard(sid)
        elif asked.method in ("session/close", "session/delete") and sid:
            # Cancelled (-32800): the close or delete still finishes, shielded; it may no longer
            # be prompted, and nothing more may be said for it once it has ended.
            self.sessions.discard(sid)
            if asked.method == "session/delete":
                self.maybe_deleted.add(sid)


def actions(storm: Storm) -> None:
    """One random step."""
    rng = storm.rng
    live = sorted(storm.sessions)
    sid = rng.choice(live) if live else None
    roll = rng.random()
    cwd = storm.scenario.vars["CWD"]
    if not live or roll < 0.08:
        storm.call("session/new", {"cwd": cwd, "mcpServers": []})
    elif roll < 0.30:
        text = rng.choice(["go", "- a\n- b", "/help", "/status", "again"])
        storm.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})
    elif roll < 0.38:
        storm.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
    elif roll < 0.44 and storm.pending:
        target = rng.choice(sorted(storm.pending))
        storm.send(
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": target}}
        )
    elif roll < 0.54 and storm.questions:
        question = storm.questions.pop(rng.randrange(len(storm.questions)))
        outcome = rng.choice(
            [{"outcome": "cancelled"}, {"outcome": "selected", "optionId": "allow_once"}]
        )
        storm.send({"jsonrpc": "2.0", "id": question, "result": {"outcome": outcome}})
    elif roll < 0.60:
        storm.call(
            "_reasonix.io/session/steer",
            {"sessionId": sid, "prompt": [{"type": "text", "text": "steer"}]},
        )
    elif roll < 0.64:
        params = {"sessionId": sid, "text": "later", "intent": rng.choice(["followup", "steer"])}
        storm.call("_reasonix.io/session/inbox/enqueue", params)
    elif roll < 0.68:
        storm.call("session/set_mode", {"sessionId": sid, "modeId": rng.choice(["plan", "normal"])})
    elif roll < 0.72:
        value = rng.choice(["workspace-write", "danger-full-access", "read-only"])
        params = {"sessionId": sid, "configId": "tool_approval", "value": value}
        storm.call("session/set_config_option", params)
    elif roll < 0.75:
        storm.call("_reasonix.io/session/reloadExtensions", {"sessionId": sid})
    elif roll < 0.80:
        storm.call("session/close", {"sessionId": sid})
    elif roll < 0.83:
        storm.call("session/delete", {"sessionId": sid})
    elif roll < 0.89 and storm.stored:
        target = rng.choice(sorted(storm.stored))
        method = rng.choice(["session/load", "session/resume"])
        storm.call(method, {"sessionId": target, "cwd": cwd, "mcpServers": []})
    elif roll < 0.95:
        hostile(storm, sid)
    else:
        fault(storm)


def hostile(storm: Storm, sid: str | None) -> None:
    rng = storm.rng
    pick = rng.randrange(4)
    if pick == 0:
        block = {"type": "text", "text": "cut " + SURROGATE}
        storm.call("session/prompt", {"sessionId": sid, "prompt": [block]}, hostile=True)
    elif pick == 1:
        storm.call("session/prompt", {"sessionId": "no-such-session", "prompt": []}, hostile=True)
    elif pick == 2:
        block = {"type": "text", "text": "x" * 1_000_000}
        storm.call(
            "_reasonix.io/session/steer", {"sessionId": sid, "prompt": [block]}, hostile=True
        )
    else:
        storm.call(
            "session/load", {"sessionId": "../etc", "cwd": "/", "mcpServers": []}, hostile=True
        )


HOLD = textwrap.dedent(
    """
    import sqlite3, sys, time
    db = sqlite3.connect(sys.argv[1], isolation_level=None)
    db.execute("BEGIN IMMEDIATE")
    time.sleep(float(sys.argv[2]))
    db.execute("ROLLBACK")
    """
)


def fault(storm: Storm) -> None:
    rng = storm.rng
    pick = rng.randrange(4)
    data = Path(storm.scenario.vars["DATA"])
    if pick == 0:  # the store held by another process for a moment
        store = next(iter(sorted(data.glob("*.sqlite3"))), None)
        if store is not None:
            storm.holders.append(subprocess.Popen([sys.executable, "-c", HOLD, str(store), "0.6"]))
    elif pick == 1 and storm.stored:  # another process deletes a session
        other = AgentProcess(storm.args, storm.scenario.env)
        other.send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {"protocolVersion": 1},
                }
            ).encode()
            + b"\n"
        )
        target = rng.choice(sorted(storm.stored))
        params = {"sessionId": target}
        other.send(
            json.dumps(
                {"jsonrpc": "2.0", "id": 2, "method": "session/delete", "params": params}
            ).encode()
            + b"\n"
        )
        other.receive()
        reply = other.receive()
        assert reply.get("id") == 2
        if "result" in reply:
            storm.stored.discard(target)
        else:  # live in the storm's process, or its store busy past the timeout
            error = reply["error"]
            assert error["code"] == -32600 or "locked" in error["message"], reply
        other.finish()
    else:  # SIGTERM or end of input, then a fresh process on the same data dir
        restart(storm, sigterm=pick == 2)


def restart(storm: Storm, sigterm: bool) -> None:
    assert storm.agent is not None
    if sigterm:
        storm.agent.proc.send_signal(signal.SIGTERM)
    else:
        assert storm.agent.proc.stdin is not None
        storm.agent.proc.stdin.close()
    code = storm.agent.proc.wait(timeout=10)
    assert code == 0, f"exit {code}: {storm.agent.stderr.decode(errors='replace')[-2000:]}"
    storm.pump()
    # Whatever was in flight died with the process: it gets no answer from the next one. A
    # delete in flight still finished (shielded, the process waits for it before exiting).
    for asked in storm.pending.values():
        if asked.method == "session/delete" and isinstance(asked.session, str):
            storm.maybe_deleted.add(asked.session)
    storm.pending.clear()
    storm.gone |= storm.sessions
    storm.open_calls.clear()
    storm.start()


def settle(storm: Storm) -> None:
    """Answer every question, wait for every answer; then every surviving session prompts."""
    deadline = time.monotonic() + ANSWER_BOUND
    while storm.pending and time.monotonic() < deadline:
        while storm.questions:
            question = storm.questions.pop()
            outcome = {"outcome": "selected", "optionId": "allow_once"}
            storm.send({"jsonrpc": "2.0", "id": question, "result": {"outcome": outcome}})
        storm.pump(0.2)
    assert not storm.pending, f"never answered: {storm.pending}"
    # A holder started late in the storm may still hold the store (a loaded machine starts it
    # late): what the final prompts judge is the sessions, not a fault still under way.
    for holder in storm.holders:
        holder.wait(30)
    for sid in sorted(storm.stored):
        if sid not in storm.sessions:
            cwd = storm.scenario.vars["CWD"]
            rid = storm.call("session/resume", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
            opened = wait_for(storm, rid)
            if "error" in opened and sid in storm.maybe_deleted:
                continue  # its cancelled delete went through
            assert "error" not in opened, (sid, opened)
        storm.call(
            "session/set_config_option",
            {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"},
        )
        rid = storm.call(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "final"}]}
        )
        result = wait_for(storm, rid)
        assert result == {"stopReason": "end_turn"}, (sid, result)


def wait_for(storm: Storm, request_id: int) -> Any:
    results: dict[int, Any] = {}
    original = storm.answered

    def keep(rid: int, asked: Pending, result: Any, error: Any) -> None:
        results[rid] = result if error is None else {"error": error}
        original(rid, asked, result, error)

    storm.answered = keep  # type: ignore[method-assign]
    try:
        deadline = time.monotonic() + ANSWER_BOUND
        while request_id not in results:
            assert time.monotonic() < deadline, f"no answer to {request_id}"
            while storm.questions:
                question = storm.questions.pop()
                outcome = {"outcome": "selected", "optionId": "allow_once"}
                storm.send({"jsonrpc": "2.0", "id": question, "result": {"outcome": outcome}})
            storm.pump(0.1)
    finally:
        storm.answered = original  # type: ignore[method-assign]
    return results[request_id]


def seeds() -> list[int]:
    if "STORM_SEED" in os.environ:
        return [int(os.environ["STORM_SEED"])]
    return list(range(1, SEEDS + 1))


@pytest.mark.parametrize("seed", seeds())
def test_storm(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    scenario = Scenario(tmp_path)
    script = tmp_path / "script.jsonl"
    script.write_text(script_lines(rng, 400), encoding="utf-8")
    config = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text("max_steps = 12\n", encoding="utf-8")
    scenario.env["REASONIX_ACP_SQLITE_BUSY_MS"] = "200"
    storm = Storm(rng, scenario, ["--model", "offline", "--script", str(script)])
    print(f"storm seed {seed} ({STEPS} steps); replay with STORM_SEED={seed}")
    storm.start()
    try:
        for _ in range(STEPS):
            actions(storm)
            storm.pump(rng.choice([0.0, 0.02, 0.1]))
        settle(storm)
    except AssertionError as exc:
        tail = "\n".join(storm.log[-30:])
        raise AssertionError(f"seed {seed}: {exc}\nlast requests:\n{tail}") from None
    finally:
        if storm.agent is not None and storm.agent.proc.poll() is None:
            storm.agent.proc.kill()
