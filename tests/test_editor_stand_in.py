"""An editor stand-in on the official SDK's client side: in-memory buffers, a terminal that
runs commands for real, and a user who allows once; it drives a real `acp` subprocess."""

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
