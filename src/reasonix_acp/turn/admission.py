"""`session/prompt` and `session/cancel`: admission, the prompt's content, the turn, the answer.

Prompt content: `text`; `resource` with embedded text; `resource_link` (a `file://` link inside
the workspace is read, any other is passed to the model as a note naming it). `image` and
`audio` are not advertised and are refused with -32602 saying so.

The answer: exactly one stop reason per prompt (the turn machine's outcome), or -32603
`session/prompt: <cause>` with credentials redacted. A cancel (`session/cancel`, or
`$/cancel_request` for the prompt) always answers `cancelled`. Updates after the answer is
decided are dropped.
"""

from __future__ import annotations

import asyncio
import fnmatch
import logging
import uuid
from collections.abc import Callable
from typing import Any

from reasonix_acp.config.pricing import Pricer
from reasonix_acp.generated.methods import SESSION_REQUEST_PERMISSION
from reasonix_acp.machines.session import State
from reasonix_acp.machines.turn import STOP_REASON, Outcome
from reasonix_acp.machines.turn import State as TurnState
from reasonix_acp.mcp_servers.elicit import TurnInteractions
from reasonix_acp.plugins import actions as extensions
from reasonix_acp.plugins.manifest import Template
from reasonix_acp.protocol.errors import (
    AcpError,
    ConnectionClosed,
    InternalError,
    InvalidParams,
    InvalidRequest,
    RemoteError,
)
from reasonix_acp.protocol.handshake import ClientFeatures
from reasonix_acp.protocol.router import Call
from reasonix_acp.redact import redact
from reasonix_acp.session import commands
from reasonix_acp.session.history import flatten
from reasonix_acp.session.live import Session
from reasonix_acp.session.service import Sessions
from reasonix_acp.session.store import StoreError
from reasonix_acp.tools.base import Tool, ToolContext
from reasonix_acp.tools.bridge import ClientFiles, ClientTerminal
from reasonix_acp.tools.workspace import Workspace
from reasonix_acp.turn.runner import TurnReport, TurnRunner
from reasonix_acp.vendor import recovery
from reasonix_acp.vendor.readiness import DEFAULT_GUIDANCE, Obligations

log = logging.getLogger("reasonix_acp.turn.admission")


async def _settled(awaitable: Any, task: asyncio.Task[TurnReport] | None = None) -> TurnReport:
    """The turn's report; a turn task cancelled before it ran its first step has none."""
    try:
        report: TurnReport = await awaitable
        return report
    except asyncio.CancelledError:
        inner = task if task is not None else awaitable
        if isinstance(inner, asyncio.Task) and inner.done() and inner.cancelled():
            return TurnReport(Outcome.CANCELLED)
        raise


def _last_reply(history: list[dict[str, Any]]) -> str:
    for message in reversed(history):
        if message.get("role") == "assistant" and message.get("content"):
            return str(message["content"])
    return ""


class Prompts:
    def __init__(
        self,
        sessions: Sessions,
        tools: list[Tool],
        client: Callable[[], ClientFeatures | None] = lambda: None,
    ) -> None:
        self.sessions = sessions
        self.tools = tools
        self.client = client

    def _denied(self, access: str, real: str, scope: str) -> bool:
        config = self.sessions.config
        if access in ("mcp", "plugin"):
            return False
        if access == "execute":
            return scope.removeprefix("command ") in config.deny_commands
        return any(fnmatch.fnmatch(real, pattern) for pattern in config.deny_paths)

    def _pricer(self, model: str) -> Callable[[Any], float | None]:
        """A call's cost for usage_update and the task_cost budget: the status's own quote of
        it (`_prices`), when complete and in the currency usage_update names, else None."""
        quote = self._prices(model)
        provider = self.sessions.config.provider_for(model)
        currency = provider.currency if provider else "USD"

        def price(usage: Any) -> float | None:
            return quote(usage).cost(currency)

        return price

    def _prices(self, model: str) -> Pricer:
        """Quotes `model`'s calls (`Config.pricer`): the provider's own prices, else [pricing]
        by "provider/model" then the bare model id, else unpriced."""
        return self.sessions.config.pricer(model)

    def _client_terminal(self, session: Session) -> ClientTerminal | None:
        client = self.client()
        request = self.sessions.request
        if client is None or request is None or not client.terminal:
            return None
        return ClientTerminal(request, session.id, self.sessions.config.shell)

    def _client_files(self, session: Session) -> ClientFiles | None:
        client = self.client()
        request = self.sessions.request
        if client is None or request is None or not (client.fs_read or client.fs_write):
            return None
        return ClientFiles(request, session.id, client.fs_read, client.fs_write)

    def _blocks(self, params: Any) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = [
            b.model_dump(mode="json", by_alias=True, exclude_unset=True) for b in params.prompt
        ]
        for i, block in enumerate(blocks):
            if block["type"] in ("image", "audio"):
                raise InvalidParams(
                    f"session/prompt: prompt[{i}] is {block['type']} content, which this agent does not accept "
                    f"(promptCapabilities.{block['type']} is false)"
                )
        return blocks

    async def prompt(self, call: Call, params: Any) -> dict[str, Any]:
        method = "session/prompt"
        session = self.sessions.lookup(method, params.session_id)
        blocks = self._blocks(params)
        roots = [session.record.cwd, *session.record.additional_directories]
        text = flatten(blocks, roots)
        action = params.action
        if not text and action != "protocol_recovery":
            raise InvalidParams(f"{method}: empty prompt")
        if action == "protocol_recovery" and not params.recovery_id:
            raise InvalidParams(f"{method}: missing recoveryId")
        if action not in (None, "final_readiness_recovery", "protocol_recovery"):
            raise InvalidParams(f"{method}: unsupported action {action}")
        command = commands.parse(text)
        name = command[0] if command is not None else None
        sole = len(blocks) == 1 and blocks[0].get("type") == "text"
        if name in ("continue-checks", "recover-context") and not sole:
            raise InvalidRequest(f"{method}: /{name} must be the prompt's only content")
        recovering = action == "final_readiness_recovery" or name == "continue-checks"
        if recovering and session.checkpoint is None:
            # Nothing is published or stored: the check this names is gone or never was.
            raise InvalidRequest(f"{method}: no pending final-readiness check to continue")
        offer, guidance = None, ""
        if action == "protocol_recovery" or name == "recover-context":
            wanted, guidance = (
                (params.recovery_id, text)
                if action == "protocol_recovery"
                else recovery.parse_command(command[1] if command else "")
            )
            offer = session.recovery
            if offer is None or (wanted and wanted != offer.id):
                raise InvalidRequest(f"{method}: {recovery.STALE}")
        busy = session.machine.state is State.PROMPTING
        session.machine.fire(
            "begin_prompt",
            f"{method}: session already has an active prompt"
            if busy
            else f"{method}: session is {{state}}",
        )
        owed: list[str] | None = None
        if recovering:
            owed, guidance = session.checkpoint, text
            if command is not None and command[0] == "continue-checks":
                guidance = command[1] or DEFAULT_GUIDANCE
            blocks, text = [{"type": "text", "text": guidance}], guidance
        elif offer is not None:
            guidance = guidance or recovery.DEFAULT_GUIDANCE
            blocks, text = [{"type": "text", "text": guidance}], offer.note(guidance)
        if not (name in commands.LOCAL and not recovering and offer is None):
            self._close_offers(session)  # the agent's own commands leave both offers open
        try:
            result = await self._run(session, blocks, text, owed)
            return await self._drain(session, result)
        finally:
            if session.machine.state is State.PROMPTING:  # not when a close or delete took over
                session.machine.fire("end_prompt", f"{method}: session is {{state}}")
                self.sessions.apply_queued(session)
                await self.sessions.drain_reload(session)

    def _close_offers(self, session: Session) -> None:
        """The one-shot offers end with the first prompt the model answers: resumed by it, or
        given up for it."""
        if session.checkpoint is not None:
            session.checkpoint = None
            self.sessions.store.append_events(
                session.id, session.record.turn_count, [("readiness_cleared", {})]
            )
        if session.recovery is not None:
            session.recovery = None
            session.status.protocol_recovery = None

    async def _command(
        self, session: Session, name: str, rest: str, blocks: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """A slash command: answered by the agent, recorded like a turn."""
        record = session.record
        if name == "help":
            reply = commands.help_text(session.plugins)
        elif name == "status":
            reply = (
                f"model {record.model} (effort {record.effort}), mode {record.mode}, "
                f"permissions {record.approval}, {record.turn_count} turns stored, cwd {record.cwd}"
            )
        else:  # mcp
            reply = await self._mcp_command(session, rest)
        return self._answer(session, blocks, [("agent_message", {"text": reply})])

    def _answer(
        self, session: Session, blocks: list[dict[str, Any]], events: extensions.Events
    ) -> dict[str, Any]:
        """A prompt the agent answers itself, recorded like a turn."""
        turn = session.record.turn_count + 1
        self.sessions.show(session, [("user_message", {"content": blocks}), *events], turn)
        session.record.turn_count = turn
        return {"stopReason": "end_turn"}

    async def _drain(self, session: Session, result: dict[str, Any]) -> dict[str, Any]:
        """Queued follow-ups run after the prompt's own turn, inside the same request, one
        turn each, while the turns end normally and the inbox is not paused."""
        inbox = session.inbox
        while result.get("stopReason") == "end_turn" and session.machine.state is State.PROMPTING:
            item = inbox.first_queued()
            if item is None:
                break
            envelope = inbox.claim(item["id"])
            text = str(envelope["submitText"])
            try:
                result = await self._run(session, [{"type": "text", "text": text}], text)
            except BaseException:
                inbox.mark_uncertain(item["id"], "the follow-up's turn failed")
                raise
            if result.get("stopReason") == "cancelled":
                inbox.mark_uncertain(item["id"], "the follow-up's turn was cancelled")
                break
            inbox.ack(item["id"])
        return result

    async def _mcp_command(self, session: Session, rest: str) -> str:
        """`/mcp` shows the servers; `/mcp reconnect [name]` starts them (or one) again."""
        servers = session.servers
        word, _, name = rest.partition(" ")
        if word == "reconnect" and servers:
            name = name.strip()
            if name and name not in servers.links:
                return f"No MCP server named {name} in this session.\n\n{servers.status()}"
            await servers.reconnect(name or None)
        elif servers:
            await servers.ready()
        if not servers:
            return "No MCP servers in this session (the client sent none and config.toml has none)."
        text: str = servers.status()
        return text

    async def _run(
        self,
        session: Session,
        blocks: list[dict[str, Any]],
        text: str,
        owed: list[str] | None = None,
    ) -> dict[str, Any]:
        command = commands.parse(text)
        if command is not None:
            return await self._command(session, command[0], command[1], blocks)
        entry = commands.plugin_entry(text, session.plugins)
        if entry is not None:
            plugin, target, rest = entry
            if isinstance(target, Template):
                text = target.expand(rest)
            else:
                where = extensions.Where(session.id, session.record.cwd)
                done = await extensions.run_action(
                    self.sessions.request, where, plugin, target, rest
                )
                if done.prompt is None:
                    return self._answer(
                        session, blocks, [*done.events, ("agent_message", {"text": done.reply})]
                    )
                if done.events:
                    self.sessions.show(session, done.events, session.record.turn_count + 1)
                text = done.prompt
            blocks = [{"type": "text", "text": text}]
        sessions = self.sessions
        session.open_updates = True
        session.turn.fire("start", "turn is {state}")
        record = session.record
        turn_number = record.turn_count + 1

        def emit(update: dict[str, Any]) -> None:
            if session.open_updates:
                sessions.send(session, update)

        def persist(batch: list[tuple[str, dict[str, Any]]]) -> None:
            try:
                sessions.store.append_events(session.id, turn_number, batch)
            except StoreError:
                log.exception("session %s: transcript append failed", session.id)

        async def ask(tool_call: dict[str, Any], options: list[dict[str, Any]]) -> str | None:
            if sessions.request is None:
                return "reject_once"
            session.turn.fire("ask_permission", "turn is {state}")
            session.status.set_phase("waiting_permission")
            try:
                reply = await sessions.request(
                    SESSION_REQUEST_PERMISSION,
                    {"sessionId": session.id, "toolCall": tool_call, "options": options},
                )
            except (RemoteError, ConnectionClosed, AcpError) as exc:
                log.warning("permission request failed (%s); treated as a rejection", exc)
                return "reject_once"
            finally:
                if session.turn.state is TurnState.AWAITING_PERMISSION:
                    session.turn.fire("permission_answered", "turn is {state}")
                session.status.set_phase("working")
            outcome = reply.outcome
            if outcome.outcome == "cancelled":
                return None
            known = {o["optionId"] for o in options}
            if outcome.option_id not in known:
                log.warning(
                    "permission answer %r is not one of the options; treated as a rejection",
                    outcome.option_id,
                )
                return "reject_once"
            return str(outcome.option_id)

        def publish(plugin_id: str, raw: list[Any]) -> None:
            for kind, body in extensions.surface_events(plugin_id, raw, session.id):
                runner.record(kind, body)

        def record_decision(decision: dict[str, Any]) -> None:
            runner.record("mcp_interaction", decision)
            runner.flush()  # committed before the server hears the answer

        pricer, prices = self._pricer(record.model), self._prices(record.model)

        def priced(usage: Any) -> float | None:
            session.status.usage(usage, prices(usage))
            return pricer(usage)

        obligations = Obligations(self.sessions.config.require_checks, owed)
        interactions: TurnInteractions | None = None
        more_tools = None
        servers = session.servers
        if servers:
            interactions = TurnInteractions(
                sessions.request,
                self.client(),
                session.id,
                prompt_id=str(uuid.uuid4()),
                turn_id=str(turn_number),
                record=record_decision,
                call_id=lambda: runner.context.call_id,
            )
            servers.elicit = interactions

            async def more_tools() -> list[Any]:
                for link in await servers.ready():
                    runner.record(
                        "agent_message",
                        {
                            "text": f"\n\n[warning] MCP server {link.name} is not available "
                            f"({link.error}); /mcp shows the servers, /mcp reconnect tries again\n\n"
                        },
                    )
                tools: list[Any] = await servers.tools()
                return tools

        runner = TurnRunner(
            turn=turn_number,
            provider=session.provider,
            model=record.model,
            effort=record.effort,
            tools=[*self.tools, *(t for p in session.plugins for t in p.tools)],
            history=session.history,
            context=ToolContext(
                cwd=record.cwd,
                session_id=session.id,
                workspace=Workspace(record.cwd, list(record.additional_directories)),
                files=self._client_files(session),
                terminal=self._client_terminal(session),
                shell=self.sessions.config.shell,
                terminal_meta=bool(self.client() and self.client().terminal_meta),  # type: ignore[union-attr]
                publish=publish,
            ),
            emit=emit,
            persist=persist,
            max_steps=sessions.config.max_steps,
            mode=record.mode,
            budget_seconds=sessions.config.budget_seconds,
            budget_tokens=sessions.config.budget_tokens,
            budget_cost=sessions.config.budget_cost,
            price=priced,
            ask=ask,
            output_cap=sessions.config.output_cap,
            deny=self._denied,
            preset=lambda: record.approval,
            grants=session.grants,
            more_tools=more_tools,
            steers=lambda final: session.desk.take(session.inbox, final),
            readiness=obligations,
        )
        session.status.controls(record.model, record.effort, record.mode)
        session.status.begin_turn()
        session.desk.open = True
        task = asyncio.get_running_loop().create_task(runner.run(blocks, text))
        session.turn_task = task
        try:
            report = await _settled(asyncio.shield(task), task)
        except asyncio.CancelledError:
            # `$/cancel_request` for this prompt, or the connection closing: cancel the turn,
            # wait for its cleanup, and answer `cancelled` like session/cancel does.
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()
            session.turn.request_cancel()
            task.cancel()
            report = await _settled(task)
        finally:
            session.turn_task = None
            session.desk.settle(session.inbox)
            if interactions is not None:
                interactions.close()
                if servers is not None and servers.elicit is interactions:
                    servers.elicit = None
        record.turn_count = turn_number
        outcome = session.turn.settle(report.outcome)
        if outcome is Outcome.READINESS_PAUSED:
            session.checkpoint = list(obligations.changed)
            persist([("readiness_checkpoint", {"changed": session.checkpoint})])
        session.status.finish_turn(
            outcome.value,
            reason=report.cause if outcome is Outcome.FAILED else report.warning,
            summary=_last_reply(session.history),
            risks=[f"no passing check after changing {path}" for path in obligations.changed]
            if outcome is Outcome.READINESS_PAUSED
            else None,
        )
        if runner.plan is not None:
            record.plan = runner.plan
            sessions.store.update_session(session.id, plan=record.plan)
        if outcome is not Outcome.CANCELLED:
            own_words = " ".join(b["text"] for b in blocks if b.get("type") == "text").strip()
            self._after_turn(session, own_words or text, report, runner.cost)
            if any("turn_end" in p.hooks for p in session.plugins):
                stop_reason = STOP_REASON[outcome] or "error"
                try:  # the turn is settled: nothing here may keep it from being released
                    where = extensions.Where(session.id, record.cwd)
                    shown = await extensions.run_hooks(
                        session.plugins, where, "turn_end", {"stopReason": stop_reason}
                    )
                    sessions.show(session, shown, turn_number)
                except Exception:
                    log.exception("session %s: turn_end hooks failed", session.id)
        session.open_updates = False
        session.turn.release()
        stop = STOP_REASON[outcome]
        if stop is None:
            raise InternalError(f"session/prompt: {redact(report.cause or 'the turn failed')}")
        return {"stopReason": stop}

    def _after_turn(
        self, session: Session, text: str, report: TurnReport, cost: float | None = None
    ) -> None:
        used = report.usage.prompt_tokens + report.usage.completion_tokens
        if (
            used == 0
        ):  # the provider reported no usage: estimate the context at 4 characters a token
            used = sum(len(str(m.get("content") or "")) for m in session.history) // 4
        size = getattr(session.provider, "context_window", 0)
        usage_update: dict[str, Any] = {"sessionUpdate": "usage_update", "used": used, "size": size}
        if cost is not None:
            provider = self.sessions.config.provider_for(session.record.model)
            usage_update["cost"] = {
                "amount": round(cost, 9),
                "currency": provider.currency if provider else "USD",
            }
        self.sessions.send(session, usage_update)
        title = self.sessions.touch_title(session, text)
        if title is not None:
            update = {
                "sessionUpdate": "session_info_update",
                "title": title,
                "updatedAt": session.record.updated_at,
            }
            self.sessions.send(session, update)

    def cancel(self, call: Any, params: Any) -> None:
        session = self.sessions.live.get(params.session_id)
        if session is None or session.turn_task is None:
            return
        if session.turn.request_cancel():
            session.turn_task.cancel()
