"""One prompt turn: model calls, streamed chunks, tool calls, the transcript, the outcome.

Invariants:
- Chunks carry deltas as the provider produced them, never accumulated text.
- Every `tool_call` sent reaches `completed` or `failed` before the turn returns: a sweep at the
  end marks whatever is left `failed` (a cancel can land between the two).
- The transcript is appended as the turn goes: after the user message, at every tool call's
  start and end, and at the end, whatever the outcome. Live updates and stored events come from the
  same projector, so a reload shows what the turn showed (the user's words only in replays).
- A cancel (the task is cancelled) ends the turn at its next await; the runner reports
  `cancelled` and never raises it. Other failures are reported with their cause.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from typing import Any

from reasonix_acp.machines.turn import Outcome
from reasonix_acp.plugins.actions import surface_events
from reasonix_acp.providers.base import (
    ContextOverflow,
    ModelRequest,
    ProviderAuthFailed,
    ProviderError,
    RequestRefused,
    ToolCallRequest,
    UsageReport,
)
from reasonix_acp.reasonix_io.goal import Markers
from reasonix_acp.session.history import answer_open_calls, typed_text
from reasonix_acp.session.images import user_content
from reasonix_acp.tools.ask import choice_note
from reasonix_acp.tools.base import ToolResult
from reasonix_acp.turn.compaction import (
    COMPACTED,
    OVERFLOW_HELP,
    CompactionFailed,
    Compactor,
)
from reasonix_acp.turn.instructions import STEER_NOTE, system_message
from reasonix_acp.turn.reply import Reply
from reasonix_acp.turn.report import PAUSED, TurnReport, TurnSettings, notice_title
from reasonix_acp.turn.tool_calls import ToolCalls
from reasonix_acp.turn.transcript import Transcript

log = logging.getLogger("reasonix_acp.turn.runner")

CANCELLED_CALL = "not run: the turn was cancelled or stopped before this call finished"
DEBUG = os.environ.get("REASONIX_ACP_DEBUG", "") not in ("", "0")
# Finish reasons that end the turn whatever the reply asked for: its tool calls may be cut.
STOPPED = {"length": Outcome.MAX_TOKENS, "content_filter": Outcome.REFUSAL}


class TurnRunner:
    def __init__(self, settings: TurnSettings) -> None:
        s = settings
        self.turn = s.turn
        self.provider = s.provider
        self.model = s.model
        self.effort = s.effort
        self.mode = s.mode
        self.instructions = s.instructions
        self.base_tools = list(s.tools)
        self.more_tools = s.more_tools
        self.switch_mode = s.switch_mode
        self.steers = s.steers
        self.readiness = s.readiness
        self.tools = {t.name: t for t in s.tools}
        self.tool_schemas = [t.schema for t in s.tools]
        self.history = s.history
        self.context = s.context
        self.emit = s.emit
        self.persist = s.persist
        self.limits = s.limits
        self.max_steps = s.limits.max_steps
        self.output_cap = s.limits.output_cap
        self.frame_budget = s.limits.frame_budget
        self.gate = s.gate
        self.price = s.price
        self.pace = s.pace
        self.gauge = s.gauge
        self.supports = s.supports
        self.compaction = s.compaction
        self._size = 0  # bytes of the request being sent (the gauge's count)
        self.cost: float | None = None  # what this turn's model calls cost, when priced
        self.tokens = 0  # model tokens of this turn, every run of it
        self.requests = 0  # model calls of this turn
        # Goal mode: markers the model may write are cut from what is shown (reasonix_io/goal.py).
        self.markers: Markers | None = Markers() if self.mode == "goal" else None
        # What the turn shows and keeps (turn/transcript.py).
        self.transcript = Transcript(s.emit, s.persist, s.history, DEBUG)
        self.record = self.transcript.record
        self.flush = self.transcript.flush
        self.reply = Reply(self.record, self.markers)  # the last model call's
        self.tool_calls = ToolCalls(
            s.turn, self.tools, s.context, s.gate, s.limits, self.transcript, s.history
        )
        self.tool_calls.window = lambda: self.provider.context_window
        self.plan: list[dict[str, Any]] | None = None
        self.notices = s.notices
        if self.context.publish is None:
            self.context.publish = self.publish
        if self.context.warn is None:
            self.context.warn = self.warn
        self.context.say = self.say
        self.context.propose = self.transcript.propose
        if (charged := self.context.charge) is not None:  # a search's price: the turn's too
            self.context.charge = lambda *fee: self._charged(charged(*fee))
        self.asked = False  # a question put in the conversation: the turn ends after its round

    def publish(self, plugin_id: str, raw: list[Any]) -> None:
        """A plugin tool's extension surfaces, shown and kept like the rest of the turn."""
        for kind, body in surface_events(plugin_id, raw, self.context.session_id):
            self.record(kind, body)

    def say(self, text: str) -> None:
        """An agent message of its own (a warning, a tool's question), in a paragraph of its
        own."""
        self.transcript.said(text)

    def show_plan(self, entries: list[dict[str, Any]]) -> None:
        self.plan = entries
        self.record("plan", {"entries": entries})

    def record_decision(self, decision: dict[str, Any]) -> None:
        """An MCP interaction's decision, committed before the server hears the answer."""
        self.record("mcp_interaction", decision)
        self.flush()

    def warn(self, text: str, title: str | None = None, end: str = "\n\n") -> None:
        """A warning the agent raises: a `notice` to a client that shows notices (live only:
        notices are not history, a load does not show them again), else a `[warning]` agent
        message, kept in the transcript."""
        if self.supports("notices"):
            shown = title or notice_title(text)
            self.emit(
                {
                    "sessionUpdate": "notice",
                    "severity": "warning",
                    "title": shown,
                    "description": text,
                }
            )
        else:
            self.say(f"\n\n[warning] {text}{end}")

    def _paused(self, outcome: Outcome, warning: str, usage: UsageReport) -> TurnReport:
        self.warn(warning, PAUSED[outcome], end="")
        return TurnReport(outcome, warning=warning, usage=usage)

    # -- the turn -----------------------------------------------------------------------------

    async def run(self, blocks: list[dict[str, Any]], user_text: str) -> TurnReport:
        """The turn for a prompt: its message, then model steps until the model stops."""

        def opening() -> None:
            self.record("user_message", {"content": blocks})
            content = user_content(user_text, blocks)
            note = choice_note(self.history, typed_text(blocks))
            if note and isinstance(content, str):  # a bare number answering a question
                content = f"{content.rstrip()} {note}"
            self.history.append({"role": "user", "content": content})

        return await self._steps(opening)

    async def go_on(self, note: str) -> TurnReport:
        """More steps of the same turn (a goal's continuation): `note` is added for the model
        as a user message and kept in the transcript, but not shown as the user's words."""

        def opening() -> None:
            self.record("goal_continuation", {"text": note})
            self.history.append({"role": "user", "content": note})

        return await self._steps(opening)

    async def _steps(self, opening: Callable[[], None]) -> TurnReport:
        usage = UsageReport()
        started = time.monotonic()
        try:
            opening()
            for notice in self.notices:
                self.warn(notice)
            self.notices = []
            self.flush()
            retried_empty = False
            for step in range(self.max_steps):
                last = step == self.max_steps - 1
                if step or last:
                    # Admission closes before the last model call, so every steer admitted
                    # is read by a model call of this turn.
                    self._apply_steers(final=last)
                if self.context.jobs is not None and (note := self.context.jobs.ended_note()):
                    self.history.append(note)  # kept: a reload has it too
                calls, usage = await self._fitting_call(usage)
                if self.reply.finish in STOPPED:
                    return TurnReport(STOPPED[self.reply.finish], usage=usage)
                if not calls and not self.reply.produced and not retried_empty:
                    retried_empty = True  # a truly empty reply is retried once
                    continue
                if not calls and not last and self._apply_steers(final=True):
                    continue  # steered while finishing: one more step reads it
                owed = None if calls or self.readiness is None else self.readiness.unmet()
                if not calls and owed:
                    return self._paused(Outcome.READINESS_PAUSED, owed, usage)
                if not calls:
                    if not self.reply.produced:
                        self.warn("the model returned an empty reply twice", "Empty reply", end="")
                    return TurnReport(Outcome.END_TURN, usage=usage)
                await self.tool_calls.round(calls, self._took, self.flush)
                if self.asked:  # a question waits for the user's next prompt
                    return TurnReport(Outcome.END_TURN, usage=usage)
                paused = self.limits.exceeded(time.monotonic() - started, self.tokens, self.cost)
                if paused:
                    return self._paused(Outcome.BUDGET_PAUSED, paused, usage)
            warning = f"paused after {self.max_steps} tool-call rounds (the step limit); send a prompt to continue"
            return self._paused(Outcome.MAX_TURN_REQUESTS, warning, usage)
        except asyncio.CancelledError:
            return TurnReport(Outcome.CANCELLED, usage=usage)
        except ProviderError as exc:
            auth, refused = isinstance(exc, ProviderAuthFailed), isinstance(exc, RequestRefused)
            cause = str(exc)
            return TurnReport(Outcome.FAILED, cause, auth=auth, refused=refused, usage=usage)
        except Exception as exc:
            log.exception("turn %d failed", self.turn)
            return TurnReport(Outcome.FAILED, cause=f"{type(exc).__name__}: {exc}", usage=usage)
        finally:
            self.tool_calls.sweep()
            # However the turn ended, every tool call the model made is answered in the history
            # the next model call reads (OpenAI-compatible APIs refuse it otherwise), and the
            # answer is stored with the rest: a load rebuilds the same history.
            answer_open_calls(self.history, CANCELLED_CALL)
            self.flush()

    def _apply_steers(self, final: bool) -> bool:
        """Steers become user messages after the history; the transcript keeps their words."""
        if self.steers is None:
            return False
        taken = self.steers(final)
        for text in taken:
            self.record("user_message", {"content": [{"type": "text", "text": text}]})
            self.history.append({"role": "user", "content": STEER_NOTE + text})
        self.flush()
        return bool(taken)

    async def _refresh_tools(self) -> None:
        if self.more_tools is not None:
            # Built-in tools first, then the servers' in a stable order, so the request prefix
            # stays the same from call to call unless a server's list really changed.
            every = [*self.base_tools, *await self.more_tools(self.warn)]
            self.tools = self.tool_calls.tools = {t.name: t for t in every}
            self.tool_schemas = [t.schema for t in every]

    def _request(self) -> ModelRequest:
        return ModelRequest(
            model=self.model,
            messages=[system_message(self.mode, self.instructions), *self.history],
            tools=self.tool_schemas,
            effort=self.effort,
        )

    async def _fitted(self) -> ModelRequest:
        """The next request, the history compacted first when it would fill more of the
        context than `compact_at` (turn/compaction.py)."""
        await self._refresh_tools()
        request = self._request()
        size = self.gauge.size(request.messages, request.tools)
        limit = self.compaction.limit if self.compaction is not None else None
        due = limit is not None and self.gauge.tokens(size) > limit
        if due and await self._compact(request) == COMPACTED:
            request = self._request()
            size = self.gauge.size(request.messages, request.tools)
        self._size = size
        return request

    async def _fitting_call(self, usage: UsageReport) -> tuple[list[ToolCallRequest], UsageReport]:
        """A model call; one the provider refuses as too long is tried again once after a
        compaction, and then fails saying what to do."""
        try:
            return await self._model_call(usage)
        except ContextOverflow as exc:
            if self.compaction is None or await self._compact(self._request()) != COMPACTED:
                raise ProviderError(f"{exc}. {OVERFLOW_HELP}") from None
        try:
            return await self._model_call(usage)
        except ContextOverflow as exc:
            raise ProviderError(f"{exc}. {OVERFLOW_HELP}") from None

    async def compact_now(
        self, blocks: list[dict[str, Any]], instructions: str, whole: bool = False
    ) -> TurnReport:
        """`/compact [instructions]`: the user's words are kept in the transcript (not in the
        model's history), then the history is compacted; `whole`: the endpoint refused it, so
        all of it is summarised from its text (turn/compaction.py)."""
        try:
            # The words are not the model's: an empty `history` event first, so a transcript
            # still read from what it showed (one from before `history` events) stops there.
            self.transcript.history_starts()
            self.record("user_message", {"content": blocks})
            await self._refresh_tools()
            if self.compaction is None:
                self.record("agent_message", {"text": "Compaction is not available here."})
            else:
                result = await self._compact(self._request(), instructions, whole)
                if result != COMPACTED:
                    self.record("agent_message", {"text": result})
                return TurnReport(Outcome.END_TURN, refused=result != COMPACTED and whole)
            return TurnReport(Outcome.END_TURN)
        except asyncio.CancelledError:
            return TurnReport(Outcome.CANCELLED)
        finally:
            self.flush()

    async def _compact(
        self, request: ModelRequest, instructions: str = "", whole: bool = False
    ) -> str:
        """Compact the history (turn/compaction.py). → COMPACTED, or why it did not."""
        assert self.compaction is not None
        self.flush()  # what the history has so far is stored before the compaction event
        compactor = Compactor(self.compaction, self.gauge, self.emit, self._count)
        try:
            done = await compactor.summarise(
                self.provider, request, self.history, instructions, whole
            )
        except CompactionFailed as exc:
            if not self.supports("compaction"):  # the others saw it fail in compaction_update
                self.warn(
                    f"compaction failed, the history is unchanged: {exc}", "Compaction failed"
                )
            return f"Compaction failed: {exc}"
        if done is None:
            return "Nothing to compact yet: the conversation is only its newest turns."
        body = done.event(self.history)
        self.record("compaction", body)
        self.transcript.compacted(body)
        self.flush()
        return COMPACTED

    def estimate(self) -> int:
        """The tokens the next request would take (the gauge's count)."""
        request = self._request()
        return self.gauge.tokens(self.gauge.size(request.messages, request.tools))

    def _charged(self, cost: float | None) -> None:
        if cost is not None:
            self.cost = (self.cost or 0.0) + cost

    def _count(self, event: UsageReport) -> None:
        """A model call's tokens and cost, for the turn's budgets and the status."""
        self.tokens += event.prompt_tokens + event.completion_tokens
        self._charged(self.price(event))

    async def _model_call(self, usage: UsageReport) -> tuple[list[ToolCallRequest], UsageReport]:
        request = await self._fitted()
        self.transcript.end_message()  # each reply is a message of its own
        reply = self.reply = Reply(self.record, self.markers)
        self.requests += 1
        try:
            async for event in self.provider.stream(request):
                if reply.take(event):
                    assert isinstance(event, UsageReport)
                    usage = event
                    self.gauge.observe(self._size, event.prompt_tokens)
                    self._count(event)
                if self.pace is not None:
                    await self.pace()
        finally:
            message = reply.close(self.history)
            if message is not None:
                self.history.append(message)
        return reply.calls, usage

    def absorb(self, tokens: int, cost: float | None) -> None:
        """A subagent's model calls, in this turn's tokens and cost (turn/subagents.py)."""
        self.tokens += tokens
        self._charged(cost)

    def _took(self, name: str, args: dict[str, Any], result: ToolResult) -> None:
        if self.readiness is not None:
            self.readiness.observe(name, "completed", args)
        if result.mode is not None and self.switch_mode is not None:
            self.mode = result.mode  # the next request's system message is the new mode's
            self.switch_mode(result.mode)
        if result.plan is not None:
            self.show_plan(result.plan)
        self.asked = self.asked or result.ends_turn

    @property
    def calls(self) -> int:
        """Tool calls this turn made."""
        return self.tool_calls.count
