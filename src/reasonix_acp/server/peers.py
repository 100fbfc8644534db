"""The clients one process serves, and which of them hears what: one for `acp` on stdio, any
number for `acp serve` (server/listen.py). The session machinery speaks to "the client" through
a Peers; the Peers decides which connection that is.

Rules:
- A request, a notification handler and every task they start run on behalf of the connection
  that sent them (`connection.SERVING`): what the agent asks the client (permission, fs/*,
  terminal/*, MCP over ACP) goes to that connection, and what the client advertised is read from
  it. So the connection that sent a prompt answers that turn's questions.
- A session's updates go to every connection attached to it: the one that opened it, and any
  that loaded or resumed it since; one whose shape depends on what a client advertised is made
  for each of them as it is served (`notify_each`). A connection attaches when its opening request succeeds.
  While a connection is joining a session (its `session/load` or `session/resume` runs), what
  that request sends for the session (the replay) goes to it alone.
- An update for a session no connection is attached to (a `session/new` under way, a subagent's
  own session) goes to the connection it is sent on behalf of, else nowhere.
- A notification that names no session goes to the connection it is sent on behalf of, else to
  every connection.
- A connection that leaves detaches from its sessions; the sessions no connection holds any more
  are the caller's to close (`leave` returns them).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from reasonix_acp.protocol.errors import ConnectionClosed
from reasonix_acp.protocol.handshake import ClientFeatures
from reasonix_acp.server.connection import SERVING, Connection


class Peer:
    """One client connection and what its client advertised (set at initialize)."""

    __slots__ = ("client", "connection")

    def __init__(self, connection: Connection | None = None) -> None:
        self.connection = connection
        self.client: ClientFeatures | None = None


class Peers:
    def __init__(self, solo: bool = True) -> None:
        self.solo = solo  # one connection (stdio): it is the client whatever the context
        self._peers: dict[Connection, Peer] = {}
        self._attached: dict[str, list[Peer]] = {}  # session id → peers, in attach order
        self._joining: set[tuple[str, Peer]] = set()

    # -- membership ---------------------------------------------------------------------------

    def join(self, peer: Peer) -> None:
        assert peer.connection is not None
        self._peers[peer.connection] = peer

    def leave(self, peer: Peer) -> list[str]:
        """`peer` is gone: detached from every session; the sessions nobody holds now."""
        if peer.connection is not None:
            self._peers.pop(peer.connection, None)
        orphaned = []
        for session_id in [s for s, held in self._attached.items() if peer in held]:
            if not self.detach(session_id, peer):
                orphaned.append(session_id)
        return orphaned

    def attach(self, session_id: str, peer: Peer) -> None:
        held = self._attached.setdefault(session_id, [])
        if peer not in held:
            held.append(peer)

    def detach(self, session_id: str, peer: Peer) -> bool:
        """`peer` no longer hears `session_id`; whether another peer still does."""
        held = self._attached.get(session_id, [])
        if peer in held:
            held.remove(peer)
        if not held:
            self._attached.pop(session_id, None)
        return bool(held)

    def others(self, session_id: str, peer: Peer) -> bool:
        """Whether a peer other than `peer` is attached to `session_id`."""
        return any(p is not peer for p in self._attached.get(session_id, ()))

    def elsewhere(self, session_id: str, peer: Peer) -> bool:
        """Whether `session_id` is held by other connections and not by `peer`: not `peer`'s
        until it loads or resumes it (never so with one connection)."""
        held = self._attached.get(session_id, [])
        return not self.solo and bool(held) and peer not in held

    def sessions_of(self, peer: Peer) -> set[str]:
        """The sessions `peer` is attached to."""
        return {s for s, held in self._attached.items() if peer in held}

    def forget(self, session_id: str) -> None:
        """`session_id` is gone (deleted): nobody hears it."""
        self._attached.pop(session_id, None)

    @contextlib.contextmanager
    def joining(self, session_id: str, peer: Peer) -> Iterator[None]:
        key = (session_id, peer)
        self._joining.add(key)
        try:
            yield
        finally:
            self._joining.discard(key)

    # -- who is being served ------------------------------------------------------------------

    def current(self) -> Peer | None:
        connection = SERVING.get()
        if connection is not None:
            return self._peers.get(connection)
        if self.solo and self._peers:
            return next(iter(self._peers.values()))
        return None

    def client(self) -> ClientFeatures | None:
        peer = self.current()
        return peer.client if peer is not None else None

    def _audience(self, session_id: Any) -> list[Peer]:
        peer = self.current()
        if not isinstance(session_id, str):
            return [peer] if peer is not None else list(self._peers.values())
        if peer is not None and (session_id, peer) in self._joining:
            return [peer]
        held = self._attached.get(session_id)
        if held:
            return list(held)
        return [peer] if peer is not None else []

    # -- what the session machinery calls -----------------------------------------------------

    def notify(self, method: str, params: dict[str, Any]) -> None:
        for peer in self._audience(params.get("sessionId")):
            if peer.connection is not None:
                peer.connection.notify(method, params, trusted=True)

    def notify_encoded(self, method: str, data: bytes, session_id: str | None = None) -> None:
        for peer in self._audience(session_id):
            if peer.connection is not None:
                peer.connection.notify_encoded(method, data)

    def notify_each(self, method: str, session_id: str, frame: Callable[[], bytes | None]) -> None:
        """To each connection that hears `session_id`, the frame `frame()` makes while that
        connection is the one served: what its client advertised decides what it gets (an
        extension surface or its fallback text, a gated update)."""
        for peer in self._audience(session_id):
            if peer.connection is None:
                continue
            serving = SERVING.set(peer.connection)
            try:
                data = frame()
            finally:
                SERVING.reset(serving)
            if data is not None:
                peer.connection.notify_encoded(method, data)

    async def writable(self) -> None:
        peer = self.current()
        if peer is not None and peer.connection is not None:
            await peer.connection.writable()

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        peer = self.current()
        if peer is None or peer.connection is None:
            raise ConnectionClosed(f"{method}: no client connection")
        return await peer.connection.request(method, params)
