"""The asyncio connection: full-duplex JSON-RPC over two file descriptors.

Invariants:
- Every inbound request runs as its own task, so a long `session/prompt` never blocks a
  `session/cancel`, a `session/list` or a steer. Notifications are handled in arrival order on
  the loop itself (a cancel takes effect before the next frame is read).
- Every request gets exactly one answer: its result, its error, or -32800 when it was cancelled
  by `$/cancel_request` or by end of input, even before its handler first ran.
- Frames are written in the order they are produced, by one writer thread; nothing else writes
  to the output descriptor. A hook registered with `Call.after_response` runs after its
  response frame is queued.
- The output queue is bounded for a client that stops reading: async producers await
  `writable()` (congested above HIGH_WATER), and any send blocks at HARD_LIMIT until the client
  reads again. Nothing is dropped, responses least of all; end of input releases the block.
- Our requests to the client use integer ids counting from 1. Cancelling the awaiting task sends
  `$/cancel_request` for it. At end of input every pending request fails with ConnectionClosed.
- At end of input: handlers are cancelled and awaited, pending outbound requests fail, the agent
  closes its sessions, the writer drains, and `serve` returns.
- A request's handler, a notification's, and every task they start see the connection in
  `SERVING` (server/peers.py: whom the agent asks, and for whom, when it serves several).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import itertools
import json
import logging
import os
import threading
from collections.abc import Iterable
from typing import Any

from reasonix_acp.generated.methods import CANCEL_REQUEST, METHODS
from reasonix_acp.protocol import codec, dispatch
from reasonix_acp.protocol.errors import (
    AcpError,
    ConnectionClosed,
    InvalidRequest,
    ParseError,
    RemoteError,
    RequestCancelled,
    install_scrubber,
)
from reasonix_acp.protocol.framing import (
    READ_CHUNK,
    Event,
    Line,
    LineFramer,
    Overflow,
    encode,
    notification,
)
from reasonix_acp.protocol.messages import (
    Ignored,
    Invalid,
    Notification,
    Request,
    RequestId,
    Response,
    decode,
)
from reasonix_acp.protocol.router import Router
from reasonix_acp.redact import redact
from reasonix_acp.server.writer import Writer

log = logging.getLogger("reasonix_acp.server.connection")
install_scrubber(redact)  # -32603 causes leave bounded and without credentials

# Validate every outgoing frame against the generated models, trusted or not (tests set it).
DEBUG = os.environ.get("REASONIX_ACP_DEBUG", "") not in ("", "0")


# The connection whose request or notification is being served (a task inherits it).
SERVING: contextvars.ContextVar[Connection | None] = contextvars.ContextVar("serving", default=None)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Connection:
    def __init__(
        self,
        router: Router,
        *,
        read_fd: int,
        write_fd: int,
        framer: LineFramer | None = None,
        pending: Iterable[Event] = (),
        at_eof: bool = False,
    ) -> None:
        self.router = router
        self._read_fd = read_fd
        self._writer = Writer(write_fd)
        self._framer = framer or LineFramer()
        self._backlog = list(pending)
        self._at_eof = at_eof
        self._ids = itertools.count(1)
        self._inbound: dict[RequestId, asyncio.Task[None]] = {}
        self._background: set[asyncio.Future[Any]] = set()  # async notification handlers
        self._outbound: dict[int, tuple[str, asyncio.Future[Any]]] = {}
        self._closed = asyncio.Event()
        self._reader: threading.Thread | None = None
        self._close_hooks: list[Any] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- public surface for handlers -------------------------------------------------------

    @property
    def busy(self) -> bool:
        """Whether a request of the client's is being served (a turn under way)."""
        return bool(self._inbound)

    def on_close(self, hook: Any) -> None:
        """`hook()` (sync or async) runs once at end of input, after handlers are cancelled."""
        self._close_hooks.append(hook)

    def notify(self, method: str, params: Any, *, trusted: bool = False) -> None:
        """Send a notification. `trusted` params (built by our own projector, whose shapes the
        golden transcripts validate) skip model validation unless REASONIX_ACP_DEBUG is set."""
        if not trusted or DEBUG:
            spec = METHODS[method]
            assert spec.side in ("client", "protocol") and spec.kind == "notification", method
            params = codec.encode_params(spec, params)
        self._writer.put(encode(notification(method, params)))

    def notify_encoded(self, method: str, data: bytes) -> None:
        """Send trusted notifications already encoded: one frame or several, each ending in a
        newline (filled framing.Templates, a replay's batch). Under REASONIX_ACP_DEBUG each is
        decoded, validated, and must be the bytes `encode` writes."""
        if DEBUG:
            for line in data.splitlines(keepends=True):
                frame = json.loads(line)
                assert frame.get("method") == method, (method, line[:200])
                self.notify(method, frame["params"])  # validates and writes the encoder's bytes
                assert encode(frame) == line, f"a template wrote other bytes: {line[:200]!r}"
            return
        self._writer.put(data)

    async def writable(self) -> None:
        """Return once the output is not congested. While more than HIGH_WATER bytes wait for
        the client, this waits until it has read them down to LOW_WATER: an async producer (a
        streaming turn) that awaits it between updates goes at the client's pace. Producers that
        do not are still bounded: their sends block at HARD_LIMIT."""
        if not self._writer.congested():
            return
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            with contextlib.suppress(RuntimeError):  # the loop may already be gone
                loop.call_soon_threadsafe(_resolve, ready)

        self._writer.when_drained(wake)
        await ready

    async def request(self, method: str, params: Any) -> Any:
        """Ask the client; returns the decoded result model or raises RemoteError/ConnectionClosed."""
        spec = METHODS[method]
        assert spec.side == "client" and spec.kind == "request", method
        await self.writable()
        if self._closed.is_set():
            raise ConnectionClosed(f"{method}: the connection is closed")
        data = codec.encode_params(spec, params)
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._outbound[request_id] = (method, future)
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": data})
        try:
            raw = await future
        except asyncio.CancelledError:
            if self._outbound.pop(request_id, None) is not None and not self._closed.is_set():
                self.notify(CANCEL_REQUEST, {"requestId": request_id})
            raise
        return codec.decode_result(spec, raw)

    # -- the loop ----------------------------------------------------------------------------

    async def serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        for event in self._backlog:
            self._on_event(event)
        self._backlog.clear()
        if self._at_eof:
            self._on_eof()
        else:
            self._reader = threading.Thread(target=self._read, name="acp-reader", daemon=True)
            self._reader.start()
        await self._closed.wait()
        await self._shutdown()

    def _read(self) -> None:
        assert self._loop is not None
        while True:
            try:
                data = os.read(self._read_fd, READ_CHUNK)
            except OSError as exc:
                log.warning("input failed: %s", exc)
                data = b""
            if not data:
                self._writer.release()  # a producer blocked on a full output must not hold EOF
            with contextlib.suppress(RuntimeError):  # the loop may already be gone
                self._loop.call_soon_threadsafe(self._on_data, data)
            if not data:
                return

    def _on_data(self, data: bytes) -> None:
        if self._closed.is_set():
            return
        events = self._framer.feed(data) if data else self._framer.close()
        for event in events:
            self._on_event(event)
        if not data:
            self._on_eof()

    def _on_event(self, event: Event) -> None:
        if isinstance(event, Overflow):
            error = ParseError(f"parse error: a line of more than {event.limit} bytes was skipped")
            self._send(dispatch.error_frame(None, error))
            return
        assert isinstance(event, Line)
        frame = decode(event.data)
        if isinstance(frame, Request):
            self._start_request(frame)
        elif isinstance(frame, Notification):
            self._on_notification(frame)
        elif isinstance(frame, Response):
            self._on_response(frame)
        elif isinstance(frame, Invalid):
            self._send(dispatch.error_frame(frame.id, frame.error))
        elif isinstance(frame, Ignored):
            log.log(logging.WARNING if frame.warn else logging.DEBUG, "ignored: %s", frame.reason)

    def _start_request(self, request: Request) -> None:
        if request.id in self._inbound:
            error = InvalidRequest(
                f"invalid request: id {request.id!r} is already in use by a request in flight"
            )
            self._send(dispatch.error_frame(request.id, error))
            return
        task = asyncio.get_running_loop().create_task(self._run_request(request))
        self._inbound[request.id] = task
        task.add_done_callback(functools.partial(self._request_done, request))

    def _request_done(self, request: Request, task: asyncio.Task[None]) -> None:
        if self._inbound.get(request.id) is task:
            del self._inbound[request.id]
        if task.cancelled():
            # `_run_request` answers every cancel it sees; a task cancelled before its first
            # step (the cancel came in the same read as the request) never ran its body.
            error = RequestCancelled(f"{request.method}: request cancelled")
            self._send(dispatch.error_frame(request.id, error))

    async def _run_request(self, request: Request) -> None:
        SERVING.set(self)  # this task's own context
        try:
            route, params, call = dispatch.prepare(self.router, request, self)
            result = route.handler(call, params)
            if inspect.isawaitable(result):
                result = await result
            frame = dispatch.result_frame(request.id, result)
        except asyncio.CancelledError:
            frame = dispatch.error_frame(
                request.id, RequestCancelled(f"{request.method}: request cancelled")
            )
            self._send(frame)
            return
        except AcpError as exc:
            self._send(dispatch.error_frame(request.id, exc))
            return
        except Exception as exc:
            self._send(dispatch.error_frame(request.id, dispatch.internal(request.method, exc)))
            return
        hooks = call.take_hooks()
        with self._writer.together(bool(hooks)):  # the answer and what follows it, one write
            self._send(frame)
            for hook in hooks:
                try:
                    hook()
                except Exception:
                    log.exception("after-response hook of %s failed", request.method)

    def _on_notification(self, note: Notification) -> None:
        if note.method == CANCEL_REQUEST:
            self._cancel_inbound(note.params or {})
            return
        # Handled on the next loop step, after the requests that arrived before it have started:
        # a `session/cancel` sent right behind its `session/prompt` must find that prompt.
        asyncio.get_running_loop().call_soon(self._handle_notification, note)

    def _handle_notification(self, note: Notification) -> None:
        serving = SERVING.set(self)
        try:
            self._notification(note)
        finally:
            SERVING.reset(serving)

    def _notification(self, note: Notification) -> None:
        try:
            route = self.router.notification(note.method)
        except AcpError as exc:
            log.warning("notification %s refused: %s", note.method, exc.message)
            return
        if route is None:
            log.debug("ignored notification %s", note.method)
            return
        try:
            params = codec.decode_params(route.spec, note.params, route.normalise)
            result = route.handler(None, params)
            if inspect.isawaitable(result):
                task = asyncio.ensure_future(result)
                self._background.add(task)
                task.add_done_callback(self._background.discard)
        except AcpError as exc:
            log.warning("notification %s ignored: %s", note.method, exc.message)
        except Exception:
            log.exception("notification %s failed", note.method)

    def _cancel_inbound(self, params: dict[str, Any]) -> None:
        request_id = params.get("requestId")
        task = self._inbound.get(request_id) if isinstance(request_id, int | str) else None
        if task is not None:
            task.cancel()
        else:
            log.debug("$/cancel_request for %r: no such request in flight", request_id)

    def _on_response(self, response: Response) -> None:
        entry = self._outbound.pop(response.id, None) if isinstance(response.id, int) else None
        if entry is None:
            log.warning("reply to unknown request id %r ignored", response.id)
            return
        _method, future = entry
        if future.done():
            return
        if response.error is not None:
            error = response.error
            code, message = int(error.get("code", -32603)), str(error.get("message", ""))
            future.set_exception(RemoteError(code, message, error.get("data")))
        else:
            future.set_result(response.result)

    def io_ended(self, timeout: float | None = None) -> bool:
        """Wait for the threads that read and write the descriptors to end (after `serve`
        returned and the descriptors were shut down); whether they have. Until they have, the
        descriptors must stay open: a number closed under a thread still writing to it may be
        another connection's by its next write."""
        if self._reader is not None:
            self._reader.join(timeout)
            if self._reader.is_alive():
                return False
        return self._writer.join(timeout)

    def stop(self) -> None:
        """End the connection as end of input does (a stop signal; call it on the loop):
        blocked producers are released, then handlers are cancelled, close hooks run, and
        `serve` returns. Any input read after it is ignored."""
        self._writer.release()
        self._on_eof()

    def _on_eof(self) -> None:
        self._closed.set()

    async def _shutdown(self) -> None:
        tasks: list[asyncio.Future[Any]] = [*self._inbound.values(), *self._background]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        for method, future in self._outbound.values():
            if not future.done():
                future.set_exception(ConnectionClosed(f"{method}: connection closed"))
        self._outbound.clear()
        for hook in self._close_hooks:
            try:
                result = hook()
                if inspect.isawaitable(result):
                    await result
            except Exception:
                log.exception("close hook failed")
        self._writer.close()

    def _send(self, message: dict[str, Any]) -> None:
        self._writer.put(encode(message))
