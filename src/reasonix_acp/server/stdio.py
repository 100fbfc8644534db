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
"""

from __future__ import annotations

import logging
import os
import sys

from reasonix_acp.generated.methods import INITIALIZE
from reasonix_acp.protocol import dispatch
from reasonix_acp.protocol.errors import AcpError
from reasonix_acp.protocol.framing import READ_CHUNK, Event, Line, LineFramer, encode
from reasonix_acp.protocol.messages import Request, decode

log = logging.getLogger("reasonix_acp.server.stdio")


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
    agent: object, framer: LineFramer, in_fd: int, out_fd: int
) -> tuple[list[Event], bool]:
    """Serve a leading `initialize` synchronously. Returns (events not yet handled, at EOF)."""
    # lazy: start-up
    from reasonix_acp.server.agent import Agent

    assert isinstance(agent, Agent)
    events: list[Event] = []
    at_eof = False
    while not events and not at_eof:
        data = os.read(in_fd, READ_CHUNK)
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


def serve(line_limit: int, options: object = None) -> int:
    in_fd, out_fd = claim_stdio()
    # lazy: start-up
    from reasonix_acp.server.agent import Agent, Options

    agent = Agent(options if isinstance(options, Options) else None)
    framer = LineFramer(line_limit)
    pending, at_eof = handshake(agent, framer, in_fd, out_fd)

    import asyncio

    # lazy: start-up
    from reasonix_acp.server.connection import Connection

    async def run() -> None:
        connection = Connection(
            agent.router,
            read_fd=in_fd,
            write_fd=out_fd,
            framer=framer,
            pending=pending,
            at_eof=at_eof,
        )
        agent.attach(connection)
        await connection.serve()

    asyncio.run(run())
    return 0
