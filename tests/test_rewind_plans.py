"""A rewind's stored plan that cannot be read never makes a session impossible to open, through
a real `acp` against the DeepSeek stand-in: a rewind is killed half way, its plan in the store is
damaged (not JSON, not an object, text that is not UTF-8, a header field missing or of another
shape or value: `turn`, `cut`, `keptAs`, `keptTitle`), and `session/load` opens the session with
no file touched and the conversation as it was; the log names it (never the plan's content), the
next prompt warns of it once, naming the files the rewind may have left partly put back when the
plan names them, and the plan stays in its row, set aside, until the session's next rewind,
which finishes what the lost one began."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.deepseek_server import DeepSeek
from tests.test_deepseek import agent, config, prompt
from tests.test_rewind import REWIND, ended, full, turn
from tests.test_rewind_blobs import pending, user_said
from tests.test_sessions import updates_of
from tests.transcript import Scenario

COUNT, SIZE = 120, 512 * 1024
TITLE = "change them all (before rewind)"  # the plan's keptTitle: never in the log
UNFINISHED = "could not be finished"
Plan = dict[str, Any]


def db_of(data: Path) -> sqlite3.Connection:
    return sqlite3.connect(data / "reasonix-acp.sqlite3")


def killed_mid_rewind(tmp_path: Path, server: DeepSeek) -> tuple[Scenario, str, str]:
    """A session whose rewind of one prompt was killed half way (f000.bin put back, x.txt not
    yet); → the scenario, the session's id and its plan's stored text."""
    scenario = Scenario(tmp_path)
    c = agent(tmp_path, config(server), scenario)
    cwd, data = Path(scenario.vars["CWD"]), Path(scenario.vars["DATA"])
    for i in range(COUNT):
        (cwd / f"f{i:03}.bin").write_bytes(bytes([i]) * SIZE)
    (cwd / "x.txt").write_text("x earlier\n")
    sid = full(c)
    turn(server, ("bash", {"command": "for f in f*.bin x.txt; do echo changed > $f; done"}))
    ended(c, sid, "change them all")
    c.send({"jsonrpc": "2.0", "id": 999, "method": REWIND, "params": {"sessionId": sid}})
    deadline = time.monotonic() + 20
    while (cwd / "f000.bin").stat().st_size != SIZE:
        assert time.monotonic() < deadline
    c.kill()
    assert (cwd / "x.txt").read_text() == "changed\n", "the kill came late: bigger files"
    assert pending(data) == 1
    with db_of(data) as db:
        body = str(db.execute("SELECT body FROM rewinds").fetchone()[0])
    assert json.loads(body)["keptTitle"] == TITLE
    return scenario, sid, body


def workspace(cwd: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(cwd.iterdir())}


def edited(change: Callable[[Plan], None]) -> Callable[[str, str], Any]:
    def damage(body: str, sid: str) -> str:
        plan = json.loads(body)
        change(plan)
        return json.dumps(plan)

    return damage


def field(name: str, value: Any) -> Callable[[str, str], Any]:
    return edited(lambda plan: plan.__setitem__(name, value))


def without(name: str) -> Callable[[str, str], Any]:
    return edited(lambda plan: plan.pop(name))


def shifted(name: str, by: int) -> Callable[[str, str], Any]:
    return edited(lambda plan: plan.__setitem__(name, plan[name] + by))


def kept_as_itself(body: str, sid: str) -> str:
    plan = json.loads(body)
    plan["keptAs"] = sid
    return json.dumps(plan)


# (what is damaged, how, whether the plan's files can still be named)
DAMAGES: list[tuple[str, Callable[[str, str], Any], bool]] = [
    ("cut short", lambda body, sid: body[: len(body) // 2], False),
    ("not an object", lambda body, sid: "[1, 2, 3]", False),
    ("not UTF-8", lambda body, sid: b"\xff\xfe{\x00", False),
    ("turn missing", without("turn"), True),
    ("turn text", field("turn", "1"), True),
    ("turn another", shifted("turn", 7), True),
    ("cut null", field("cut", None), True),
    ("cut past", shifted("cut", 1), True),
    ("keptAs a number", field("keptAs", 42), True),
    ("keptAs a path", field("keptAs", "../../elsewhere"), True),
    ("keptAs the session", kept_as_itself, True),
    ("keptTitle null", field("keptTitle", None), True),
]


def warnings(c: Client, sid: str) -> list[str]:
    return [
        u["content"]["text"]
        for u in updates_of(c.take_notes(), sid)
        if u["sessionUpdate"] == "agent_message_chunk" and "[warning]" in u["content"]["text"]
    ]


def test_a_rewind_plan_that_cannot_be_read_is_set_aside_and_named(tmp_path: Path) -> None:
    with DeepSeek() as server:
        scenario, sid, body = killed_mid_rewind(tmp_path, server)
        cwd, data = Path(scenario.vars["CWD"]), Path(scenario.vars["DATA"])
        half_done = workspace(cwd)
        for what, damage, named in DAMAGES:
            with db_of(data) as db:
                db.execute("UPDATE rewinds SET body = ?", (damage(body, sid),))
            c = Client(tmp_path, scenario=scenario)
            c.result("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
            c.result("session/load", {"sessionId": sid, "cwd": str(cwd), "mcpServers": []})
            assert workspace(cwd) == half_done, what
            assert user_said(c, sid)[:1] == ["change them all"], what
            server.replies.append({"text": "Fine."})
            assert prompt(c, sid, "go on")["result"] == {"stopReason": "end_turn"}, what
            said = warnings(c, sid)
            assert len(said) == 1 and UNFINISHED in said[0], (what, said)
            assert (str(cwd / "f000.bin") in said[0]) == named, (what, said)
            assert ("and 111 more" in said[0]) == named, (what, said)
            with db_of(data) as db:
                kept = json.loads(db.execute("SELECT body FROM rewinds").fetchone()[0])
            assert kept["setAside"] and isinstance(kept["plan"], str), what
            assert c.close() == 0, what
            log = c.agent.stderr.decode()
            assert f"session {sid}: " in log and UNFINISHED in log, (what, log)
            assert TITLE not in log, (what, log)


def test_a_plan_set_aside_is_told_once_and_the_next_rewind_finishes(tmp_path: Path) -> None:
    """Set aside at one opening, the plan is neither told again nor read again at the next;
    another session can be deleted meanwhile (the store's blob count reads every plan); a new
    rewind replaces the plan set aside and puts back the files the lost one had not reached."""
    with DeepSeek() as server:
        scenario, sid, body = killed_mid_rewind(tmp_path, server)
        cwd, data = Path(scenario.vars["CWD"]), Path(scenario.vars["DATA"])
        with db_of(data) as db:
            db.execute("UPDATE rewinds SET body = ?", (body[:-5],))
        c = Client(tmp_path, scenario=scenario)
        other = c.start()
        c.result("session/close", {"sessionId": other})
        c.result("session/delete", {"sessionId": other})
        c.result("session/load", {"sessionId": sid, "cwd": str(cwd), "mcpServers": []})
        assert c.close() == 0
        assert UNFINISHED in c.agent.stderr.decode()

        again = Client(tmp_path, scenario=scenario)
        again.result("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        again.result("session/load", {"sessionId": sid, "cwd": str(cwd), "mcpServers": []})
        server.replies.append({"text": "Fine."})
        assert prompt(again, sid, "go on")["result"] == {"stopReason": "end_turn"}
        assert warnings(again, sid) == []
        done = again.result(REWIND, {"sessionId": sid, "prompts": 2})
        assert done["left"] == []
        assert str(cwd / "x.txt") in done["restored"]
        assert (cwd / "x.txt").read_text() == "x earlier\n"
        for i in range(COUNT):
            assert (cwd / f"f{i:03}.bin").read_bytes() == bytes([i]) * SIZE
        assert pending(data) == 0
        assert again.close() == 0
        assert UNFINISHED not in again.agent.stderr.decode()
