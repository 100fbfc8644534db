"""Subagents: the agent's own time per model request while four children of the `task` tool run
at once, against a plain turn doing the same work alone, in the same run and process.

An OpenAI-compatible server on 127.0.0.1 answers after a model's own time: MODEL_SECONDS,
from half to one and a half times it (seeded: children that all waited the same time would
all come back at the same instant, which real models do not) and keys each conversation by its last user message: a plain turn and each child
read `notes.txt` READS times, then reply; the parent hands four tasks out in one reply, then
replies. The agent's time for a request is from the last byte of the previous answer in the
same conversation to the request's arrival (the first request of each is left out).

Figure: the median over the children's requests, over the median of the plain turn's
requests. Target ≤ 1.5 (four children share one event loop; a request of one waits only for
what the others are doing at that instant).
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import long_session
from long_session import _stream
from ready import Agent, environment

READS = 8
CHILDREN = 4
MODEL_SECONDS = 0.1
ROUNDS = 4  # plain turn then the parent's, this many times; the first pair unmeasured
TARGET = 1.5
SEED = 7


class Model(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.arrived: dict[str, list[float]] = defaultdict(list)
        self.answered: dict[str, list[float]] = defaultdict(list)
        self.random = random.Random(SEED)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def gaps(self, prefix: str) -> list[float]:
        """The agent's time (ms) of every request but the first, in conversations whose key
        starts with `prefix`."""
        out = []
        for key, arrivals in self.arrived.items():
            if key.startswith(prefix):
                ends = self.answered[key]
                out += [(a - e) * 1000 for a, e in zip(arrivals[1:], ends, strict=False)]
        return out


class _Handler(long_session._Handler):  # its model listing and its way of answering
    server: Model  # type: ignore[assignment]

    def do_POST(self) -> None:
        arrived = time.perf_counter()
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        messages = json.loads(body)["messages"]
        key = next(str(m["content"]) for m in reversed(messages) if m["role"] == "user")
        with self.server.lock:
            self.server.arrived[key].append(arrived)
            wait = MODEL_SECONDS * (0.5 + self.server.random.random())
        time.sleep(wait)
        self._send(200, "text/event-stream", _answer(key, messages, len(body) // 4))
        with self.server.lock:
            self.server.answered[key].append(time.perf_counter())


def _call(n: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    function = {"name": name, "arguments": json.dumps(args)}
    return {
        "index": n,
        "id": f"call_{time.perf_counter_ns()}_{n}",
        "type": "function",
        "function": function,
    }


def _answer(key: str, messages: list[dict[str, Any]], tokens: int) -> bytes:
    tools = 0  # the tool results since the last user message
    for message in reversed(messages):
        if message["role"] == "user":
            break
        tools += message["role"] == "tool"
    if key.startswith("delegate"):
        if tools:
            return _stream({"content": "All four are done."}, "stop", tokens)
        tasks = [
            _call(
                n,
                "task",
                {"prompt": f"task {n} of {key}: read notes.txt", "description": f"part {n}"},
            )
            for n in range(CHILDREN)
        ]
        return _stream({"tool_calls": tasks}, "tool_calls", tokens)
    if tools < READS:
        return _stream(
            {"tool_calls": [_call(0, "read", {"path": "notes.txt"})]}, "tool_calls", tokens
        )
    return _stream({"content": "Read it."}, "stop", tokens)


def run(tmp: Path) -> dict[str, float]:
    model = Model()
    cwd = tmp / "ws"
    cwd.mkdir()
    (cwd / "notes.txt").write_text("a line of notes\n" * 200, "utf-8")
    env = environment(tmp, model)  # type: ignore[arg-type]
    env["REASONIX_ACP_SANDBOX"] = "off"
    agent = Agent(env)
    agent.until(agent.send("initialize", {"protocolVersion": 1}))
    params = {"cwd": str(cwd), "mcpServers": []}
    sid = agent.until(agent.send("session/new", params))[0]["sessionId"]
    agent.until(
        agent.send(
            "session/set_config_option",
            {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"},
        )
    )
    for n in range(ROUNDS):
        for kind in ("plain", "delegate"):
            text = f"{kind} {n}"
            prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
            result, _ = agent.until(agent.send("session/prompt", prompt))
            assert result == {"stopReason": "end_turn"}, result
    agent.close()
    plain = [g for n in range(1, ROUNDS) for g in model.gaps(f"plain {n}")]
    children = [g for n in range(1, ROUNDS) for g in model.gaps(f"task 0 of delegate {n}")]
    children += [
        g
        for n in range(1, ROUNDS)
        for c in range(1, CHILDREN)
        for g in model.gaps(f"task {c} of delegate {n}")
    ]
    assert len(children) == (ROUNDS - 1) * CHILDREN * READS, (len(children), list(model.arrived))
    model.shutdown()
    alone, together = statistics.median(plain), statistics.median(children)
    return {"plain_ms": alone, "children_ms": together, "ratio": together / alone}


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        found = run(Path(tmp))
    print(
        f"subagents: agent time per model request, plain turn {found['plain_ms']:.2f} ms, "
        f"with {CHILDREN} children at once {found['children_ms']:.2f} ms: "
        f"ratio {found['ratio']:.2f} (target ≤ {TARGET})"
    )
    return 0 if found["ratio"] <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
