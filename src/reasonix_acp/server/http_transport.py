"""ACP over Streamable HTTP, as the official TypeScript SDK's `experimental/http-client`
speaks it (and the transport RFD where the SDK is silent): one URL, `POST` for what the client
sends, one Server-Sent Events stream per connection and one per session for what the agent
sends, `DELETE` to end.

Rules:
- `POST initialize` without `Acp-Connection-Id` opens a connection (a Link, server/link.py):
  the answer is the agent's initialize response, 200, with the new `Acp-Connection-Id`. Every
  other POST names its connection and is answered 202 at once; what the agent answers comes on
  a stream. An initialize on an existing connection is 400.
- A message whose params name a session (`sessionId`) must carry `Acp-Session-Id` with the same
  id (400 otherwise). The answer to a request goes where the request named: its session's
  stream, or the connection's (session/load's answer too: the client reads it there). What the
  agent sends unasked goes to the stream of the session its params name, else the connection's.
- `GET` with `Accept: text/event-stream` attaches to the connection's stream, or with
  `Acp-Session-Id` to that session's (made on first use: a client opens it before it loads a
  session this connection never saw). One reader a stream at a time (409 for a second). Output
  waits in the stream's Outbox until a reader comes; `:` comments keep an idle stream alive.
- A connection has at most MAX_STREAMS session streams, however they are named: a GET or a
  request POSTed with `Acp-Session-Id` that would make one more is refused (400).
- A connection ends with `DELETE`, when its Outbox overflows (server/link.py), when no stream
  has had a reader for the orphan time (its client vanished), or when the client has sent nothing for the idle time
  with no request of its in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from reasonix_acp.server.link import Link, Outbox, Overflow

log = logging.getLogger("reasonix_acp.server.http")

CONNECTION_ID = b"acp-connection-id"
SESSION_ID = b"acp-session-id"
KEEPALIVE = 15.0  # seconds between `:` comments on an idle stream
INITIALIZE_WAIT = 30.0
MAX_ID = 1024  # longest connection or session id accepted in a header
MAX_STREAMS = 1024  # session streams one connection may have at once

Answer = tuple[int, list[tuple[bytes, bytes]], bytes]
Write = Callable[[bytes], Awaitable[None]]


def text(status: int, message: str) -> Answer:
    return status, [(b"content-type", b"text/plain; charset=utf-8")], message.encode() + b"\n"


class HttpConnection:
    """One ACP connection over HTTP: its link, streams, and where each answer goes."""

    def __init__(self, link: Link) -> None:
        self.id = str(uuid.uuid4())
        self.link = link
        self.main = Outbox(link.unread_limit)
        self.sessions: dict[str, Outbox] = {}
        self.routes: dict[str, str | None] = {}  # request id (JSON) → its session, or None
        self.reading: dict[Outbox, asyncio.Task[Any]] = {}  # a stream → its reader's request
        self.first: asyncio.Future[bytes] | None = None  # the initialize answer, awaited
        self.first_id = ""
        self.heard = time.monotonic()  # the client's last message or reader
        self.pump: asyncio.Task[None] | None = None

    def room(self, session_id: str | None) -> bool:
        """Whether `session_id`'s stream exists, or one more may be made."""
        return session_id is None or session_id in self.sessions or len(self.sessions) < MAX_STREAMS

    def outbox(self, session_id: str | None) -> Outbox:
        """The stream of `session_id`, made if need be; past MAX_STREAMS the connection's."""
        if session_id is None or not self.room(session_id):
            return self.main
        box = self.sessions.get(session_id)
        if box is None:
            box = self.sessions[session_id] = Outbox(self.link.unread_limit)
        return box

    async def run(self) -> None:
        """Route what the agent writes until it ends; then every stream ends."""
        try:
            async for line in self.link.lines():
                self._route(line)
        except Overflow as exc:
            log.warning("remote connection %s ended: %s", self.id[:8], exc)
        finally:
            for box in (self.main, *self.sessions.values()):
                box.close()
            if self.first is not None and not self.first.done():
                self.first.cancel()
            await self.link.close()

    def _route(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            log.error("the agent wrote a line that is not JSON: %.200r", line)
            return
        if not isinstance(message, dict):
            return
        if "method" not in message and "id" in message:
            key = json.dumps(message["id"])
            if self.first is not None and key == self.first_id and not self.first.done():
                self.first.set_result(line)
                return
            box = self.outbox(self.routes.pop(key, None))
        else:
            params = message.get("params")
            session = params.get("sessionId") if isinstance(params, dict) else None
            box = self.outbox(session if isinstance(session, str) else None)
        box.put(b"data: " + line + b"\n\n")

    def expect(self, message: dict[str, Any], session: str | None) -> str:
        """A request of the client's: where its answer goes (its stream made now, so that it
        counts against MAX_STREAMS), or why it is refused."""
        if "id" in message and "method" in message:
            route = None if message["method"] == "session/load" else session
            if not self.room(route):
                return f"Too many session streams (at most {MAX_STREAMS})"
            self.outbox(route)
            self.routes[json.dumps(message["id"])] = route
        return ""

    def claim(self, box: Outbox) -> bool:
        """Mark `box` as read by the request being handled, unless another reads it (its mark
        is let go when its feed ends, or when its request ends before feeding began)."""
        held = self.reading.get(box)
        task = asyncio.current_task()
        if (held is not None and not held.done()) or task is None:
            return False
        self.reading[box] = task
        return True

    def read(self) -> bool:
        """Whether any stream of this connection has a reader."""
        return any(not task.done() for task in self.reading.values())

    async def stream(self, box: Outbox, write: Write) -> None:
        """Feed `box` to the reader that claimed it until the connection ends or it goes."""
        held = self.reading.get(box)
        try:
            while (frames := await box.take(KEEPALIVE)) is not None:
                await write(b"".join(frames) if frames else b":\n\n")
        finally:
            if self.reading.get(box) is held:
                self.reading.pop(box, None)
            self.heard = time.monotonic()
            self._drop_if_empty(box)

    def _drop_if_empty(self, box: Outbox) -> None:
        """A session stream left with nothing waiting is forgotten (made again on use)."""
        if box is self.main or box.frames:
            return
        for session, held in list(self.sessions.items()):
            if held is box:
                del self.sessions[session]

    def idle(self, now: float, idle_timeout: float, orphan: float) -> str | None:
        """Why this connection should end now, or None."""
        if not self.read() and now - self.heard > orphan:
            return f"no stream of it was read for {orphan:g} s"
        if now - self.heard > idle_timeout and not self.link.connection.busy:
            return f"its client sent nothing for {idle_timeout:g} s"
        return None


class HttpSide:
    """Every ACP connection over HTTP of one server, by id."""

    def __init__(
        self, make_link: Callable[[], Link | None], idle_timeout: float, orphan: float
    ) -> None:
        self.make_link = make_link  # None: no room for another connection
        self.idle_timeout, self.orphan = idle_timeout, orphan
        self.connections: dict[str, HttpConnection] = {}

    async def post(self, headers: dict[bytes, bytes], body: bytes) -> Answer:
        media = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        if media != b"application/json":
            return text(415, "Unsupported Media Type: send application/json")
        try:
            message = json.loads(body)
        except ValueError:
            return text(400, "Invalid JSON")
        if isinstance(message, list):
            error = {
                "code": -32600,
                "message": "Invalid request: JSON-RPC batches are not supported",
            }
            body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
            return 400, [(b"content-type", b"application/json")], body
        if not isinstance(message, dict):
            return text(400, "Invalid JSON-RPC message")
        named = headers.get(CONNECTION_ID)
        if message.get("method") == "initialize":
            if named is not None:
                return text(400, "Initialize not allowed on existing connection")
            return await self._open(message, body)
        connection = self._named(headers)
        if not isinstance(connection, HttpConnection):
            return connection
        session, problem = _session(headers, message)
        if problem:
            return text(400, problem)
        problem = connection.expect(message, session)
        if problem:
            return text(400, problem)
        connection.heard = time.monotonic()
        await connection.link.send(body)
        return 202, [], b""

    async def _open(self, message: dict[str, Any], body: bytes) -> Answer:
        if message.get("id") is None:
            return text(400, "Initialize request must include an id")
        link = self.make_link()
        if link is None:
            return text(503, "Too many connections: try again later")
        await link.start()
        connection = HttpConnection(link)
        connection.first = asyncio.get_running_loop().create_future()
        connection.first_id = json.dumps(message["id"])
        self.connections[connection.id] = connection
        connection.pump = asyncio.get_running_loop().create_task(self._run(connection))
        await link.send(body)
        try:
            answer = await asyncio.wait_for(asyncio.shield(connection.first), INITIALIZE_WAIT)
        except (TimeoutError, asyncio.CancelledError):
            await self.end(connection, "it did not answer initialize")
            return text(500, "Initialize failed")
        headers = [
            (b"content-type", b"application/json"),
            (b"acp-connection-id", connection.id.encode()),
        ]
        return 200, headers, answer

    async def _run(self, connection: HttpConnection) -> None:
        try:
            await connection.run()
        finally:
            self.connections.pop(connection.id, None)

    def reader(self, headers: dict[bytes, bytes]) -> tuple[HttpConnection, Outbox] | Answer:
        """The stream a GET asks for, or the answer refusing it."""
        if b"text/event-stream" not in headers.get(b"accept", b""):
            return text(406, "Not Acceptable: this URL streams text/event-stream")
        connection = self._named(headers)
        if not isinstance(connection, HttpConnection):
            return connection
        session = headers.get(SESSION_ID)
        if session is not None and len(session) > MAX_ID:
            return text(400, "Acp-Session-Id is too long")
        sid = session.decode("latin-1") if session is not None else None
        if not connection.room(sid):
            return text(400, f"Too many session streams (at most {MAX_STREAMS})")
        box = connection.outbox(sid)
        if not connection.claim(box):
            return text(409, "Outbound stream already has an active receiver")
        return connection, box

    async def delete(self, headers: dict[bytes, bytes]) -> Answer:
        connection = self._named(headers)
        if not isinstance(connection, HttpConnection):
            return connection
        await self.end(connection, "its client ended it")
        return 202, [], b""

    def _named(self, headers: dict[bytes, bytes]) -> HttpConnection | Answer:
        """The connection `Acp-Connection-Id` names, or the answer refusing the request."""
        named = headers.get(CONNECTION_ID)
        if named is None:
            return text(400, "Missing Acp-Connection-Id")
        connection = self.connections.get(named.decode("latin-1"))
        if connection is None:
            return text(404, "Unknown Acp-Connection-Id")
        return connection

    async def end(self, connection: HttpConnection, why: str) -> None:
        log.info("remote connection %s ends: %s", connection.id[:8], why)
        self.connections.pop(connection.id, None)
        await connection.link.close()
        if connection.pump is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await connection.pump

    async def sweep(self) -> None:
        """End the connections idle past their bounds (ORPHAN, the idle time)."""
        now = time.monotonic()
        for connection in list(self.connections.values()):
            why = connection.idle(now, self.idle_timeout, self.orphan)
            if why is not None:
                await self.end(connection, why)

    async def close(self) -> None:
        await asyncio.gather(
            *(self.end(c, "the server stops") for c in list(self.connections.values()))
        )


def _session(headers: dict[bytes, bytes], message: dict[str, Any]) -> tuple[str | None, str]:
    """The session a POSTed message is for, and what is wrong with its header, if anything."""
    params = message.get("params")
    named = params.get("sessionId") if isinstance(params, dict) else None
    header = headers.get(SESSION_ID)
    if header is not None and len(header) > MAX_ID:
        return None, "Acp-Session-Id is too long"
    given = header.decode("latin-1") if header is not None else None
    if isinstance(named, str):
        if given is None:
            return None, "Missing Acp-Session-Id"
        if given != named:
            return None, "Mismatched Acp-Session-Id"
    return given, ""
