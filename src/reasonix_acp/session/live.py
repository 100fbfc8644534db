"""One live session of this process: its stored record, its machines, and what it runs on.

A session carries its own runtime (config, provider factory, plugins): a reload of one session
rebuilds that session's and leaves every other session's running turn alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reasonix_acp.config import Config
from reasonix_acp.machines.session import SessionMachine
from reasonix_acp.machines.turn import TurnMachine
from reasonix_acp.mcp_servers.hub import ServerSet
from reasonix_acp.protocol.framing import Template
from reasonix_acp.providers.base import Provider
from reasonix_acp.reasonix_io.goal import Goal
from reasonix_acp.reasonix_io.inbox import SessionInbox
from reasonix_acp.reasonix_io.recovery import Offer
from reasonix_acp.reasonix_io.status import StatusTracker
from reasonix_acp.reasonix_io.steering import SteerDesk
from reasonix_acp.session import commands, controls
from reasonix_acp.session.commands import names as controls_names
from reasonix_acp.session.gauge import Gauge
from reasonix_acp.session.history import history_from_events
from reasonix_acp.session.store_rows import SessionRecord
from reasonix_acp.tools.sandbox import Sandbox
from reasonix_acp.tools.workspace import Workspace, session_temp

if TYPE_CHECKING:
    from reasonix_acp.mcp_servers.prompts import PromptCommand
    from reasonix_acp.plugins.actions import ActionResult, Events, Request, Where
    from reasonix_acp.plugins.plugin import Action, Plugin
    from reasonix_acp.project.reading import Project
    from reasonix_acp.tools.background import Jobs

MakeProvider = Callable[[str], Provider]


@dataclass
class RunningChild:
    """A subagent of the session's turn running now (turn/subagents.py)."""

    title: str
    cancel: Callable[[], Any]  # cancels that child alone


@dataclass
class Settings:
    """What a session runs on: read from config.toml when it opens, replaced by its reload."""

    config: Config
    make_provider: MakeProvider
    plugins: list[Plugin]


class Session:
    """One live session. The machines decide what may run; the rest is its state."""

    def __init__(
        self,
        record: SessionRecord,
        settings: Settings,
        provider: Provider,
        transcript: list[tuple[str, dict[str, Any]]],
        status: StatusTracker,
        inbox: SessionInbox,
    ) -> None:
        self.record = record
        self._temp: str | None = None  # its temp directory's path, found on first use
        self.settings = settings
        self.provider = provider
        self._transcript = transcript  # until the history is rebuilt from it
        self._history: list[dict[str, Any]] | None = None
        self.status = status
        self.inbox = inbox
        self.machine = SessionMachine()
        self.turn = TurnMachine()
        self.desk = SteerDesk()
        self.refused = False  # the endpoint refused its last turn's request (RequestRefused)
        self.notices: list[str] = []  # warnings its next turn shows first (a retired model)
        self.queued: dict[str, str] = {}  # axis → value, applied when the running prompt ends
        self.reload_queued = False  # a reload asked for while a turn or a rebuild ran
        self.turn_task: asyncio.Task[Any] | None = None  # the running turn's whole work
        self.open_updates = True  # False once a prompt's answer is decided (late ones dropped)
        self._jobs: Jobs | None = None  # its background commands, once it runs one
        self.children: dict[str, RunningChild] = {}  # child session id → its subagent
        # text-delta kind → (its message's id, the frame for its chunks) (service.send)
        self.templates: dict[str, tuple[str | None, Template]] = {}
        self.grants: list[tuple[str, str, bool]] = []  # "always" answers: (access, scope, allow)
        self.servers: ServerSet | None = None  # while the session has MCP servers
        self.checkpoint: list[str] | None = None  # an open final-readiness check (its files)
        # Tokens in the model's context after the last model call (`context` events keep it),
        # and a gauge counting a request's tokens at the rate the provider last reported
        self.used, self.gauge = _context_of(transcript)
        self.shadow: Any = None  # checkpoints/recorder.Shadow, from its first model turn
        self.recovery: Offer | None = None  # a turn the last process did not finish
        # Close and delete work, shielded from their requests' cancellation (machines/session.py)
        self.teardown: asyncio.Future[None] | None = None  # turn, hooks, servers, lease
        self.closing: asyncio.Future[None] | None = None
        self.deleting: asyncio.Future[None] | None = None
        self.goal = Goal(limits=settings.config.goal)  # goal mode's objective (reasonix_io/goal.py)
        self.private_dirs: list[str] = []  # the agent's config and data directories (runtime)
        # AGENTS.md files, prompt command files and skills: read when the session opens and by
        # a reload (never mid-turn)
        self._project: Project | None = None
        self.sandbox = Sandbox(
            self.workspace,
            # plan mode holds under every preset: its commands run with nothing writable
            lambda: "read-only" if self.record.mode == "plan" else self.record.approval,
            lambda: self.config.sandbox,
            private=lambda: self.private_dirs,
        )

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def history(self) -> list[dict[str, Any]]:
        """The model's chat history, rebuilt from the stored transcript when first asked for
        (by the session's first turn): a load answers, and a session that is only looked at
        closes, without it."""
        if self._history is None:
            self._history = history_from_events(self._transcript)
            self._transcript = []
        return self._history

    def rewound(self, transcript: list[tuple[str, dict[str, Any]]]) -> None:
        """Continue from `transcript` (a rewind cut it): the history is rebuilt from it on the
        next turn, and the context gauge is as it was then."""
        self._transcript = transcript
        self._history = None
        self.used, self.gauge = _context_of(transcript)

    @property
    def config(self) -> Config:
        return self.settings.config

    @property
    def effort(self) -> str:
        """The effort it runs at, as its option shows it (a stored "auto", or a level the model
        does not offer, is the model's default: DeepSeek's `high`)."""
        model, effort = self.record.model, self.record.effort
        if effort in self.config.efforts_for(model):
            return effort
        return self.config.default_effort(model)

    @property
    def plugins(self) -> list[Plugin]:
        return self.settings.plugins

    @property
    def project(self) -> Project:
        """The project's instructions, command files and skills, read on first use."""
        if self._project is None:
            # lazy: start-up (the project's modules load with the first session)
            from reasonix_acp.project.reading import read

            record, config_file = self.record, self.config.config_file
            config_dir = str(config_file.parent) if config_file is not None else None
            extra = list(record.additional_directories)
            self._project = read(record.cwd, extra, config_dir, controls_names())
        return self._project

    def read_project(self) -> None:
        """Read the project's files again (a reload)."""
        self._project = None
        _ = self.project

    def prompt_commands(self) -> tuple[list[PromptCommand], list[str]]:
        """The connected MCP servers' prompts as commands, and those a taken name left out."""
        links = self.servers.links.values() if self.servers else ()
        if not any(link.prompts for link in links if link.state == "connected"):
            return [], []
        # lazy: start-up (a session whose MCP servers offer prompts, once they have connected)
        from reasonix_acp.mcp_servers.prompts import offered

        taken = {*controls_names(), *(c.name for c in self.project.commands.commands)}
        return offered(self.servers, taken)

    def available_commands(self) -> list[dict[str, Any]]:
        """What `available_commands_update` offers now."""
        found = self.project.commands
        return commands.available(self.plugins, found, self.prompt_commands()[0])

    def workspace(self) -> Workspace:
        """Where the session's tools may touch files, as the record and config say now."""
        record = self.record
        if self._temp is None:  # asked several times a turn; the id never changes
            self._temp = session_temp(record.id)
        return Workspace(
            record.cwd,
            list(record.additional_directories),
            temp=self._temp,
            deny=tuple(self.config.deny_paths),
            unconfined=lambda: record.approval == "danger-full-access",
        )

    def where(self) -> Where:
        """Where the session's plugin actions and hooks run: its cwd, in its sandbox."""
        # lazy: start-up (the plugin code loads where a session has plugins)
        from reasonix_acp.plugins.actions import Where

        return Where(self.id, self.record.cwd, self.sandbox.argv)

    def hooked(self, hook: str) -> bool:
        """Whether one of the session's plugins has `hook` hooks."""
        return any(hook in p.hooks for p in self.plugins)

    async def run_hooks(self, hook: str, extra: dict[str, Any] | None = None) -> Events:
        """The session's `hook` hooks, run where its actions run: the surfaces they publish
        ([] when no plugin has one)."""
        if not self.hooked(hook):
            return []
        # lazy: start-up (the plugin code loads where a session has plugins)
        from reasonix_acp.plugins import actions

        return await actions.run_hooks(self.plugins, self.where(), hook, extra)

    async def run_action(
        self, request: Request | None, plugin: Plugin, action: Action, rest: str
    ) -> ActionResult:
        """One of the session's plugin actions, its form filled by `rest` and questions."""
        # lazy: start-up (the plugin code loads where a session has plugins)
        from reasonix_acp.plugins import actions

        return await actions.run_action(request, self.where(), plugin, action, rest)

    @property
    def jobs(self) -> Jobs:
        """Its background commands (tools/background.py), loaded with its first turn."""
        if self._jobs is None:
            # lazy: start-up
            from reasonix_acp.tools.background import Jobs

            self._jobs = Jobs(session_temp(self.record.id))
        return self._jobs

    def background(self) -> list[dict[str, str]]:
        """The background commands still running, as the status lists them."""
        return self._jobs.listed() if self._jobs is not None else []

    async def stop_background(self) -> None:
        if self._jobs is not None:
            await self._jobs.close()

    async def stop_servers(self) -> None:
        servers, self.servers = self.servers, None
        if servers:
            await servers.stop()

    def options(self) -> list[dict[str, Any]]:
        model = self.queued.get("model", self.record.model)
        effort = self.queued.get("effort", self.record.effort)
        record = self.record
        return controls.config_options(self.config, model, effort, record.approval, record.mode)

    def config_update(self) -> dict[str, Any]:
        """The `session/update` that tells the client the session's config options now."""
        return {"sessionUpdate": "config_option_update", "configOptions": self.options()}

    def mode_updates(self) -> list[dict[str, Any]]:
        """What tells the client the mode changed: `current_mode_update` for `modes`, and the
        config options, whose first is the mode."""
        mode = {"sessionUpdate": "current_mode_update", "currentModeId": self.record.mode}
        return [mode, self.config_update()]

    def opening_result(self) -> dict[str, Any]:
        model = self.queued.get("model", self.record.model)
        return {
            "modes": controls.modes_state(self.record.mode),
            "models": controls.models_state(self.config, model),
            "configOptions": self.options(),
        }


def _context_of(transcript: list[tuple[str, dict[str, Any]]]) -> tuple[int, Gauge]:
    """The tokens in context and the gauge the transcript's last `context` event kept."""
    kept: dict[str, Any] = next((b for k, b in reversed(transcript) if k == "context"), {})
    used = kept.get("used", 0) if type(kept.get("used")) is int else 0
    rate = kept.get("perByte")
    return used, Gauge(rate) if type(rate) is float else Gauge()
