"""The client's file system, when it offers one: reads see the editor's unsaved buffers and
writes go through the editor. Each direction is used only when the client advertised it.

- A failed client read falls back to the local file, and says so on stderr.
- A failed client write fails the tool: the file is never written twice (once by the editor,
  once locally).
- A local file that is not UTF-8 stays on the local path (the editor protocol carries text).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

from reasonix_acp.generated.methods import FS_READ_TEXT_FILE, FS_WRITE_TEXT_FILE
from reasonix_acp.protocol.errors import AcpError, ConnectionClosed, RemoteError
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
