"""What sessions are built on besides their transcript: the settings they open with (config,
provider factory, plugins), their inboxes, their vendor status and their MCP servers, and the
runtime reload that rebuilds one session's settings (`_reasonix.io/session/reloadExtensions`).

Rules:
- A reload is per session. It reads config.toml and the plugin directories strictly, builds
  everything first, and swaps only when all of it was built: a bad file changes nothing. The
  new settings are the session's, and the ones sessions opened later start with; a session
  already open elsewhere keeps its own until it is reloaded.
- The inbox store opens on first use; plugins are read when the first session opens, never at
  `initialize`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonix_acp.config import Config, config_dir
from reasonix_acp.generated.methods import REASONIX_SESSION_STATUS_UPDATE
from reasonix_acp.mcp_servers.acp_channel import AcpChannel, Request
from reasonix_acp.mcp_servers.hub import ServerSet, merged
from reasonix_acp.providers.base import Provider
from reasonix_acp.reasonix_io.inbox import InboxStore
from reasonix_acp.reasonix_io.status import StatusTracker
from reasonix_acp.session.live import MakeProvider, Session, Settings
from reasonix_acp.session.store import Store
from reasonix_acp.session.store_rows import SessionRecord
from reasonix_acp.tools.sandbox import refusal

if TYPE_CHECKING:
    from reasonix_acp.plugins.plugin import Plugin

Events = list[tuple[str, dict[str, Any]]]
Notify = Callable[[str, dict[str, Any]], None]
# Reads config.toml again (strictly); the factory builds providers over that config.
ReloadConfig = Callable[[], tuple[Config, MakeProvider]]


class Runtime:
    def __init__(
        self,
        store: Store,
        config: Config,
        make_provider: MakeProvider,
        notify: Notify,
        reload_config: ReloadConfig | None = None,
        request: Request | None = None,
    ) -> None:
        """`request`: a request to the client, which reaches the MCP servers it provides."""
        self.store = store
        self.notify = notify
        self.reload_config = reload_config
        self._defaults: Settings | None = None
        self._config, self._make_provider = config, make_provider
        self._inboxes: InboxStore | None = None
        # Whether the client opted in to status update notifications; set by the agent.
        self.status_wanted: Callable[[], bool] = lambda: False
        # Whether the client can answer an MCP server's elicitation; set by the agent.
        self.elicits: Callable[[], bool] = lambda: False
        # How the servers clients provide over ACP are reached (one for the process; each
        # connection's ids its own: mcp_servers/acp_channel.py).
        self.mcp_channel = AcpChannel(request) if request is not None else None
        # Called when the config sessions start with is replaced (auth/status_update).
        self.on_config: Callable[[], None] = lambda: None

    @property
    def config(self) -> Config:
        """The config sessions opened from now on start with."""
        return self.defaults.config if self._defaults else self._config

    def renew(self, config: Config, make_provider: MakeProvider) -> None:
        """Sessions opened from now on start with `config` (plugins are found again lazily)."""
        self._config, self._make_provider, self._defaults = config, make_provider, None
        self.on_config()

    @property
    def defaults(self) -> Settings:
        if self._defaults is None:
            plugins = _plugins(self._config.plugin_roots, strict=False)
            self._defaults = Settings(self._config, self._make_provider, plugins)
        return self._defaults

    @property
    def inboxes(self) -> InboxStore:
        if self._inboxes is None:
            self._inboxes = InboxStore(self.store.path.parent)
        return self._inboxes

    def provider(self, settings: Settings, model: str) -> Provider:
        """ValueError (a model no provider serves) is the caller's to report."""
        return settings.make_provider(model)

    def _publish_status(self, params: dict[str, Any]) -> None:
        """A status change, pushed to a client that opted in to status updates only (the
        others ask `_reasonix.io/session/status` when they want it)."""
        if self.status_wanted():
            self.notify(REASONIX_SESSION_STATUS_UPDATE, params)

    def build(self, record: SessionRecord, events: Events) -> Session:
        """A live session for `record`: its inbox (recovered) and status (restored from its
        last saved form). Raises ValueError when its model has no provider."""
        settings = self.defaults
        refused = refusal(settings.config.sandbox)
        if refused is not None:
            raise ValueError(refused)
        provider = self.provider(settings, record.model)
        status = StatusTracker(
            record.id,
            self._publish_status,
            model=record.model,
            effort=record.effort,
            mode=record.mode,
            roots=[record.cwd, *record.additional_directories],
            save=lambda saved: self.store.append_events(
                record.id, record.turn_count, [("status", saved)]
            ),
        )
        saved = next((body for kind, body in reversed(events) if kind == "status"), None)
        if saved is not None:
            status.restore(saved)
        inbox = self.inboxes.open(record.id)
        session = Session(record, settings, provider, events, status, inbox)
        status.sandbox = session.sandbox.status
        config_file = settings.config.config_file
        # Keys, the serve token, transcripts: the config directory whether or not config.toml
        # is in it, and the one config.toml was read from.
        private = [self.store.path.parent, config_dir()]
        if config_file is not None:
            private.append(config_file.parent)
        session.private_dirs = list(dict.fromkeys(map(str, private)))
        session.read_project()  # its command files are in the list sent right after the answer
        status.goal = session.goal.status_object
        kept = next((body for kind, body in reversed(events) if kind == "goal"), None)
        if kept is not None:
            session.goal.restore(kept)
        return session

    def start_servers(self, session: Session) -> None:
        """The session's MCP servers (config's, the client's on top), connecting from now on."""
        config_servers = session.config.mcp_servers
        client = session.record.mcp_servers
        if not config_servers and not client:
            return
        specs = merged(config_servers, client)
        record = session.record
        session.servers = ServerSet(
            specs,
            record.cwd,
            elicits=self.elicits(),
            extra=record.additional_directories,
            channel=self.mcp_channel,
        )
        session.servers.start()

    def rebuilt(self, session: Session) -> tuple[Settings, Provider, str]:
        """New settings for `session` from config.toml, its provider and model; nothing is
        swapped here. ValueError names what was wrong."""
        if self.reload_config is None:
            raise ValueError("runtime reload is unavailable in this session")
        config, make_provider = self.reload_config()
        model = session.record.model
        if config.provider_for(model) is None and config.default_model:
            model = config.default_model
        provider = make_provider(model)
        plugins = _plugins(config.plugin_roots, strict=True)
        return Settings(config, make_provider, plugins), provider, model

    def adopt(self, settings: Settings) -> None:
        """Sessions opened from now on start with `settings`."""
        self._defaults = settings
        self.on_config()

    def close(self) -> None:
        if self._inboxes is not None:
            self._inboxes.close()


def _plugins(roots: list[Path], *, strict: bool) -> list[Plugin]:
    """The plugins under `roots` (plugins/manifest.py); with no roots there are none, and the
    plugin code is not loaded."""
    if not roots:
        return []
    # lazy: start-up (the plugin code loads where plugins may be)
    from reasonix_acp.plugins.manifest import discover

    return discover(roots, strict=strict)
