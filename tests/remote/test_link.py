"""The socket pair under a remote connection (server/link.py) is closed only once the
connection's reader and writer threads have ended: a descriptor number closed under a writer
still blocked in a write would be the next accepted socket's, another client's, by its next
write (seen under load: a new WebSocket client received a stalled one's session updates)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from reasonix_acp.server.link import Link
from reasonix_acp.server.services import Options, Shared


def test_the_descriptor_outlives_the_threads_that_use_it(tmp_path: Path) -> None:
    async def scenario() -> tuple[bool, bool, bool]:
        link = Link(
            Shared(Options(model="offline", data_dir=str(tmp_path)), solo=False), 1 << 20, None
        )
        await link.start()
        fd = link._theirs.fileno()
        assert link._writer is not None
        link._writer.transport.pause_reading()  # a transport that stopped taking the output
        frame = b'{"jsonrpc":"2.0","method":"session/update","params":{}}\n'
        # Four megabytes nobody reads: the writer blocks in a write once the pair's buffer is full.
        link.connection.notify_encoded("session/update", frame * (4 * 1024 * 1024 // len(frame)))
        await asyncio.sleep(0.2)
        link._writer.write_eof()  # the client is gone: end of input for the agent
        await asyncio.wait_for(link.ended.wait(), 60)
        # The moment the link has ended, with the transport still open and not reading.
        writer_alive = link.connection._writer._thread.is_alive()
        try:
            os.fstat(fd)
            still_open = True
        except OSError:
            still_open = False
        await link.close()
        return link.ended.is_set(), writer_alive, still_open

    ended, writer_alive, still_open = asyncio.run(scenario())
    assert ended
    # Either the writer ended before the socket was closed, or the socket is left open.
    assert not writer_alive or still_open
