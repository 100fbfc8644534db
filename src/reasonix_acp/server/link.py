"""One ACP connection of `acp serve`, whatever carries it (server/http_transport.py,
server/ws_transport.py): an Agent and its asyncio Connection, exactly as on stdio, on one end of
a socket pair; the transport on the other end, line by line.

Rules:
- The connection, its routes and the machines do not learn which transport they are on: they
  read and write NDJSON on a descriptor, as they do on stdio.
- What the client sends is made one line: a frame carried by WebSocket or HTTP may hold line
  breaks between its tokens (pretty-printed JSON); in JSON they can only be whitespace there, so
  each becomes a space (inside a string a line break is always escaped).
- The agent's output is always read at once into the transport's Outboxes, so a client that
  stops reading never blocks the process: an Outbox that would hold more than its limit ends
  the connection instead (the client lost its updates; its sessions stay stored, and it may
  load them again), said in the log.
- Ending the link is closing our end of the pair: the agent sees end of input and shuts the
  connection down as stdio's end of input does (its turns cancelled, its requests answered,
  the sessions no other connection holds closed).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import socket
from collections.abc import AsyncIterator

from reasonix_acp.protocol.framing import LineFramer
from reasonix_acp.server.agent import Agent
from reasonix_acp.server.connection import Connection
from reasonix_acp.server.services import Shared

log = logging.getLogger("reasonix_acp.server.link")

IO_END_WAIT = 30.0  # seconds for a shut-down connection's threads to end
OUTBOX_LIMIT = 16 << 20  # bytes waiting for one client stream before its connection ends
LINE_BREAKS = bytes.maketrans(b"\r\n", b"  ")


class Overflow(Exception):
    """A client did not read OUTBOX_LIMIT bytes of output."""


class Outbox:
    """Frames waiting for one reader (a WebSocket, an SSE stream), bounded in bytes."""

    def __init__(self, limit: int = OUTBOX_LIMIT) -> None:
        self.limit = limit
        self.frames: collections.deque[bytes] = collections.deque()
        self.size = 0
        self.closed = False
        self.done = asyncio.Event()
        self._ready = asyncio.Event()

    def put(self, frame: bytes) -> None:
        if self.closed:
            return
        if self.size + len(frame) > self.limit:
            raise Overflow(f"{self.size} bytes waited for a client that did not read them")
        self.frames.append(frame)
        self.size += len(frame)
        self._ready.set()

    async def take(self, timeout: float | None = None) -> list[bytes] | None:
        """What waits (at least one frame), [] after `timeout` seconds with nothing, None once
        closed and empty."""
        if not self.frames and not self.closed:
            self._ready.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ready.wait(), timeout)
        if not self.frames:
            return None if self.closed else []
        frames, self.frames, self.size = list(self.frames), collections.deque(), 0
        return frames

    def close(self) -> None:
        """No more frames: what waits is still taken (a reader that reads gets the end), and
        `done` is set for a reader stuck writing."""
        self.closed = True
        self._ready.set()
        self.done.set()


class Link:
    def __init__(
        self,
        shared: Shared,
        line_limit: int,
        session_limit: int | None,
        unread_limit: int = OUTBOX_LIMIT,
    ) -> None:
        self.unread_limit = unread_limit  # each of its Outboxes
        self._ours, theirs = socket.socketpair()
        self._theirs = theirs
        self.agent = Agent(shared=shared)
        self.agent.session_limit = session_limit
        fd = theirs.fileno()
        self.connection = Connection(
            self.agent.router, read_fd=fd, write_fd=fd, framer=LineFramer(line_limit)
        )
        self.agent.attach(self.connection)
        self.line_limit = line_limit
        self._writer: asyncio.StreamWriter | None = None
        self._reader: asyncio.StreamReader | None = None
        self._served: asyncio.Task[None] | None = None
        self.ended = asyncio.Event()

    async def start(self) -> None:
        self._served = asyncio.get_running_loop().create_task(self._serve())
        # Room for the longest frame the agent writes (its output is not bounded by the
        # client's line limit) and then some.
        limit = max(self.line_limit, 64 << 20) + 2
        self._reader, self._writer = await asyncio.open_connection(sock=self._ours, limit=limit)

    async def _serve(self) -> None:
        try:
            await self.connection.serve()
        finally:
            # Shut down, not closed, until the connection's threads are gone: its writer may
            # still be blocked in a write, and a descriptor number closed under it would be the
            # next accepted socket's, another client's, by its next write.
            with contextlib.suppress(OSError):
                self._theirs.shutdown(socket.SHUT_RDWR)
            if await asyncio.to_thread(self.connection.io_ended, IO_END_WAIT):
                self._theirs.close()
            else:
                log.error("a remote connection's I/O threads did not end: its socket is left open")
            self.ended.set()

    async def send(self, data: bytes) -> None:
        """One frame from the client."""
        assert self._writer is not None
        if self._writer.is_closing():
            return
        self._writer.write(data.translate(LINE_BREAKS) + b"\n")
        with contextlib.suppress(ConnectionError):
            await self._writer.drain()

    async def lines(self) -> AsyncIterator[bytes]:
        """The agent's frames, each without its newline, until the connection ends."""
        assert self._reader is not None
        while True:
            try:
                line = await self._reader.readline()
            except (ConnectionError, ValueError) as exc:  # ValueError: over the limit
                log.warning("a remote connection's output could not be read: %s", exc)
                return
            if not line.endswith(b"\n"):
                return
            yield line[:-1]

    async def close(self) -> None:
        """End the connection (end of input for the agent) and wait until it has shut down."""
        if self._writer is not None and not self._writer.is_closing():
            with contextlib.suppress(OSError):
                self._writer.write_eof()
        if self._served is not None:
            await asyncio.shield(self._served)
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await self._writer.wait_closed()
