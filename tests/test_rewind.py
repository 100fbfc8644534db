"""Checkpoints and rewind through a real `acp` against the DeepSeek stand-in: the files a
prompt's turn changed (by the write and edit tools and by shell commands, creating, editing and
deleting) are put back by `_reasonix.io/session/rewind` and `/rewind`, a file changed by hand
in between is left and named (unless forced), the conversation continues from the very history
it had (the prefix cache holds), the conversation as it was stays listable, a load of the
rewound session replays what it kept, and a process killed mid-rewind leaves every file back
once the session is opened again."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.deepseek_server import DeepSeek
from tests.test_deepseek import agent, assistants, config, prompt
from tests.test_sessions import updates_of
from tests.transcript import Scenario

REWIND = "_reasonix.io/session/rewind"


def calls(*pairs: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"thought": "Doing it.", "tool_calls": [{"name": n, "arguments": a} for n, a in pairs]}


def turn(server: DeepSeek, *pairs: tuple[str, dict[str, Any]], text: str = "Done.") -> None:
    server.replies.extend([calls(*pairs), {"thought": "Done it.", "text": text}])


def full(c: Client) -> str:
    """A session whose tool calls run unasked (the gate is not what these tests are about)."""
    sid = c.start()
    c.result(
        "session/set_config_option",
        {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"},
    )
    return sid


def ended(c: Client, sid: str, text: str) -> None:
    assert prompt(c, sid, text)["result"] == {"stopReason": "end_turn"}


def test_a_rewind_puts_back_what_two_prompts_changed(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd = Path(c.scenario.vars["CWD"])
        (cwd / "a.txt").write_text("one\n")
        (cwd / "gone.txt").write_text("keep me\n")
        os.chmod(cwd / "gone.txt", 0o640)
        sid = full(c)
        turn(
            server,
            ("write", {"path": "a.txt", "content": "two\n"}),
            ("bash", {"command": "mkdir -p sub && echo made > sub/new.txt && rm gone.txt"}),
        )
        ended(c, sid, "first")
        turn(
            server, ("edit", {"path": "a.txt", "edits": [{"old_text": "two", "new_text": "three"}]})
        )
        ended(c, sid, "second")
        assert (cwd / "a.txt").read_text() == "three\n" and not (cwd / "gone.txt").exists()
        assert (cwd / "sub" / "new.txt").read_text() == "made\n"

        done = c.result(REWIND, {"sessionId": sid, "prompts": 2})
        assert done["restored"] == [str(cwd / "a.txt"), str(cwd / "gone.txt")]
        assert done["removed"] == [str(cwd / "sub" / "new.txt")]
        assert done["left"] == [] and done["untracked"] == []
        assert (cwd / "a.txt").read_text() == "one\n"
        assert (cwd / "gone.txt").read_text() == "keep me\n"
        assert (cwd / "gone.txt").stat().st_mode & 0o777 == 0o640
        assert not (cwd / "sub" / "new.txt").exists()

        # The conversation as it was is kept, listed; the session goes on from before "first".
        listed = {s["sessionId"]: s for s in c.result("session/list", {})["sessions"]}
        assert done["keptAs"] in listed and sid in listed
        c.take_notes()
        c.result("session/load", {"sessionId": sid, "cwd": str(cwd), "mcpServers": []})
        said = [u for u in updates_of(c.notes, sid) if u["sessionUpdate"] == "user_message_chunk"]
        assert said == []
        c.take_notes()
        c.result("session/load", {"sessionId": done["keptAs"], "cwd": str(cwd), "mcpServers": []})
        kept = updates_of(c.notes, done["keptAs"])
        texts = [u["content"]["text"] for u in kept if u["sessionUpdate"] == "user_message_chunk"]
        assert texts == ["first", "second"]
        # Nothing more to go back to.
        again = c.call(REWIND, {"sessionId": sid})
        assert again["error"]["code"] == -32602 and "none yet" in again["error"]["message"]
        assert c.close() == 0
    assert server.refused == []


def test_the_rewound_conversation_sends_the_same_bytes_again(tmp_path: Path) -> None:
    """After going back one prompt, the next request starts with the bytes the rewound prompt's
    first request started with: the history kept is the very prefix (the cache holds)."""
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        sid = full(c)
        turn(server, ("read", {"path": "notes.txt"}))
        ended(c, sid, "read the notes")
        turn(server, ("write", {"path": "out.txt", "content": "x\n"}))
        ended(c, sid, "write it down")
        second = len(server.bodies)
        turn(server, ("read", {"path": "out.txt"}))
        ended(c, sid, "read it back")
        c.result(REWIND, {"sessionId": sid, "prompts": 2})
        assert not (Path(c.scenario.vars["CWD"]) / "out.txt").exists()
        ended(c, sid, "something else")
        assert c.close() == 0
    assert server.refused == []
    before, after = server.bodies[second - 2 + 0], server.bodies[-1]
    # `before`: the first request of "write it down"; `after`: the request after the rewind.
    assert after.startswith(stable_until_last_user(before))
    assert [m.get("content") for m in assistants(json.loads(after))][-1] == "Done."


def stable_until_last_user(body: bytes) -> bytes:
    """A request's bytes up to its last user message (what a conversation from there shares)."""
    cut = body.rindex(b'{"role":"user"')
    return body[:cut]


def test_a_file_changed_by_hand_is_left_unless_forced(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd = Path(c.scenario.vars["CWD"])
        (cwd / "a.txt").write_text("one\n")
        (cwd / "b.txt").write_text("bee\n")
        sid = full(c)
        turn(
            server,
            ("write", {"path": "a.txt", "content": "two\n"}),
            ("write", {"path": "b.txt", "content": "bee two\n"}),
        )
        ended(c, sid, "change both")
        (cwd / "a.txt").write_text("mine\n")  # the user, between the turn and the rewind
        done = c.result(REWIND, {"sessionId": sid})
        assert done["restored"] == [str(cwd / "b.txt")]
        assert done["left"] == [
            {"path": str(cwd / "a.txt"), "reason": "changed since the rewound turns"}
        ]
        assert (cwd / "a.txt").read_text() == "mine\n" and (cwd / "b.txt").read_text() == "bee\n"
        turn(server, ("write", {"path": "a.txt", "content": "three\n"}))
        ended(c, sid, "again")
        (cwd / "a.txt").write_text("mine again\n")
        forced = c.result(REWIND, {"sessionId": sid, "force": True})
        assert forced["restored"] == [str(cwd / "a.txt")] and forced["left"] == []
        assert (cwd / "a.txt").read_text() == "mine\n"
        assert c.close() == 0


def test_slash_rewind_and_what_it_refuses(tmp_path: Path) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd = Path(c.scenario.vars["CWD"])
        sid = full(c)
        ended(c, sid, "/status")  # an agent command is not a prompt to go back to
        said = prompt(c, sid, "/rewind")
        assert said["result"] == {"stopReason": "end_turn"}
        texts = [
            u["content"]["text"]
            for u in updates_of(c.take_notes(), sid)
            if u["sessionUpdate"] == "agent_message_chunk"
        ]
        assert "cannot go back 1 prompt: this session has none yet" in "".join(texts)
        turn(server, ("write", {"path": "made.txt", "content": "m\n"}))
        ended(c, sid, "make a file")
        assert prompt(c, sid, "/rewind 1")["result"] == {"stopReason": "end_turn"}
        texts = [
            u["content"]["text"]
            for u in updates_of(c.take_notes(), sid)
            if u["sessionUpdate"] == "agent_message_chunk"
        ]
        assert f"Removed (made by those turns): {cwd / 'made.txt'}" in "".join(texts)
        assert not (cwd / "made.txt").exists()
        bad = c.call(REWIND, {"sessionId": sid, "prompts": 0})
        assert bad["error"]["code"] == -32602
        assert c.close() == 0


def test_a_process_killed_mid_rewind_leaves_every_file_back(tmp_path: Path) -> None:
    count, size = 120, 512 * 1024
    with DeepSeek() as server:
        scenario = Scenario(tmp_path)
        c = agent(tmp_path, config(server), scenario)
        cwd = Path(scenario.vars["CWD"])
        for i in range(count):
            (cwd / f"f{i:03}.bin").write_bytes(bytes([i]) * size)
        sid = full(c)
        turn(server, ("bash", {"command": "for f in f*.bin; do echo changed > $f; done"}))
        ended(c, sid, "change them all")
        assert (cwd / "f000.bin").read_bytes() == b"changed\n"
        c.send({"jsonrpc": "2.0", "id": 999, "method": REWIND, "params": {"sessionId": sid}})
        deadline = time.monotonic() + 20
        while (cwd / "f000.bin").stat().st_size != size:
            assert time.monotonic() < deadline
        c.kill()
        back = sum((cwd / f"f{i:03}.bin").stat().st_size == size for i in range(count))
        assert 0 < back < count, "the kill came after the rewind ended: make the files bigger"

        again = Client(tmp_path, scenario=scenario)
        again.result("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        again.result("session/load", {"sessionId": sid, "cwd": str(cwd), "mcpServers": []})
        for i in range(count):
            assert (cwd / f"f{i:03}.bin").read_bytes() == bytes([i]) * size
        said = [
            u for u in updates_of(again.notes, sid) if u["sessionUpdate"] == "user_message_chunk"
        ]
        assert said == []
        assert again.close() == 0


def blobs_in(data: Path) -> set[str]:
    root = data / "blobs"
    return {p.parent.name + p.name for p in root.glob("??/*")} if root.is_dir() else set()


def test_show_lists_checkpoints_and_a_delete_takes_the_blobs_only_it_had(
    tmp_path: Path,
) -> None:
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd = Path(c.scenario.vars["CWD"])
        data = Path(c.scenario.vars["DATA"])
        (cwd / "shared.txt").write_text("shared before\n")
        (cwd / "mine.txt").write_text("only mine\n")
        kept = full(c)
        turn(server, ("write", {"path": "shared.txt", "content": "shared after\n"}))
        ended(c, kept, "change the shared file")
        (cwd / "shared.txt").write_text("shared before\n")
        gone = full(c)
        turn(
            server,
            ("write", {"path": "shared.txt", "content": "shared after\n"}),
            ("write", {"path": "mine.txt", "content": "mine after\n"}),
            ("write", {"path": "new.txt", "content": "brand new\n"}),
        )
        ended(c, gone, "change both")
        show = subprocess.run(
            [sys.executable, "-m", "reasonix_acp", "sessions", "show", gone],
            env={**c.scenario.env, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert show.returncode == 0, show.stderr
        assert "checkpoints              1 (/rewind N goes back over the last N)" in show.stdout
        assert (
            f"    1  turn 1: 3 files  ~{cwd / 'mine.txt'} +{cwd / 'new.txt'} ~{cwd / 'shared.txt'}"
            in show.stdout
        )

        before = blobs_in(data)
        digest = {
            t: hashlib.sha256(t.encode()).hexdigest()
            for t in (
                "shared before\n",
                "shared after\n",
                "only mine\n",
                "mine after\n",
                "brand new\n",
            )
        }
        assert set(digest.values()) <= before
        past = time.time() - 3600  # older than a turn elsewhere could still be taking them up
        for p in (data / "blobs").glob("??/*"):
            os.utime(p, (past, past))
        c.result("session/delete", {"sessionId": gone})
        after = blobs_in(data)
        assert digest["shared before\n"] in after and digest["shared after\n"] in after
        assert not {digest["only mine\n"], digest["mine after\n"], digest["brand new\n"]} & after
        assert c.result(REWIND, {"sessionId": kept})["restored"] == [str(cwd / "shared.txt")]
        assert (cwd / "shared.txt").read_text() == "shared before\n"
        assert c.close() == 0


def test_a_rewind_to_just_after_a_reply_puts_back_what_the_later_prompts_changed(
    tmp_path: Path,
) -> None:
    """`messageId`, inclusive: the reply that ends the first turn stays, the files are as that
    turn left them, and the conversation goes on from there."""
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd = Path(c.scenario.vars["CWD"])
        sid = full(c)
        turn(server, ("write", {"path": "a.txt", "content": "one\n"}), text="Wrote one.")
        c.take_notes()
        ended(c, sid, "first")
        replies = [
            u["messageId"]
            for u in updates_of(c.take_notes(), sid)
            if u["sessionUpdate"] == "agent_message_chunk"
        ]
        for text in ("second", "third"):
            turn(server, ("write", {"path": "a.txt", "content": f"{text}\n"}))
            ended(c, sid, text)
        both = c.call(REWIND, {"sessionId": sid, "prompts": 1, "messageId": replies[-1]})
        assert "not both" in both["error"]["message"]
        thought = c.call(REWIND, {"sessionId": sid, "messageId": "nope"})
        assert "no message nope" in thought["error"]["message"]
        done = c.result(REWIND, {"sessionId": sid, "messageId": replies[-1]})
        assert done["prompts"] == 2 and done["restored"] == [str(cwd / "a.txt")]
        assert (cwd / "a.txt").read_text() == "one\n"
        c.take_notes()
        c.result("session/load", {"sessionId": sid, "cwd": str(cwd), "mcpServers": []})
        shown = updates_of(c.notes, sid)
        said = [u["content"]["text"] for u in shown if u["sessionUpdate"] == "user_message_chunk"]
        assert said == ["first"]
        last = [u for u in shown if u["sessionUpdate"] == "agent_message_chunk"][-1]
        assert last["messageId"] == replies[-1]
        ended_again = c.call(REWIND, {"sessionId": sid, "messageId": replies[-1]})
        assert "nothing to undo" in ended_again["error"]["message"]
        asked = next(u for u in shown if u["sessionUpdate"] == "user_message_chunk")
        prompt_refused = c.call(REWIND, {"sessionId": sid, "messageId": asked["messageId"]})
        assert prompt_refused["error"]["message"].endswith(
            "is the user's prompt, not a reply: rewind to the reply that ends the turn before it"
        )
        assert c.close() == 0
    assert server.refused == []
