"""One turn's tool calls: each started (shown and stored before it runs), put to the
permission gate, run, and ended `completed` or `failed`, its output's secrets replaced, cut to
the output cap and the frame budget, and answered in the model's history (cut to what one
result may take of the context). Every call started reaches its end: `sweep` fails what a
cancel left open.

A round runs its calls one after another, except consecutive calls of a tool marked
`concurrent` (subagents, turn/subagents.py): those run together, each with its own copy of the
tool context, and are answered in the history in the order the model made them, whatever
order they end in (the request prefix stays the same on a reload).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import Callable
from typing import Any

from reasonix_acp.providers.base import ToolCallRequest
from reasonix_acp.redact import scrub_known, scrub_known_in
from reasonix_acp.tools.base import ToolContext, ToolFailed, ToolResult
from reasonix_acp.turn import checkpointing
from reasonix_acp.turn.frames import fit
from reasonix_acp.turn.gate import REFUSED, Gate
from reasonix_acp.turn.limits import Limits, cap_for_model, cap_output
from reasonix_acp.turn.transcript import Transcript

# What the turn makes of a call's result before its end is shown (the tool's name, its
# arguments, the result).
Took = Callable[[str, dict[str, Any], ToolResult], None]
# (the model's call id, ours, the text) → the call answered in the model's history
Answer = Callable[[str, str, str], None]


class ToolCalls:
    def __init__(
        self,
        turn: int,
        tools: dict[str, Any],
        context: ToolContext,
        gate: Gate,
        limits: Limits,
        transcript: Transcript,
        history: list[dict[str, Any]],
    ) -> None:
        self.turn = turn
        self.tools = tools
        self.context = context
        self.gate = gate
        self.limits = limits
        self.transcript = transcript
        self.history = history
        self.window: Callable[[], int] = lambda: 0  # the model's context size, in tokens
        self.count = 0  # calls started this turn
        self.prefix = ""  # of this runner's call ids (a subagent's: turn/subagents.py)
        self._open: dict[str, dict[str, Any]] = {}

    async def round(
        self, calls: list[ToolCallRequest], took: Took, flush: Callable[[], None]
    ) -> None:
        """A reply's calls: one by one, consecutive `concurrent` ones together."""
        at = 0
        while at < len(calls):
            end = at + 1
            while self._concurrent(calls[at]) and end < len(calls) and self._concurrent(calls[end]):
                end += 1
            if end - at == 1:
                await self.run(calls[at], took)
            else:
                await self._together(calls[at:end], took)
            flush()
            at = end

    def _concurrent(self, call: ToolCallRequest) -> bool:
        return bool(getattr(self.tools.get(call.name), "concurrent", False))

    async def _together(self, calls: list[ToolCallRequest], took: Took) -> None:
        answers: list[tuple[str, str, str] | None] = [None] * len(calls)

        def keeper(k: int) -> Answer:
            return lambda *answer: answers.__setitem__(k, answer)

        loop = asyncio.get_running_loop()
        running = [loop.create_task(self.run(c, took, keeper(k))) for k, c in enumerate(calls)]
        try:
            await asyncio.gather(*running)
        finally:
            # None outlives the round: a cancel or a failure of one stops the others.
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
            # Answered in the model's order; what a cancel left unanswered, the sweep ends.
            for answer in answers:
                if answer is not None:
                    self._answer(*answer)

    async def run(self, call: ToolCallRequest, took: Took, answer: Answer | None = None) -> None:
        """Start the call (shown and stored before it runs: a lost process leaves a trace of
        it), gate and run it, then `took` its result before its end is shown, and answer it
        in the model's history (or through `answer`: a call run with others)."""
        self.count += 1
        call_id = f"{self.prefix}tc-{self.turn}-{self.count}"
        tool = self.tools.get(call.name)
        answered = answer or self._answer
        # A call run with others has a context of its own: the per-call fields are its.
        context = self.context if answer is None else dataclasses.replace(self.context)
        try:
            args = json.loads(call.arguments or "{}")
        except ValueError:
            args = None
        start: dict[str, Any] = {
            "toolCallId": call_id,
            "title": tool.title(args, context) if tool and isinstance(args, dict) else call.name,
            "name": call.name,  # the tool's own name, as the model called it
            "kind": tool.kind if tool else "other",
            "status": "pending",
            "x-tool": call.name,
        }
        context.call_id = call_id
        context.judged = None  # the gate sets it for this call
        if isinstance(args, dict):
            shown_input = getattr(tool, "shown_input", lambda given: given)(args)
            if shown_input is not None:  # None: the tool says its input otherwise
                start["rawInput"] = shown_input
            if tool is not None and hasattr(tool, "shown_at_start"):
                start.update(tool.shown_at_start(args, context))
            if tool is not None and hasattr(tool, "locations"):
                with contextlib.suppress(ToolFailed):  # the run reports a bad path itself
                    start["locations"] = tool.locations(args, context)
        # Shown and stored without the secrets the agent holds: a key the model put in the
        # arguments (a URL, a command) stays in the model's own history alone.
        start = self._fit(_scrubbed(start))
        self._open[call_id] = start
        self.transcript.record("tool_call", start)
        self.transcript.flush()  # stored before it runs: a lost process leaves a trace of what it started
        try:
            if tool is None:
                raise ToolFailed(f"unknown tool {call.name}")
            if not isinstance(args, dict):
                raise ToolFailed(f"{call.name}: the arguments are not a JSON object")
            result = _scrubbed_result(await self._checked_run(tool, args, start, context))
        except ToolFailed as exc:
            text = scrub_known(str(exc))
            shown = None if exc.meta else _text(text)
            failed = ToolResult(text=text, content=shown, meta=_scrubbed(exc.meta))
            self._finish(call_id, "failed", failed)
            answered(call.id, call_id, text)
            return
        took(call.name, args, result)
        self._finish(call_id, "completed", result)
        answered(call.id, call_id, result.text)

    def _answer(self, model_id: str, call_id: str, text: str) -> None:
        """A tool call's answer in the model's history, cut to what one result may take of the
        context (the whole text kept in the session's temp, the cut names the file)."""
        cap = self.limits.model_cap(self.window())
        shown = cap_for_model(text, cap, (self.context.workspace.temp, f"{call_id}-model.txt"))
        self.history.append({"role": "tool", "tool_call_id": model_id, "content": shown})

    async def _checked_run(
        self, tool: Any, args: dict[str, Any], start: dict[str, Any], context: ToolContext
    ) -> ToolResult:
        """The permission gate, then the tool. A path the check or the tool cannot follow or
        open (an OSError: /proc/1/root, say) fails the call, never the turn."""
        call_id = start["toolCallId"]
        try:
            if getattr(tool, "access", None) and not await self.gate.permitted(
                tool, args, start, context
            ):
                raise ToolFailed(REFUSED)
            context.progress = lambda content: self.transcript.record(
                "tool_call_update",
                {"toolCallId": call_id, "status": "in_progress", "content": _scrubbed(content)},
            )
            context.rerun = lambda why: self.gate.rerun_outside(start, why, args, context)
            context.ask = self.gate.question
            await checkpointing.before(context.checkpoint, tool, args, context)
            result: ToolResult = await tool.run(args, context)
            return result
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            raise ToolFailed(f"{tool.name}: {exc.strerror or exc}{where}") from None

    def _finish(self, call_id: str, status: str, result: ToolResult) -> None:
        """The call's end as shown and stored; its output's secrets already replaced (the
        model's text too: `_scrubbed_result`, where the output enters the session)."""
        self._open.pop(call_id, None)
        body: dict[str, Any] = {"toolCallId": call_id, "status": status}
        if result.content is not None:
            keep = (self.context.workspace.temp, f"{call_id}.txt")
            body["content"] = cap_output(result.content, self.limits.output_cap, keep)
        if result.meta:
            body["_meta"] = result.meta
        if result.raw_output is not None:
            body["rawOutput"] = result.raw_output
        self.transcript.record("tool_call_update", self._fit(body))

    def _fit(self, update: dict[str, Any]) -> dict[str, Any]:
        """A tool call or update cut to the frame budget; what is cut is kept in the temp."""
        where = (self.context.workspace.temp, f"{update['toolCallId']}-{update['status']}")
        return fit(update, self.limits.frame_budget, where)

    def sweep(self) -> None:
        """Every call still open is failed: the turn ends without it."""
        for call_id in list(self._open):
            self._finish(
                call_id,
                "failed",
                ToolResult(text="interrupted", content=_text("interrupted before it finished")),
            )


def _scrubbed(value: Any) -> Any:
    """Tool output as it enters the session (progress, result, failure): every secret the agent
    holds replaced by [redacted], whatever tool printed it."""
    return scrub_known_in(value)


def _scrubbed_result(result: ToolResult) -> ToolResult:
    return dataclasses.replace(
        result,
        text=scrub_known(result.text),
        content=_scrubbed(result.content),
        meta=_scrubbed(result.meta),
        raw_output=_scrubbed(result.raw_output),
    )


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "content", "content": {"type": "text", "text": text}}]
