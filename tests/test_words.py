"""What `acp` says in words is true and reads right: counts of one in the singular, `/help`
describing what `/status` shows, the README naming the config options by the ids the agent
sends, and every option of the command line documented where the command line is."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from reasonix_acp.cli.usage import HELP, SESSION_COMMANDS, SESSIONS, USAGE
from tests.client import Client
from tests.sse_server import Server, chunk
from tests.test_compaction import client, start
from tests.test_goal import run_prompt
from tests.test_history_exact import converse, text_stream
from tests.test_sessions import updates_of
from tests.test_sessions_cli import acp as acp_sessions

ROOT = Path(__file__).parents[1]


def said(c: Client, sid: str) -> str:
    """The text of the agent's message chunks so far, taken from the notes."""
    chunks = updates_of(c.take_notes(), sid)
    return "".join(
        u["content"]["text"] for u in chunks if u["sessionUpdate"] == "agent_message_chunk"
    )


def test_one_turn_and_one_compacted_message_are_singular(tmp_path: Path) -> None:
    with Server() as server:
        server.behaviours.extend([text_stream("one"), text_stream("SUMM.")])
        c = client(tmp_path, server, "[context]\nkeep_turns = 0\n")
        sid = start(c)  # a client without the compaction capability: told in a message
        converse(c, sid, [{"type": "text", "text": "first"}])
        c.take_notes()
        converse(c, sid, [{"type": "text", "text": "/compact"}])
        told = said(c, sid)
        assert c.close() == 0
    assert "[compacted 1 earlier message to save context]" in told, told
    md = acp_sessions(tmp_path, "export", sid, "--format", "markdown").stdout
    assert "## Compacted (1 earlier message)" in md, md
    listed = acp_sessions(tmp_path, "list").stdout
    assert re.search(r"\b2 turns\b", listed), listed  # the prompt and /compact
    c = Client(tmp_path / "one", "--model", "offline")
    sid = c.start()
    converse(c, sid, [{"type": "text", "text": "hello"}])
    assert c.close() == 0
    listed = acp_sessions(tmp_path / "one", "list").stdout
    assert re.search(r"\b1 turn\b", listed) and "1 turns" not in listed, listed


def test_help_says_what_status_shows(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    sid = c.start()
    converse(c, sid, [{"type": "text", "text": "/status"}])
    status = said(c, sid)
    converse(c, sid, [{"type": "text", "text": "/help"}])
    helped = said(c, sid)
    assert c.close() == 0
    line = next(ln for ln in helped.splitlines() if "/status" in ln)
    assert "transcript size" not in line, line
    for shown, described in (
        ("model ", "model"),
        ("(effort ", "effort"),
        ("mode ", "mode"),
        ("permissions ", "permissions"),
        ("turns stored", "stored turns"),
        ("cwd ", "folder"),
    ):
        assert shown in status and described in line, (shown, status, line)


def test_the_readme_names_the_config_options_by_the_ids_the_agent_sends(tmp_path: Path) -> None:
    c = Client(tmp_path, "--model", "offline")
    c.result("initialize", {"protocolVersion": 1})
    opened: dict[str, Any] = c.result(
        "session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []}
    )
    assert c.close() == 0
    row = next(
        line
        for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| sessions |")
    )
    for option in opened["configOptions"]:
        assert f"`{option['id']}`" in row, (option["id"], row)
    assert "`thought_level`" not in row and "`_tool_approval`" not in row, row


def test_every_command_line_option_is_documented_where_the_command_line_is() -> None:
    texts = [USAGE, SESSIONS, *HELP.values(), *SESSION_COMMANDS.values()]
    options = {o for text in texts for o in re.findall(r"(?<![\w-])--[a-z][a-z-]+", text)}
    assert {"--log-level", "--line-limit", "--no-check", "--all"} <= options
    docs = (ROOT / "docs" / "running.md").read_text(encoding="utf-8")
    missing = sorted(o for o in options if f"`{o}" not in docs)
    assert not missing, f"docs/running.md does not describe {missing}"


def test_every_count_of_one_is_singular(tmp_path: Path) -> None:
    """The counts the first list left: a goal's turns in /status, the todo tool's entries and the
    offline model's steps; an edit's replacements (what the model reads) below."""
    script = tmp_path / "script.jsonl"
    steps = [
        [{"tool_call": {"name": "write", "arguments": {"path": "a.txt", "content": "x\n"}}}],
        [{"tool_call": {"name": "goal_update", "arguments": {"status": "complete"}}}],
        [{"text": "Done."}],
    ]
    script.write_text("".join(json.dumps({"steps": s}) + "\n" for s in steps), encoding="utf-8")
    c = Client(tmp_path / "goal", "--model", "offline", "--script", str(script))
    sid = c.start()
    assert c.call("session/set_mode", {"sessionId": sid, "modeId": "goal"})["result"] == {}
    reply, _ = run_prompt(c, sid, "write a.txt")
    assert reply["result"] == {"stopReason": "end_turn"}, reply
    converse(c, sid, [{"type": "text", "text": "/status"}])
    status = said(c, sid)
    assert c.close() == 0
    assert "(1 turn" in status and "1 turns" not in status, status
    c = Client(tmp_path / "plan", "--model", "offline")
    sid = c.start()
    converse(c, sid, [{"type": "text", "text": "- the one step"}])
    notes = c.take_notes()
    assert c.close() == 0
    shown = json.dumps(updates_of(notes, sid))
    assert "Plan updated: 1 entry" in shown and "1 entries" not in shown, shown
    c.notes = notes
    assert said(c, sid) == "Planned 1 step.", shown


def test_an_edit_of_one_replacement_says_so_to_the_model(tmp_path: Path) -> None:
    edit = {"path": "a.txt", "edits": [{"old_text": "x", "new_text": "y"}]}
    call = {"id": "call_e", "type": "function"}
    call["function"] = {"name": "edit", "arguments": json.dumps(edit)}
    edits = [chunk({"role": "assistant", "tool_calls": [call]}), chunk({}, finish="tool_calls")]
    with Server() as server:
        server.behaviours.extend([[*edits, b"data: [DONE]\n\n"], text_stream("Edited.")])
        c = client(tmp_path, server, "")
        (Path(c.scenario.vars["CWD"]) / "a.txt").write_text("x\n", encoding="utf-8")
        sid = start(c)
        allow = {"outcome": {"outcome": "selected", "optionId": "allow_once"}}
        converse(c, sid, [{"type": "text", "text": "edit a.txt"}], on_request=lambda _: allow)
        assert c.close() == 0
        told = server.bodies[-1].decode()
    assert "(1 replacement)" in told and "1 replacements" not in told, told
