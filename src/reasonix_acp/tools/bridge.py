"""The client's file system, when it offers one: reads see the editor's unsaved buffers and
writes go through the editor. Each direction is used only when the client advertised it.

- A failed client read falls back to the local file, and says so on stderr.
- A failed client write fails the tool: the file is never written twice (once by the editor,
  once locally). The tool result says why in the client's words: a client error reads
  `<message> (code N): <data.details>` (RemoteError keeps the error's `data`).
- A local file that is not UTF-8 stays on the local path (the editor protocol carries text).
- A terminal's output is read back once, when the command has ended, scrubbed of every secret
  the agent holds (scrubber.py). The editor keeps only its last `outputByteLimit` bytes: when
  it says it dropped the rest, the start of what it kept may end a secret, and is dropped too
  (`scrub_cut`), whatever it holds.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

from reasonix_acp.generated.methods import (
    FS_READ_TEXT_FILE,
    FS_WRITE_TEXT_FILE,
    TERMINAL_CREATE,
    TERMINAL_KILL,
    TERMINAL_OUTPUT,
    TERMINAL_RELEASE,
    TERMINAL_WAIT_FOR_EXIT,
)
from reasonix_acp.protocol.errors import AcpError, ConnectionClosed, RemoteError
from reasonix_acp.scrubber import scrub_cut
from reasonix_acp.tools.base import ToolFailed

log = logging.getLogger("reasonix_acp.tools.bridge")

Request = Callable[[str, dict[str, Any]], Awaitable[Any]]


def _local_is_text(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            fh.read().decode("utf-8")
    except FileNotFoundError:
        return True
    except (OSError, UnicodeDecodeError):
        return False
    return True


class ClientFiles:
    def __init__(self, request: Request, session_id: str, can_read: bool, can_write: bool) -> None:
        self.request = request
        self.session_id = session_id
        self.can_read = can_read
        self.can_write = can_write

    async def read(self, path: str) -> str | None:
        """The client's view of the file, or None to read it locally."""
        if not self.can_read or not _local_is_text(path) or os.path.isdir(path):
            return None
        try:
            reply = await self.request(
                FS_READ_TEXT_FILE, {"sessionId": self.session_id, "path": path}
            )
        except (RemoteError, ConnectionClosed, AcpError) as exc:
            log.warning(
                "fs/read_text_file %s failed (%s); reading the local file instead", path, exc
            )
            return None
        return str(reply.content)

    async def write(self, path: str, content: str) -> bool:
        """True when the client wrote it; False when the caller should write locally."""
        if not self.can_write or not _local_is_text(path):
            return False
        try:
            await self.request(
                FS_WRITE_TEXT_FILE, {"sessionId": self.session_id, "path": path, "content": content}
            )
        except (RemoteError, ConnectionClosed, AcpError) as exc:
            raise ToolFailed(f"the editor could not write {path}: {exc}") from None
        return True


class ClientTerminal:
    """Commands run in the editor's terminal: create → wait_for_exit (kill on timeout or cancel)
    → output → release, always. Once `terminal/create` has answered, there is no local
    fallback: the command may already have run."""

    def __init__(self, request: Request, session_id: str) -> None:
        self.request = request
        self.session_id = session_id

    async def create(self, argv: list[str], cwd: str) -> str | None:
        """The terminal id, or None when the client could not create one (run locally then).
        `argv` is the program and its arguments (a shell and its command, perhaps in bwrap)."""
        params = {
            "sessionId": self.session_id,
            "command": argv[0],
            "args": argv[1:],
            "cwd": cwd,
            "outputByteLimit": 1024 * 1024,
        }
        try:
            reply = await self.request(TERMINAL_CREATE, params)
        except (RemoteError, ConnectionClosed, AcpError) as exc:
            log.warning("terminal/create failed (%s); running the command locally", exc)
            return None
        return str(reply.terminal_id)

    async def finish(
        self, terminal_id: str, timeout: float
    ) -> tuple[str, bool, int | None, str | None, bool]:
        """(output, truncated, exit code, signal, timed out); the output scrubbed, its start
        dropped up to where a secret cut by the editor could end; the terminal is always
        released."""
        ids = {"sessionId": self.session_id, "terminalId": terminal_id}
        timed_out = False
        try:
            try:
                await asyncio.wait_for(self.request(TERMINAL_WAIT_FOR_EXIT, ids), timeout)
            except TimeoutError:
                timed_out = True
                await self.request(TERMINAL_KILL, ids)
            except asyncio.CancelledError:
                await asyncio.shield(self._quietly(TERMINAL_KILL, ids))
                raise
            out = await self.request(TERMINAL_OUTPUT, ids)
        except (RemoteError, ConnectionClosed, AcpError) as exc:
            raise ToolFailed(f"the editor's terminal failed: {exc}") from None
        finally:
            await asyncio.shield(self._quietly(TERMINAL_RELEASE, ids))
        status = out.exit_status
        code = status.exit_code if status is not None else None
        sig = status.signal if status is not None else None
        truncated = bool(out.truncated)
        return scrub_cut(str(out.output), head=truncated), truncated, code, sig, timed_out

    async def _quietly(self, method: str, params: dict[str, Any]) -> None:
        try:
            await self.request(method, params)
        except (RemoteError, ConnectionClosed, AcpError) as exc:
            log.warning("%s failed: %s", method, exc)
