"""Every frame the agent sends stays under the frame budget (60 KB): a 200 KB write shows cut
`rawInput` and diff, says where the whole text is, and writes the whole file. Real `acp`."""

from __future__ import annotations

import json
import re
from pathlib import Path

from reasonix_acp.turn.frames import fit, size
from tests.tools.driver import agent, call

BUDGET = 60 * 1024


def wire_size(frame: dict[str, object]) -> int:
    return len(json.dumps(frame, ensure_ascii=False, separators=(",", ":")).encode())


def test_a_200_kb_write_keeps_every_frame_under_the_budget(tmp_path: Path) -> None:
    content = "".join(f'line {n:06d} "quoted" é\n' for n in range(9000))  # ~200 KB
    assert len(content.encode()) > 200_000
    c = agent(tmp_path, [call("write", path="big.txt", content=content)])
    c.scenario.env["TMPDIR"] = str(tmp_path)
    sid = c.start()
    c.result(
        "session/set_config_option",
        {"sessionId": sid, "configId": "tool_approval", "value": "read-only"},
    )
    c._id += 1
    c.send(
        {
            "jsonrpc": "2.0",
            "id": c._id,
            "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]},
        }
    )
    frames = []
    while True:
        frame = c.agent.receive()
        frames.append(frame)
        if frame.get("method") == "session/request_permission":
            outcome = {"outcome": "selected", "optionId": "allow_once"}
            c.send({"jsonrpc": "2.0", "id": frame["id"], "result": {"outcome": outcome}})
        if frame.get("id") == c._id and "method" not in frame:
            break
    assert c.close() == 0
    assert (Path(c.scenario.vars["CWD"]) / "big.txt").read_text() == content
    assert max(wire_size(f) for f in frames) <= BUDGET
    started = next(
        f["params"]["update"]
        for f in frames
        if f.get("method") == "session/update"
        and f["params"]["update"]["sessionUpdate"] == "tool_call"
    )
    shown = started["rawInput"]["content"]
    kept = re.search(r"to fit a frame; the whole text is in (\S+)\]$", shown)
    assert kept and Path(kept.group(1)).read_text() == content
    assert content.startswith(shown[: shown.index("\n[cut at ")])
    done = next(
        f["params"]["update"]
        for f in frames
        if f.get("method") == "session/update"
        and f["params"]["update"].get("status") == "completed"
    )
    assert "[cut at " in done["content"][0]["newText"]
    asked = next(f for f in frames if f.get("method") == "session/request_permission")
    assert "[cut at " in asked["params"]["toolCall"]["rawInput"]["content"]


def test_fit_cuts_many_strings_and_escape_heavy_ones(tmp_path: Path) -> None:
    many = {"toolCallId": "t", "status": "completed", "parts": ["x" * 5000 for _ in range(20)]}
    quotes = {"toolCallId": "t", "status": "pending", "rawInput": {"q": '"\\\n' * 30000}}
    for n, update in enumerate((many, quotes)):
        out = fit(update, BUDGET, (str(tmp_path / "keep"), f"u{n}"))
        assert size(out) <= BUDGET - 1024
        assert out is not update and size(update) > BUDGET  # the caller's object is whole
    small = {"toolCallId": "t", "status": "pending", "x-model-text": "y" * 100_000}
    assert fit(small, BUDGET, (str(tmp_path), "s")) is small  # x- keys are not counted
