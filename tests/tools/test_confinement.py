"""Search and listing tools stay inside the workspace and under the deny rules; each session's
temp directory is its own; files keep their mode and line endings. Through a real `acp`."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.client import Client
from tests.tools.driver import agent, bash, call, prompt


def text_of(update: dict[str, Any]) -> str:
    return "".join(
        c["content"]["text"] for c in update.get("content") or [] if c["type"] == "content"
    )


def reject(params: dict[str, Any]) -> str:
    return "reject_once"


def outside_tree(tmp_path: Path) -> Path:
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOPSECRET outside\n", encoding="utf-8")
    return outside


def started(c: Client, tmp_path: Path) -> tuple[str, Path]:
    c.scenario.env["TMPDIR"] = str(tmp_path / "t")
    (tmp_path / "t").mkdir(exist_ok=True)
    return c.start(), Path(c.scenario.vars["CWD"])


def test_grep_leaves_out_a_symlinked_file_outside(tmp_path: Path) -> None:
    c = agent(tmp_path, [call("grep", pattern="TOPSECRET")])
    sid, cwd = started(c, tmp_path)
    (cwd / "link.txt").symlink_to(outside_tree(tmp_path) / "secret.txt")
    (cwd / "mine.txt").write_text("TOPSECRET inside\n", encoding="utf-8")
    asked, [done] = prompt(c, sid, reject)
    assert asked == [] and done["status"] == "completed"
    assert "TOPSECRET outside" not in text_of(done)
    assert "mine.txt:1: TOPSECRET inside" in text_of(done)
    assert "1 results outside the workspace were skipped" in text_of(done)
    assert done["rawOutput"]["skippedOutside"] == 1
    assert c.close() == 0


def test_search_tools_honour_deny_paths(tmp_path: Path) -> None:
    turns = [call("grep", pattern="TOPSECRET"), call("glob", pattern="**/*"), call("list")]
    c = agent(tmp_path, turns, '[permissions]\ndeny_paths = ["*/ws/private/*"]\n')
    sid, cwd = started(c, tmp_path)
    (cwd / "private").mkdir()
    (cwd / "private" / "key.txt").write_text("TOPSECRET denied\n", encoding="utf-8")
    (cwd / "key-list.txt").write_text("nothing\n", encoding="utf-8")
    texts = []
    for _ in turns:
        asked, [done] = prompt(c, sid, reject)
        assert asked == [] and done["status"] == "completed", done
        texts.append(text_of(done))
        assert "TOPSECRET" not in texts[-1] and "key.txt" not in texts[-1]
    for said in texts[:2]:
        assert "1 results denied by deny_paths were skipped" in said
    assert "key-list.txt" in texts[2] and "private/" in texts[2]
    assert c.close() == 0


def test_glob_does_not_climb_out_with_dotdot_or_symlinked_directories(tmp_path: Path) -> None:
    turns = [
        call("glob", pattern="**/*"),
        call("glob", pattern="sub/**/../../private/*"),
        call("glob", pattern="s*/../../private/*"),
    ]
    c = agent(tmp_path, turns)
    sid, cwd = started(c, tmp_path)
    outside = outside_tree(tmp_path)
    (cwd / "sub").mkdir()
    (cwd / "sub" / "linked").symlink_to(outside, target_is_directory=True)
    for _ in turns[:2]:
        asked, [done] = prompt(c, sid, reject)
        assert asked == [] and done["status"] == "completed"
        assert "secret.txt" not in text_of(done), text_of(done)
    asked, [done] = prompt(c, sid, reject)  # judged as ../private: outside, so asked
    assert len(asked) == 1 and done["status"] == "failed"
    assert c.close() == 0


def test_a_fifo_in_the_tree_does_not_stop_a_search(tmp_path: Path) -> None:
    c = agent(tmp_path, [call("grep", pattern="line"), call("read", path="pipe")])
    sid, cwd = started(c, tmp_path)
    os.mkfifo(cwd / "pipe")
    _, [done] = prompt(c, sid, reject)
    assert done["status"] == "completed" and "notes.txt:1: line one" in text_of(done)
    _, [done] = prompt(c, sid, reject)
    assert done["status"] == "failed" and "not a regular file" in text_of(done)
    assert c.close() == 0


def test_a_long_grep_leaves_the_agent_answering_and_cancellable(tmp_path: Path) -> None:
    c = agent(tmp_path, [call("grep", pattern="NEVER(?:FOUND)")])
    sid, cwd = started(c, tmp_path)
    block = ("x" * 99 + "\n").encode() * 300
    for d in range(40):
        (cwd / f"d{d}").mkdir()
        for f in range(100):
            (cwd / f"d{d}" / f"f{f}.txt").write_bytes(block)
    c.send(
        {
            "jsonrpc": "2.0",
            "id": 100,
            "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]},
        }
    )
    order = []
    while True:
        frame = c.agent.receive()
        update = frame.get("params", {}).get("update", {})
        if update.get("sessionUpdate") == "tool_call":
            c.send({"jsonrpc": "2.0", "id": 101, "method": "session/list", "params": {}})
        if frame.get("id") == 101:
            order.append("list")
            c.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
        if update.get("sessionUpdate") == "tool_call_update" and update.get("status"):
            order.append(update["status"])
        if frame.get("id") == 100:
            order.append(frame["result"]["stopReason"])
            break
    assert order[0] == "list" and order[-1] == "cancelled", order
    assert c.close() == 0


def test_each_session_has_its_own_private_temp(tmp_path: Path) -> None:
    alias = tmp_path / "alias.log"  # a name for the kept file, known before it exists
    turns = [bash("head -c 70000 /dev/zero | tr '\\0' a"), call("read", path=str(alias))]
    c = agent(tmp_path, turns)
    sid, cwd = started(c, tmp_path)
    _, [done] = prompt(c, sid, lambda p: "allow_once")
    kept = Path(re.findall(r"the full output is in (\S+\.log)\]", text_of(done))[0])
    assert kept.read_text() == "a" * 70000
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(kept.parent.parent.stat().st_mode) == 0o700
    # Another session of the same process, read-only: the first one's temp is outside for it.
    other = c.result("session/new", {"cwd": str(cwd), "mcpServers": []})["sessionId"]
    c.result(
        "session/set_config_option",
        {"sessionId": other, "configId": "tool_approval", "value": "read-only"},
    )
    alias.symlink_to(kept)
    asked, [done] = prompt(c, other, reject)
    assert len(asked) == 1 and done["status"] == "failed"
    assert c.result("session/delete", {"sessionId": sid}) == {}
    assert not kept.parent.exists()
    assert c.close() == 0


def test_edit_keeps_the_mode_and_the_line_endings(tmp_path: Path) -> None:
    edit = {"old_text": "echo one\n", "new_text": "echo two\n"}
    c = agent(tmp_path, [call("edit", path="run.sh", edits=[edit])])
    sid, cwd = started(c, tmp_path)
    script = cwd / "run.sh"
    script.write_bytes(b"#!/bin/sh\r\necho one\r\n")
    script.chmod(0o755)
    _, [done] = prompt(c, sid, reject)
    assert done["status"] == "completed", done
    assert script.read_bytes() == b"#!/bin/sh\r\necho two\r\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert c.close() == 0


def _unreadable_link() -> str | None:
    try:
        os.readlink("/proc/1/root")
    except OSError:
        return "/proc/1/root"
    return None


@pytest.mark.skipif(_unreadable_link() is None, reason="this user may read /proc/1/root")
def test_a_path_that_cannot_be_resolved_fails_the_call_not_the_turn(tmp_path: Path) -> None:
    turns = [
        bash("echo x > /proc/1/root/tmp/escape.txt"),
        call("read_file", path="/proc/1/root/etc/hostname"),
    ]
    c = agent(tmp_path, turns)
    sid, _ = started(c, tmp_path)
    asked, [ran] = prompt(c, sid, reject)  # judged as a write outside: asked, not crashed
    assert (
        "/proc/1/root/tmp/escape.txt" in asked[0]["toolCall"]["rawInput"]["writesOutsideWorkspace"]
    )
    assert ran["status"] == "failed"
    asked, [read] = prompt(c, sid, reject)
    assert read["status"] == "failed"
    assert c.close() == 0


def test_a_path_that_cannot_be_resolved_fails_deny_checks_closed(tmp_path: Path) -> None:
    if _unreadable_link() is None:
        pytest.skip("this user may read /proc/1/root")
    c = agent(
        tmp_path,
        [bash("cat < /proc/1/root/etc/hostname")],
        '[permissions]\ndeny_paths = ["/nowhere/**"]\n',
    )
    sid, _ = started(c, tmp_path)
    asked, [done] = prompt(c, sid, lambda q: "allow_once")
    assert asked == [] and done["status"] == "failed"
    assert "cannot be checked against deny_paths" in text_of(done)
    assert c.close() == 0
