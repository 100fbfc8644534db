"""The history after a load equals the live history, for generated sessions: any sequence of
plain turns, tool calls allowed, cancelled at their question or steered while they ask,
failed requests and compactions, with the process SIGKILLed at any point between turns and
its session loaded in a new one. Two agents (twins) live through the same sequence against a
strict DeepSeek stand-in (tests/deepseek_server.py: every tool reply after its call, every
assistant message with its reasoning); the next request each sends must be the same messages.

Examples: HISTORY_EXAMPLES (6 unless set). The seed is printed; HISTORY_SEED=N replays it.
"""

from __future__ import annotations

import json
import os
import random
import signal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from tests.client import Client
from tests.deepseek_server import DeepSeek
from tests.test_deepseek import agent, config
from tests.test_history_after_cancel import cancel_at_question
from tests.test_history_exact import converse, steer_then_allow

EXAMPLES = int(os.environ.get("HISTORY_EXAMPLES", "6"))
SEED = int(os.environ.get("HISTORY_SEED", str(random.SystemRandom().randrange(1 << 32))))
ASKS = {"name": "bash", "arguments": {"command": "echo hi > made"}}  # nothing granted: it asks
FAILED = "invalid request: refused by the stand-in on purpose"
STEPS = ["text", "tool", "cancel", "steer", "fail", "compact"]


class Scripted(DeepSeek):
    """Answers a prompt that starts with `run` with a tool call that asks, anything else as
    the stand-in does: the replies follow the requests, whatever the agent sends when."""

    def _default(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        last = messages[-1]
        if last["role"] == "user" and str(last.get("content", "")).startswith("run "):
            return {"thought": "Run it.", "tool_calls": [ASKS]}
        return super()._default(messages)


def allow(request: dict[str, Any]) -> Any:
    assert request["method"] == "session/request_permission", request
    return {"outcome": {"outcome": "selected", "optionId": "allow_once"}}


def step(c: Client, sid: str, server: DeepSeek, n: int, kind: str) -> str:
    """One turn of `kind`; → how it ended."""
    text, answer = f"say {n}", allow
    if kind in ("tool", "cancel", "steer"):
        text = f"run {n}"
        answer = {"tool": allow, "cancel": cancel_at_question(c, sid)}.get(kind) or (
            steer_then_allow(c, sid)
        )
    elif kind == "fail":
        server.refuse.append((400, FAILED))
    elif kind == "compact":
        text = "/compact"
    frame = converse(c, sid, [{"type": "text", "text": text}], answer)
    return str(frame.get("result", {}).get("stopReason") or frame.get("error", {}).get("code"))


def loaded(c: Client, sid: str, tmp: Path) -> Client:
    os.kill(c.agent.proc.pid, signal.SIGKILL)
    c.agent.proc.wait(timeout=10)
    c = Client(tmp, scenario=c.scenario)
    c.result("initialize", {"protocolVersion": 1})
    c.result("session/load", {"sessionId": sid, "cwd": c.scenario.vars["CWD"], "mcpServers": []})
    return c


def live(tmp: Path, steps: list[str], kill_at: int | None, keep: int) -> tuple[Any, list[str]]:
    """The twin's last request's messages (after the system prompt), and how each turn ended."""
    with Scripted() as server:
        c = agent(tmp, config(server, f"[context]\nkeep_turns = {keep}\n"))
        sid = c.start()
        ends = []
        for n, kind in enumerate(steps):
            if n == kill_at:
                c = loaded(c, sid, tmp)
            ends.append(step(c, sid, server, n, kind))
        if kill_at == len(steps):
            c = loaded(c, sid, tmp)
        last = converse(c, sid, [{"type": "text", "text": "and now?"}])
        assert last["result"] == {"stopReason": "end_turn"}, (last, server.refused)
        assert c.close() == 0
        assert [why for why in server.refused if why != FAILED] == []
        return json.loads(server.bodies[-1])["messages"][1:], ends


@pytest.mark.slow
@seed(SEED)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    print_blob=True,
)
@given(
    steps=st.lists(st.sampled_from(STEPS), min_size=1, max_size=6),
    kill=st.integers(0, 6),
    keep=st.integers(1, 3),
)
def test_a_loaded_session_sends_the_history_the_live_one_would(
    tmp_path_factory: Any, steps: list[str], kill: int, keep: int
) -> None:
    print(f"HISTORY_SEED={SEED}: {steps}, killed before turn {min(kill, len(steps))}, keep {keep}")
    base = tmp_path_factory.mktemp("twins")
    kept, kept_ends = live(base / "kept", steps, None, keep)
    killed, killed_ends = live(base / "killed", steps, min(kill, len(steps)), keep)
    assert killed_ends == kept_ends
    assert killed == kept, f"HISTORY_SEED={SEED}: {steps}"


def test_the_seed_is_printed() -> None:
    print(f"\nhistory reload property: HISTORY_SEED={SEED}, {EXAMPLES} examples")
