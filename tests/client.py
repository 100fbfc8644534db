"""A small synchronous client for tests that drive `acp` frame by frame."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

from tests.transcript import AgentProcess, Scenario

# The vendor opt-in to `_reasonix.io/session/status_update` notifications.
STATUS_OPT_IN = {"_meta": {"reasonix.io": {"statusUpdates": {"supported": True}}}}


class Client:
    def __init__(
        self, tmp: Path, *args: str, scenario: Scenario | None = None, cwd: str | None = None
    ) -> None:
        self.scenario = scenario or Scenario(tmp)
        self.agent = AgentProcess(list(args), self.scenario.env, cwd)
        self._id = 0
        self.notes: list[dict[str, Any]] = []

    def send(self, msg: dict[str, Any]) -> None:
        self.agent.send(json.dumps(msg).encode() + b"\n")

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The response frame; notifications that came before it are appended to `notes`."""
        self._id += 1
        request_id = self._id
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}})
        while True:
            frame = self.agent.receive()
            if frame.get("id") == request_id and "method" not in frame:
                return frame
            self.notes.append(frame)

    def result(self, method: str, params: dict[str, Any] | None = None) -> Any:
        frame = self.call(method, params)
        assert "result" in frame, frame
        return frame["result"]

    def drain(self, count: int) -> list[dict[str, Any]]:
        return [self.agent.receive() for _ in range(count)]

    def take_notes(self) -> list[dict[str, Any]]:
        notes, self.notes = self.notes, []
        return notes

    def start(self, cwd: str | None = None) -> str:
        """initialize (opted in to status update notifications) and session/new."""
        self.result("initialize", {"protocolVersion": 1, "clientCapabilities": STATUS_OPT_IN})
        sid: str = self.result(
            "session/new", {"cwd": cwd or self.scenario.vars["CWD"], "mcpServers": []}
        )["sessionId"]
        return sid

    def close(self) -> int:
        code, rest = self.agent.finish()
        assert rest == [] or all("method" in json.loads(r) for r in rest), rest
        return code

    def kill(self) -> None:
        os.kill(self.agent.proc.pid, signal.SIGKILL)
        self.agent.proc.wait(10)
