"""One live session of this process: its stored record, its machines, its model and runtime."""

from __future__ import annotations

import asyncio
from typing import Any

from reasonix_acp.config import Config
from reasonix_acp.machines.session import SessionMachine
from reasonix_acp.machines.turn import TurnMachine
from reasonix_acp.plugins.manifest import Plugin
from reasonix_acp.providers.base import Provider
from reasonix_acp.session import controls
from reasonix_acp.session.store import SessionRecord
from reasonix_acp.vendor.steering import SteerDesk


class Session:
    """One live session: its stored record, its machines, its model controller."""

    def __init__(
        self, record: SessionRecord, provider: Provider, history: list[dict[str, Any]]
    ) -> None:
        self.record = record
        self.machine = SessionMachine()
        self.turn = TurnMachine()
        self.provider = provider
        self.history = history
        self.queued: dict[str, str] = {}  # axis → value, applied when the running turn ends
        self.turn_task: asyncio.Task[Any] | None = None
        self.open_updates = True  # False once a prompt's response is decided (late updates dropped)
        self.grants: list[
            tuple[str, str, bool]
        ] = []  # "always" permission answers, this session only
        self.servers: Any = None  # mcp_servers.hub.ServerSet while the session has servers
        self.status: Any = None  # status.StatusTracker, set when the session opens
        self.inbox: Any = None  # inbox.SessionInbox, opened (and recovered) with the session
        self.checkpoint: list[str] | None = None  # an open final-readiness check (its files)
        self.reload_queued = False  # a runtime reload asked for while a turn ran
        self.recovery: Any = None  # recovery.Offer: a turn the last process did not finish
        self.plugins: list[Plugin] = []  # the runtime's plugins (plugins.py), set at opening

        self.desk = SteerDesk()

    async def stop_servers(self) -> None:
        servers, self.servers = self.servers, None
        if servers:
            await servers.stop()

    @property
    def id(self) -> str:
        return self.record.id

    def options(self, config: Config) -> list[dict[str, Any]]:
        model = self.queued.get("model", self.record.model)
        effort = self.queued.get("effort", self.record.effort)
        return controls.config_options(config, model, effort, self.record.approval)

    def opening_result(self, config: Config) -> dict[str, Any]:
        return {
            "modes": controls.modes_state(self.record.mode),
            "configOptions": self.options(config),
        }
