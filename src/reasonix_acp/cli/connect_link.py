"""The link behind `acp connect`: the editor's frames carried over one WebSocket to a remote
ACP agent, and the link made again when it drops.

Rules (what the editor sees):
- One editor line is one text frame; one agent text frame is one line. An agent frame that is
  not a UTF-8 JSON-RPC object (binary, broken JSON, an array) is dropped with a warning.
- Every editor request gets one answer: the agent's; -32603 when the link drops with it in
  flight (the agent lost it) or is gone for good; -32800 when the bridge stops first (end of
  input, a signal). A later answer from the agent is dropped.
- The bridge's own requests have ids `acp-connect-N`; their answers never reach the editor. An
  agent request keeps its id unless it collides with one owed from a lost connection; then the
  editor sees an `acp-connect-N` id, mapped back on its answer.
- A drop (what `Dialer.dropped` returns) is retried after FIRST_DELAY, doubling to MAX_DELAY,
  for GIVE_UP_AFTER seconds in all. `Fatal` (a refusal, a close for good, a first connection
  that fails, the time up) ends the bridge; its text is the one line said on stderr.
- On a drop: requests in flight get -32603; the agent's requests to the editor are cancelled
  (`$/cancel_request`) and the editor's late answers to them dropped. What the editor sends
  while the link is down is held, in order, until it is back; its answers to the new
  connection's requests go at once (the agent may wait on them before answering a resume).
- Back on: the editor's last `initialize` is sent again, then each session it opened here is
  reopened with the cwd and MCP servers it last gave: `session/resume` when the agent
  advertises `sessionCapabilities.resume`, else `session/load` with its replay dropped (the
  editor has it). A session not reopened is forgotten, with a warning. Then held input flows.
- Back-pressure: the next agent frame is read once stdout is not congested (`Output.drain`),
  the next editor chunk once the last one was sent (`room`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Callable
from typing import Any, Protocol

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from reasonix_acp.generated.methods import CANCEL_REQUEST, INITIALIZE, SESSION_UPDATE
from reasonix_acp.protocol.framing import encode, notification
from reasonix_acp.protocol.messages import (
    Ignored,
    Invalid,
    Notification,
    Request,
    RequestId,
    Response,
    decode,
)

log = logging.getLogger("reasonix_acp.cli.connect")

OWN_ID = "acp-connect-"
FIRST_DELAY, MAX_DELAY, GIVE_UP_AFTER = 0.25, 8.0, 60.0
HOLD_LIMIT = 256  # frames held while the link is down before the input is no longer read
OPENERS = ("session/new", "session/load", "session/resume", "session/fork")
CLOSERS = ("session/close", "session/delete", "session/archive")
REOPEN_KEYS = ("cwd", "mcpServers", "additionalDirectories")
LOST, CANCELLED = -32603, -32800


class Fatal(Exception):
    """The link is gone for good; the text is the one line said on stderr."""


class Retry(Exception):
    """This attempt failed in a way the next one may not."""


class Refused(Exception):
    """The agent answered one of the bridge's own requests with an error."""


class Dialer(Protocol):
    """The remote end (connect.py's Remote): how to reach it, and what a close means."""

    shown: str  # the URL as given, for messages

    async def open(self) -> ClientConnection:
        """A new connection; Fatal when refused for good, Retry when another try may work."""

    def dropped(self, exc: ConnectionClosed) -> str:
        """Why the link dropped, to retry; Fatal when the agent closed it for good."""


class Output(Protocol):
    def put(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...


def error_frame(request_id: RequestId | None, code: int, message: str) -> bytes:
    error = {"code": code, "message": message}
    return encode({"jsonrpc": "2.0", "id": request_id, "error": error})


def parse(message: str | bytes) -> tuple[Request | Notification | Response, bytes] | None:
    """An agent frame and its bytes as one line (without the newline), or None (warned)."""
    if isinstance(message, bytes):
        log.warning("dropped a binary frame of %d bytes from the agent", len(message))
        return None
    data = message.encode("utf-8").strip(b" \t\r\n")
    frame = decode(data)
    if isinstance(frame, Invalid | Ignored):
        why = frame.reason if isinstance(frame, Ignored) else frame.error.message
        log.warning("dropped a frame from the agent: %s", why)
        return None
    if b"\n" in data or b"\r" in data:  # whitespace between tokens: one line again
        data = encode(json.loads(data))[:-1]
    return frame, data


def with_id(data: bytes | str, new_id: RequestId) -> bytes:
    obj = json.loads(data)
    obj["id"] = new_id
    return encode(obj)[:-1]


class Bridge:
    """The link's state: what is in flight each way, the sessions to reopen, held input."""

    def __init__(self, remote: Dialer, out: Output, on_open: Callable[[], None]) -> None:
        self.remote, self.out, self.on_open = remote, out, on_open
        self.ws: ClientConnection | None = None
        self.ready = asyncio.Event()  # the link is up and rejoined: input flows
        self.settled = asyncio.Event()  # no editor request in flight
        self.settled.set()
        self.stop_asked = asyncio.Event()
        self.ended: tuple[int, str] | None = None  # what a request gets once the link is over
        self.failed: str | None = None
        self.inflight: dict[RequestId, tuple[str, dict[str, Any] | None]] = {}
        self.held: list[tuple[Request | Notification | Response, str]] = []
        self.asked: dict[RequestId, RequestId] = {}  # id the editor sees -> the agent's id
        self.stale: set[RequestId] = set()  # agent requests of a lost connection
        self.sessions: dict[str, dict[str, Any]] = {}  # id -> what reopens it
        self.initialize: dict[str, Any] | None = None
        self.quiet: str | None = None  # the session the bridge is loading: its replay is dropped
        self._ids = itertools.count(1)

    def stop(self) -> None:
        self.stop_asked.set()

    async def run(self) -> int:
        """Carry frames until stopped (0) or the link is gone for good (1, `failed` set)."""
        link = asyncio.create_task(self._link())
        stop = asyncio.create_task(self.stop_asked.wait())
        await asyncio.wait({link, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if link.done() and not self.stop_asked.is_set():
            try:
                link.result()
            except Fatal as exc:
                self._fail(str(exc))
                return 1
            return 0
        await self._close(link)
        return 0

    async def _close(self, link: asyncio.Task[None]) -> None:
        self.ended = (CANCELLED, "cancelled: the connection to the agent is closing")
        self._answer_all()
        ws = self.ws
        if ws is not None and self.ready.is_set():
            await ws.close()  # 1000; the pump sees its own close and returns
        else:  # (re)connecting: nothing to close cleanly yet
            link.cancel()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(link, 2)

    async def _link(self) -> None:
        try:
            ws = self.ws = await self.remote.open()
        except Retry as exc:
            raise Fatal(f"cannot reach the agent at {self.remote.shown}: {exc}") from None
        self.ready.set()
        self.on_open()
        while True:
            reason = await self._pump(ws)
            if self.ended:
                return
            self._lost(f"the connection to the agent was lost ({reason})")
            ws = await self._reconnect(reason)

    async def _pump(self, ws: ClientConnection) -> str:
        while True:
            try:
                message = await ws.recv()
            except ConnectionClosed as exc:
                return "" if self.ended else self.remote.dropped(exc)
            self._from_agent(message)
            await self.out.drain()

    # -- the agent's frames -------------------------------------------------------------------

    def _from_agent(self, message: str | bytes) -> None:
        parsed = parse(message)
        if parsed is None:
            return
        frame, data = parsed
        if isinstance(frame, Response):
            entry = self.inflight.pop(frame.id, None)
            if entry is None:  # answered here already (a stop), or not the editor's
                log.debug("dropped an answer to id %r: nothing waits for it", frame.id)
                return
            if not self.inflight:
                self.settled.set()
            if frame.error is None:
                self._track(*entry, frame.result)
        elif isinstance(frame, Request):
            shown: RequestId = frame.id
            if shown in self.stale or shown in self.asked:
                shown = f"{OWN_ID}{next(self._ids)}"
                data = with_id(data, shown)
            self.asked[shown] = frame.id
        elif self.quiet is not None and frame.method == SESSION_UPDATE:
            if (frame.params or {}).get("sessionId") == self.quiet:
                return  # a session/load of ours replaying what the editor has
        elif frame.method == CANCEL_REQUEST:
            data = self._cancel_for_editor(frame, data)
        self.out.put(data + b"\n")

    def _cancel_for_editor(self, frame: Notification, data: bytes) -> bytes:
        """The agent's `$/cancel_request` names the id the editor saw."""
        wanted = (frame.params or {}).get("requestId")
        for shown, original in self.asked.items():
            if original == wanted and shown != original:
                return encode(notification(CANCEL_REQUEST, {"requestId": shown}))[:-1]
        return data

    def _track(self, method: str, params: dict[str, Any] | None, result: Any) -> None:
        """The sessions the editor has open here, from the agent's successful answers."""
        if params is None:
            return
        if method in ("session/new", "session/fork"):
            opened = result.get("sessionId") if isinstance(result, dict) else None
        else:
            opened = params.get("sessionId")
        if not isinstance(opened, str):
            return
        if method in CLOSERS:
            self.sessions.pop(opened, None)
        else:
            reopen = {k: params[k] for k in REOPEN_KEYS if k in params}
            self.sessions[opened] = {"mcpServers": [], **reopen}

    # -- the editor's frames ------------------------------------------------------------------

    async def room(self) -> None:
        """Until the editor's input may be read on: little enough is held."""
        while len(self.held) > HOLD_LIMIT and not self.ended:
            await self.ready.wait()
        await self.out.drain()

    async def from_editor(self, frame: Request | Notification | Response, text: str) -> None:
        if isinstance(frame, Request) and frame.method == INITIALIZE:
            self.initialize = frame.params or {}
        if isinstance(frame, Response) and frame.id in self.stale:
            self.stale.discard(frame.id)
            log.info("dropped the editor's answer to %r, asked on a lost connection", frame.id)
            return
        if isinstance(frame, Response) and frame.id in self.asked:
            original = self.asked.pop(frame.id)
            await self._send(frame, text if original == frame.id else with_id(text, original))
            return
        if self.ended:
            if isinstance(frame, Request):
                self.out.put(error_frame(frame.id, *self.ended))
            return
        if self.held or not self.ready.is_set():
            self.held.append((frame, text))
            return
        await self._send(frame, text)

    async def _send(self, frame: Request | Notification | Response, text: str | bytes) -> None:
        """Onto the current connection; a drop meanwhile is the pump's to handle (it answers
        what is in flight)."""
        ws = self.ws
        if ws is None:
            return
        if isinstance(frame, Request):
            kept = frame.params if frame.method in OPENERS + CLOSERS else None
            self.inflight[frame.id] = (frame.method, kept)
            self.settled.clear()
        with contextlib.suppress(ConnectionClosed):
            await ws.send(text if isinstance(text, str) else text.decode("utf-8"))

    # -- drops and reconnection ---------------------------------------------------------------

    def _lost(self, message: str) -> None:
        """What the agent owed the editor, and the editor the agent, is void."""
        self.ready.clear()
        self.ws = None
        self.quiet = None
        self._answer_inflight(LOST, message)
        for shown in self.asked:
            self.stale.add(shown)
            self.out.put(encode(notification(CANCEL_REQUEST, {"requestId": shown})))
        self.asked.clear()

    def _fail(self, message: str) -> None:
        self.failed = message
        self.ended = (LOST, f"the connection to the agent is gone: {message}")
        self._lost(self.ended[1])
        self._answer_all()
        self.ready.set()  # input waiting for the link is answered now

    def _answer_inflight(self, code: int, message: str) -> None:
        for request_id in self.inflight:
            self.out.put(error_frame(request_id, code, message))
        self.inflight.clear()
        self.settled.set()

    def _answer_all(self) -> None:
        assert self.ended is not None
        self._answer_inflight(*self.ended)
        for frame, _ in self.held:
            if isinstance(frame, Request):
                self.out.put(error_frame(frame.id, *self.ended))
        self.held.clear()

    async def _reconnect(self, reason: str) -> ClientConnection:
        shown = self.remote.shown
        log.warning("lost the connection to %s (%s); reconnecting", shown, reason)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + GIVE_UP_AFTER
        delay = FIRST_DELAY
        while True:
            await asyncio.sleep(min(delay, max(0.0, deadline - loop.time())))
            try:
                return await asyncio.wait_for(self._attempt(), max(1.0, deadline - loop.time()))
            except (Retry, TimeoutError) as exc:
                reason = str(exc) or "no answer in time"
                log.info("reconnecting to %s: %s", shown, reason)
            if loop.time() >= deadline:
                raise Fatal(
                    f"the connection to {shown} was lost and not made again in "
                    f"{GIVE_UP_AFTER:.0f} s ({reason})"
                )
            delay = min(delay * 2, MAX_DELAY)

    async def _attempt(self) -> ClientConnection:
        ws = await self.remote.open()
        self.ws = ws
        try:
            await self._rejoin(ws)
            while self.held:  # in order; what the editor sends meanwhile joins the queue
                frame, text = self.held.pop(0)
                await self._send(frame, text)
        except BaseException as exc:  # what went out on it (held frames included) is lost
            ws.transport.abort()
            self._lost("the connection to the agent was lost again as it was being made")
            if isinstance(exc, ConnectionClosed):
                raise Retry(self.remote.dropped(exc)) from None
            raise
        self.ready.set()
        log.warning(
            "reconnected to %s; sessions reopened: %d", self.remote.shown, len(self.sessions)
        )
        return ws

    async def _rejoin(self, ws: ClientConnection) -> None:
        if self.initialize is None:
            return
        try:
            result = await self._call(ws, INITIALIZE, self.initialize)
        except Refused as exc:
            raise Fatal(f"the agent at {self.remote.shown} refused initialize: {exc}") from None
        caps = result.get("agentCapabilities") if isinstance(result, dict) else None
        session_caps = caps.get("sessionCapabilities") if isinstance(caps, dict) else None
        resume = isinstance(session_caps, dict) and session_caps.get("resume") is not None
        method = "session/resume" if resume else "session/load"
        for session_id, reopen in list(self.sessions.items()):
            self.quiet = None if resume else session_id
            try:
                await self._call(ws, method, {"sessionId": session_id, **reopen})
            except Refused as exc:
                log.warning("the agent did not reopen session %s: %s", session_id, exc)
                self.sessions.pop(session_id, None)
            finally:
                self.quiet = None

    async def _call(self, ws: ClientConnection, method: str, params: dict[str, Any]) -> Any:
        """A request of the bridge's own; the agent's other frames meanwhile go their way."""
        own = f"{OWN_ID}{next(self._ids)}"
        request = {"jsonrpc": "2.0", "id": own, "method": method, "params": params}
        await ws.send(encode(request)[:-1].decode("utf-8"))
        while True:
            message = await ws.recv()
            parsed = parse(message)
            if parsed is not None and isinstance(parsed[0], Response) and parsed[0].id == own:
                answer = parsed[0]
                if answer.error is not None:
                    raise Refused(str(answer.error.get("message", answer.error)))
                return answer.result
            self._from_agent(message)
            await self.out.drain()
