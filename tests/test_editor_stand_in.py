"""Editor stand-ins on the official SDK's client side, driving a real `acp` subprocess: one with
in-memory buffers, a terminal that runs commands for real, and a user who allows once; one that
shows permission options by kind alone and cancels the turn on a rejection (as CodeCompanion
and agent-shell do)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from acp import spawn_agent_process
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    FileSystemCapabilities,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    TextContentBlock,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from tests.transcript import Scenario, acp_command


class Editor:
    def __init__(self, buffers: dict[str, str]) -> None:
        self.buffers = buffers  # path → unsaved text
        self.terminals: dict[str, tuple[int, str]] = {}
        self.log: list[str] = []

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        pass

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> Any:
        self.log.append(f"permission {tool_call.title}")
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id="allow_once")
        )

    async def read_text_file(self, path: str, session_id: str, **kwargs: Any) -> Any:
        self.log.append(f"read {os.path.basename(path)}")
        return ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, content: str, path: str, session_id: str, **kwargs: Any) -> Any:
        self.log.append(f"write {os.path.basename(path)}")
        self.buffers[path] = content
        return WriteTextFileResponse()

    async def create_terminal(
        self, command: str, session_id: str, args: Any = None, cwd: Any = None, **kwargs: Any
    ) -> Any:
        proc = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        out, _ = await proc.communicate()
        terminal_id = f"t{len(self.terminals) + 1}"
        self.terminals[terminal_id] = (proc.returncode or 0, out.decode())
        self.log.append(f"terminal {' '.join(args or [])}")
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        return WaitForTerminalExitResponse(exit_code=self.terminals[terminal_id][0])

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        code, out = self.terminals[terminal_id]
        return TerminalOutputResponse(
            output=out, truncated=False, exit_status=TerminalExitStatus(exit_code=code)
        )

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.log.append(f"release {terminal_id}")
        return ReleaseTerminalResponse()

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        return None


async def test_an_editor_with_buffers_and_terminals(tmp_path: Path) -> None:
    scenario = Scenario(tmp_path)
    cwd = scenario.vars["CWD"]
    notes = os.path.join(cwd, "notes.txt")
    calls = [
        {
            "tool_call": {
                "name": "edit",
                "arguments": {
                    "path": "notes.txt",
                    "edits": [{"old_text": "draft", "new_text": "final"}],
                },
            }
        },
        {"tool_call": {"name": "bash", "arguments": {"command": "echo from the editor terminal"}}},
    ]
    script = tmp_path / "editor.jsonl"
    script.write_text(
        json.dumps({"steps": calls}) + "\n" + json.dumps({"steps": [{"text": "done"}]}) + "\n",
        encoding="utf-8",
    )
    editor = Editor({notes: "unsaved draft in the editor\n"})
    env = {**os.environ, **scenario.env}
    command = acp_command()
    async with spawn_agent_process(
        editor, command[0], *command[1:], "--model", "offline", "--script", str(script), env=env
    ) as (conn, _p):
        caps = ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True
        )
        await conn.initialize(protocol_version=1, client_capabilities=caps)
        sid = (await conn.new_session(cwd=cwd, mcp_servers=[])).session_id
        reply = await conn.prompt(
            session_id=sid,
            prompt=[TextContentBlock(type="text", text="finish the notes, then run")],
        )
    assert reply.stop_reason == "end_turn"
    assert editor.buffers[notes] == "unsaved final in the editor\n"
    assert (
        Path(notes).read_text(encoding="utf-8") == "line one\nline two\n"
    )  # the disk file is the editor's business
    assert editor.log == [
        "read notes.txt",
        "write notes.txt",
        "permission Run echo from the editor terminal",
        "terminal --noprofile --norc -p -c echo from the editor terminal",
        "release t1",
    ]


class KindOnlyEditor(Editor):
    """An editor like CodeCompanion, which labels permission options by their kind alone, and
    like agent-shell, which cancels the turn when the user picks a `reject_once` option: it
    picks the option `wanted` names (by its name, as a user reading the labels would, or by
    kind where the names are not shown), and shows the agent's messages."""

    def __init__(self, wanted: str) -> None:
        super().__init__({})
        self.wanted = wanted
        self.said: list[str] = []
        self.asked: list[list[tuple[str, str]]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        shown = update.model_dump(by_alias=True, exclude_none=True)
        if shown.get("sessionUpdate") == "agent_message_chunk":
            self.said.append(shown["content"]["text"])

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> Any:
        self.asked.append([(o.name, o.kind) for o in options])
        chosen = next(o for o in options if self.wanted in (o.name, o.kind))
        if chosen.kind == "reject_once":  # agent-shell: "interrupt so you can course-correct"
            await self.conn.cancel(session_id=session_id)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=chosen.option_id)
        )


def _session(editor: Editor, tmp_path: Path, lines: list[Any]) -> tuple[Scenario, Any]:
    """A scenario and an offline `acp` running `lines`, to start with `async with`."""
    scenario = Scenario(tmp_path)
    script = tmp_path / "editor.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    command = acp_command()
    args = [*command[1:], "--model", "offline", "--script", str(script)]
    return scenario, spawn_agent_process(
        editor, command[0], *args, env={**os.environ, **scenario.env}
    )


async def test_a_question_reaches_an_editor_that_shows_option_kinds_alone(tmp_path: Path) -> None:
    ask = {"question": "Which database?", "options": ["sqlite", "postgres", "mysql"]}
    editor = KindOnlyEditor("allow_once")
    scenario, spawned = _session(
        editor, tmp_path, [{"steps": [{"tool_call": {"name": "ask_user", "arguments": ask}}]}]
    )
    async with spawned as (conn, _p):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
        sid = (await conn.new_session(cwd=scenario.vars["CWD"], mcp_servers=[])).session_id
        first = await conn.prompt(session_id=sid, prompt=[TextContentBlock(type="text", text="go")])
        question = "".join(editor.said)
        editor.said.clear()
        second = await conn.prompt(session_id=sid, prompt=[TextContentBlock(type="text", text="2")])
    assert first.stop_reason == second.stop_reason == "end_turn"
    assert editor.asked == [], "no permission request whose choices look the same"
    assert "1. sqlite\n2. postgres\n3. mysql" in question
    assert "".join(editor.said) == "Offline reply: 2 (choice 2 of your question: postgres)"


async def test_staying_in_plan_mode_does_not_end_the_turn_where_reject_cancels(
    tmp_path: Path,
) -> None:
    present = {"name": "present_plan", "arguments": {"plan": "1. write plan.txt"}}
    lines = [{"steps": [{"tool_call": present}]}, {"steps": [{"text": "revising"}]}]
    editor = KindOnlyEditor("Stay in plan mode and revise")
    scenario, spawned = _session(editor, tmp_path, lines)
    async with spawned as (conn, _p):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
        sid = (await conn.new_session(cwd=scenario.vars["CWD"], mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="plan")
        reply = await conn.prompt(session_id=sid, prompt=[TextContentBlock(type="text", text="go")])
    assert reply.stop_reason == "end_turn", "staying cancelled the turn"
    (options,) = editor.asked
    assert "reject_once" not in [kind for _, kind in options]
    assert editor.said[0] == "**The plan**\n\n1. write plan.txt" and editor.said[-1] == "revising"


class AgentShellEditor(KindOnlyEditor):
    """An editor like agent-shell, which draws every agent message, every `plan` update (its
    list), and a tool call's `rawInput.plan` as an expanded "Proposed plan" block; and like
    CodeCompanion, whose permission prompt shows the question's text content. `drawn` is what
    each of those showed, in order."""

    def __init__(self, wanted: str) -> None:
        super().__init__(wanted)
        self.drawn: list[tuple[str, str]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        await super().session_update(session_id, update, **kwargs)
        shown = update.model_dump(by_alias=True, exclude_none=True)
        kind = shown.get("sessionUpdate")
        if kind == "plan":
            self.drawn.append(("plan", "\n".join(e["content"] for e in shown["entries"])))
        elif kind in ("tool_call", "tool_call_update"):
            self._draw_call(kind, shown)

    def _draw_call(self, where: str, call: dict[str, Any]) -> None:
        raw = call.get("rawInput")
        if isinstance(raw, dict) and isinstance(raw.get("plan"), str):
            self.drawn.append((f"{where} Proposed plan", raw["plan"]))
        for item in call.get("content") or []:
            text = (item.get("content") or {}).get("text")
            if isinstance(text, str):
                self.drawn.append((f"{where} content", text))

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> Any:
        self._draw_call("question", tool_call.model_dump(by_alias=True, exclude_none=True))
        return await super().request_permission(options, session_id, tool_call, **kwargs)


async def test_the_plan_is_drawn_once(tmp_path: Path) -> None:
    """`present_plan`'s text reaches the client once, as an agent message (the one thing every
    editor draws: CodeCompanion shows no plan update and no question's input): no plan update,
    no `rawInput.plan` on the call or the question, which carries no copy of it."""
    plan = "1. write plan.txt\n2. run the tests"
    present = {"name": "present_plan", "arguments": {"plan": plan}}
    lines = [{"steps": [{"text": "Here it is."}, {"tool_call": present}]}]
    lines.append({"steps": [{"text": "revising"}]})
    editor = AgentShellEditor("Stay in plan mode and revise")
    scenario, spawned = _session(editor, tmp_path, lines)
    async with spawned as (conn, _p):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
        sid = (await conn.new_session(cwd=scenario.vars["CWD"], mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="plan")
        reply = await conn.prompt(session_id=sid, prompt=[TextContentBlock(type="text", text="go")])
    assert reply.stop_reason == "end_turn"
    drew_plan = [where for where, text in editor.drawn if "write plan.txt" in text]
    assert drew_plan == [], editor.drawn
    said = "".join(editor.said)
    assert said.count("write plan.txt") == 1 and "2. run the tests" in said, said


async def test_a_question_starts_its_own_paragraph(tmp_path: Path) -> None:
    """An editor that appends every chunk of the agent's messages to one reply (CodeCompanion)
    shows the question apart from the sentence before it: a blank line goes before it where
    the text streamed before does not end with one, and none where nothing came before."""
    ask = {"question": "Which colour?", "options": ["red", "blue"]}
    question = {"tool_call": {"name": "ask_user", "arguments": ask}}
    lines = [
        {"steps": [{"text": "I need a decision."}, question]},
        {"steps": [{"text": "Two lines first.\n\n"}, question]},
        {"steps": [question]},
    ]
    editor = KindOnlyEditor("allow_once")
    scenario, spawned = _session(editor, tmp_path, lines)
    said = []
    async with spawned as (conn, _p):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
        sid = (await conn.new_session(cwd=scenario.vars["CWD"], mcp_servers=[])).session_id
        for _ in lines:
            await conn.prompt(session_id=sid, prompt=[TextContentBlock(type="text", text="go")])
            said.append("".join(editor.said))
            editor.said.clear()
    assert said[0].startswith("I need a decision.\n\n**Which colour?**\n\n1. red"), said[0]
    assert said[1].startswith("Two lines first.\n\n**Which colour?**"), said[1]
    assert said[2].startswith("**Which colour?**"), said[2]


async def test_a_background_command_s_question_says_it_keeps_running(tmp_path: Path) -> None:
    """agent-shell shows a question's title in place of its call's, when the title holds the
    command as written: the question for a command run in the background says so, and holds
    it, one simple command or several."""
    lines = [
        {"steps": [{"tool_call": {"name": "bash", "arguments": args}}]}
        for args in (
            {"command": "echo tick; sleep 30", "run_in_background": True},
            {"command": "sleep 31", "run_in_background": True},
        )
    ]
    editor = KindOnlyEditor("allow_once")
    titles: list[str] = []
    ask = editor.request_permission

    async def asked(options: Any, session_id: str, tool_call: Any, **kwargs: Any) -> Any:
        titles.append(tool_call.title)
        return await ask(options, session_id, tool_call, **kwargs)

    editor.request_permission = asked  # type: ignore[method-assign]
    scenario, spawned = _session(editor, tmp_path, lines)
    async with spawned as (conn, _p):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
        sid = (await conn.new_session(cwd=scenario.vars["CWD"], mcp_servers=[])).session_id
        for _ in lines:
            await conn.prompt(session_id=sid, prompt=[TextContentBlock(type="text", text="go")])
    assert len(titles) == 2, titles
    assert all(t.endswith(" in the background") for t in titles), titles
    # agent-shell keeps a question's title only where it holds rawInput.command word for word
    assert titles == ["Run echo tick; sleep 30 in the background", "Run sleep 31 in the background"]


async def test_a_command_question_offers_one_answer_of_each_kind(tmp_path: Path) -> None:
    """CodeCompanion labels options by kind alone: a command's question offers one option of
    each kind, so no two lines look the same, and its "always" is the broader of the two
    remembered answers (the names, which cover the line too); where the names cannot be
    granted, the exact line is."""
    outside = tmp_path / "outside.txt"  # not in the session's workspace
    lines = [
        {"steps": [{"tool_call": {"name": "bash", "arguments": {"command": command}}}]}
        for command in ("echo tick; sleep 0", "echo tick; sleep 0", f"echo x > {outside}")
    ]
    lines.append({"steps": [{"text": "done"}]})
    editor = KindOnlyEditor("allow_always")
    scenario, spawned = _session(editor, tmp_path, lines)
    async with spawned as (conn, _p):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
        sid = (await conn.new_session(cwd=scenario.vars["CWD"], mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=[TextContentBlock(type="text", text="go")])
    for options in editor.asked:
        kinds = [kind for _, kind in options]
        assert len(kinds) == len(set(kinds)), options
    names, exact = editor.asked[0], editor.asked[-1]
    assert ("Allow `echo`, `sleep` commands for this session", "allow_always") in names
    assert len(editor.asked) == 2, "the names granted cover the same line the next time"
    assert ("Always allow this command in this session", "allow_always") in exact
    assert outside.read_text() == "x\n"
