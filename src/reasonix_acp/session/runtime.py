"""What a live session runs on besides its transcript: its vendor status, its inbox, its MCP
servers, its plugins, and the runtime reload that rebuilds them (`_reasonix.io/session/reloadExtensions`).

`SessionRuntime` is the part of `Sessions` that owns these; it holds no state of its own
beyond the inbox store, which opens on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reasonix_acp.generated.methods import REASONIX_SESSION_STATUS_UPDATE
from reasonix_acp.machines.session import State
from reasonix_acp.mcp_servers.hub import ServerSet, merged
from reasonix_acp.plugins.manifest import discover
from reasonix_acp.protocol.errors import InternalError, InvalidRequest
from reasonix_acp.protocol.router import Call
from reasonix_acp.session import commands
from reasonix_acp.vendor.inbox import InboxStore
from reasonix_acp.vendor.status import StatusTracker

if TYPE_CHECKING:
    from reasonix_acp.config import Config
    from reasonix_acp.plugins.manifest import Plugin
    from reasonix_acp.providers.base import Provider
    from reasonix_acp.session.live import Session
    from reasonix_acp.session.store import Store


class SessionRuntime:
    store: Store
    config: Config
    make_provider: Callable[[str], Provider]
    notify: Callable[[str, dict[str, Any]], None]
    _inboxes: Any
    reload_config: Callable[[], tuple[Config, Callable[[str], Provider]]] | None

    def lookup(self, method: str, session_id: str) -> Session:
        raise NotImplementedError

    def send(self, session: Session, update: dict[str, Any]) -> None:
        raise NotImplementedError

    plugins: list[Plugin] | None

    def loaded_plugins(self) -> list[Plugin]:
        """The plugins every new session gets: read once, then replaced by a reload."""
        if self.plugins is None:
            self.plugins = discover(self.config.plugin_roots, strict=False)
        return self.plugins

    @property
    def inboxes(self) -> Any:
        if self._inboxes is None:
            self._inboxes = InboxStore(self.store.path.parent)
        return self._inboxes

    def _track(
        self, session: Session, events: list[tuple[str, dict[str, Any]]] | None = None
    ) -> None:
        """The session's inbox (recovered) and status (restored from its last saved form)."""
        session.inbox = self.inboxes.open(session.id)
        session.plugins = self.loaded_plugins()

        record = session.record
        session.status = StatusTracker(
            record.id,
            lambda params: self.notify(REASONIX_SESSION_STATUS_UPDATE, params),
            model=record.model,
            effort=record.effort,
            mode=record.mode,
            roots=[record.cwd, *record.additional_directories],
            save=lambda saved: self.store.append_events(
                record.id, record.turn_count, [("status", saved)]
            ),
        )
        saved = next((body for kind, body in reversed(events or []) if kind == "status"), None)
        if saved is not None:
            session.status.restore(saved)

    def status(self, call: Call, params: Any) -> dict[str, Any]:
        """`_reasonix.io/session/status`: the session's status object, as of now."""
        session = self.lookup("_reasonix.io/session/status", params.session_id)
        record = session.record
        session.status.controls(record.model, record.effort, record.mode)
        snapshot: dict[str, Any] = session.status.snapshot()
        return snapshot

    async def reload(self, call: Call | None, params: Any) -> dict[str, Any]:
        """`_reasonix.io/session/reloadExtensions`: rebuild the session's runtime from
        config.toml (providers, plugins, MCP servers, permissions, limits), all or nothing. While a turn
        runs one reload is queued (`{"queued": true}`) and runs when the prompt ends."""
        method = "_reasonix.io/session/reloadExtensions"
        session = self.lookup(method, params.session_id)
        if session.machine.state in (State.PROMPTING, State.REBUILDING):
            session.reload_queued = True
            return {"queued": True}
        if session.machine.state is not State.IDLE:
            raise InvalidRequest(f"{method}: session is {session.machine.state.value}")
        if self.reload_config is None:
            raise InvalidRequest(f"{method}: runtime reload is unavailable in this session")
        try:
            config, make_provider = self.reload_config()
            model = session.record.model
            if config.provider_for(model) is None and config.default_model:
                model = config.default_model
            provider = make_provider(model)

            plugins = discover(config.plugin_roots, strict=True)
        except ValueError as exc:
            raise InternalError(f"{method}: {exc}") from None
        # Built: swap it in. Nothing above changed the session.
        session.machine.fire("begin_rebuild", f"{method}: session is {{state}}")
        try:
            self.config = config
            self.make_provider = make_provider
            session.provider = provider
            self.plugins = session.plugins = plugins
            if model != session.record.model:
                session.record.model, session.record.effort = model, "auto"
                self.store.update_session(session.id, model=model, effort="auto")
            await session.stop_servers()
            self._start_servers(session, session.record.mcp_servers)
        finally:
            session.machine.fire("end_rebuild", f"{method}: session is {{state}}")
        self._commands_after(call, session)
        return {}

    async def drain_reload(self, session: Session) -> None:
        if not session.reload_queued or session.machine.state is not State.IDLE:
            return
        session.reload_queued = False
        try:
            await self.reload(None, _Id(session.id))
        except (InternalError, InvalidRequest) as exc:
            self.send(
                session,
                {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": f"\n\n[warning] {exc.message}"},
                },
            )

    def _commands_after(self, call: Call | None, session: Session) -> None:
        def send() -> None:
            self.send(
                session,
                {
                    "sessionUpdate": "available_commands_update",
                    "availableCommands": commands.available(session.plugins),
                },
            )

        if call is None:
            send()
        else:
            call.after_response(send)

    def _start_servers(self, session: Session, client: list[dict[str, Any]]) -> None:
        """The session's MCP servers (config's, the client's on top), connecting from now on."""
        config_servers = self.config.mcp_servers
        if not config_servers and not client:
            return

        session.servers = ServerSet(merged(config_servers, client), session.record.cwd)
        session.servers.start()


class _Id:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
