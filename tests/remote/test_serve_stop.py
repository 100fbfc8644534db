"""`acp serve` stopping (SIGTERM) with a prompt in flight on a WebSocket: the turn is cancelled
as at the end of input, and the client reads its prompt's answer (`cancelled`) before the close
frame (1001); nothing the agent wrote before it ended is dropped."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.remote.serving import TOKEN, Served


def test_a_stop_sends_the_cancelled_answer_before_the_close(tmp_path: Path) -> None:
    stall = [{"steps": [{"text": "thinking it over"}, {"delay_ms": 60000}]}]
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(s) + "\n" for s in stall), encoding="utf-8")
    served = Served(tmp_path, "--model", "offline", "--script", str(script))
    url = served.url.replace("http", "ws", 1)
    seen: list[dict[str, Any]] = []
    with connect(url, additional_headers={"authorization": f"Bearer {TOKEN}"}) as ws:

        def call(rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
            ws.send(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}))
            while (message := json.loads(ws.recv(timeout=30))).get("id") != rid:
                seen.append(message)
            return message

        call(1, "initialize", {"protocolVersion": 1})
        opened = call(2, "session/new", {"cwd": str(served.workspace), "mcpServers": []})
        sid = opened["result"]["sessionId"]
        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]}
        ws.send(
            json.dumps({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": prompt})
        )
        deadline = time.monotonic() + 30
        while not any("thinking it over" in json.dumps(m) for m in seen):  # the turn is under way
            seen.append(json.loads(ws.recv(timeout=max(deadline - time.monotonic(), 0.1))))
        served.proc.send_signal(signal.SIGTERM)
        answer = None
        try:
            while True:
                message = json.loads(ws.recv(timeout=20))
                if message.get("id") == 3:
                    answer = message
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
    assert served.proc.wait(30) == 0
    assert answer is not None and answer.get("result") == {"stopReason": "cancelled"}, answer
    assert code == 1001, code
