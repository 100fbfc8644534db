"""The output side of the connection: one thread owns the output descriptor and writes the
queued frames whole, in order, in batches of up to WRITE_BATCH bytes, with back-pressure for a
client that stops reading (HIGH_WATER, LOW_WATER, HARD_LIMIT)."""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterator

log = logging.getLogger("reasonix_acp.server.connection")  # the connection's output

WRITE_BATCH = 1 << 20
# Output back-pressure, in bytes of frames queued for a client that has not read them yet.
# Above HIGH_WATER the output is congested: `Connection.writable()` waits until the client has
# read the queue down to LOW_WATER. A synchronous send (`notify`, a response) that finds
# HARD_LIMIT bytes queued blocks its thread until the queue is back under HIGH_WATER, so memory
# stays bounded even for producers that never await `writable()`.
HIGH_WATER = 4 << 20
LOW_WATER = 1 << 20
HARD_LIMIT = 8 << 20


class Writer:
    """One thread owns the output descriptor; frames are written whole and in order, and at
    most HARD_LIMIT bytes (plus one frame) wait for the client (see HIGH_WATER).

    `release()` (thread-safe, any thread) stops blocking producers for good, so that a client
    that went away cannot hold shutdown: the reader calls it at end of input, and whatever
    stops the connection otherwise (a signal) must call it too, since the loop it would
    schedule on may be the thread that is blocked."""

    def __init__(
        self,
        fd: int,
        *,
        high_water: int = HIGH_WATER,
        low_water: int = LOW_WATER,
        hard_limit: int = HARD_LIMIT,
    ) -> None:
        assert 0 <= low_water <= high_water <= hard_limit
        self._fd = fd
        self.high_water, self.low_water, self.hard_limit = high_water, low_water, hard_limit
        self._lock = threading.Lock()  # `with self._lock` is cheaper than the condition's
        self._cond = threading.Condition(self._lock)
        self._frames: collections.deque[bytes] = collections.deque()
        self.queued = 0  # bytes put and not yet written, the batch being written included
        self._closing = False
        self._released = False
        self._stalled = False
        self._drained: list[Callable[[], None]] = []
        self._held = 0  # `together` blocks open: frames queue without waking the thread
        self.broken = False
        self._thread = threading.Thread(target=self._run, name="acp-writer", daemon=True)
        self._thread.start()

    def put(self, data: bytes) -> None:
        with self._lock:
            if self.queued >= self.hard_limit and not self._free():
                if not self._stalled:
                    self._stalled = True
                    log.warning(
                        "the client is not reading: %d bytes wait; sends block", self.queued
                    )
                self._cond.notify_all()  # a `together` block must not hold the write back
                while self.queued > self.high_water and not self._free():
                    self._cond.wait(0.5)
            if self.broken:
                return
            self._frames.append(data)
            self.queued += len(data)
            if len(self._frames) == 1 and not self._held:  # it waits only for an empty queue
                self._cond.notify_all()

    @contextlib.contextmanager
    def together(self, hold: bool = True) -> Iterator[None]:
        """Frames put inside the block go out in one write where the thread was idle (an answer
        and the updates its hooks send right behind it: a client reads them at once)."""
        if not hold:
            yield
            return
        with self._lock:
            self._held += 1
        try:
            yield
        finally:
            with self._lock:
                self._held -= 1
                if not self._held and self._frames:
                    self._cond.notify_all()

    def congested(self) -> bool:
        if self.queued < self.high_water:
            # Read without the lock (asked once per streamed update): a stale value delays
            # pacing by one update at most, and `put` still blocks at the hard limit.
            return False
        with self._lock:
            return self.queued >= self.high_water and not self._free()

    def when_drained(self, callback: Callable[[], None]) -> None:
        """`callback()` once the queue is down to low water (now, when it already is); it may be
        called on the writer thread."""
        with self._lock:
            if self.queued > self.low_water and not self._free():
                self._drained.append(callback)
                return
        callback()

    def release(self) -> None:
        with self._cond:
            self._released = True
            self._cond.notify_all()
        self._fire_drained()

    def _free(self) -> bool:
        return self.broken or self._released

    def _run(self) -> None:
        while (batch := self._take()) is not None:
            data, size = batch
            view = memoryview(data)
            try:
                while view:
                    view = view[os.write(self._fd, view) :]
            except OSError as exc:  # the client closed our output: nothing more can be said
                log.warning("output closed: %s", exc)
                with self._lock:
                    self.broken = True
                    self._frames.clear()
            self._written(size)

    def _take(self) -> tuple[bytes, int] | None:
        """The next write: frames queued while a write was in progress go out together (one
        system call for a burst of chunks instead of one per frame). None once closed and empty."""
        with self._lock:
            while not self._frames and not self._closing:
                self._cond.wait()
            if not self._frames:
                return None
            if self.queued <= WRITE_BATCH:  # all of it (nothing is in flight here)
                batch, self._frames = self._frames, collections.deque()
                size = self.queued
            else:
                batch, size = collections.deque(), 0
                while self._frames and size < WRITE_BATCH:
                    frame = self._frames.popleft()
                    batch.append(frame)
                    size += len(frame)
        return (b"".join(batch) if len(batch) > 1 else batch[0]), size

    def _written(self, size: int) -> None:
        with self._lock:
            self.queued = 0 if self.broken else self.queued - size
            self._cond.notify_all()
            drained = self.queued <= self.low_water or self.broken
            if drained and self._stalled:
                self._stalled = False
                log.info("the client reads again")
        if drained:
            self._fire_drained()

    def _fire_drained(self) -> None:
        with self._lock:
            callbacks, self._drained = self._drained, []
        for callback in callbacks:
            callback()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the thread to end; whether it has."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued (for at most `timeout` seconds), then end the thread."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self.release()
        self._thread.join(timeout)
