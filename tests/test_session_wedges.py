"""Regression tests for the session-core wedges (fixed by 8fe1cf2 and 361403b): each drives a
real `acp` over pipes into the state that used to wedge (a cancel landing in a hook, an action or
a permission question; a close or delete cancelled midway; a load, steer or reload while a turn
runs) and checks that the session answers and goes on.

Every wait is bounded: frames are read with a deadline and a missing answer fails the test.
The plugin the tests use is written into the test's own directory (a plugin under
tests/plugins/ would change what `test_the_test_plugins_load` discovers).
"""

from __future__ import annotations

import json
import queue
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.client import Client
from tests.transcript import Scenario

MCP = Path(__file__).parent / "mcp_servers"
RELOAD = "_reasonix.io/session/reloadExtensions"
STEER = "_reasonix.io/session/steer"
INBOX_LIST = "_reasonix.io/session/inbox/list"
ENQUEUE = "_reasonix.io/session/inbox/enqueue"
END_TURN = {"stopReason": "end_turn"}
CANCELLED = {"stopReason": "cancelled"}
WAIT = 6.0  # the bound for one expected answer
Frame = dict[str, Any]


# -- a bounded view of one agent process ------------------------------------------------------


class Wire:
    """One `acp` process: requests sent without waiting, every frame kept in order, answers
    picked out by id, and every read bounded by a deadline."""

    def __init__(self, tmp: Path, args: list[str], scenario: Scenario) -> None:
        self.client = Client(tmp, *args, scenario=scenario)
        self.scenario = scenario
        self.cwd = scenario.vars["CWD"]
        self.seen: list[Frame] = []
        self._id = 0

    def send(self, msg: Frame) -> None:
        self.client.send(msg)

    def request(self, method: str, params: Frame) -> int:
        self._id += 1
        self.send({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params})
        return self._id

    def notify(self, method: str, params: Frame) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def reply(self, request_id: Any, result: Any) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def _read(self, timeout: float) -> Frame | None:
        try:
            line = self.client.agent.lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return None
        if line is None:
            stderr = self.client.agent.stderr.decode(errors="replace")
            raise AssertionError(f"agent closed stdout; stderr:\n{stderr[-3000:]}")
        frame: Frame = json.loads(line)
        self.seen.append(frame)
        return frame

    def wait_for(
        self, wanted: Callable[[Frame], bool], what: str, timeout: float = WAIT, since: int = 0
    ) -> Frame:
        """The first frame from `seen[since:]` on that `wanted` accepts, read with a deadline."""
        for old in self.seen[since:]:
            if wanted(old):
                return old
        deadline = time.monotonic() + timeout
        while True:
            frame = self._read(deadline - time.monotonic())
            if frame is None:
                raise AssertionError(
                    f"no {what} within {timeout:g} s; last frames: {self.seen[-5:]}"
                )
            if wanted(frame):
                return frame

    def answer(self, request_id: int, timeout: float = WAIT) -> Frame:
        """The response to our request `request_id`."""
        return self.wait_for(
            lambda f: f.get("id") == request_id and "method" not in f,
            f"answer to request {request_id}",
            timeout,
        )

    def call(self, method: str, params: Frame, timeout: float = WAIT) -> Frame:
        return self.answer(self.request(method, params), timeout)

    def quiet(self, seconds: float) -> None:
        """Read whatever arrives during `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self._read(deadline - time.monotonic())

    def updates(self, sid: str, since: int = 0) -> list[Frame]:
        return [
            f["params"]["update"]
            for f in self.seen[since:]
            if f.get("method") == "session/update" and f["params"]["sessionId"] == sid
        ]

    def texts(self, sid: str, since: int = 0, kind: str = "agent_message_chunk") -> str:
        return "".join(
            u["content"]["text"] for u in self.updates(sid, since) if u["sessionUpdate"] == kind
        )

    def start(self, servers: list[Frame] | None = None) -> str:
        assert "result" in self.call("initialize", {"protocolVersion": 1})
        return self.new(servers)

    def new(self, servers: list[Frame] | None = None) -> str:
        frame = self.call("session/new", {"cwd": self.cwd, "mcpServers": servers or []})
        assert "result" in frame, frame
        sid: str = frame["result"]["sessionId"]
        return sid

    def prompt(self, sid: str, text: str) -> int:
        return self.request(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
        )

    def full_access(self, sid: str) -> None:
        params = {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"}
        assert "result" in self.call("session/set_config_option", params)

    def load(self, sid: str, servers: list[Frame] | None = None) -> int:
        params = {"sessionId": sid, "cwd": self.cwd, "mcpServers": servers or []}
        return self.request("session/load", params)

    def finish(self) -> int:
        code, rest = self.client.agent.finish()
        assert all("method" in json.loads(r) for r in rest), rest
        return code


Spawn = Callable[..., Wire]


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Spawn]:
    """`spawn(steps=[...], config="...", scenario=...)`: an `acp` on the offline model, with
    its script (one list of steps per model call) and config.toml; killed at teardown."""
    wires: list[Wire] = []

    def make(
        steps: list[list[Frame]] | None = None,
        config: str = "",
        scenario: Scenario | None = None,
        args: list[str] | None = None,
    ) -> Wire:
        scenario = scenario or Scenario(tmp_path)
        config_dir = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
        config_dir.mkdir(parents=True, exist_ok=True)
        if config:
            (config_dir / "config.toml").write_text(config, encoding="utf-8")
        cli = args or ["--model", "offline"]
        if steps is not None:
            script = tmp_path / f"script-{len(wires)}.jsonl"
            lines = [json.dumps({"steps": s}) for s in steps]
            script.write_text("\n".join(lines) + "\n", encoding="utf-8")
            cli = [*cli, "--script", str(script)]
        wire = Wire(tmp_path, cli, scenario)
        wires.append(wire)
        return wire

    yield make
    for wire in wires:
        proc = wire.client.agent.proc
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def is_request(method: str) -> Callable[[Frame], bool]:
    return lambda f: f.get("method") == method and "id" in f


def is_update(sid: str, kind: str, text: str | None = None) -> Callable[[Frame], bool]:
    def wanted(f: Frame) -> bool:
        if f.get("method") != "session/update" or f["params"]["sessionId"] != sid:
            return False
        update = f["params"]["update"]
        if update["sessionUpdate"] != kind:
            return False
        return text is None or text in json.dumps(update)

    return wanted


def wait_file(path: Path, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} did not appear within {timeout:g} s"
        time.sleep(0.02)


def text(t: str) -> Frame:
    return {"text": t}


def delay(ms: int) -> Frame:
    return {"delay_ms": ms}


def tool(name: str, **arguments: Any) -> Frame:
    return {"tool_call": {"name": name, "arguments": arguments}}


# -- a test plugin: a slow action, a form, and hooks that are slow on demand --------------------

PLUGIN_SCRIPT = """\
import json, os, sys, time

request = json.load(sys.stdin)
event = request["event"]
if event == "action":
    open("action-started", "a").close()
    if request["action"] == "wait":
        time.sleep(3)
        print(json.dumps({"text": "waited"}))
    else:
        print(json.dumps({"text": "chose " + str(request["args"].get("colour"))}))
else:
    # A hook: slow (and announced) while the session's cwd has `slow-<event>`.
    if os.path.exists("slow-" + event):
        open(event + "-started", "a").close()
        time.sleep(2)
    print("{}")
"""


def plugin_config(tmp: Path) -> str:
    directory = tmp / "plugin-wedge"
    directory.mkdir(exist_ok=True)
    script = directory / "wedge.py"
    script.write_text(PLUGIN_SCRIPT, encoding="utf-8")
    command = json.dumps([sys.executable, str(script)])
    (directory / "plugin.toml").write_text(
        'id = "wedge"\n'
        "timeout_seconds = 10\n"
        "[actions.wait]\n"
        'label = "Wait three seconds"\n'
        f"command = {command}\n"
        "[actions.ask]\n"
        'label = "Ask for a colour"\n'
        f"command = {command}\n"
        'form = [{ key = "colour", label = "Colour", options = ["red", "blue"] }]\n'
        "[hooks]\n"
        f"turn_end = {command}\n"
        f"session_end = {command}\n",
        encoding="utf-8",
    )
    return f"[plugins]\npaths = [{json.dumps(str(directory))}]\n"


# -- an OpenAI-compatible endpoint that refuses what the real APIs refuse ----------------------


def unanswered(messages: list[Frame]) -> str | None:
    """Why an OpenAI-compatible API answers HTTP 400 to this message list, or None."""
    open_ids: list[str] = []
    for i, message in enumerate(messages):
        if message.get("role") == "tool":
            if message.get("tool_call_id") not in open_ids:
                return f"messages[{i}] answers a tool call nobody made"
            open_ids.remove(message["tool_call_id"])
            continue
        if open_ids:
            return f"tool calls {open_ids} are not answered before messages[{i}]"
        if message.get("role") == "assistant":
            open_ids = [c["id"] for c in message.get("tool_calls") or []]
    return f"tool calls {open_ids} are not answered" if open_ids else None


def sse(delta: Frame, finish: str | None = None) -> bytes:
    body = {"id": "c", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


class StrictChat:
    """Streams one queued reply per request (a list of SSE frames; default: a short text), and
    answers HTTP 400 to a request with unanswered tool calls, as the real APIs do."""

    def __init__(self, replies: list[list[bytes]]) -> None:
        self.replies = list(replies)
        self.requests: list[Frame] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                outer.requests.append(body)
                problem = unanswered(body.get("messages", []))
                if problem is not None:
                    data = json.dumps({"error": {"message": problem, "type": "invalid"}}).encode()
                    self.send_response(400)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                frames = (
                    outer.replies.pop(0)
                    if outer.replies
                    else [sse({"role": "assistant", "content": "fine"}), sse({}, "stop")]
                )
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                for frame in [*frames, b"data: [DONE]\n\n"]:
                    self.wfile.write(frame)
                    self.wfile.flush()
                self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# -- 2: $/cancel_request while a turn_end hook runs ---------------------------------------------


def test_cancel_request_during_a_turn_end_hook_leaves_the_session_usable(
    tmp_path: Path, spawn: Spawn
) -> None:
    agent = spawn(config=plugin_config(tmp_path))
    sid = agent.start()
    cwd = Path(agent.cwd)
    (cwd / "slow-turn_end").touch()
    first = agent.prompt(sid, "first")
    wait_file(cwd / "turn_end-started")
    agent.notify("$/cancel_request", {"requestId": first})
    cancelled = agent.answer(first)
    (cwd / "slow-turn_end").unlink()
    later = [agent.answer(agent.prompt(sid, t)) for t in ("second", "third")]
    assert (cancelled.get("result"), *(f.get("result", f.get("error")) for f in later)) == (
        CANCELLED,
        END_TURN,
        END_TURN,
    )
    loaded = agent.answer(agent.load(sid))
    assert "result" in loaded, loaded
    assert agent.answer(agent.prompt(sid, "after load")).get("result") == END_TURN
    assert agent.finish() == 0


# -- 4: session/cancel while a permission question is pending -----------------------------------


def test_cancel_during_a_permission_question_leaves_a_history_the_api_accepts(
    tmp_path: Path, spawn: Spawn
) -> None:
    bash_call = sse(
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_bash",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command": "echo hi"}'},
                }
            ],
        }
    )
    chat = StrictChat([[bash_call, sse({}, "tool_calls")]])
    try:
        scenario = Scenario(tmp_path)
        scenario.env.update({"OPENAI_BASE_URL": chat.url, "OPENAI_API_KEY": "sk-wedge"})
        agent = spawn(scenario=scenario, args=["--model", "openai/m1"])
        sid = agent.start()
        first = agent.prompt(sid, "run echo")
        question = agent.wait_for(is_request("session/request_permission"), "permission question")
        agent.notify("session/cancel", {"sessionId": sid})
        # A well-behaved client answers its pending question as cancelled.
        agent.reply(question["id"], {"outcome": {"outcome": "cancelled"}})
        assert agent.answer(first).get("result") == CANCELLED
        second = agent.answer(agent.prompt(sid, "and now?"))
        assert second.get("result") == END_TURN, second
        assert unanswered(chat.requests[-1]["messages"]) is None
        assert agent.finish() == 0
    finally:
        chat.stop()


# -- 5: cancel and close during a plugin action -------------------------------------------------


@pytest.mark.parametrize("action", ["wait", "ask"])
def test_session_cancel_during_a_plugin_action_answers_cancelled(
    tmp_path: Path, spawn: Spawn, action: str
) -> None:
    agent = spawn(config=plugin_config(tmp_path))
    sid = agent.start()
    running = agent.prompt(sid, f"/wedge:{action}")
    if action == "wait":  # the action's command sleeps 3 s
        wait_file(Path(agent.cwd) / "action-started")
    else:  # the form's question stays unanswered
        agent.wait_for(is_request("session/request_permission"), "the form's question")
    agent.notify("session/cancel", {"sessionId": sid})
    assert agent.answer(running, timeout=5).get("result") == CANCELLED
    assert agent.answer(agent.prompt(sid, "next")).get("result") == END_TURN
    assert agent.finish() == 0


def test_session_close_during_a_plugin_action_is_the_last_word(
    tmp_path: Path, spawn: Spawn
) -> None:
    agent = spawn(config=plugin_config(tmp_path))
    sid = agent.start()
    started = time.monotonic()
    running = agent.prompt(sid, "/wedge:wait")
    wait_file(Path(agent.cwd) / "action-started")
    closing = agent.request("session/close", {"sessionId": sid})
    assert agent.answer(closing).get("result") == {}
    closed_at = next(i for i, f in enumerate(agent.seen) if f.get("id") == closing)
    answer = agent.answer(running)
    agent.quiet(max(0.0, started + 3.8 - time.monotonic()))  # past the action's own end
    assert agent.updates(sid, since=closed_at + 1) == []
    assert answer.get("result") == CANCELLED
    assert agent.finish() == 0


# -- 6 and 18: close and delete cancelled midway still finish ------------------------------------


@pytest.mark.parametrize("method", ["session/close", "session/delete"])
def test_a_cancelled_close_or_delete_still_finishes(
    tmp_path: Path, spawn: Spawn, method: str
) -> None:
    agent = spawn(config=plugin_config(tmp_path))
    sid = agent.start()
    cwd = Path(agent.cwd)
    assert agent.answer(agent.prompt(sid, "remember me")).get("result") == END_TURN
    (cwd / "slow-session_end").touch()
    ending = agent.request(method, {"sessionId": sid})
    wait_file(cwd / "session_end-started")
    agent.notify("$/cancel_request", {"requestId": ending})
    interrupted = agent.answer(ending)
    assert interrupted.get("result") == {} or interrupted["error"]["code"] == -32800, interrupted
    (cwd / "slow-session_end").unlink()
    again = agent.call(method, {"sessionId": sid})
    prompt = agent.answer(agent.prompt(sid, "still there?"))
    assert (again.get("result", again.get("error")), prompt.get("error", {}).get("code")) == (
        {},
        -32602,
    )
    assert "unknown session" in prompt["error"]["message"]
    listed = agent.call("session/list", {})["result"]["sessions"]
    reopened = agent.answer(agent.load(sid))
    if method == "session/close":  # closed: still stored, and it opens again from the store
        assert [s["sessionId"] for s in listed] == [sid]
        assert "result" in reopened, reopened
        replayed = [u for u in agent.updates(sid) if u["sessionUpdate"] == "user_message_chunk"]
        assert [u["content"]["text"] for u in replayed] == ["remember me"]
    else:  # deleted: gone from the list and the store
        assert listed == []
        assert reopened["error"]["code"] == -32602, reopened
    assert agent.finish() == 0


# -- 8 and 16: load of a session mid-turn ------------------------------------------------------


def test_load_of_a_session_mid_turn_is_refused_and_its_servers_stay(
    tmp_path: Path, spawn: Spawn
) -> None:
    agent = spawn(steps=[[text("working"), delay(1500), text(" done")]])
    servers = [
        {
            "name": "tools",
            "command": sys.executable,
            "args": [str(MCP / "tools_server.py"), "stdio"],
        }
    ]
    sid = agent.start(servers)
    running = agent.prompt(sid, "go")
    agent.wait_for(is_update(sid, "agent_message_chunk", "working"), "the turn's first words")
    mark = len(agent.seen)
    refused = agent.answer(agent.load(sid, servers=[]))  # another mcpServers list, too
    assert refused.get("error", {}).get("code") == -32600, refused
    assert "prompting" in refused["error"]["message"]
    assert agent.answer(running).get("result") == END_TURN
    during = {u["sessionUpdate"] for u in agent.updates(sid, mark)}
    assert not during & {"user_message_chunk", "available_commands_update"}, during  # no replay
    mark = len(agent.seen)
    assert agent.answer(agent.prompt(sid, "/mcp")).get("result") == END_TURN
    listing = agent.texts(sid, mark)
    assert "- tools (stdio" in listing and "connected" in listing, listing
    # Idle now: the load works and replays the whole turn.
    mark = len(agent.seen)
    assert "result" in agent.answer(agent.load(sid, servers))
    replay = agent.updates(sid, mark)
    users = [u["content"]["text"] for u in replay if u["sessionUpdate"] == "user_message_chunk"]
    assert users == ["go", "/mcp"]
    assert "working done" in agent.texts(sid, mark)
    assert agent.finish() == 0


# -- 9: a steer after a cancel, and to a closing session -----------------------------------------


def test_a_steer_after_cancel_is_a_follow_up_and_the_inbox_keeps_running(
    tmp_path: Path, spawn: Spawn
) -> None:
    # The command ignores SIGTERM, so the cancelled turn winds down for the 2 s kill grace.
    stuck = tool("bash", command="trap '' TERM; sleep 6")
    agent = spawn(steps=[[stuck]])
    sid = agent.start()
    agent.full_access(sid)
    running = agent.prompt(sid, "run the slow thing")
    agent.wait_for(is_update(sid, "tool_call"), "the tool call")
    agent.quiet(0.3)
    agent.notify("session/cancel", {"sessionId": sid})
    late = agent.call(STEER, {"sessionId": sid, "prompt": [{"type": "text", "text": "too late"}]})
    assert agent.answer(running).get("result") == CANCELLED
    inbox = agent.call(INBOX_LIST, {"sessionId": sid})["result"]
    assert (late["result"]["disposition"], inbox["paused"]) == ("queued_followup", False)
    assert [i["state"] for i in inbox["items"]] == ["queued"]
    assert agent.finish() == 0


def test_a_steer_to_a_closing_session_is_rejected_closed(tmp_path: Path, spawn: Spawn) -> None:
    agent = spawn(config=plugin_config(tmp_path))
    sid = agent.start()
    cwd = Path(agent.cwd)
    (cwd / "slow-session_end").touch()
    closing = agent.request("session/close", {"sessionId": sid})
    wait_file(cwd / "session_end-started")
    refused = agent.call(STEER, {"sessionId": sid, "prompt": [{"type": "text", "text": "bye"}]})
    assert refused.get("result", {}).get("disposition") == "rejected_closed", refused
    assert agent.answer(closing).get("result") == {}
    (cwd / "slow-session_end").unlink()
    assert agent.finish() == 0


# -- 10: a steer admitted during the last allowed step -----------------------------------------


def test_every_accepted_steer_is_read_by_a_model_call_even_at_the_step_limit(
    tmp_path: Path, spawn: Spawn
) -> None:
    agent = spawn(
        steps=[
            [text("first call"), tool("bash", command="sleep 1")],
            [text("second call"), delay(1500), tool("bash", command="true")],
        ],
        config="max_steps = 2\n",
    )
    sid = agent.start()
    agent.full_access(sid)
    running = agent.prompt(sid, "two rounds")
    agent.wait_for(is_update(sid, "tool_call"), "the first tool call")
    early = agent.call(STEER, {"sessionId": sid, "prompt": [{"type": "text", "text": "steer A"}]})
    agent.wait_for(is_update(sid, "agent_message_chunk", "second call"), "the last model call")
    late = agent.call(STEER, {"sessionId": sid, "prompt": [{"type": "text", "text": "steer B"}]})
    assert agent.answer(running).get("result") == {"stopReason": "max_turn_requests"}
    inbox = agent.call(INBOX_LIST, {"sessionId": sid})["result"]
    mark = len(agent.seen)
    assert "result" in agent.answer(agent.load(sid))
    # The replay in order: user words and the model's words, merged by kind.
    said: list[tuple[str, str]] = []
    for u in agent.updates(sid, mark):
        kind = u["sessionUpdate"]
        if kind in ("user_message_chunk", "agent_message_chunk"):
            if said and said[-1][0] == kind:
                said[-1] = (kind, said[-1][1] + u["content"]["text"])
            else:
                said.append((kind, u["content"]["text"]))

    def read_after(words: str) -> bool:
        """A model call's words follow the steer's in the transcript."""
        if ("user_message_chunk", words) not in said:
            return False
        at = said.index(("user_message_chunk", words))
        return any(k == "agent_message_chunk" and "call" in t for k, t in said[at + 1 :])

    assert early["result"]["disposition"] == "steer_accepted" and read_after("steer A"), said
    accepted = late["result"]["disposition"] == "steer_accepted"
    assert not accepted or read_after("steer B"), (late, said)
    assert late["result"]["disposition"] in ("steer_accepted", "queued_followup")
    assert inbox["paused"] is False, inbox
    assert "uncertain" not in [i["state"] for i in inbox["items"]], inbox
    assert agent.finish() == 0


# -- 11: a queued /continue-checks with no open check -------------------------------------------


def test_a_queued_continue_checks_without_a_check_is_answered_with_a_warning(
    tmp_path: Path, spawn: Spawn
) -> None:
    agent = spawn(steps=[[text("slow "), delay(1200), text("reply")]])
    sid = agent.start()
    running = agent.prompt(sid, "start")
    agent.wait_for(is_update(sid, "agent_message_chunk", "slow"), "the turn's first words")
    queued = agent.call(
        ENQUEUE, {"sessionId": sid, "text": "/continue-checks", "intent": "followup"}
    )
    assert queued["result"]["disposition"] == "queued_followup", queued
    mark = len(agent.seen)
    assert agent.answer(running).get("result") == END_TURN
    said = agent.texts(sid, mark)
    assert "no pending final-readiness check" in said, said
    assert "MCP" not in said, said
    assert agent.finish() == 0


# -- 14: reloads are per session, and a queued reload runs when the work before it ends ---------


def test_a_reload_of_one_session_leaves_another_running_turn_on_its_settings(
    tmp_path: Path, spawn: Spawn
) -> None:
    agent = spawn(
        steps=[
            # session B's turn: the bash call comes after the reload of session A
            [text("b working"), delay(1500), tool("bash", command="echo wedge-ran")],
            [text("b done")],
            # session A's turn after its reload: the same command is denied there
            [tool("bash", command="echo from-a")],
            [text("a done")],
        ],
        config="max_steps = 5\n",
    )
    a = agent.start()
    b = agent.new()
    for sid in (a, b):
        agent.full_access(sid)
    config = Path(agent.scenario.env["REASONIX_ACP_CONFIG_DIR"]) / "config.toml"
    running = agent.prompt(b, "b's turn")
    agent.wait_for(is_update(b, "agent_message_chunk", "b working"), "b's first words")
    config.write_text('max_steps = 5\n[permissions]\ndeny_commands = ["echo"]\n', "utf-8")
    assert agent.call(RELOAD, {"sessionId": a}).get("result") == {}
    queued = agent.call(RELOAD, {"sessionId": b})
    assert queued.get("result") == {"queued": True}, queued
    mark = len(agent.seen)
    assert agent.answer(running).get("result") == END_TURN
    ran = [
        u
        for u in agent.updates(b)
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") in ("completed", "failed")
    ]
    assert [u["status"] for u in ran] == ["completed"], ran
    # b's queued reload runs when its prompt ends (before or after its answer), with no
    # prompt after it.
    agent.wait_for(is_update(b, "available_commands_update"), "b's reload", 4, since=mark)
    # a runs on the reloaded settings: the command is denied there.
    mark = len(agent.seen)
    assert agent.answer(agent.prompt(a, "a's turn")).get("result") == END_TURN
    ends = [
        u
        for u in agent.updates(a, mark)
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") in ("completed", "failed")
    ]
    assert [u["status"] for u in ends] == ["failed"] and "denied" in json.dumps(ends), ends
    assert agent.finish() == 0


@pytest.mark.slow
def test_a_reload_asked_for_during_a_reload_runs_right_after_it(
    tmp_path: Path, spawn: Spawn
) -> None:
    agent = spawn()
    # An MCP server that lingers after its stdin closes, so stopping it (a reload) takes ~1 s.
    lingering = f"{sys.executable} {MCP / 'tools_server.py'} stdio; sleep 10"
    servers = [{"name": "slow", "command": "/bin/sh", "args": ["-c", lingering]}]
    sid = agent.start(servers)
    assert agent.answer(agent.prompt(sid, "/mcp")).get("result") == END_TURN  # connected
    mark = len(agent.seen)
    first = agent.request(RELOAD, {"sessionId": sid})
    agent.quiet(0.3)
    second = agent.call(RELOAD, {"sessionId": sid})
    assert second.get("result") == {"queued": True}, second
    assert agent.answer(first, timeout=10).get("result") == {}
    agent.quiet(0.5)
    reloaded = [
        u for u in agent.updates(sid, mark) if u["sessionUpdate"] == "available_commands_update"
    ]
    assert len(reloaded) == 2, agent.seen[mark:]
    assert agent.finish() == 0


# -- 3: a delete from another process --------------------------------------------------------


def test_a_delete_from_another_process_is_refused_while_the_holder_lives(
    tmp_path: Path, spawn: Spawn
) -> None:
    holder = spawn()
    sid = holder.start()
    assert holder.answer(holder.prompt(sid, "keep me")).get("result") == END_TURN
    other = spawn(scenario=holder.scenario)
    assert "result" in other.call("initialize", {"protocolVersion": 1})
    refused = other.call("session/delete", {"sessionId": sid})
    assert refused.get("error", {}).get("code") == -32600, refused
    pid = holder.client.agent.proc.pid
    assert f"in use by process {pid} on " in refused["error"]["message"]
    assert other.finish() == 0
    # The holder's session is untouched.
    assert holder.answer(holder.prompt(sid, "still here")).get("result") == END_TURN
    listed = holder.call("session/list", {})["result"]["sessions"]
    assert [s["sessionId"] for s in listed] == [sid]
    assert holder.finish() == 0


def test_a_delete_whose_inbox_cleanup_is_blocked_still_answers_what_it_did(
    tmp_path: Path, spawn: Spawn
) -> None:
    """The session is deleted in one transaction; clearing its inbox comes after. When another
    process keeps the inbox file locked past the busy timeout, the delete must not report a
    failure for a session it has deleted (a client would believe it is still there)."""
    holder = spawn()
    sid = holder.start()
    assert holder.answer(holder.prompt(sid, "keep me")).get("result") == END_TURN
    assert holder.finish() == 0  # nobody holds the session now
    inbox = sqlite3.connect(Path(holder.scenario.env["REASONIX_ACP_DATA_DIR"]) / "inbox.sqlite3")
    inbox.execute("BEGIN IMMEDIATE")  # a writer that does not let go
    try:
        holder.scenario.env["REASONIX_ACP_SQLITE_BUSY_MS"] = "200"
        other = spawn(scenario=holder.scenario)
        assert "result" in other.call("initialize", {"protocolVersion": 1})
        deleted = other.call("session/delete", {"sessionId": sid})
        listed = other.call("session/list", {})["result"]["sessions"]
        assert other.finish() == 0
    finally:
        inbox.rollback()
        inbox.close()
    assert deleted.get("result") == {}, deleted
    assert listed == []


# -- the user's words: not echoed live, replayed on load ---------------------------------------


def test_the_prompt_is_not_echoed_live_but_is_replayed(tmp_path: Path, spawn: Spawn) -> None:
    agent = spawn()
    sid = agent.start()
    mark = len(agent.seen)
    assert agent.answer(agent.prompt(sid, "say it once")).get("result") == END_TURN
    live = [u["sessionUpdate"] for u in agent.updates(sid, mark)]
    assert "agent_message_chunk" in live and "user_message_chunk" not in live, live
    assert agent.finish() == 0
    again = spawn(scenario=agent.scenario)
    assert "result" in again.call("initialize", {"protocolVersion": 1})
    assert "result" in again.answer(again.load(sid))
    replay = again.updates(sid)
    users = [u["content"]["text"] for u in replay if u["sessionUpdate"] == "user_message_chunk"]
    assert users == ["say it once"]
    assert again.finish() == 0
