"""ACP over WebSocket, as the official TypeScript SDK's `experimental/ws-client` speaks it:
the same URL as HTTP, upgraded; one JSON-RPC message per text frame, both ways; everything of
every session on the one socket. The framing is the `websockets` library's sans-I/O protocol.

Rules:
- The upgrade has passed the Gate (server/remote_auth.py) before it is accepted; an invalid
  handshake is answered as the library answers it (400, 426) and the socket closed.
- A text message is one frame for the agent (server/link.py); binary messages are ignored, as
  the SDK ignores them. A message over the size limit closes the socket (1009).
- Output goes through an Outbox: a client that stops reading ends its connection once the
  Outbox overflows (1008), never the process.
- A ping every PING_EVERY seconds; a client that has not answered the last one by the next ends
  (1011). A client that sent no message (a pong or a ping is not one) for the idle time with no
  request of its in flight ends (1001). When the agent ends a connection (the server stopping
  ends each as its end of input would: its turns cancelled and answered), what it wrote goes
  out first (for up to DRAIN_WAIT seconds), then the close: 1000, or 1001 as the server stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from websockets.datastructures import Headers
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from reasonix_acp.server.link import Link, Outbox, Overflow

log = logging.getLogger("reasonix_acp.server.ws")

PING_EVERY = 20.0
CLOSE_WAIT = 2.0  # seconds the closing handshake may take before the socket is dropped
DRAIN_WAIT = 10.0  # seconds the agent's last frames may take to go out before the close
ENDING = DRAIN_WAIT + 3 * CLOSE_WAIT  # the most a socket takes to end once its agent has
READ_CHUNK = 1 << 16


def handshake(path: str, headers: list[tuple[bytes, bytes]]) -> tuple[bool, bytes]:
    """(accepted, the response's bytes) for an upgrade request already parsed."""
    request = Request(
        path, Headers([(k.decode("latin-1"), v.decode("latin-1")) for k, v in headers])
    )
    response = ServerProtocol().accept(request)
    return response.status_code == 101, response.serialize()


class Socket:
    """One accepted WebSocket and the ACP connection it carries."""

    def __init__(
        self,
        link: Link,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        max_size: int,
        idle_timeout: float,
    ) -> None:
        self.link, self.reader, self.writer = link, reader, writer
        self.protocol = ServerProtocol(state=State.OPEN, max_size=max_size)
        self.outbox = Outbox(link.unread_limit)
        self.idle_timeout = idle_timeout
        self.heard = time.monotonic()
        self._parts: list[bytes] | None = None  # a text message arriving in fragments
        self._ponged = True
        # The close that follows the agent's last frame: the server stopping says 1001.
        self._last: tuple[int, str] = (1000, "the agent ended the connection")
        self._finished = False  # the agent ended: `_last` goes once the Outbox is sent
        self.ended = asyncio.Event()  # `serve` has returned

    async def serve(self, leftover: bytes) -> None:
        tasks = [
            asyncio.create_task(self._pump()),
            asyncio.create_task(self._send()),
            asyncio.create_task(self._receive(leftover)),
            asyncio.create_task(self._watch()),
        ]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            if tasks[0] in done and self._finished:  # the agent ended: its last
                with contextlib.suppress(TimeoutError):  # frames go out before the close
                    await asyncio.wait_for(asyncio.shield(tasks[1]), DRAIN_WAIT)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            try:
                await self.link.close()
                await self._flush_close()
            finally:
                self.ended.set()
            log.info("a WebSocket connection ended (%s)", self.protocol.close_code or "no close")

    def close(self, code: int, reason: str) -> None:
        """Start the closing handshake now, whatever waits in the Outbox (the socket ends after
        it, or at once if it cannot): a client gone quiet or silent."""
        if self.protocol.state is State.OPEN:
            self.protocol.send_close(code, reason)
        self.outbox.close()

    def stopping(self) -> None:
        """The server stops: when the agent has ended (its turns cancelled and answered), the
        socket closes with 1001 after its last frame."""
        self._last = (1001, "the server stops")

    def _finish(self) -> None:
        """The closing handshake once what waits in the Outbox is sent (`_send`)."""
        self._finished = True
        self.outbox.close()

    async def _pump(self) -> None:
        """The agent's frames into the Outbox, at once."""
        try:
            async for line in self.link.lines():
                self.outbox.put(line)
        except Overflow as exc:
            log.warning("a WebSocket client ended: %s", exc)
            self.close(1008, "the client did not read its output")
            return
        self._finish()

    async def _send(self) -> None:
        while (frames := await self.outbox.take()) is not None:
            if self.protocol.state is not State.OPEN:
                break  # closed (quiet, silent client): what is left is not sent
            for frame in frames:
                self.protocol.send_text(frame)
            await self._write()
        if self._finished and self.protocol.state is State.OPEN:
            self.protocol.send_close(*self._last)
        await self._write()

    async def _receive(self, leftover: bytes) -> None:
        """What the client sends (`leftover`: read with the upgrade request), until it ends."""
        if leftover:
            await self._received(leftover)
        while self.protocol.state is not State.CLOSED:
            try:
                data = await self.reader.read(READ_CHUNK)
            except ConnectionError:
                data = b""
            await self._received(data)
            if not data:
                return

    async def _received(self, data: bytes) -> None:
        if data:
            self.protocol.receive_data(data)
        else:
            self.protocol.receive_eof()
        for event in self.protocol.events_received():
            if isinstance(event, Frame):
                await self._event(event)
        await self._write()

    async def _event(self, frame: Frame) -> None:
        if frame.opcode is Opcode.PONG:
            self._ponged = True  # the client is alive, which is not the client speaking
            return
        if frame.opcode in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
            self.heard = time.monotonic()
        if frame.opcode is Opcode.TEXT:
            self._parts = [bytes(frame.data)]
        elif frame.opcode is Opcode.CONT and self._parts is not None:
            self._parts.append(bytes(frame.data))
        else:
            return  # binary, ping (answered by the protocol), close (answered too)
        if frame.fin:
            message, self._parts = b"".join(self._parts), None
            await self.link.send(message)

    async def _watch(self) -> None:
        """Pings, and the idle bound: looked at when the idle time is up (with a request in
        flight, again at each ping)."""
        ping_at = time.monotonic() + PING_EVERY
        while True:
            now = time.monotonic()
            idle_at = self.heard + self.idle_timeout
            if now >= idle_at:
                if not self.link.connection.busy:
                    self.close(1001, "idle")
                    await self._write()
                    return
                idle_at = ping_at
            await asyncio.sleep(min(ping_at, idle_at) - now)
            if time.monotonic() < ping_at:
                continue
            if not self._ponged:
                self.close(1011, "no answer to the last ping")
                await self._write()
                return
            self._ponged = False
            self.protocol.send_ping(b"acp")
            await self._write()
            ping_at = time.monotonic() + PING_EVERY

    async def _write(self) -> None:
        pending = self.protocol.data_to_send()
        done = bool(pending) and not pending[-1]  # the protocol is done writing: end our side
        data = b"".join(pending)
        if data:
            self.writer.write(data)  # one system call for a burst of frames
        if done:
            with contextlib.suppress(OSError):
                if self.writer.can_write_eof():
                    self.writer.write_eof()
            return
        with contextlib.suppress(ConnectionError):
            await self.writer.drain()

    async def _flush_close(self) -> None:
        """The close frame, if it can go within CLOSE_WAIT; then the socket, dropped (what a
        client that does not read left unsent is not kept)."""
        self.outbox.frames.clear()
        with contextlib.suppress(ConnectionError, OSError, asyncio.TimeoutError):
            await asyncio.wait_for(self._write(), CLOSE_WAIT)
        self.writer.close()
        try:
            await asyncio.wait_for(self.writer.wait_closed(), CLOSE_WAIT)
        except (ConnectionError, OSError, TimeoutError):
            self.writer.transport.abort()
