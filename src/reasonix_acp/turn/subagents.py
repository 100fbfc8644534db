"""Subagents: the `task` tool hands a self-contained task to a child agent, and its final
message is the tool's result.

Rules:
- A child is a turn runner of its own (turn/runner.py): a fresh history, the system message
  and project instructions with a note that it is a subagent, the parent's tools but `task`,
  `ask_user`, `present_plan` and `goal_update`, the parent's mode (goal mode: normal), sandbox,
  workspace, deny rules, preset and grants: never more than the parent has. Its steps are
  bounded by `[subagents] max_steps`.
- At most `[subagents] at_once` children run at a time in a session; more wait for a slot.
  Consecutive `task` calls of one model reply run together (turn/tool_calls.py).
- A child's permission questions go to the client as the parent session's, one at a time, the
  child named in the title after what it asks (`Run ls — Subagent 1`); a grant "for the session" made there is the parent session's (the
  grants list is the same object).
- A child's model calls count in the session's usage and cost quote (the parent's price) and
  in the parent turn's tokens and cost, its budgets.
- Cancelling the parent turn cancels every child: a child's runner reports `cancelled`
  without raising, so the `task` call raises the cancel again when its own task is being
  cancelled. A client that takes subagents may cancel one child (`session/cancel` with the
  child's id): the parent is told it was cancelled and goes on.
- Every client sees the child's work as lines of the parent's `task` call (`in_progress`, its
  tool calls, the last LINES of them) and its answer as the call's result; a client that
  advertises `subagents` also gets the child as a session of its own: announced with
  `subagent_update` on the parent before any of its traffic, the task sent to it as a
  `session_message`, its updates on its own id, its state `running` then `idle`.
- The child's session is kept in the parent's transcript (`subagent` events: the wire above and
  the child's own events, stored, not shown, with the parent's next flush), so a load replays
  it to a client that takes subagents (session/projector.py `Elsewhere`); the others get the
  parent's `task` call alone, as live.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from reasonix_acp.config.settings import SubagentSettings
from reasonix_acp.ids import uuid4
from reasonix_acp.machines.turn import STOP_REASON, Outcome
from reasonix_acp.redact import scrub_known
from reasonix_acp.session.gauge import Gauge
from reasonix_acp.session.live import RunningChild
from reasonix_acp.session.projector import REPLAYED, elsewhere
from reasonix_acp.tools.base import ToolContext, ToolFailed, ToolResult, function_schema
from reasonix_acp.turn.gate import Ask
from reasonix_acp.turn.report import TurnReport, TurnSettings
from reasonix_acp.turn.runner import TurnRunner

TASK_TOOL = "task"
# What a child is not given: no children of its own, no questions in the conversation, no
# plan to present, no report on the parent's goal.
NOT_FOR_CHILDREN = frozenset({TASK_TOOL, "ask_user", "present_plan", "goal_update"})
LINES = 12  # the child's last tool calls shown in the parent's `task` call
NOTE = (
    "You are a subagent: another agent handed you the task below. Work on it alone with the "
    "tools you have (nobody answers questions), then reply with a complete, self-contained "
    "answer: what you found or changed, with paths. Your reply is all the other agent reads."
)
MARKS = {"pending": "…", "in_progress": "…", "completed": "✓", "failed": "✗"}

Update = dict[str, Any]


@dataclass
class Wires:
    """How children reach the client and the session, given by turn/wiring.py."""

    parent_id: str
    context: Callable[[], ToolContext]  # a fresh tool context for a child
    ask: Ask  # the parent session's permission question
    wants_sessions: Callable[[], bool]  # the client advertised `subagents`
    running: dict[str, RunningChild]  # child session id → the session's running child


class Lines:
    """A child's work as lines of its parent's `task` call: one per tool call, marked when it
    ends; the last LINES, with how many came before."""

    def __init__(self, progress: Callable[[list[dict[str, Any]]], None] | None) -> None:
        self.progress = progress
        self.titles: dict[str, str] = {}
        self.marks: dict[str, str] = {}

    def see(self, update: Update) -> None:
        kind, call = update.get("sessionUpdate"), update.get("toolCallId")
        if kind == "tool_call" and isinstance(call, str):
            self.titles[call] = str(update.get("title") or "tool call")
        elif kind != "tool_call_update" or call not in self.titles:
            return
        self.marks[call] = MARKS.get(str(update.get("status")), "…")
        self.show()

    def show(self) -> None:
        if self.progress is None:
            return
        shown = [f"{self.marks.get(c, '…')} {t}" for c, t in self.titles.items()][-LINES:]
        earlier = len(self.titles) - len(shown)
        head = [f"({earlier} earlier)"] if earlier else []
        text = "\n".join(head + shown)
        self.progress([{"type": "content", "content": {"type": "text", "text": text}}])


class Subagents:
    """A turn's children: the `task` tool's runs, bounded by the session's slots."""

    def __init__(self, settings: SubagentSettings, wires: Wires, slots: asyncio.Semaphore) -> None:
        self.settings = settings
        self.wires = wires
        self.slots = slots
        self.asking = asyncio.Lock()  # one question at a time
        self.parent: TurnRunner | None = None  # set once the parent's runner is built
        self.template: TurnSettings | None = None  # the parent's settings
        self.count = 0

    async def run(self, prompt: str, description: str, ctx: ToolContext) -> ToolResult:
        self.count += 1
        # What the client sees of the task holds no secret the agent knows; the child's model
        # gets the prompt as the parent's model wrote it (as a tool call's arguments).
        shown = scrub_known(prompt)
        description = scrub_known(description)
        name = f"Subagent {self.count}" + (f" ({description})" if description else "")
        child_id, lines = uuid4(), Lines(ctx.progress)
        async with self.slots:
            runner = TurnRunner(self._settings(name, child_id, lines))
            runner.tool_calls.prefix = f"sa{self.count}-"
            self._opened(child_id, name, shown)
            task = asyncio.get_running_loop().create_task(runner.run([_text(shown)], prompt))
            self.wires.running[child_id] = RunningChild(name, task.cancel)
            try:
                report = await task  # a cancel of this call cancels the child too
            except asyncio.CancelledError:
                if _being_cancelled():
                    raise
                report = TurnReport(Outcome.CANCELLED)  # the child alone, before it started
            finally:
                self.wires.running.pop(child_id, None)
                self._absorb(runner)
                self._closed(child_id, report_of(task))
        if _being_cancelled():
            raise asyncio.CancelledError  # the parent turn is: the child's runner said so
        return _result(report, _last_reply(runner.history))

    def _settings(self, name: str, child_id: str, lines: Lines) -> TurnSettings:
        parent = self.template
        assert parent is not None, "the parent's settings are set before its first call"
        project = parent.instructions
        wants = self.wires.wants_sessions()

        def emit(update: Update) -> None:
            if wants:
                self._parent().emit(elsewhere(dict(update), child_id))
            lines.see(update)  # the parent's line after the child's own update

        def persist(batch: list[tuple[str, dict[str, Any]]]) -> None:
            keep = self._parent().transcript.keep
            for kind, body in batch:
                if kind in REPLAYED:
                    keep("subagent", {"sessionId": child_id, "kind": kind, "body": body})

        context = self.wires.context()
        context.checkpoint = parent.context.checkpoint  # the files it changes: the turn's
        if context.jobs is not None:  # the session's; the parent is told what ended
            context.jobs = _ToldToParent(context.jobs)
        return replace(
            parent,
            tools=[t for t in parent.tools if t.name not in NOT_FOR_CHILDREN],
            history=[],
            context=context,
            emit=emit,
            persist=persist,
            mode="normal" if parent.mode == "goal" else parent.mode,
            instructions=f"{NOTE}\n\n{project}" if project else NOTE,
            limits=replace(parent.limits, max_steps=self.settings.max_steps),
            gate=replace(parent.gate, ask=self._ask(name)),
            gauge=Gauge(),
            switch_mode=None,
            steers=None,
            readiness=None,
            notices=[],
        )

    def _ask(self, name: str) -> Ask:
        ask = self.wires.ask

        async def asked(shown: dict[str, Any], options: list[dict[str, Any]]) -> str | None:
            async with self.asking:
                title = f"{shown.get('title', '')} — {name}"  # what it asks first
                return await ask({**shown, "title": title}, options)

        return asked

    def _parent(self) -> TurnRunner:
        assert self.parent is not None, "the parent's runner is set before its first call"
        return self.parent

    def _show(self, update: Update, on: str | None = None) -> None:
        """A subagent wire update, on the parent session or (`on`) the child's: sent to a
        client that takes subagents, and kept for a load."""
        body: dict[str, Any] = {"update": update, **({"sessionId": on} if on else {})}
        parent = self._parent()
        parent.emit(elsewhere(update, on))
        parent.transcript.keep("subagent", body)

    def _absorb(self, child: TurnRunner) -> None:
        """The child's tokens and cost, in the parent turn's (its budgets)."""
        if self.parent is not None:
            self.parent.absorb(child.tokens, child.cost)

    def _opened(self, child_id: str, name: str, prompt: str) -> None:
        """The child announced, then the task sent to it (for a client that takes subagents)."""
        self._show(
            {
                "sessionUpdate": "subagent_update",
                "sessionId": child_id,
                "title": name,
                "description": _first_line(prompt),
                "capabilities": {"cancel": {}},
                "state": {"state": "running"},
            }
        )
        sent, got = uuid4(), uuid4()
        parent_id = self.wires.parent_id
        message = {"messageId": sent, "recipientSessionId": child_id, "recipientMessageId": got}
        self._show({"sessionUpdate": "session_message", **message})
        self._show(
            {"sessionUpdate": "session_message_chunk", "messageId": sent, "content": _text(prompt)}
        )
        received = {"messageId": got, "senderSessionId": parent_id, "senderMessageId": sent}
        self._show({"sessionUpdate": "session_message", **received}, child_id)
        chunk = {"sessionUpdate": "session_message_chunk", "messageId": got}
        self._show({**chunk, "content": _text(prompt)}, child_id)

    def _closed(self, child_id: str, report: TurnReport | None) -> None:
        outcome = report.outcome if report is not None else Outcome.CANCELLED
        state: dict[str, Any] = {"state": "idle"}
        if (reason := STOP_REASON.get(outcome)) is not None:
            state["stopReason"] = reason
        self._show({"sessionUpdate": "subagent_update", "sessionId": child_id, "state": state})


class _ToldToParent:
    """The session's background commands as a child sees them: the same commands, but what
    ended is left for the parent's next request (tools/background.py)."""

    def __init__(self, jobs: Any) -> None:
        self._jobs = jobs

    def __getattr__(self, name: str) -> Any:
        return getattr(self._jobs, name)

    def ended_note(self) -> None:
        return None


class TaskTool:
    """`task`: a self-contained task for a subagent; its final message is the result."""

    name = TASK_TOOL
    # Not `think` (agent-shell files those under a collapsed "Thought"), nor `execute` (running
    # commands or code; clients draw it as a terminal): a subagent is another tool kind.
    kind = "other"
    concurrent = True  # consecutive calls run together (turn/tool_calls.py)
    schema: dict[str, Any] = function_schema(
        TASK_TOOL,
        "Hand a self-contained task to a subagent with a fresh context and the same tools "
        "(it cannot ask the user). Use it for work that needs many reads or searches whose "
        "details you do not need, or for independent parts of a job: several task calls in "
        "one reply run at once. The result is the subagent's final answer; tell it "
        "everything it needs, since it does not see this conversation.",
        {
            "prompt": {"type": "string", "description": "the task, complete and self-contained"},
            "description": {"type": "string", "description": "a few words for the user"},
        },
        ["prompt"],
    )

    def __init__(self, subagents: Subagents) -> None:
        self.subagents = subagents

    def title(self, args: dict[str, Any], ctx: ToolContext) -> str:
        what = str(args.get("description") or "").strip() or _first_line(args.get("prompt"))
        return f"{what} (subagent)" if what else "Subagent"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        prompt = args.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise ToolFailed("`prompt` must be a non-empty string")
        description = " ".join(str(args.get("description") or "").split())[:80]
        return await self.subagents.run(prompt, description, ctx)


def _being_cancelled() -> bool:
    current = asyncio.current_task()
    return current is not None and current.cancelling() > 0


def report_of(task: asyncio.Task[TurnReport]) -> TurnReport | None:
    if not task.done() or task.cancelled() or task.exception() is not None:
        return None
    return task.result()


def _result(report: TurnReport, reply: str) -> ToolResult:
    outcome = report.outcome
    if outcome is Outcome.CANCELLED:
        raise ToolFailed("the subagent was cancelled before it finished" + _so_far(reply))
    if outcome is Outcome.FAILED:
        raise ToolFailed(f"the subagent failed: {report.cause}" + _so_far(reply))
    if outcome is not Outcome.END_TURN or report.warning:
        why = report.warning or STOP_REASON.get(outcome) or outcome.value
        text = f"[the subagent stopped before it finished: {why}]\n\n{reply}".rstrip()
    else:
        text = reply or "[the subagent ended without a reply]"
    return ToolResult(text=text, content=[{"type": "content", "content": _text(text)}])


def _so_far(reply: str) -> str:
    return f"; what it had said: {reply}" if reply else ""


def _last_reply(history: list[dict[str, Any]]) -> str:
    for message in reversed(history):
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, str) and content.strip():
            return content.strip()
    return ""


def _first_line(text: Any) -> str:
    line = str(text or "").strip().split("\n", 1)[0].strip()
    return line if len(line) <= 120 else line[:119] + "…"


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}
