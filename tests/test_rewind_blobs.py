"""A damaged or missing blob never makes a session impossible to open, through a real `acp`
against the DeepSeek stand-in: a blob whose bytes do not match its digest (changed, truncated),
one gone, or something else in its place (a directory, a link) is checked before anything is
written back; its file is left as it is and named in the rewind's `left` ("its earlier bytes
are damaged" / "are missing"), every other file is put back, the conversation is cut, and the
session opens. The same holds for a rewind a kill cut short and the next opening finishes (the
next prompt names the files it left). A damaged blob is mended when a later turn keeps the same
bytes again, and a huge file in a blob's place is named damaged without being read into memory."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path

from tests.client import Client
from tests.deepseek_server import DeepSeek
from tests.test_deepseek import agent, config, prompt
from tests.test_rewind import REWIND, ended, full, turn
from tests.test_sessions import updates_of
from tests.transcript import Scenario

DAMAGED = "its earlier bytes are damaged"
MISSING = "its earlier bytes are missing"


def blob(data: Path, content: bytes) -> Path:
    digest = hashlib.sha256(content).hexdigest()
    return data / "blobs" / digest[:2] / digest[2:]


def pending(data: Path) -> int:
    with sqlite3.connect(data / "reasonix-acp.sqlite3") as db:
        return int(db.execute("SELECT COUNT(*) FROM rewinds").fetchone()[0])


def user_said(c: Client, sid: str) -> list[str]:
    return [
        u["content"]["text"]
        for u in updates_of(c.take_notes(), sid)
        if u["sessionUpdate"] == "user_message_chunk"
    ]


def test_a_rewind_leaves_the_files_whose_blobs_are_damaged_or_missing(tmp_path: Path) -> None:
    earlier = {name: f"{name} before\n".encode() for name in "abcdef"}
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd, data = Path(c.scenario.vars["CWD"]), Path(c.scenario.vars["DATA"])
        for name, content in earlier.items():
            (cwd / f"{name}.txt").write_bytes(content)
        sid = full(c)
        turn(server, *[("write", {"path": f"{n}.txt", "content": f"{n} after\n"}) for n in earlier])
        ended(c, sid, "change them all")
        changed = blob(data, earlier["a"])
        changed.write_bytes(b"A BEFORE\n")  # same length, other bytes
        with blob(data, earlier["b"]).open("r+b") as fh:
            fh.truncate(3)
        blob(data, earlier["c"]).unlink()
        blob(data, earlier["d"]).unlink()
        blob(data, earlier["d"]).mkdir()
        blob(data, earlier["e"]).unlink()
        os.symlink(cwd / "e.txt", blob(data, earlier["e"]))

        done = c.result(REWIND, {"sessionId": sid})
        assert done["left"] == [
            {"path": str(cwd / "a.txt"), "reason": DAMAGED},
            {"path": str(cwd / "b.txt"), "reason": DAMAGED},
            {"path": str(cwd / "c.txt"), "reason": MISSING},
            {"path": str(cwd / "d.txt"), "reason": DAMAGED},
            {"path": str(cwd / "e.txt"), "reason": DAMAGED},
        ]
        assert done["restored"] == [str(cwd / "f.txt")]
        assert (cwd / "f.txt").read_bytes() == earlier["f"]
        for name in "abcde":
            assert (cwd / f"{name}.txt").read_text() == f"{name} after\n", name
        assert pending(data) == 0

        c.take_notes()
        c.result("session/load", {"sessionId": sid, "cwd": str(cwd), "mcpServers": []})
        assert user_said(c, sid) == []
        c.result("session/load", {"sessionId": done["keptAs"], "cwd": str(cwd), "mcpServers": []})
        assert user_said(c, done["keptAs"]) == ["change them all"]
        assert c.close() == 0


def test_a_rewind_finished_at_the_next_opening_skips_a_damaged_blob(tmp_path: Path) -> None:
    """A rewind killed half way; before the session is opened again the blob of the file it
    had not reached yet (z.txt) is damaged and another's (y.txt) is gone: the opening puts back
    every other file, leaves those two and names them (in the log, and once to the user at the
    next prompt), finishes the plan, and the session opens (again and again)."""
    count, size = 120, 512 * 1024
    with DeepSeek() as server:
        scenario = Scenario(tmp_path)
        c = agent(tmp_path, config(server), scenario)
        cwd, data = Path(scenario.vars["CWD"]), Path(scenario.vars["DATA"])
        for i in range(count):
            (cwd / f"f{i:03}.bin").write_bytes(bytes([i]) * size)
        (cwd / "x.txt").write_text("x earlier\n")
        (cwd / "y.txt").write_text("y earlier\n")
        (cwd / "z.txt").write_text("z earlier\n")
        sid = full(c)
        command = "for f in f*.bin x.txt y.txt z.txt; do echo changed > $f; done"
        turn(server, ("bash", {"command": command}))
        ended(c, sid, "change them all")
        c.send({"jsonrpc": "2.0", "id": 999, "method": REWIND, "params": {"sessionId": sid}})
        deadline = time.monotonic() + 20
        while (cwd / "f000.bin").stat().st_size != size:
            assert time.monotonic() < deadline
        c.kill()
        assert (cwd / "x.txt").read_text() == "changed\n", "the kill came late: bigger files"
        assert pending(data) == 1
        with sqlite3.connect(data / "reasonix-acp.sqlite3") as db:
            plan = json.loads(db.execute("SELECT body FROM rewinds").fetchone()[0])
            for step in plan["steps"]:
                if step["path"] == str(cwd / "x.txt"):
                    step["mode"] = "rw-r--r--"
            db.execute("UPDATE rewinds SET body = ?", (json.dumps(plan),))
        blob(data, b"z earlier\n").write_bytes(b"z EARLIER\n")
        blob(data, b"y earlier\n").unlink()

        again = Client(tmp_path, scenario=scenario)
        again.result("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        again.result("session/load", {"sessionId": sid, "cwd": str(cwd), "mcpServers": []})
        for i in range(count):
            assert (cwd / f"f{i:03}.bin").read_bytes() == bytes([i]) * size
        for name in ("x.txt", "y.txt", "z.txt"):
            assert (cwd / name).read_text() == "changed\n", name
        assert user_said(again, sid) == []
        assert pending(data) == 0
        server.replies.append({"text": "Fine."})
        assert prompt(again, sid, "go on")["result"] == {"stopReason": "end_turn"}
        said = [
            u["content"]["text"]
            for u in updates_of(again.take_notes(), sid)
            if u["sessionUpdate"] == "agent_message_chunk" and "[warning]" in u["content"]["text"]
        ]
        assert len(said) == 1 and "was finished, but these files were left" in said[0], said
        for name, why in (("x.txt", "the rewind's plan for it is damaged"), ("y.txt", MISSING)):
            assert f"{cwd / name} ({why})" in said[0]
        assert f"{cwd / 'z.txt'} ({DAMAGED})" in said[0]
        assert again.close() == 0
        log = again.agent.stderr.decode()
        assert f"{cwd / 'x.txt'} (the rewind's plan for it is damaged)" in log
        assert f"{cwd / 'y.txt'} ({MISSING})" in log
        assert f"{cwd / 'z.txt'} ({DAMAGED})" in log

        third = Client(tmp_path, scenario=scenario)
        third.result("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        third.result("session/load", {"sessionId": sid, "cwd": str(cwd), "mcpServers": []})
        assert user_said(third, sid) == ["go on"]
        assert third.close() == 0


def test_a_damaged_blob_is_mended_when_its_bytes_are_kept_again(tmp_path: Path) -> None:
    """Blobs damaged after the turn that kept them (other bytes of the same size, cut short,
    grown, a link in their place) are written again whole when a later turn keeps the same
    bytes (here as copies): a rewind past both turns puts every file back."""
    earlier = {name: f"{name} before\n".encode() for name in "abcd"}
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd, data = Path(c.scenario.vars["CWD"]), Path(c.scenario.vars["DATA"])
        for name, content in earlier.items():
            (cwd / f"{name}.txt").write_bytes(content)
        sid = full(c)
        turn(server, *[("write", {"path": f"{n}.txt", "content": f"{n} after\n"}) for n in earlier])
        ended(c, sid, "change them all")
        blob(data, earlier["a"]).write_bytes(b"A BEFORE\n")
        with blob(data, earlier["b"]).open("r+b") as fh:
            fh.truncate(3)
        with blob(data, earlier["c"]).open("ab") as fh:
            fh.write(b"more")
        blob(data, earlier["d"]).unlink()
        os.symlink(cwd / "d.txt", blob(data, earlier["d"]))

        copies = [
            ("write", {"path": f"{n}.copy", "content": c.decode()}) for n, c in earlier.items()
        ]
        turn(server, *copies)
        ended(c, sid, "copy what they held")
        for content in earlier.values():
            assert blob(data, content).read_bytes() == content
            assert not blob(data, content).is_symlink()

        done = c.result(REWIND, {"sessionId": sid, "prompts": 2})
        assert done["left"] == []
        assert done["restored"] == [str(cwd / f"{n}.txt") for n in "abcd"]
        for name, content in earlier.items():
            assert (cwd / f"{name}.txt").read_bytes() == content, name
            assert not (cwd / f"{name}.copy").exists()
        assert c.close() == 0


def peak_kib(pid: int) -> int:
    """The process's peak resident set (VmHWM), in KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))


def test_a_huge_file_in_a_blobs_place_is_not_read(tmp_path: Path) -> None:
    """A 1 GiB (sparse) file put where a blob was: the rewind names its file damaged without
    reading it into memory (the agent's peak resident set grows by far less than that)."""
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd, data = Path(c.scenario.vars["CWD"]), Path(c.scenario.vars["DATA"])
        (cwd / "x.txt").write_text("x before\n")
        (cwd / "y.txt").write_text("y before\n")
        sid = full(c)
        turn(server, *[("write", {"path": f"{n}.txt", "content": f"{n} after\n"}) for n in "xy"])
        ended(c, sid, "change them")
        huge = blob(data, b"x before\n")
        huge.unlink()
        with huge.open("wb") as fh:
            fh.truncate(1 << 30)

        before = peak_kib(c.agent.proc.pid)
        done = c.result(REWIND, {"sessionId": sid})
        grown = peak_kib(c.agent.proc.pid) - before
        assert done["left"] == [{"path": str(cwd / "x.txt"), "reason": DAMAGED}]
        assert done["restored"] == [str(cwd / "y.txt")]
        assert (cwd / "x.txt").read_text() == "x after\n"
        assert grown < 64 * 1024, f"the peak resident set grew by {grown} KiB"
        assert c.close() == 0


def test_a_huge_file_where_a_rewound_file_was_is_not_read(tmp_path: Path) -> None:
    """A file the rewound turn changed is replaced by a 1 GiB (sparse) one: the rewind's plan
    does not read it into memory to compare it (no file kept is that large, so it is changed
    since): it is left and named."""
    with DeepSeek() as server:
        c = agent(tmp_path, config(server))
        cwd = Path(c.scenario.vars["CWD"])
        (cwd / "x.txt").write_text("x before\n")
        sid = full(c)
        turn(server, ("write", {"path": "x.txt", "content": "x after\n"}))
        ended(c, sid, "change it")
        with (cwd / "x.txt").open("r+b") as fh:
            fh.truncate(1 << 30)

        before = peak_kib(c.agent.proc.pid)
        refused = c.call(REWIND, {"sessionId": sid})
        grown = peak_kib(c.agent.proc.pid) - before
        assert grown < 64 * 1024, f"the peak resident set grew by {grown} KiB"
        assert refused["result"]["left"] == [
            {"path": str(cwd / "x.txt"), "reason": "changed since the rewound turns"}
        ]
        assert (cwd / "x.txt").stat().st_size == 1 << 30
        assert c.close() == 0
