"""`acp serve`: ACP on a TCP port, for an editor on another machine (or in another container):
one URL that speaks Streamable HTTP (server/http_transport.py) and accepts WebSocket upgrades
(server/ws_transport.py), over TLS when given a certificate. Every connection is an Agent of
its own over the process's one Shared (server/services.py): a session opened on one connection
can be loaded on another.

Rules:
- Nothing is read past a request's head before the Gate (server/remote_auth.py) admits it: a
  wrong or missing token is 401 (slowed, server/remote_auth.py), a browser's Origin 403, and the
  socket is closed after either. Only the served path exists (404 elsewhere).
- Bounded: ACP connections (`max_connections`, 503 beyond), sockets (SOCKETS_PER_CONNECTION
  each, counted from their accept, before any TLS handshake; 503 beyond, or closed at once
  under TLS), a TLS handshake's time (HEAD_TIMEOUT), a request's head (MAX_HEAD) and body (the
  line limit, 413 beyond), the time a request's head may take in all (HEAD_TIMEOUT), an idle
  kept-alive socket (KEEP_ALIVE, in all), the sessions one connection holds, the output
  waiting for a reader (server/link.py), and the time a connection may stay silent
  (`idle_timeout`).
- Stopping (SIGTERM, SIGINT) closes the listener, then every connection as its end of input
  would: turns are cancelled, sessions stay stored, and the process exits 0 (130 for SIGINT).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http import HTTPStatus

import h11

from reasonix_acp.server import http_transport, ws_transport
from reasonix_acp.server.link import OUTBOX_LIMIT, Link, Outbox
from reasonix_acp.server.remote_auth import Gate
from reasonix_acp.server.services import Shared

log = logging.getLogger("reasonix_acp.server.listen")

PATH = "/acp"
MAX_HEAD = 64 << 10
HEAD_TIMEOUT = 10.0
KEEP_ALIVE = 75.0
SOCKETS_PER_CONNECTION = 4  # an HTTP client holds a stream per session beside its POSTs
SWEEP_EVERY = 5.0


@dataclass
class Limits:
    """What one server holds at most (`acp serve`'s options)."""

    max_connections: int = 32
    sessions_per_connection: int = 16
    line_limit: int = 32 << 20  # a frame from a client, in bytes
    idle_timeout: float = 3600.0  # seconds a client may send nothing with no request in flight
    orphan_timeout: float = 60.0  # seconds an HTTP connection is kept with no stream read
    max_unread: int = OUTBOX_LIMIT  # bytes of output waiting for one stream's reader


class Listener:
    def __init__(
        self, shared: Shared, gate: Gate, limits: Limits, tls: ssl.SSLContext | None = None
    ) -> None:
        self.shared, self.gate, self.limits, self.tls = shared, gate, limits, tls
        self.links: set[Link] = set()
        self.sockets = 0
        self.http = http_transport.HttpSide(self._link, limits.idle_timeout, limits.orphan_timeout)
        self.websockets: set[ws_transport.Socket] = set()
        self._server: asyncio.Server | None = None

    async def start(self, host: str, port: int) -> str:
        """Listen; the URL clients use."""
        # TLS is started on each socket in _client, once it is counted: a socket still in its
        # handshake holds a descriptor as any other, and must be bounded and timed as one.
        self._server = await asyncio.start_server(self._client, host, port, limit=MAX_HEAD)
        bound = self._server.sockets[0].getsockname()
        shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://{shown}:{bound[1]}{PATH}"

    async def serve(self, stop: asyncio.Event) -> None:
        every = min(SWEEP_EVERY, self.limits.orphan_timeout / 2)
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), every)
            await self.http.sweep()
        await self.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        sockets = list(self.websockets)
        for socket in sockets:  # each closes after its agent's last frame
            socket.stopping()
        await self.http.close()
        await asyncio.gather(*(link.close() for link in list(self.links)))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(
                asyncio.gather(*(s.ended.wait() for s in sockets)), ws_transport.ENDING
            )
        await self.shared.close()

    def _link(self) -> Link | None:
        if len(self.links) >= self.limits.max_connections:
            log.warning("refused a connection: %d are open", len(self.links))
            return None
        limits = self.limits
        link = Link(
            self.shared, limits.line_limit, limits.sessions_per_connection, limits.max_unread
        )
        self.links.add(link)
        asyncio.get_running_loop().create_task(self._forget(link))
        return link

    async def _forget(self, link: Link) -> None:
        await link.ended.wait()
        self.links.discard(link)

    # -- one socket ---------------------------------------------------------------------------

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.sockets += 1
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        heard = True  # whether `writer` hears of its socket's end (not after a failed handshake)
        try:
            if self.sockets > self.limits.max_connections * SOCKETS_PER_CONNECTION:
                if self.tls is None:  # under TLS there is no answer before a handshake
                    await _answer(conn, writer, *http_transport.text(503, "Too many connections"))
                return
            if self.tls is not None:
                heard = False
                await writer.start_tls(self.tls, ssl_handshake_timeout=HEAD_TIMEOUT)
                heard = True
            await self._requests(conn, reader, writer)
        except ssl.SSLError as exc:
            log.debug("a TLS socket ended: %s", exc)
        except asyncio.CancelledError:
            log.debug("a socket was closed as the server stops")  # its task ends, as it should
        except (h11.ProtocolError, ConnectionError, TimeoutError) as exc:
            log.debug("a socket ended: %s", exc)
            begun = (
                conn.their_state is not h11.IDLE
                or bool(conn.trailing_data[0])  # part of a head
                or isinstance(exc, h11.ProtocolError)
            )
            if begun and conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                with contextlib.suppress(Exception):
                    await _answer(conn, writer, *http_transport.text(400, "Bad Request"))
        finally:
            self.sockets -= 1
            writer.close()
            if heard:  # else its socket is closed already
                with contextlib.suppress(ConnectionError, OSError):
                    await writer.wait_closed()

    async def _requests(
        self, conn: h11.Connection, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        first = True
        while True:
            event = await _next(conn, reader, HEAD_TIMEOUT if first else KEEP_ALIVE)
            first = False
            if not isinstance(event, h11.Request):
                return  # the client closed the socket
            headers = {k.lower(): v for k, v in event.headers}
            refusal = self._refusal(event, headers, writer)
            if refusal is not None:
                wait = self.gate.failed(_address(writer)) if refusal[0] == 401 else 0.0
                log.warning(
                    "refused %s (%d %s), answered after %.2f s",
                    _address(writer),
                    refusal[0],
                    refusal[2].decode().strip(),
                    wait,
                )
                await asyncio.sleep(wait)
                await _answer(conn, writer, *refusal, close=True)
                return
            if headers.get(b"upgrade", b"").lower() == b"websocket":
                await self._upgrade(conn, event, reader, writer)
                return
            await self._request(conn, event, headers, reader, writer)
            if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                return
            conn.start_next_cycle()

    def _refusal(
        self, event: h11.Request, headers: dict[bytes, bytes], writer: asyncio.StreamWriter
    ) -> http_transport.Answer | None:
        if event.target.split(b"?")[0] != PATH.encode():
            return http_transport.text(404, f"Not Found: ACP is served at {PATH}")
        refused = self.gate.refusal(headers)
        if refused is not None:
            return http_transport.text(*refused)
        return None

    async def _request(
        self,
        conn: h11.Connection,
        event: h11.Request,
        headers: dict[bytes, bytes],
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        method = event.method
        if method == b"POST":
            body = await _body(conn, reader, self.limits.line_limit)
            if body is None:
                await _answer(
                    conn, writer, *http_transport.text(413, "Payload Too Large"), close=True
                )
                return
            await _answer(conn, writer, *await self.http.post(headers, body))
        elif method == b"GET":
            await _drain_request(conn, reader)
            found = self.http.reader(headers)
            if isinstance(found, tuple) and isinstance(found[0], int):
                await _answer(conn, writer, *found)
                return
            connection, box = found
            await _stream(conn, reader, writer, box, lambda write: connection.stream(box, write))
        elif method == b"DELETE":
            await _drain_request(conn, reader)
            await _answer(conn, writer, *await self.http.delete(headers))
        else:
            await _drain_request(conn, reader)
            await _answer(conn, writer, *http_transport.text(405, "Method Not Allowed"))

    async def _upgrade(
        self,
        conn: h11.Connection,
        event: h11.Request,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        while (more := conn.next_event()) is not h11.PAUSED:  # the request's end
            if more is h11.NEED_DATA:
                return
        path = event.target.decode("latin-1")
        accepted, response = ws_transport.handshake(path, list(event.headers))
        link = self._link() if accepted else None
        if accepted and link is None:
            writer.write(_raw(503, b"Too many connections"))
            return
        if link is None:
            writer.write(response)
            await writer.drain()
            return
        await link.start()
        try:  # a client gone before its 101 must not keep the connection (its slot, threads)
            writer.write(response)
            await writer.drain()
            limits = self.limits
            socket = ws_transport.Socket(
                link, reader, writer, limits.line_limit, limits.idle_timeout
            )
            self.websockets.add(socket)
            try:
                await socket.serve(conn.trailing_data[0])
            finally:
                self.websockets.discard(socket)
        finally:
            await link.close()


async def _next(conn: h11.Connection, reader: asyncio.StreamReader, timeout: float) -> object:
    """The next event, within `timeout` seconds for all of it: a head that comes a line at a
    time is cut off as one that does not come (TimeoutError), however often it reads."""
    async with asyncio.timeout(timeout):
        while True:
            event = conn.next_event()
            if event is not h11.NEED_DATA:
                return event
            conn.receive_data(await reader.read(1 << 16))


async def _body(conn: h11.Connection, reader: asyncio.StreamReader, limit: int) -> bytes | None:
    """The request's body; None when it is longer than `limit` bytes."""
    parts: list[bytes] = []
    size = 0
    while True:
        event = await _next(conn, reader, HEAD_TIMEOUT)
        if isinstance(event, h11.Data):
            size += len(event.data)
            if size > limit:
                return None
            parts.append(bytes(event.data))
        elif isinstance(event, h11.EndOfMessage):
            return b"".join(parts)
        else:
            raise ConnectionError("the request ended before its body")


async def _drain_request(conn: h11.Connection, reader: asyncio.StreamReader) -> None:
    if await _body(conn, reader, MAX_HEAD) is None:
        raise ConnectionError("a body where none belongs")


async def _answer(
    conn: h11.Connection,
    writer: asyncio.StreamWriter,
    status: int,
    headers: list[tuple[bytes, bytes]],
    body: bytes,
    close: bool = False,
) -> None:
    sent = [*headers, (b"content-length", str(len(body)).encode())]
    if close:
        sent.append((b"connection", b"close"))
    if status == 401:
        sent.append((b"www-authenticate", b"Bearer"))
    reason = _phrase(status)
    writer.write(conn.send(h11.Response(status_code=status, headers=sent, reason=reason)) or b"")
    writer.write(conn.send(h11.Data(data=body)) or b"")
    writer.write(conn.send(h11.EndOfMessage()) or b"")
    await writer.drain()


async def _stream(
    conn: h11.Connection,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    box: Outbox,
    feed: Callable[[Callable[[bytes], Awaitable[None]]], Awaitable[None]],
) -> None:
    """An SSE response, fed until the stream ends or the client goes: a client that closes its
    socket is noticed at once (its end of input), not at the next write; one that stopped
    reading is dropped once its connection has ended (its unsent output not kept)."""
    headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
    writer.write(conn.send(h11.Response(status_code=200, headers=headers, reason=b"OK")) or b"")
    await writer.drain()

    async def write(data: bytes) -> None:
        writer.write(conn.send(h11.Data(data=data)) or b"")
        await writer.drain()

    async def gone() -> None:
        while await reader.read(1 << 12):
            pass  # nothing belongs here while the response streams

    async def ended() -> None:
        await box.done.wait()
        await asyncio.sleep(ws_transport.CLOSE_WAIT)  # for a reader that reads to take the end

    fed = asyncio.ensure_future(feed(write))
    watch = asyncio.ensure_future(gone())
    over = asyncio.ensure_future(ended())
    try:
        await asyncio.wait((fed, watch, over), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (fed, watch, over):
            task.cancel()
        await asyncio.gather(fed, watch, over, return_exceptions=True)
    if fed.done() and not fed.cancelled() and fed.exception() is None:
        writer.write(conn.send(h11.EndOfMessage()) or b"")
        await writer.drain()
    else:
        box.frames.clear()
        writer.transport.abort()
        raise ConnectionError("the client left the stream, or its connection ended unread")


def _phrase(status: int) -> bytes:
    try:
        return HTTPStatus(status).phrase.encode()
    except ValueError:
        return b""


def _raw(status: int, message: bytes) -> bytes:
    reason = _phrase(status)
    head = b"HTTP/1.1 %d %s\r\ncontent-length: %d\r\nconnection: close\r\n\r\n"
    return head % (status, reason, len(message)) + message


def _address(writer: asyncio.StreamWriter) -> str:
    peer = writer.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) and peer else "?"
