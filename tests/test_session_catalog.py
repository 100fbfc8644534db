"""The unstable session methods a client uses to keep its list of sessions: `session/set_title`,
`session/archive` and `session/unarchive` (with session/list's `archived` filter) and
`session/status`, each advertised by its `sessionCapabilities` entry. Driven as raw JSON-RPC:
the official Python SDK (agent-client-protocol 0.12.1) has none of these methods."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.client import Client
from tests.test_fork import prompt
from tests.test_session_wedges import Wire, delay, is_update, text
from tests.test_sessions import updates_of
from tests.transcript import Scenario


def listed(c: Client, **params: Any) -> dict[str, dict[str, Any]]:
    return {s["sessionId"]: s for s in c.result("session/list", params)["sessions"]}


def test_the_three_capabilities_are_advertised(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    init = c.result("initialize", {"protocolVersion": 1})
    caps = init["agentCapabilities"]["sessionCapabilities"]
    assert caps["title"] == {} and caps["archive"] == {} and caps["status"] == {}
    assert caps["list"] == {}  # archive requires it
    assert c.close() == 0


def test_a_client_title_wins_over_the_generated_one_and_survives_load_and_fork(
    tmp_path: Path,
) -> None:
    c = Client(tmp_path, "--model", "offline")
    sid = c.start()
    c.take_notes()
    answer = c.result("session/set_title", {"sessionId": sid, "title": "  Release   notes \n"})
    assert answer == {"title": "Release notes"}  # whitespace normalised, the stored title
    infos = [
        u for u in updates_of(c.take_notes(), sid) if u["sessionUpdate"] == "session_info_update"
    ]
    assert infos == [{"sessionUpdate": "session_info_update", "title": "Release notes"}]
    prompt(c, sid, "write the changelog")  # would have titled it "write the changelog"
    notes = updates_of(c.take_notes(), sid)
    assert not [u for u in notes if u["sessionUpdate"] == "session_info_update"]
    assert listed(c)[sid]["title"] == "Release notes"
    cwd = c.scenario.vars["CWD"]
    fork = c.result("session/fork", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
    assert listed(c)[fork["sessionId"]]["title"] == "Release notes"
    assert c.close() == 0

    again = Client(tmp_path, "--model", "offline", scenario=c.scenario)
    again.result("initialize", {"protocolVersion": 1})
    again.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
    prompt(again, sid, "and the release")
    assert listed(again)[sid]["title"] == "Release notes"
    assert again.close() == 0


def test_a_stored_session_not_open_can_be_retitled(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    sid = c.start()
    prompt(c, sid, "hello")
    assert c.result("session/close", {"sessionId": sid}) == {}
    assert c.result("session/set_title", {"sessionId": sid, "title": "Greeting"})
    assert listed(c)[sid]["title"] == "Greeting"
    assert c.close() == 0


def test_set_title_refuses_bad_titles_and_unknown_sessions(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    sid = c.start()
    for params in ({"sessionId": sid, "title": " \n "}, {"sessionId": sid}):
        error = c.call("session/set_title", params)["error"]
        assert error["code"] == -32602 and "title" in error["message"], error
    error = c.call("session/set_title", {"sessionId": "nope", "title": "x"})["error"]
    assert error["code"] == -32002 and "nope" in error["message"]
    assert error["data"] == {"sessionId": "nope"}
    assert c.close() == 0


def test_an_archived_session_is_hidden_from_the_default_list_and_keeps_its_history(
    tmp_path: Path,
) -> None:
    c = Client(tmp_path, "--model", "offline")
    sid = c.start()
    prompt(c, sid, "keep me")
    other = c.result("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})
    prompt(c, other["sessionId"], "stay listed")
    assert listed(c)[sid]["archived"] is False  # every listed session says
    assert c.result("session/archive", {"sessionId": sid}) == {}
    assert c.result("session/archive", {"sessionId": sid}) == {}  # again: succeeds
    # Archiving closed it: it is no longer open here.
    error = c.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "x"}]})
    assert "error" in error
    assert c.result("session/status", {"sessionId": sid}) == {"status": "saved"}
    assert sid not in listed(c)
    assert sid not in listed(c, archived="exclude")
    assert listed(c, archived="include")[sid]["archived"] is True
    assert listed(c, archived="include")[other["sessionId"]]["archived"] is False
    assert list(listed(c, archived="only")) == [sid]
    assert c.result("session/unarchive", {"sessionId": sid}) == {}
    assert c.result("session/unarchive", {"sessionId": sid}) == {}
    assert listed(c)[sid]["archived"] is False
    assert c.close() == 0


def test_loading_an_archived_session_brings_it_back(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    sid = c.start()
    prompt(c, sid, "keep me")
    c.result("session/archive", {"sessionId": sid})
    c.take_notes()
    cwd = c.scenario.vars["CWD"]
    c.result("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
    replayed = [
        u for u in updates_of(c.take_notes(), sid) if u["sessionUpdate"] == "user_message_chunk"
    ]
    assert replayed[0]["content"]["text"] == "keep me"
    assert listed(c)[sid]["archived"] is False
    assert c.close() == 0


def test_archive_filters_and_unknown_sessions_are_refused(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    c.start()
    for value in ("everything", "_custom"):
        error = c.call("session/list", {"archived": value})["error"]
        assert error["code"] == -32602 and "archived" in error["message"], error
    for method in ("session/archive", "session/unarchive", "session/status"):
        error = c.call(method, {"sessionId": "nope"})["error"]
        assert error["code"] == -32002 and "nope" in error["message"], (method, error)
        assert error["data"] == {"sessionId": "nope"}
        error = c.call(method, {})["error"]
        assert error["code"] == -32602 and "sessionId" in error["message"], (method, error)
    assert c.close() == 0


def test_status_says_where_a_session_is(tmp_path: Path) -> None:
    first = Client(tmp_path, "--model", "offline")
    sid = first.start()
    status = first.result("session/status", {"sessionId": sid})
    assert status == {"status": "open", "_meta": {"reasonix.io": {"turn": "idle"}}}
    prompt(first, sid, "hello")
    second = Client(tmp_path, "--model", "offline", scenario=first.scenario)
    second.result("initialize", {"protocolVersion": 1})
    elsewhere = second.result("session/status", {"sessionId": sid})
    assert elsewhere["status"] == "saved"
    assert "process" in elsewhere["_meta"]["reasonix.io"]["openElsewhere"]
    # Asking changed nothing: the first process still has it, the second has no lease.
    prompt(first, sid, "still mine")
    assert first.result("session/close", {"sessionId": sid}) == {}
    assert first.result("session/status", {"sessionId": sid}) == {"status": "saved"}
    assert second.result("session/status", {"sessionId": sid}) == {"status": "saved"}
    assert first.close() == 0
    assert second.close() == 0


def test_archiving_a_session_another_process_has_open_is_refused(tmp_path: Path) -> None:
    first = Client(tmp_path, "--model", "offline")
    sid = first.start()
    prompt(first, sid, "hello")
    second = Client(tmp_path, "--model", "offline", scenario=first.scenario)
    second.result("initialize", {"protocolVersion": 1})
    error = second.call("session/archive", {"sessionId": sid})["error"]
    assert error["code"] == -32600 and "close the other window" in error["message"]
    assert sid in listed(second)
    assert first.close() == 0
    assert second.result("session/archive", {"sessionId": sid}) == {}
    assert second.close() == 0


def test_archiving_a_session_mid_turn_ends_the_turn_then_archives_it(tmp_path: Path) -> None:
    script = tmp_path / "script.jsonl"
    steps = [text("slow "), delay(5000), text("reply")]
    script.write_text(json.dumps({"steps": steps}) + "\n", encoding="utf-8")
    agent = Wire(tmp_path, ["--model", "offline", "--script", str(script)], Scenario(tmp_path))
    sid = agent.start()
    running = agent.prompt(sid, "start")
    agent.wait_for(is_update(sid, "agent_message_chunk", "slow"), "the turn's first words")
    assert agent.call("session/archive", {"sessionId": sid})["result"] == {}
    assert agent.answer(running)["result"] == {"stopReason": "cancelled"}
    status = agent.call("session/status", {"sessionId": sid})["result"]
    assert status == {"status": "saved"}
    only = agent.call("session/list", {"archived": "only"})["result"]["sessions"]
    assert [s["sessionId"] for s in only] == [sid]
    assert agent.finish() == 0
