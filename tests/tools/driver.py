"""Drive a real offline `acp` through scripted tool calls, answering its permission questions."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.transcript import Scenario

Answer = Callable[[dict[str, Any]], str]


def bash(command: str) -> dict[str, Any]:
    return {"steps": [{"tool_call": {"name": "bash", "arguments": {"command": command}}}]}


def agent(
    tmp_path: Path,
    turns: list[dict[str, Any]],
    config: str = "",
    env: dict[str, str] | None = None,
    in_workspace: bool = False,
) -> Client:
    """An offline agent that runs `turns` (one model answer each, then "ok"); `env` is added
    to the scenario's environment; `in_workspace`: the process starts in the workspace."""
    scenario = Scenario(tmp_path)
    scenario.env.update(env or {})
    if config:
        config_dir = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
        config_dir.mkdir(parents=True)
        (config_dir / "config.toml").write_text(config, encoding="utf-8")
    lines = []
    for turn in turns:
        lines += [json.dumps(turn), json.dumps({"steps": [{"text": "ok"}]})]
    script = tmp_path / "script.jsonl"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cwd = scenario.vars["CWD"] if in_workspace else None
    return Client(
        tmp_path, "--model", "offline", "--script", str(script), scenario=scenario, cwd=cwd
    )


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"steps": [{"tool_call": {"name": name, "arguments": arguments}}]}


def statuses(c: Client, sid: str, answer: Answer) -> tuple[list[dict[str, Any]], list[str]]:
    questions, finals = prompt(c, sid, answer)
    return questions, [u["status"] for u in finals]


def send_prompt(c: Client, sid: str, text: str = "go") -> int:
    """Send a session/prompt without waiting for anything; → its request id."""
    c._id += 1
    c.send(
        {
            "jsonrpc": "2.0",
            "id": c._id,
            "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": text}]},
        }
    )
    return c._id


def prompt(
    c: Client, sid: str, answer: Answer
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One prompt; permission questions answered by `answer`. → (questions, final tool updates)."""
    rid = send_prompt(c, sid)
    questions: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    while True:
        frame = c.agent.receive()
        if frame.get("method") == "session/request_permission":
            questions.append(frame["params"])
            outcome = {"outcome": "selected", "optionId": answer(frame["params"])}
            c.send({"jsonrpc": "2.0", "id": frame["id"], "result": {"outcome": outcome}})
        elif frame.get("id") == rid:
            assert frame.get("result") == {"stopReason": "end_turn"}, frame
            return questions, results
        elif frame.get("method") == "session/update":
            c.notes.append(frame)
            update = frame["params"]["update"]
            if update["sessionUpdate"] == "tool_call_update" and update.get("status") in (
                "completed",
                "failed",
            ):
                results.append(update)
