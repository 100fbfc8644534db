"""What the connections of one process share: the options it was started with, the
configuration, and the session machinery (the store, the runtime, the live sessions), built on
the first session method and spoken to through the process's Peers (server/peers.py).

`acp` on stdio has one connection, and so one Shared of its own (`solo`): when that connection
ends, everything closes, as before. `acp serve` (server/listen.py) has one Shared for all its
connections: a session opened on one can be loaded on another, and one connection leaving
closes only the sessions no other connection holds.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonix_acp.dirs import user_dir
from reasonix_acp.server import collector, warm
from reasonix_acp.server.peers import Peers

if TYPE_CHECKING:
    from reasonix_acp.config import Config
    from reasonix_acp.session.catalog import Catalog
    from reasonix_acp.session.changes import Changes
    from reasonix_acp.session.opening import Opening
    from reasonix_acp.session.service import Sessions
    from reasonix_acp.session.steering import Steering
    from reasonix_acp.tools.base import Tool
    from reasonix_acp.turn.admission import Prompts


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


class Shared:
    def __init__(self, options: Options | None = None, solo: bool = True) -> None:
        self.options = options or Options()
        self.solo = solo  # one connection: its end closes everything
        self.peers = Peers(solo)
        # Called after the configuration changed (a reload, authenticate, providers/*): each
        # connection's auth/status_update.
        self.config_watchers: list[Callable[[], None]] = []
        self._services: Services | None = None
        self._config: Config | None = None

    @property
    def built(self) -> Services | None:
        return self._services

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
            self._services = self._build()
        return self._services

    def config_changed(self) -> None:
        for watcher in list(self.config_watchers):
            watcher()

    def adopt(self, fresh: Config) -> None:
        """Sessions opened from now on start with `fresh`."""
        self._config = fresh
        if self._services is not None:
            self._services.sessions.runtime.renew(fresh, self.provider_factory(fresh))

    def _build(self) -> Services:
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

        config, peers = self.config, self.peers
        store = Store(data_dir(self.options))
        factory = self.provider_factory(config)
        runtime = Runtime(store, config, factory, peers.notify, self.reload_config, peers.request)
        runtime.on_config = self.config_changed  # a reload's config: auth/status_update
        if runtime.mcp_channel is not None:  # the ids a client provides are its connection's
            runtime.mcp_channel.who = peers.current
        runtime.status_wanted = lambda: _wants(peers, "status_updates")
        runtime.elicits = lambda: any(
            _wants(peers, f) for f in ("elicitation_form", "elicitation_url", "mcp_interaction")
        )
        sessions = Sessions(store, runtime, peers.notify, peers.request)
        sessions.surfaces_wanted = lambda: _wants(peers, "extension_surface")
        sessions.supports = lambda capability: _wants(peers, capability)
        sessions.writable = peers.writable
        sessions.notify_encoded = peers.notify_encoded
        sessions.notify_each = peers.notify_each
        sessions.preload = _session_opened
        changes = Changes(sessions)
        return Services(
            sessions,
            Opening(sessions),
            changes,
            lambda: _prompts(sessions, changes, peers.client),
            Steering(sessions),
            Catalog(sessions),
        )

    def reload_config(self) -> tuple[Config, Any]:
        """config.toml read again, and a provider factory over it; nothing is swapped here."""
        # lazy: start-up
        from reasonix_acp import config

        fresh = config.load(cli_model=self.options.model, strict=True)
        return fresh, self.provider_factory(fresh)

    def provider_factory(self, config: Config) -> Any:
        # lazy: start-up
        from reasonix_acp.providers import registry

        script = self.options.script
        return lambda model: registry.make(config, model, script)

    async def release(self, session_ids: list[str]) -> None:
        """Close these sessions (their last connection left)."""
        if self._services is not None and session_ids:
            await self._services.sessions.close_ids(session_ids)

    async def close(self) -> None:
        """The process is done serving: stop turns, release leases, close the stores."""
        if self._services is not None:
            sessions = self._services.sessions
            await sessions.close_all()
            sessions.store.close()
            sessions.runtime.close()


def _wants(peers: Peers, feature: str) -> bool:
    """Whether the client being served advertised `feature` (a ClientFeatures flag)."""
    client = peers.client()
    return bool(client is not None and getattr(client, feature, False))


def _prompts(sessions: Sessions, changes: Changes, client: Callable[[], Any]) -> Prompts:
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
