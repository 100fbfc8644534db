"""Goal mode inside one `session/prompt`: the prompt adopts or resumes the session's goal, and
the turn keeps going after the model's reply until the goal is complete, blocked, paused by a
limit, cancelled or failed.

- Adopt/resume (machines/goal.py): an armed draft takes the prompt's text as its objective; a
  kept goal (blocked, paused, cancelled, failed) resumes with the prompt as one more message.
  The goal is persisted before the turn runs; a failed write answers -32603
  `session/prompt: persist goal: …` and nothing runs.
- Each continuation is a further run of the same turn (`TurnRunner.go_on`): CONTINUE_NOTE is
  appended as a user message the client does not see, after everything the model has seen,
  so every request of the goal starts with the previous one's messages, byte for byte.
- The model reports with `goal_update` (status continue / complete / blocked, a one-line
  reason); markers in its text (`[goal:complete]`) are cut from what is shown and count as a
  report when it made none.
- Outcomes (the status row, then the stop reason): complete → `goal_complete`, end_turn;
  blocked → `goal_blocked` "goal blocked", end_turn; a limit → `goal_paused` "goal is not
  complete" with a warning naming it, end_turn (`max_turn_requests` for the turn limit); the
  runner's own pause (step limit, budget, readiness) is the turn's row whatever the goal
  said, and pauses a goal still running;
  cancelled → goal cancelled, `cancelled`; a failure → goal failed, the -32603 it was.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from reasonix_acp.machines.goal import State
from reasonix_acp.machines.turn import Outcome
from reasonix_acp.protocol.errors import InternalError
from reasonix_acp.reasonix_io.goal import REASON_LIMIT, Goal, Runtime
from reasonix_acp.session.live import Session
from reasonix_acp.session.service import Sessions
from reasonix_acp.tools.base import ToolContext, ToolFailed, ToolResult, function_schema
from reasonix_acp.turn.instructions import CONTINUE_NOTE
from reasonix_acp.turn.report import TurnReport
from reasonix_acp.turn.runner import TurnRunner

METHOD = "session/prompt"
GOAL_TOOL = "goal_update"
REPORTS = {"continue": None, "complete": "complete", "blocked": "block"}
MARKER_REPORTS = {"complete": "complete", "completed": "complete", "done": "complete"}


class GoalUpdate:
    """The model's report on the goal: a tool it calls, never text the user reads."""

    name = GOAL_TOOL
    kind = "think"
    schema: dict[str, Any] = function_schema(
        GOAL_TOOL,
        "Report progress on the goal: continue while work remains, complete when it is met, "
        "blocked when you cannot go on without the user.",
        {
            "status": {"type": "string", "enum": list(REPORTS)},
            "reason": {"type": "string", "description": "one line: why"},
        },
        ["status"],
    )

    def __init__(self, goal: Goal) -> None:
        self.goal = goal
        self.reports = 0

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        reason = str(args.get("reason") or "").strip()
        status = args.get("status")
        said = "Goal continues" if status == "continue" else f"Goal {status}"
        return said + (f" ({reason[:80]})" if reason else "")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        status = args.get("status")
        if status not in REPORTS:
            raise ToolFailed("`status` must be one of continue, complete, blocked")
        self.reports += 1
        reason = " ".join(str(args.get("reason") or "").split())[:REASON_LIMIT]
        self.goal.runtime.last_reason = reason
        trigger = REPORTS[status]
        if trigger is not None and self.goal.state is State.RUNNING:
            self.goal.fire(trigger)
            if trigger == "block":
                self.goal.runtime.stop_cause = "blocked"
        text = {
            "continue": "Noted; keep going.",
            "complete": "The goal is marked complete; end with a short summary for the user.",
            "blocked": "The goal is marked blocked; say what you need from the user.",
        }[status]
        return ToolResult(text=text, content=[], raw_output={"status": status, "reason": reason})


@dataclass
class GoalEnd:
    """How a goal's run ended: the last turn's report, the status row to show, and why."""

    report: TurnReport
    status_key: str | None = (
        None  # the status row (reasonix_io/status.py FINISH); None: the outcome's
    )
    reason: str | None = None


class GoalLoop:
    def __init__(self, sessions: Sessions, session: Session, runner: TurnRunner, tool: GoalUpdate):
        self.sessions, self.session, self.runner, self.tool = sessions, session, runner, tool
        self.goal = session.goal
        self.turn = runner.turn

    def start(self, text: str) -> None:
        """The prompt adopts the armed draft (its text is the objective) or resumes the kept
        goal; stored before anything runs."""
        goal = self.goal
        goal.limits = self.session.config.goal
        held = goal.hold()
        if goal.state in (State.NONE, State.COMPLETE):  # goal mode with nothing armed yet
            goal.fire("arm")
        if goal.state is State.DRAFT:
            goal.fire("adopt", f"{METHOD}: goal is {{state}}")
            goal.objective, goal.runtime = text, Runtime()
        else:
            goal.fire("resume", f"{METHOD}: goal is {{state}}")
            goal.runtime.stop_cause, goal.runtime.no_progress = "", 0
        try:
            self.sessions.keep_goal(self.session, METHOD, self.turn)
        except InternalError:
            goal.put_back(held)  # not stored: not adopted either
            raise

    async def advance(self, blocks: list[dict[str, Any]], text: str) -> GoalEnd:
        """The turn's runs until the goal stops running; the goal is stored again after."""
        goal = self.goal
        since = replace(goal.runtime)
        try:
            report = await self._run(lambda: self.runner.run(blocks, text), first=True)
            cause = ""
            while goal.state is State.RUNNING and report.outcome is Outcome.END_TURN:
                cause = goal.limit_reached(since)
                if cause:
                    break
                self.session.desk.open = True  # steers reach every continuation
                report = await self._run(partial(self.runner.go_on, self._note()))
            return self._settle(report, cause)
        finally:
            if goal.state is State.RUNNING:  # left by an exception: never kept as running
                goal.fire("fail")
            self.sessions.keep_goal(self.session, METHOD, self.turn, quiet=True)

    def _note(self) -> str:
        return CONTINUE_NOTE.format(objective=self.goal.objective)

    async def _run(
        self, steps: Callable[[], Awaitable[TurnReport]], first: bool = False
    ) -> TurnReport:
        runner, runtime = self.runner, self.goal.runtime
        before = (runner.calls, runner.requests, runner.tokens, self.tool.reports)
        seen = len(runner.markers.seen) if runner.markers is not None else 0
        started = time.monotonic()
        report = await steps()
        runtime.turns += 1
        runtime.requests += runner.requests - before[1]
        runtime.tokens += runner.tokens - before[2]
        runtime.work_ms += int((time.monotonic() - started) * 1000)
        reported = self.tool.reports - before[3]
        worked = (runner.calls - before[0]) - reported
        if not first and self.goal.state is State.RUNNING:  # a continuation left it running
            runtime.no_progress = 0 if worked else runtime.no_progress + 1
        if not reported and runner.markers is not None:
            self._markers(runner.markers.seen[seen:])
        # Kept after every run: a crash loses at most the run in progress.
        self.sessions.keep_goal(self.session, METHOD, self.turn, quiet=True)
        return report

    def _markers(self, words: list[str]) -> None:
        """Reasonix-style markers, when the model reported no other way."""
        for word in words:
            if self.goal.state is not State.RUNNING:
                return
            if word in MARKER_REPORTS:
                self.goal.fire("complete")
            elif word == "blocked":
                self.goal.fire("block")
                self.goal.runtime.stop_cause = "blocked"

    def _settle(self, report: TurnReport, cause: str) -> GoalEnd:
        goal, runtime = self.goal, self.goal.runtime
        if report.outcome is Outcome.CANCELLED:
            if goal.state is State.RUNNING:
                goal.fire("cancel")
                runtime.stop_cause = "cancelled"
            return GoalEnd(report)
        if report.outcome is Outcome.FAILED:
            if goal.state is State.RUNNING:
                goal.fire("fail")
                runtime.stop_cause = "error"
            return GoalEnd(report)
        if report.outcome is not Outcome.END_TURN:  # the runner's own pause says why
            if goal.state is State.RUNNING:
                goal.fire("pause")
                runtime.stop_cause = report.warning or report.outcome.value
            return GoalEnd(report)
        if goal.state is State.COMPLETE:
            return GoalEnd(report, "goal_complete")
        if goal.state is State.BLOCKED:
            return GoalEnd(report, "goal_blocked", "goal blocked")
        if goal.state is not State.RUNNING:  # cleared by a mode change meanwhile
            return GoalEnd(report)
        goal.fire("pause")
        runtime.stop_cause = cause or "the model stopped without reporting the goal complete"
        warning = f"goal paused: {runtime.stop_cause}; send a prompt to continue it"
        self.runner.warn(warning, "Goal paused")
        self.runner.flush()
        outcome = Outcome.MAX_TURN_REQUESTS if cause.startswith("turn limit") else Outcome.END_TURN
        paused = TurnReport(outcome, warning=warning, usage=report.usage)
        return GoalEnd(paused, "goal_paused", "goal is not complete")
