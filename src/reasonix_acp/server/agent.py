"""The agent's methods, routed through the generated method table, over one connection.

`initialize` is answered before anything heavy is imported; the store, the configuration and
the session machinery are set up on the first session method.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonix_acp.dirs import user_dir
from reasonix_acp.generated import methods as m
from reasonix_acp.protocol.errors import (
    AuthRequired,
    ConnectionClosed,
    InternalError,
    InvalidParams,
    StateError,
)
from reasonix_acp.protocol.handshake import ClientFeatures
from reasonix_acp.protocol.router import Call, Router
from reasonix_acp.server import auth, capabilities, collector, providers, warm

if TYPE_CHECKING:
    from reasonix_acp.config import Config
    from reasonix_acp.session.catalog import Catalog
    from reasonix_acp.session.changes import Changes
    from reasonix_acp.session.opening import Opening
    from reasonix_acp.session.service import Sessions
    from reasonix_acp.session.steering import Steering
    from reasonix_acp.tools.base import Tool
    from reasonix_acp.turn.admission import Prompts


def _normalise_mcp_servers(method: str, params: dict[str, Any]) -> dict[str, Any]:
    # lazy: start-up (the config package loads with the first session)
    from reasonix_acp.config.mcp_entries import normalise_params

    return normalise_params(method, params)


class Options:
    def __init__(
        self, model: str | None = None, data_dir: str | None = None, script: str | None = None
    ) -> None:
        self.model = model
        self.data_dir = data_dir
        self.script = script


def data_dir(options: Options) -> Path:
    chosen = options.data_dir or os.environ.get("REASONIX_ACP_DATA_DIR")
    if chosen:
        return Path(chosen)
    return user_dir("data")


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


class Services:
    """The session machinery, built on the first session method; the prompt side with the
    first prompt (or ahead of it, server/warm.py), not when a session opens."""

    def __init__(
        self,
        sessions: Sessions,
        opening: Opening,
        changes: Changes,
        make_prompts: Callable[[], Prompts],
        steering: Steering,
        catalog: Catalog,
    ):
        self.sessions = sessions
        self.catalog = catalog
        self.rewinds = opening.rewinds
        self.opening = opening
        self.changes = changes
        self._make_prompts = make_prompts
        self._prompts: Prompts | None = None
        self.steering = steering

    @property
    def prompts(self) -> Prompts:
        if self._prompts is None:
            self._prompts = self._make_prompts()
        return self._prompts


class Agent:
    def __init__(self, options: Options | None = None) -> None:
        self.options = options or Options()
        self.client: ClientFeatures | None = None
        self.connection: Any = None
        self._services: Services | None = None
        self._config: Config | None = None
        self.auth = auth.Reporter(lambda: self.config, self._notify)
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
        r.add(m.SESSION_NEW, lambda c, p: self.services.opening.new(c, p), normalise=mcp)
        r.add(m.SESSION_LOAD, lambda c, p: self._open(c, p, True), normalise=mcp)
        r.add(m.SESSION_RESUME, lambda c, p: self._open(c, p, False), normalise=mcp)
        r.add(m.SESSION_FORK, lambda c, p: self.services.opening.fork(c, p), normalise=mcp)
        r.add(m.SESSION_LIST, lambda c, p: self.services.sessions.list(c, p))
        r.add(m.SESSION_CLOSE, lambda c, p: self.services.sessions.close(c, p))
        r.add(m.SESSION_DELETE, lambda c, p: self.services.sessions.delete(c, p))
        r.add(m.SESSION_SET_TITLE, lambda c, p: self.services.catalog.set_title(c, p))
        r.add(m.SESSION_ARCHIVE, lambda c, p: self.services.catalog.archive(c, p))
        r.add(m.SESSION_UNARCHIVE, lambda c, p: self.services.catalog.unarchive(c, p))
        r.add(m.SESSION_STATUS, lambda c, p: self.services.catalog.status(c, p))
        r.add(m.SESSION_SET_MODE, lambda c, p: self.services.changes.set_mode(c, p))
        r.add(
            m.SESSION_SET_CONFIG_OPTION,
            lambda c, p: self.services.changes.set_config_option(c, p),
        )
        r.add(m.SESSION_SET_MODEL, lambda c, p: self.services.changes.set_model(c, p))
        r.add(m.SESSION_PROMPT, lambda c, p: self.services.prompts.prompt(c, p))
        r.add(m.SESSION_CANCEL, lambda c, p: self.services.prompts.cancel(c, p))
        r.add(m.MCP_MESSAGE, self._mcp_message)  # MCP over ACP: a request's notification
        r.add(m.REASONIX_SESSION_STATUS, lambda c, p: self.services.sessions.status(c, p))
        r.add(
            m.REASONIX_SESSION_RELOAD_EXTENSIONS,
            lambda c, p: self.services.changes.reload(c, p),
        )
        r.add(m.REASONIX_SESSION_REWIND, lambda c, p: self.services.rewinds.method(c, p))
        for method in STEERING:
            r.add(method, self._steering(method))

    def _steering(self, method: str) -> Callable[[Call, Any], Any]:
        return lambda c, p: self.services.steering.handle(method, c, p)

    def _open(self, call: Call, params: Any, replay: bool) -> Any:
        return self.services.opening.open_stored(call, params, replay=replay)

    def _require_initialized(self, spec: m.MethodSpec) -> None:
        if self.client is None:
            raise StateError(
                f"{spec.method}: the connection is not initialized; send initialize first"
            )

    def attach(self, connection: Any) -> None:
        self.connection = connection
        connection.on_close(self.close)

    # -- services, built on first use -------------------------------------------------------

    @property
    def config(self) -> Config:
        if self._services is not None:
            return self._services.sessions.runtime.config  # a reload replaces it there
        if self._config is None:
            # lazy: start-up
            from reasonix_acp import config

            self._config = config.load(cli_model=self.options.model)
        return self._config

    @property
    def services(self) -> Services:
        if self._services is None:
            self._services = self._build_services()
        return self._services

    def _build_services(self) -> Services:
        # lazy: start-up (the session machinery loads with the first session method)
        from reasonix_acp.session.catalog import Catalog

        # lazy: start-up
        from reasonix_acp.session.changes import Changes

        # lazy: start-up
        from reasonix_acp.session.opening import Opening

        # lazy: start-up
        from reasonix_acp.session.runtime import Runtime

        # lazy: start-up
        from reasonix_acp.session.service import Sessions

        # lazy: start-up
        from reasonix_acp.session.steering import Steering

        # lazy: start-up
        from reasonix_acp.session.store import Store

        config = self.config
        store = Store(data_dir(self.options))
        factory = self._provider_factory(config)
        runtime = Runtime(store, config, factory, self._notify, self._reload_config, self._request)
        runtime.on_config = self.auth.changed  # a reload's config: auth/status_update
        runtime.status_wanted = lambda: bool(self.client is not None and self.client.status_updates)
        runtime.elicits = lambda: bool(
            self.client is not None
            and (
                self.client.elicitation_form
                or self.client.elicitation_url
                or self.client.mcp_interaction
            )
        )
        sessions = Sessions(store, runtime, self._notify, self._request)
        sessions.surfaces_wanted = lambda: bool(
            self.client is not None and self.client.extension_surface
        )
        sessions.supports = lambda capability: bool(
            self.client is not None and getattr(self.client, capability, False)
        )
        sessions.writable = self._writable
        sessions.notify_encoded = self._notify_encoded
        sessions.preload = _session_opened
        changes = Changes(sessions)
        return Services(
            sessions,
            Opening(sessions),
            changes,
            lambda: _prompts(sessions, changes, lambda: self.client),
            Steering(sessions),
            Catalog(sessions),
        )

    def _mcp_message(self, call: Any, params: Any) -> None:
        channel = self._services.sessions.runtime.mcp_channel if self._services else None
        if channel is not None:
            channel.notified(params)

    def _notify(self, method: str, params: dict[str, Any]) -> None:
        if self.connection is not None:
            self.connection.notify(method, params, trusted=True)

    def _notify_encoded(self, method: str, data: bytes) -> None:
        if self.connection is not None:
            self.connection.notify_encoded(method, data)

    async def _writable(self) -> None:
        if self.connection is not None:
            await self.connection.writable()

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        if self.connection is None:
            raise ConnectionClosed(f"{method}: no client connection")
        return await self.connection.request(method, params)

    def _reload_config(self) -> tuple[Config, Any]:
        """config.toml read again, and a provider factory over it; nothing is swapped here."""
        # lazy: start-up
        from reasonix_acp import config

        fresh = config.load(cli_model=self.options.model, strict=True)
        return fresh, self._provider_factory(fresh)

    def _provider_factory(self, config: Config) -> Any:
        # lazy: start-up
        from reasonix_acp.providers import registry

        script = self.options.script
        return lambda model: registry.make(config, model, script)

    # -- handlers -----------------------------------------------------------------------------

    # The handshake is synchronous: it is served before the event loop exists.
    def initialize(self, call: Call, client: ClientFeatures) -> dict[str, Any]:
        # A repeated initialize replaces what the client said before.
        self.client = client
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
        self._config = fresh
        if self._services is not None:
            self._services.sessions.runtime.renew(fresh, self._provider_factory(fresh))
        self.auth.changed()

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
        self.auth.changed()
        return {}

    async def close(self) -> None:
        """The client went away: stop turns, release leases, close the stores."""
        if self._services is not None:
            sessions = self._services.sessions
            await sessions.close_all()
            sessions.store.close()
            sessions.runtime.close()


def _prompts(
    sessions: Sessions, changes: Changes, client: Callable[[], ClientFeatures | None]
) -> Prompts:
    # lazy: start-up (loaded with the prompt path, server/warm.py)
    from reasonix_acp.turn.admission import Prompts

    return Prompts(sessions, changes, _tools, client)


def _tools() -> list[Tool]:
    """The agent's own tools; loaded with the prompt path (server/warm.py), not when a session
    opens."""
    # lazy: start-up
    from reasonix_acp.tools.files import FILE_TOOLS

    # lazy: start-up
    from reasonix_acp.tools.shell import SHELL_TOOLS

    # lazy: start-up
    from reasonix_acp.tools.todo import TOOLS

    return [*FILE_TOOLS, *SHELL_TOOLS, *TOOLS]


def _session_opened(prepare: Callable[[], None]) -> None:
    """After a session's opening answer: the prompt path loads ahead, its provider prepared on
    the way (server/warm.py), and once it is loaded start-up is over (server/collector.py)."""
    warm.prompt_path(prepare, loaded=collector.resume)
