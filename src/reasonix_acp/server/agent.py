"""The agent's methods, routed through the generated method table, over one connection.

`initialize` is answered before anything heavy is imported; the store, the configuration and
the session machinery are set up on the first session method.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonix_acp.generated import methods as m
from reasonix_acp.protocol.errors import (
    AuthRequired,
    InternalError,
    InvalidParams,
    InvalidRequest,
    StateError,
)
from reasonix_acp.protocol.handshake import ClientFeatures
from reasonix_acp.protocol.router import Call, Router
from reasonix_acp.server import auth, capabilities, providers
from reasonix_acp.server.peers import Peer
from reasonix_acp.server.services import Options, Services, Shared, data_dir

if TYPE_CHECKING:
    from reasonix_acp.config import Config

__all__ = ["Agent", "Options", "Shared", "data_dir"]


def _normalise_mcp_servers(method: str, params: dict[str, Any]) -> dict[str, Any]:
    # lazy: start-up (the config package loads with the first session)
    from reasonix_acp.config.mcp_entries import normalise_params

    return normalise_params(method, params)


# The vendor steer and inbox methods, served by session/steering.py (loaded with the services).
STEERING = (
    m.REASONIX_SESSION_STEER,
    m.REASONIX_SESSION_INBOX_ENQUEUE,
    m.REASONIX_SESSION_INBOX_LIST,
    m.REASONIX_SESSION_INBOX_GET,
    m.REASONIX_SESSION_INBOX_UPDATE,
    m.REASONIX_SESSION_INBOX_DELETE,
    m.REASONIX_SESSION_INBOX_MOVE,
    m.REASONIX_SESSION_INBOX_SET_PAUSED,
    m.REASONIX_SESSION_INBOX_RETRY,
    m.REASONIX_SESSION_INBOX_REFRESH,
)


class Agent:
    """One client connection's side of the agent: what its client said at initialize, the
    methods it may call (through the generated method table), and the process's Shared
    behind them (server/services.py)."""

    def __init__(self, options: Options | None = None, shared: Shared | None = None) -> None:
        self.shared = shared or Shared(options)
        self.options = self.shared.options
        self.peer = Peer()
        self.auth = auth.Reporter(lambda: self.config, self._notify)
        self.shared.config_watchers.append(self.auth.changed)
        # The most sessions this connection may hold open (None: no bound; `acp serve` sets it).
        self.session_limit: int | None = None
        r = self.router = Router(guard=self._require_initialized)
        r.add(m.INITIALIZE, self.initialize, guarded=False)
        r.add(m.AUTHENTICATE, self.authenticate)
        r.add(m.LOGOUT, self.logout)
        r.add(m.AUTH_STATUS, lambda c, p: self.auth.answer())
        r.add(m.PROVIDERS_LIST, lambda c, p: providers.listing(self.config))
        r.add(m.PROVIDERS_SET, self.set_provider)
        r.add(m.PROVIDERS_DISABLE, self.disable_provider)
        # `mcpServers` entries arrive in shapes older than the schema (an env map, a missing
        # `type`, transport aliases): they are made regular before validation.
        mcp = _normalise_mcp_servers
        r.add(m.SESSION_NEW, self._new, normalise=mcp)
        r.add(m.SESSION_LOAD, lambda c, p: self._stored(c, p, True), normalise=mcp)
        r.add(m.SESSION_RESUME, lambda c, p: self._stored(c, p, False), normalise=mcp)
        r.add(m.SESSION_FORK, self._fork, normalise=mcp)
        r.add(m.SESSION_LIST, lambda c, p: self.services.sessions.list(c, p))
        r.add(m.SESSION_CLOSE, self._close_session)  # not open here: nothing to close
        r.add(m.SESSION_DELETE, self._delete_session)
        r.add(m.SESSION_SET_TITLE, lambda c, p: self.services.catalog.set_title(c, p))
        r.add(m.SESSION_ARCHIVE, lambda c, p: self.services.catalog.archive(c, p))
        r.add(m.SESSION_UNARCHIVE, lambda c, p: self.services.catalog.unarchive(c, p))
        r.add(m.SESSION_STATUS, lambda c, p: self.services.catalog.status(c, p))
        # What acts on a live session: this connection's sessions only (`_held`).
        live: list[tuple[str, Callable[[Call, Any], Any]]] = [
            (m.SESSION_SET_MODE, lambda c, p: self.services.changes.set_mode(c, p)),
            (
                m.SESSION_SET_CONFIG_OPTION,
                lambda c, p: self.services.changes.set_config_option(c, p),
            ),
            (m.SESSION_SET_MODEL, lambda c, p: self.services.changes.set_model(c, p)),
            (m.SESSION_PROMPT, lambda c, p: self.services.prompts.prompt(c, p)),
            (m.SESSION_CANCEL, lambda c, p: self.services.prompts.cancel(c, p)),
            (m.REASONIX_SESSION_STATUS, lambda c, p: self.services.sessions.status(c, p)),
            (
                m.REASONIX_SESSION_RELOAD_EXTENSIONS,
                lambda c, p: self.services.changes.reload(c, p),
            ),
            (m.REASONIX_SESSION_REWIND, lambda c, p: self.services.rewinds.method(c, p)),
            *((method, self._steering(method)) for method in STEERING),
        ]
        for method, handler in live:
            r.add(method, self._held(method, handler))
        r.add(m.MCP_MESSAGE, self._mcp_message)  # MCP over ACP: a request's notification

    def _held(self, method: str, handler: Callable[[Call, Any], Any]) -> Callable[[Call, Any], Any]:
        """`handler` for this connection's sessions: a session other connections of `acp
        serve` hold is not this one's until it loads or resumes it (as a session open in
        another process is not, on stdio), so it is unknown here."""

        def guarded(call: Call, params: Any) -> Any:
            session_id = getattr(params, "session_id", None)
            if isinstance(session_id, str) and self.shared.peers.elsewhere(session_id, self.peer):
                raise InvalidParams(
                    f"{method}: unknown session {session_id} on this connection (another "
                    "connection holds it); load or resume it here first"
                )
            return handler(call, params)

        return guarded

    def _steering(self, method: str) -> Callable[[Call, Any], Any]:
        return lambda c, p: self.services.steering.handle(method, c, p)

    def _new(self, call: Call, params: Any) -> Awaitable[dict[str, Any]]:
        return self._opening(lambda: self.services.opening.new(call, params))

    def _fork(self, call: Call, params: Any) -> Awaitable[dict[str, Any]]:
        return self._opening(lambda: self.services.opening.fork(call, params))

    def _stored(self, call: Call, params: Any, replay: bool) -> Awaitable[dict[str, Any]]:
        """session/load (`replay`) or session/resume."""
        opening = self.services.opening
        return self._opening(lambda: opening.open_stored(call, params, replay=replay), params)

    async def _opening(
        self, open_: Callable[[], Awaitable[dict[str, Any]]], joined: Any = None
    ) -> dict[str, Any]:
        """A session opened on this connection (new, fork), or `joined` (load, resume: what
        the request sends for it goes here alone): it hears the session from now on
        (server/peers.py)."""
        peers = self.shared.peers
        joining = getattr(joined, "session_id", None) if joined is not None else None
        limit = self.session_limit
        held = peers.sessions_of(self.peer)
        if limit is not None and joining not in held and len(held) >= limit:
            raise StateError(
                f"this connection holds {limit} sessions, the most one remote connection may; "
                "close one first (session/close)"
            )
        with peers.joining(joining, self.peer) if joining else contextlib.nullcontext():
            result = await open_()
        session_id = result.get("sessionId", joining)
        if isinstance(session_id, str):
            peers.attach(session_id, self.peer)
        return result

    async def _close_session(self, call: Call, params: Any) -> dict[str, Any]:
        """session/close: where another connection holds the session too, this one only stops
        hearing it; else it closes."""
        peers = self.shared.peers
        if peers.others(params.session_id, self.peer):
            peers.detach(params.session_id, self.peer)
            return {}
        result = await self.services.sessions.close(call, params)
        peers.detach(params.session_id, self.peer)
        return result

    async def _delete_session(self, call: Call, params: Any) -> dict[str, Any]:
        """session/delete: refused while another connection holds the session, as while
        another process does."""
        if self.shared.peers.others(params.session_id, self.peer):
            raise InvalidRequest(
                f"{call.method}: this session is in use by another connection; close it there first"
            )
        result = await self.services.sessions.delete(call, params)
        self.shared.peers.forget(params.session_id)
        return result

    @property
    def client(self) -> ClientFeatures | None:
        return self.peer.client

    @property
    def connection(self) -> Any:
        return self.peer.connection

    def _require_initialized(self, spec: m.MethodSpec) -> None:
        if self.client is None:
            raise StateError(
                f"{spec.method}: the connection is not initialized; send initialize first"
            )

    def attach(self, connection: Any) -> None:
        self.peer.connection = connection
        self.shared.peers.join(self.peer)
        connection.on_close(self.close)

    @property
    def config(self) -> Config:
        return self.shared.config

    @property
    def services(self) -> Services:
        return self.shared.services

    def _mcp_message(self, call: Any, params: Any) -> None:
        built = self.shared.built
        channel = built.sessions.runtime.mcp_channel if built is not None else None
        if channel is not None:
            channel.notified(params)

    def _notify(self, method: str, params: dict[str, Any]) -> None:
        """To this connection's client only (what it holds changed: auth/status_update)."""
        if self.connection is not None:
            self.connection.notify(method, params, trusted=True)

    # -- handlers -----------------------------------------------------------------------------

    # The handshake is synchronous: it is served before the event loop exists.
    def initialize(self, call: Call, client: ClientFeatures) -> dict[str, Any]:
        # A repeated initialize replaces what the client said before.
        self.peer.client = client
        self.auth.before()
        return capabilities.initialize_result(client, self.config.any_takes_images())

    def authenticate(self, call: Call, params: Any) -> dict[str, Any]:
        """The user ran setup (in the editor's terminal or their own): config.toml is read
        again for sessions opened from now on; still incomplete → -32000 saying what is
        missing."""
        method_id = params.method_id.strip()
        if method_id != capabilities.SETUP_METHOD_ID:
            raise InvalidParams(f"authenticate: unknown methodId {params.method_id}")
        # lazy: start-up
        from reasonix_acp import config

        fresh = config.load(cli_model=self.options.model)
        missing = fresh.incomplete()
        if missing is not None:
            raise AuthRequired(f"authenticate: {missing}")
        self._adopt(fresh)
        return {}

    def _adopt(self, fresh: Config) -> None:
        """Sessions opened from now on start with `fresh`; an auth/status_update if what is
        held changed."""
        self.auth.before()
        self.shared.adopt(fresh)
        self.shared.config_changed()

    def set_provider(self, call: Call, params: Any) -> dict[str, Any]:
        """config.toml's provider table replaced (server/providers.py), then read again."""
        # lazy: start-up
        from reasonix_acp.config.provider_table import set_provider

        # lazy: start-up
        from reasonix_acp.redact import remember

        name, kind, base_url, key = providers.checked_set(self.config, params)
        remember(key)
        self._write_config(
            m.PROVIDERS_SET, lambda path: set_provider(path, name, kind, base_url, key)
        )
        return {}

    def disable_provider(self, call: Call, params: Any) -> dict[str, Any]:
        # lazy: start-up
        from reasonix_acp.config.provider_table import disable_provider

        name = providers.checked_disable(self.config, params)
        self._write_config(m.PROVIDERS_DISABLE, lambda path: disable_provider(path, name))
        return {}

    def _write_config(self, method: str, write: Callable[[Path], None]) -> None:
        # lazy: start-up
        from reasonix_acp import config

        self.auth.before()
        path = self.config.config_file or config.config_dir() / "config.toml"
        try:
            write(path)
        except (OSError, ValueError) as exc:
            raise InternalError(f"{method}: {exc}") from None
        self._adopt(config.load(cli_model=self.options.model))

    def logout(self, call: Call, params: Any) -> dict[str, Any]:
        # lazy: start-up
        from reasonix_acp import config

        self.auth.before()
        config.clear_credentials(self.config)
        self.shared.config_changed()
        return {}

    async def close(self) -> None:
        """The client went away: the sessions no other connection holds are closed (their
        turns stopped, leases released); on stdio, everything, stores included."""
        shared = self.shared
        with contextlib.suppress(ValueError):
            shared.config_watchers.remove(self.auth.changed)
        if shared.solo:  # the client hears its sessions close, as it always did
            await shared.close()
            shared.peers.leave(self.peer)
        else:
            await shared.release(shared.peers.leave(self.peer))
            built = shared.built
            if built is not None and built.sessions.runtime.mcp_channel is not None:
                built.sessions.runtime.mcp_channel.forget(self.peer)  # its ids name nothing now
