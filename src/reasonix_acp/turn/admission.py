"""`session/prompt` and `session/cancel`, top to bottom:

  prompt   read the intent (turn/intent.py; bad input refused, nothing changed)
           → the session machine admits it (`begin_prompt`)
           → serve: the turn machine starts, the turn's task runs (commands, plugin entries or
             a model turn through turn/runner.py), the answer is fixed
           → drain: queued follow-ups, one turn each, while turns end normally
           → finally `end_prompt`, then what waited for the prompt (turn/… session/changes.py)

The answer: exactly one stop reason per prompt (the turn machine's outcome), or -32603
`session/prompt: <cause>` with credentials redacted. A cancel (`session/cancel`, or
`$/cancel_request` for the prompt) always wins and answers `cancelled`, whatever the turn was
doing (a model call, a permission question, a plugin action or its form, a turn_end hook).
Updates after the answer is decided are dropped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reasonix_acp.machines._base import TransitionRefused
from reasonix_acp.machines.session import State
from reasonix_acp.machines.turn import STOP_REASON, Outcome
from reasonix_acp.protocol.errors import AuthRequired, InternalError, InvalidRequest
from reasonix_acp.protocol.handshake import ClientFeatures
from reasonix_acp.protocol.router import Call
from reasonix_acp.redact import redact
from reasonix_acp.session.catalog import generated_title
from reasonix_acp.session.changes import Changes
from reasonix_acp.session.history import typed_text
from reasonix_acp.session.live import Session
from reasonix_acp.session.service import Sessions
from reasonix_acp.turn import intent
from reasonix_acp.turn.commands import Commands, ForModel
from reasonix_acp.turn.intent import Intent

if TYPE_CHECKING:
    from reasonix_acp.tools.base import Tool
    from reasonix_acp.turn.goal import GoalEnd
    from reasonix_acp.turn.report import TurnReport
    from reasonix_acp.turn.wiring import Built, Wiring

log = logging.getLogger("reasonix_acp.turn.admission")

METHOD = intent.METHOD
CANCELLED = {"stopReason": "cancelled"}


class Prompts:
    def __init__(
        self,
        sessions: Sessions,
        changes: Changes,
        tools: Callable[[], list[Tool]],
        client: Callable[[], ClientFeatures | None] = lambda: None,
    ) -> None:
        self.sessions = sessions
        self.changes = changes
        self.commands = Commands(sessions)
        self._wiring_args = (sessions, tools, client)
        self._wiring: Wiring | None = None

    @property
    def wiring(self) -> Wiring:
        """The turn's parts (runner, gate, interactions): loaded with the first prompt, or ahead
        of it (server/warm.py), not when a session opens."""
        if self._wiring is None:
            # lazy: start-up
            from reasonix_acp.turn.wiring import Wiring

            sessions, tools, client = self._wiring_args
            self._wiring = Wiring(sessions, tools(), client)
        return self._wiring

    async def prompt(self, call: Call, params: Any) -> dict[str, Any]:
        session = self.sessions.lookup(METHOD, params.session_id)
        wanted = intent.read(session, intent.blocks_of(params), params.action, params.recovery_id)
        try:
            session.machine.fire("begin_prompt", f"{METHOD}: session is {{state}}")
        except TransitionRefused as exc:
            if exc.state is State.PROMPTING:
                raise InvalidRequest(f"{METHOD}: session already has an active prompt") from None
            raise
        try:
            result = await self._serve(session, wanted)
            return await self._drain(session, result)
        finally:
            session.machine.fire("end_prompt", f"{METHOD}: session is {{state}}")
            await self.changes.settle(session)

    def cancel(self, call: Any, params: Any) -> None:
        session = self.sessions.live.get(params.session_id)
        if session is None:  # a subagent's id: that child alone, its parent goes on
            for live in self.sessions.live.values():
                if (child := live.children.get(params.session_id)) is not None:
                    child.cancel()
            return
        if session.turn_task is None:
            return
        if session.turn.request_cancel():
            session.turn_task.cancel()

    # -- one turn -------------------------------------------------------------------------------

    async def _serve(self, session: Session, wanted: Intent) -> dict[str, Any]:
        """Start the turn, run its task, and release the turn whatever happens."""
        session.turn.fire("start", "turn is {state}")
        number = session.record.turn_count + 1
        try:
            if wanted.closes_offers:
                self._close_offers(session)
            task = asyncio.get_running_loop().create_task(self._turn(session, wanted))
            session.turn_task = task
            try:
                return await _awaited(session, task)
            finally:
                session.turn_task = None
        finally:
            session.open_updates = False
            session.turn.end()
            # Every admitted turn keeps its number, even one cancelled before it ran.
            session.record.turn_count = max(session.record.turn_count, number)

    async def _turn(self, session: Session, wanted: Intent) -> dict[str, Any]:
        """The turn's task: an agent command, a plugin entry, or a model turn."""
        session.open_updates = True
        try:
            if wanted.reply is not None:
                return self.commands.reply(session, wanted.blocks, wanted.reply)
            if wanted.command is not None:
                name, rest = wanted.command
                if name == "compact":
                    return await self._compact(session, wanted.blocks, rest)
                return await self.commands.local(session, name, rest, wanted.blocks)
            entry = await self.commands.plugin(session, wanted.entry, wanted.blocks)
            if isinstance(entry, dict):
                return entry
            if isinstance(entry, ForModel):
                if entry.events:
                    self.sessions.show(session, entry.events, session.record.turn_count + 1)
                text = "\n\n".join(t for t in (wanted.context, entry.text) if t)
                blocks = [{"type": "text", "text": text}]
                return await self._model_turn(session, blocks, text, None)
            return await self._model_turn(session, wanted.blocks, wanted.text, wanted.owed)
        except asyncio.CancelledError:
            # A cancel outside the model calls (an action's form, a hook): it still wins.
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()
            return CANCELLED

    def _emitter(self, session: Session) -> Callable[[dict[str, Any]], None]:
        def emit(update: dict[str, Any]) -> None:
            if session.open_updates:
                self.sessions.send(session, update)

        return emit

    async def _compact(
        self, session: Session, blocks: list[dict[str, Any]], instructions: str
    ) -> dict[str, Any]:
        """`/compact [instructions]`: the history's older part summarised now (the runner's
        compaction, turn/compaction.py); then how full the context is."""
        number = session.record.turn_count + 1
        built = self.wiring.build(session, number, self._emitter(session), None)
        before = built.runner.estimate()
        report = await built.runner.compact_now(blocks, instructions, whole=session.refused)
        session.refused = session.refused and report.refused
        session.record.turn_count = number
        outcome = session.turn.settle(report.outcome)
        if outcome is not Outcome.CANCELLED:
            self._keep_used(session, _rescaled(session.used, before, built.runner.estimate()))
            self.sessions.send_usage(session)
        return {"stopReason": STOP_REASON[outcome]}

    def _keep_used(self, session: Session, used: int) -> None:
        """The tokens in the context now, kept with the gauge's rate for the next process."""
        if used != session.used:
            session.used = used
            body = {"used": used, "perByte": session.gauge.per_byte}
            turn = session.record.turn_count
            self.sessions.store.append_events(session.id, turn, [("context", body)])

    async def _model_turn(
        self, session: Session, blocks: list[dict[str, Any]], text: str, owed: list[str] | None
    ) -> dict[str, Any]:
        record = session.record
        number = record.turn_count + 1
        emit = self._emitter(session)

        # lazy: start-up (loaded with `wiring`)
        from reasonix_acp.turn import checkpointing

        # lazy: start-up (loaded with `wiring`)
        from reasonix_acp.turn.goal import GoalEnd, GoalLoop

        # lazy: start-up (loaded with `wiring`)
        from reasonix_acp.turn.wiring import detach

        built = self.wiring.build(session, number, emit, owed)
        loop = None
        if built.goal_tool is not None:
            loop = GoalLoop(self.sessions, session, built.runner, built.goal_tool)
            loop.start(text)  # the goal is stored before the turn runs
        session.status.controls(record.model, session.effort, record.mode)
        session.status.begin_turn()
        session.desk.open = True
        try:
            if loop is not None:
                end = await loop.advance(blocks, text)
            else:
                end = GoalEnd(await built.runner.run(blocks, text))
        finally:
            session.desk.settle(session.inbox)
            detach(session, built.interactions)
            if built.checkpoint is not None:
                await checkpointing.keep(self.sessions, session, built.checkpoint, number)
        report = end.report
        session.refused = report.refused  # a /compact now summarises the history as text
        record.turn_count = number
        outcome = session.turn.settle(report.outcome)
        self._drift(session)
        self._conclude(session, built, end, outcome)
        if outcome is not Outcome.CANCELLED:
            own_words = typed_text(blocks).strip()  # not the context an editor sent with it
            estimate = built.runner.estimate()
            self._after_turn(session, own_words or text, report, estimate, built.runner.cost)
            await self._turn_end(session, outcome, number)
        stop = STOP_REASON[outcome]
        if stop is None and report.auth:  # the editor can offer to authenticate again
            raise AuthRequired(f"{METHOD}: {redact(report.cause or 'the key was refused')}")
        if stop is None:
            raise InternalError(f"{METHOD}: {redact(report.cause or 'the turn failed')}")
        return {"stopReason": stop}

    def _drift(self, session: Session) -> None:
        """Goal mode reads `goal` only while a draft is armed or the goal is not finished; a
        goal that ended (complete, blocked, cancelled, failed) leaves the session in normal."""
        record = session.record
        if record.mode != "goal" or session.goal.steers_mode:
            return
        record.mode = "normal"
        self.sessions.store.update_session(session.id, mode="normal", touch=False)
        session.status.controls(record.model, session.effort, record.mode)
        self.sessions.send_all(session, session.mode_updates())

    def _conclude(self, session: Session, built: Built, end: GoalEnd, outcome: Outcome) -> None:
        """The turn's outcome kept: readiness checkpoint, status, plan."""
        record, report = session.record, end.report
        changed = list(built.obligations.changed)
        if outcome is Outcome.READINESS_PAUSED:
            session.checkpoint = changed
            built.runner.persist([("readiness_checkpoint", {"changed": changed})])
        paused = outcome is Outcome.READINESS_PAUSED
        # A goal's own row, unless a cancel or a failure decided the turn.
        goal_row = end.status_key if outcome not in (Outcome.CANCELLED, Outcome.FAILED) else None
        session.status.finish_turn(
            goal_row or outcome.value,
            reason=end.reason
            if goal_row
            else report.cause
            if outcome is Outcome.FAILED
            else report.warning,
            summary=_last_reply(session.history),
            risks=[f"no passing check after changing {path}" for path in changed]
            if paused
            else None,
        )
        if built.runner.plan is not None:
            record.plan = built.runner.plan
            self.sessions.store.update_session(session.id, plan=record.plan)

    async def _turn_end(self, session: Session, outcome: Outcome, number: int) -> None:
        """turn_end hooks; a failure is logged and never fails the turn (a cancel still wins)."""
        if not session.hooked("turn_end"):
            return
        extra = {"stopReason": STOP_REASON[outcome] or "error"}
        try:
            shown = await session.run_hooks("turn_end", extra)
            self.sessions.show(session, shown, number)
        except Exception:
            log.exception("session %s: turn_end hooks failed", session.id)

    def _after_turn(
        self, session: Session, text: str, report: TurnReport, estimate: int, cost: float | None
    ) -> None:
        """The context meter, the cost and the title after a turn. The meter is the provider's
        count of the last call (prompt and reply); `estimate`, the gauge's count of the context
        now, where the provider reported none."""
        used = report.usage.prompt_tokens + report.usage.completion_tokens
        self._keep_used(session, used or estimate)
        priced = None
        if cost is not None:
            currency = session.config.currency_for(session.record.model)
            priced = {"amount": round(cost, 9), "currency": currency}
        self.sessions.send_usage(session, priced)
        title = generated_title(self.sessions, session, text)
        if title is not None:
            info = {
                "sessionUpdate": "session_info_update",
                "title": title,
                "updatedAt": session.record.updated_at,
            }
            self.sessions.send(session, info)

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

    # -- follow-ups ----------------------------------------------------------------------------

    async def _drain(self, session: Session, result: dict[str, Any]) -> dict[str, Any]:
        """Queued follow-ups run after the prompt's own turn, inside the same request, one
        turn each, while the turns end normally, the session still prompts, and the inbox is
        not paused."""
        inbox = session.inbox
        while result.get("stopReason") == "end_turn":
            try:
                session.machine.fire("continue_prompt", f"{METHOD}: session is {{state}}")
            except TransitionRefused:
                break  # closed or deleted meanwhile
            item = inbox.first_queued()
            if item is None:
                break
            envelope = inbox.claim(item["id"])
            wanted = intent.follow_up(session, str(envelope["submitText"]))
            try:
                result = await self._serve(session, wanted)
            except BaseException:
                inbox.mark_uncertain(item["id"], "the follow-up's turn failed")
                raise
            if result.get("stopReason") == "cancelled":
                inbox.mark_uncertain(item["id"], "the follow-up's turn was cancelled")
                break
            inbox.ack(item["id"])
        return result


async def _awaited(session: Session, task: asyncio.Task[dict[str, Any]]) -> dict[str, Any]:
    """The turn task's answer. When the prompt's own request is cancelled (`$/cancel_request`
    or the connection closing), the turn is cancelled, its cleanup awaited, and the answer is
    `cancelled`, as for session/cancel."""
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None:
            current.uncancel()
        session.turn.request_cancel()
        task.cancel()
    try:
        return await task
    except asyncio.CancelledError:  # cancelled before its first step: it never ran
        return CANCELLED


def _last_reply(history: list[dict[str, Any]]) -> str:
    for message in reversed(history):
        if message.get("role") == "assistant" and message.get("content"):
            return str(message["content"])
    return ""


def _rescaled(used: int, before: int, after: int) -> int:
    """The context meter after `/compact`, in the measure it had before (the provider's count):
    scaled by how the gauge's count of the context changed (`before` → `after`), so a
    compaction that changed nothing leaves it where it was; the gauge's count where there was
    none."""
    if not used or before <= 0:
        return after
    return round(used * after / before)
