"""The process's standard streams, and the handshake served before the event loop exists.

stdout carries protocol frames only, by construction: `claim_stdio` moves the real stdout to a
private descriptor before anything else runs, points descriptor 1 (and so `print`, C extensions
and every child process) at stderr, and gives children /dev/null as stdin so none of them can
read protocol bytes.

Start-up: editors spawn the agent often, and the first thing they wait for is the `initialize`
response. `serve` therefore reads the first frame with a plain blocking read and, when it is
`initialize`, answers it synchronously (the handshake needs neither asyncio nor pydantic, see
protocol/handshake.py). Everything after it, including any bytes already read, goes to the
asyncio connection.

Stopping: SIGTERM and SIGINT (what editors send to stop an agent) shut down as end of input
does: turns are cancelled, every bash process group is killed and reaped, sessions and stores
are closed, and `serve` returns. After SIGTERM the exit status is 0 rather than 128+signal:
this is the orderly end the editor asked for, not a crash, and hosts report a non-zero status
as a failure. SIGINT (Ctrl-C in a terminal) ends the same orderly way, quietly, with 130, as
shells expect of an interrupted program. Before the event loop runs, `EarlyStop` holds the signals: one that arrives during
the handshake's blocking read ends the read at once; once the loop runs, its own handlers
(`loop.add_signal_handler`) stop the connection.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
import sys
from collections.abc import Callable
from types import FrameType

from reasonix_acp.generated.methods import INITIALIZE
from reasonix_acp.protocol import dispatch
from reasonix_acp.protocol.errors import AcpError, install_scrubber
from reasonix_acp.protocol.framing import READ_CHUNK, Event, Line, LineFramer, encode
from reasonix_acp.protocol.messages import Request, decode
from reasonix_acp.redact import redact
from reasonix_acp.server import collector

install_scrubber(redact)  # before the handshake: its -32603 causes are redacted too

log = logging.getLogger("reasonix_acp.server.stdio")
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Stopped(Exception):
    """A stop signal arrived before the event loop ran."""


class EarlyStop:
    """SIGTERM and SIGINT before the event loop exists: remembered, never fatal.

    `read` waits for input and for a signal together (select on the input and on a wakeup
    descriptor the C-level handler writes to), so a signal landing just before the read starts
    cannot leave it blocked. Must be installed on the main thread."""

    def __init__(self) -> None:
        self.received: int | None = None
        self._wake_r, self._wake_w = os.pipe()
        for fd in (self._wake_r, self._wake_w):
            os.set_blocking(fd, False)
        self._old_wakeup = signal.set_wakeup_fd(self._wake_w)
        self.hold()

    def hold(self) -> None:
        """(Re)install the handlers that only remember: also after the loop has closed, when
        it has put the default handlers back."""
        for sig in STOP_SIGNALS:
            signal.signal(sig, self._note)

    def _note(self, signum: int, frame: FrameType | None) -> None:
        self.received = signum

    def read(self, fd: int) -> bytes:
        """os.read(fd, READ_CHUNK), or Stopped once a stop signal has arrived."""
        while self.received is None:
            ready, _, _ = select.select([fd, self._wake_r], [], [])
            if self._wake_r in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(self._wake_r, 512)
            elif fd in ready:
                return os.read(fd, READ_CHUNK)
        raise Stopped(signal.Signals(self.received).name)

    def release(self) -> None:
        """Hand signal wake-ups back (the event loop installs its own)."""
        signal.set_wakeup_fd(self._old_wakeup)
        os.close(self._wake_r)
        os.close(self._wake_w)


def claim_stdio() -> tuple[int, int]:
    """(protocol input fd, protocol output fd); fds 0 and 1 no longer reach the client."""
    sys.stdout.flush()
    out_fd = os.dup(1)
    in_fd = os.dup(0)
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout = sys.stderr
    return in_fd, out_fd


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def handshake(
    agent: object,
    framer: LineFramer,
    in_fd: int,
    out_fd: int,
    read: Callable[[int], bytes] | None = None,
) -> tuple[list[Event], bool]:
    """Serve a leading `initialize` synchronously. Returns (events not yet handled, at EOF).
    `read(in_fd)` reads the input (EarlyStop.read raises Stopped on a stop signal)."""
    # lazy: start-up
    from reasonix_acp.server.agent import Agent

    assert isinstance(agent, Agent)
    events: list[Event] = []
    at_eof = False
    while not events and not at_eof:
        data = read(in_fd) if read is not None else os.read(in_fd, READ_CHUNK)
        at_eof = not data
        events = framer.feed(data) if data else framer.close()
    first = events[0] if events else None
    if not isinstance(first, Line):
        return events, at_eof
    frame = decode(first.data)
    if not (isinstance(frame, Request) and frame.method == INITIALIZE):
        return events, at_eof
    try:
        route, params, call = dispatch.prepare(agent.router, frame, None)
        reply = dispatch.result_frame(frame.id, route.handler(call, params))
    except AcpError as exc:
        reply = dispatch.error_frame(frame.id, exc)
    except Exception as exc:
        reply = dispatch.error_frame(frame.id, dispatch.internal(frame.method, exc))
    try:
        _write_all(out_fd, encode(reply))
    except OSError as exc:
        log.warning("output closed: %s", exc)
    return events[1:], at_eof


def serve(line_limit: int, options: object = None, early: EarlyStop | None = None) -> int:
    """Serve until end of input or a stop signal; the exit status (exit_status)."""
    collector.pause()  # until the first session is open (server/collector.py)
    try:
        return _serve(line_limit, options, early)
    finally:
        collector.leave()


def _serve(line_limit: int, options: object, early: EarlyStop | None) -> int:
    early = early or EarlyStop()
    in_fd, out_fd = claim_stdio()
    # lazy: start-up
    from reasonix_acp.server.agent import Agent, Options

    agent = Agent(options if isinstance(options, Options) else None)
    framer = LineFramer(line_limit)
    try:
        pending, at_eof = handshake(agent, framer, in_fd, out_fd, early.read)
    except Stopped as exc:
        log.info("stopped by %s during the handshake", exc)
        return exit_status(early.received)
    finally:
        early.release()

    import asyncio

    stopped_by: list[int] = []
    asyncio.run(_serve_connection(agent, framer, in_fd, out_fd, pending, at_eof, early, stopped_by))
    early.hold()  # the closed loop put the default handlers back; exit stays orderly
    return exit_status(stopped_by[0] if stopped_by else early.received)


def exit_status(signum: int | None) -> int:
    """0 for end of input and SIGTERM; 130 for SIGINT (Ctrl-C)."""
    return 130 if signum == signal.SIGINT else 0


async def _serve_connection(
    agent: object,
    framer: LineFramer,
    in_fd: int,
    out_fd: int,
    pending: list[Event],
    at_eof: bool,
    early: EarlyStop,
    stopped_by: list[int],
) -> None:
    """The asyncio connection until it ends; then every bash process group is killed and
    reaped (a spawn still in progress included) before the loop closes."""
    import asyncio

    # lazy: start-up
    from reasonix_acp.server.agent import Agent

    # lazy: start-up
    from reasonix_acp.server.connection import Connection

    # lazy: start-up
    from reasonix_acp.tools.groups import GROUPS

    assert isinstance(agent, Agent)
    loop = asyncio.get_running_loop()
    connection = Connection(
        agent.router, read_fd=in_fd, write_fd=out_fd, framer=framer, pending=pending, at_eof=at_eof
    )
    agent.attach(connection)
    killing: list[asyncio.Task[None]] = []

    def stop(signum: int) -> None:
        log.info("stopping on %s", signal.Signals(signum).name)
        stopped_by.append(signum)
        if not killing:  # groups get SHUTDOWN_GRACE now, not KILL_GRACE after their turn ends
            killing.append(loop.create_task(GROUPS.shutdown()))
        connection.stop()

    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, stop, sig)
    loop.call_later(collector.RESUME_AFTER, collector.resume)
    if early.received is not None:  # between the handshake and the handlers above
        stop(early.received)
    try:
        await connection.serve()
    finally:
        await GROUPS.shutdown()
        await asyncio.gather(*killing)
