"""One session's turn, put together: the runner's settings from the session's config, the
permission question to the client, prices, the client's file system and terminals, and the MCP
servers' tools and elicitations.

The runner is built first and everything that reports into its transcript is attached to it
after (MCP interactions), so nothing reads a runner that does not exist yet.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from reasonix_acp.checkpoints.recorder import Recorder
from reasonix_acp.generated.methods import ELICITATION_CREATE, SESSION_REQUEST_PERMISSION
from reasonix_acp.ids import uuid4
from reasonix_acp.mcp_servers.elicit import TurnInteractions, answer_of
from reasonix_acp.mcp_servers.hub import ServerSet
from reasonix_acp.project.skill_tool import SkillTool
from reasonix_acp.protocol.errors import AcpError, ConnectionClosed, RemoteError
from reasonix_acp.protocol.handshake import ClientFeatures
from reasonix_acp.providers.base import UsageReport
from reasonix_acp.reasonix_io.readiness import Obligations
from reasonix_acp.session.live import Session
from reasonix_acp.session.service import Sessions
from reasonix_acp.tools.ask import AskUser, PresentPlan
from reasonix_acp.tools.base import Tool, ToolContext
from reasonix_acp.tools.bridge import ClientFiles, ClientTerminal
from reasonix_acp.tools.web import web_tools
from reasonix_acp.tools.workspace import session_temp
from reasonix_acp.turn import checkpointing
from reasonix_acp.turn.compaction import CompactionSettings
from reasonix_acp.turn.frames import fit
from reasonix_acp.turn.gate import Ask, Gate
from reasonix_acp.turn.goal import GoalUpdate
from reasonix_acp.turn.instructions import with_client
from reasonix_acp.turn.limits import Limits
from reasonix_acp.turn.line_verdict import Rules
from reasonix_acp.turn.report import TurnSettings
from reasonix_acp.turn.runner import TurnRunner
from reasonix_acp.turn.subagents import Subagents, TaskTool, Wires

log = logging.getLogger("reasonix_acp.turn.wiring")

Emit = Callable[[dict[str, Any]], None]


@dataclass
class Built:
    """A turn ready to run: its runner, what it owes when it ends, its client interactions,
    its goal tool."""

    runner: TurnRunner
    obligations: Obligations
    interactions: TurnInteractions | None
    goal_tool: GoalUpdate | None = None  # in goal mode: the model's report on the goal
    checkpoint: Recorder | None = None  # the files its tool calls change (turn/checkpointing.py)


class Wiring:
    def __init__(
        self, sessions: Sessions, tools: list[Tool], client: Callable[[], ClientFeatures | None]
    ) -> None:
        self.sessions = sessions
        self.tools = tools
        self.client = client

    def build(self, session: Session, turn: int, emit: Emit, owed: list[str] | None) -> Built:
        config = session.config
        record = session.record
        project = session.project
        obligations = Obligations(config.require_checks, owed)
        goal_tool = GoalUpdate(session.goal) if record.mode == "goal" else None
        children = self._subagents(session)
        settings = TurnSettings(
            turn=turn,
            provider=session.provider,
            model=record.model,
            effort=record.effort,
            mode=record.mode,
            instructions=with_client(project.prompt(), record.system_prompt),
            tools=[
                *self.tools,
                *([AskUser()] if record.mode != "goal" else []),  # goal mode runs unattended
                *([PresentPlan()] if record.mode == "plan" else []),
                *([SkillTool(project.skills)] if project.skills.found else []),
                *web_tools(config),
                *(t for p in session.plugins for t in p.tools),
                *([goal_tool] if goal_tool else []),
                *([TaskTool(children)] if children else []),
            ],
            history=session.history,
            context=self._context(session),
            emit=emit,
            persist=lambda batch: self._persist(session, turn, batch),
            supports=self.sessions.supports,
            gauge=session.gauge,
            compaction=CompactionSettings(
                session.provider.context_window,
                config.context.compact_at,
                config.context.keep_turns,
            ),
            limits=Limits(
                result_cap=config.context.result_cap,
                max_steps=config.max_steps,
                seconds=config.budget_seconds,
                tokens=config.budget_tokens,
                cost=config.budget_cost,
                output_cap=config.output_cap,
                frame_budget=config.frame_budget,
            ),
            gate=Gate(
                rules=Rules(frozenset(config.deny_commands), tuple(config.deny_paths), config.web),
                preset=lambda: record.approval,
                grants=session.grants,
                ask=self._ask(session),
                mode=lambda: record.mode,
            ),
            price=self._price(session),
            more_tools=_more_tools(session.servers) if session.servers else None,
            switch_mode=lambda mode: self._switch_mode(session, mode),
            steers=lambda final: session.desk.take(session.inbox, final),
            readiness=obligations,
            pace=self.sessions.writable,
            notices=session.notices,
        )
        session.notices = []
        settings.context.checkpoint = checkpoint = checkpointing.recorder(self.sessions, session)
        runner = TurnRunner(settings)
        if children is not None:
            children.parent, children.template = runner, settings
        interactions = self._interactions(session, runner)
        return Built(runner, obligations, interactions, goal_tool, checkpoint)

    def _subagents(self, session: Session) -> Subagents | None:
        """The `task` tool's children (turn/subagents.py); none when `[subagents] at_once`
        is 0. One turn runs at a time in a session, so the turn's slots are the session's."""
        limits = session.config.subagents
        if limits.at_once < 1:
            return None
        wires = Wires(
            parent_id=session.id,
            context=lambda: self._context(session),
            ask=self._ask(session),
            wants_sessions=lambda: self.sessions.supports("subagents"),
            running=session.children,
        )
        return Subagents(limits, wires, asyncio.Semaphore(limits.at_once))

    def _persist(
        self, session: Session, turn: int, batch: list[tuple[str, dict[str, Any]]]
    ) -> None:
        # A failed append is logged and the turn goes on: the user's live view stays whole.
        try:
            self.sessions.store.append_events(session.id, turn, batch)
        except Exception:
            log.exception("session %s: transcript append failed", session.id)

    def _context(self, session: Session) -> ToolContext:
        record, client = session.record, self.client()
        request = self.sessions.request
        shell = session.config.shell
        files = terminal = None
        if client is not None and request is not None:
            if client.terminal:
                terminal = ClientTerminal(request, session.id)
            if client.fs_read or client.fs_write:
                files = ClientFiles(request, session.id, client.fs_read, client.fs_write)
        context = ToolContext(
            cwd=record.cwd,
            session_id=session.id,
            workspace=session.workspace(),
            sandbox=session.sandbox,
            files=files,
            terminal=terminal,
            shell=shell,
            terminal_meta=bool(client and client.terminal_meta),
            jobs=session.jobs,
        )
        if client is not None and request is not None and client.elicitation_form:
            context.elicit = _form_asker(request, session.id, lambda: context.call_id)
        context.charge = lambda amount, currency, what: _charge(session, amount, currency, what)
        return context

    def _switch_mode(self, session: Session, mode: str) -> None:
        """A tool changed the session's mode (plan mode left): stored, and told to the client."""
        record = session.record
        record.mode = mode
        self.sessions.store.update_session(session.id, mode=mode, touch=False)
        session.status.controls(record.model, session.effort, record.mode)
        self.sessions.send_all(session, session.mode_updates())

    def _price(self, session: Session) -> Callable[[UsageReport], float | None]:
        """A call's cost for usage_update and the cost budget: the status's own quote of it,
        when complete and in the currency usage_update names; the status gets the quote."""
        config, model = session.config, session.record.model
        quote = config.pricer(model)
        currency = config.currency_for(model)

        def price(usage: UsageReport) -> float | None:
            priced = quote(usage)
            session.status.usage(usage, priced)
            return priced.cost(currency)

        return price

    def _ask(self, session: Session) -> Ask:
        async def ask(tool_call: dict[str, Any], options: list[dict[str, Any]]) -> str | None:
            request = self.sessions.request
            if request is None:
                return "reject_once"
            session.turn.fire("ask_permission", "turn is {state}")
            session.status.set_phase("waiting_permission")
            try:
                where = (session_temp(session.id), f"{tool_call.get('toolCallId')}-asked")
                shown = fit(tool_call, session.config.frame_budget, where)
                params = {"sessionId": session.id, "toolCall": shown, "options": options}
                reply = await request(SESSION_REQUEST_PERMISSION, params)
            except (RemoteError, ConnectionClosed, AcpError) as exc:
                log.warning("permission request failed (%s); treated as a rejection", exc)
                return "reject_once"
            finally:
                if session.turn.can("permission_answered"):
                    session.turn.fire("permission_answered", "turn is {state}")
                session.status.set_phase("working")
            return _chosen(reply.outcome, options)

        return ask

    def _interactions(self, session: Session, runner: TurnRunner) -> TurnInteractions | None:
        servers = session.servers
        if not servers:
            return None
        interactions = TurnInteractions(
            self.sessions.request,
            self.client(),
            session.id,
            prompt_id=uuid4(),
            turn_id=str(runner.turn),
            record=runner.record_decision,
            call_id=lambda: runner.context.call_id,
            notify=self.sessions.notify,
        )
        servers.elicit = interactions
        return interactions


def _form_asker(
    request: Any, session_id: str, call_id: Callable[[], str]
) -> Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]:
    """A form put to the user with `elicitation/create`, scoped to the tool call asking."""

    async def elicit(message: str, schema: dict[str, Any]) -> dict[str, Any]:
        body = {
            "sessionId": session_id,
            "mode": "form",
            "message": message,
            "requestedSchema": schema,
            "toolCallId": call_id(),
        }
        return answer_of(await request(ELICITATION_CREATE, body))

    return elicit


def detach(session: Session, interactions: TurnInteractions | None) -> None:
    """The turn ended: its open MCP questions are answered `cancel`."""
    if interactions is None:
        return
    interactions.close()
    if session.servers is not None and session.servers.elicit is interactions:
        session.servers.elicit = None


def _chosen(outcome: Any, options: list[dict[str, Any]]) -> str | None:
    if outcome.outcome == "cancelled":
        return None
    if outcome.option_id not in {o["optionId"] for o in options}:
        log.warning(
            "permission answer %r is not one of the options; treated as a rejection",
            outcome.option_id,
        )
        return "reject_once"
    return str(outcome.option_id)


def _charge(session: Session, amount: Decimal, currency: str, what: str) -> float | None:
    """A priced call a tool made (a search), in the session's cost as a call of its own; its
    cost in the currency usage_update names (None in another)."""
    # lazy: start-up (the pricing code loads with a session's first priced call)
    from reasonix_acp.config.pricing import flat_fee

    quote = flat_fee(amount, currency, what, datetime.now(UTC))
    session.status.usage(UsageReport(), quote)
    return quote.cost(session.config.currency_for(session.record.model))


def _more_tools(servers: ServerSet) -> Callable[[Callable[[str], None]], Any]:
    async def more_tools(warn: Callable[[str], None]) -> list[Any]:
        for link in await servers.ready():
            warn(
                f"MCP server {link.name} is not available ({link.error}); "
                "/mcp shows the servers, /mcp reconnect tries again"
            )
        tools: list[Any] = await servers.tools()
        return tools

    return more_tools
