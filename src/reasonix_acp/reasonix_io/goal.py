"""A session's goal (goal mode): its objective, its machine (machines/goal.py), what it has used
against its limits, how the status shows it, and how it is kept across restarts.

- Status (`goal` in every status object): `status` is none (no goal, or a draft waiting for its
  prompt), running (running, or paused by a limit: not complete), complete, blocked, cancelled
  or failed; `objective` and `runtime` only when there is an objective.
- Limits (`[goal]` in config.toml: max_turns, max_tokens, max_seconds, no_progress_turns)
  hold for each prompt that adopts or resumes the goal: turns are its model turns (the
  prompt's own and each continuation), then its tokens and work time; no-progress turns are
  consecutive continuations that called no tool but goal_update. Reaching one pauses the goal
  with it as the `stopCause`; the next goal-mode prompt resumes it with a fresh allowance.
  The runtime's counters add up over the whole goal.
- Kept as `goal` transcript events (`snapshot`), written before the turn that depends on them
  runs; `restore` reads the last one back, and a goal that was running when the process went
  away comes back paused ("interrupted"), never running.
- Markers a model may write in the Reasonix style (`[goal:continue]`, `[goal:complete]`,
  `[goal:blocked]`) are cut from the displayed text (`Markers`), also across deltas.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from reasonix_acp.config import GoalLimits
from reasonix_acp.machines.goal import GoalMachine, State
from reasonix_acp.words import counted

REASON_LIMIT = 2048
MARKER = re.compile(r"\[goal:(continue|complete|completed|done|blocked)\]", re.IGNORECASE)
MARKER_LONGEST = len("[goal:completed]")


@dataclass
class Runtime:
    """What a goal's work has used so far (turns, requests, tokens, time) and why it last
    stopped."""

    turns: int = 0
    requests: int = 0
    tokens: int = 0
    work_ms: int = 0
    no_progress: int = 0
    last_reason: str = ""
    stop_cause: str = ""

    def shown(self, limits: GoalLimits) -> dict[str, Any]:
        return {
            "turnsUsed": self.turns,
            "turnsLimit": limits.turns,
            "tokensUsed": self.tokens,
            "tokensLimit": limits.tokens,
            "requestsUsed": self.requests,
            "workDurationMs": self.work_ms,
            "noProgressTurns": self.no_progress,
            "noProgressLimit": limits.no_progress,
            "lastReason": self.last_reason,
            "stopCause": self.stop_cause,
            "budgetExtensions": 0,
        }


SHOWN_STATUS = {
    State.NONE: "none",
    State.DRAFT: "none",
    State.RUNNING: "running",
    State.PAUSED: "running",
    State.COMPLETE: "complete",
    State.BLOCKED: "blocked",
    State.CANCELLED: "cancelled",
    State.FAILED: "failed",
}
STORED_KEYS = ("turns", "requests", "tokens", "work_ms", "no_progress", "last_reason", "stop_cause")


@dataclass
class Goal:
    """A session's goal: the objective, what the work has used so far, and the limits that
    pause it."""

    objective: str = ""
    runtime: Runtime = field(default_factory=Runtime)
    limits: GoalLimits = field(default_factory=GoalLimits)
    # Built the first time a trigger is fired: most sessions never leave `none`.
    _machine: GoalMachine | None = field(default=None, repr=False)

    @property
    def machine(self) -> GoalMachine:
        if self._machine is None:
            self._machine = GoalMachine()
        return self._machine

    @property
    def state(self) -> State:
        return State.NONE if self._machine is None else State(self._machine.state)

    def fire(self, trigger: str, refusal: str = "goal is {state}") -> None:
        self.machine.fire(trigger, refusal)

    @property
    def steers_mode(self) -> bool:
        """The session's mode reads `goal`: a draft armed, or a goal not finished."""
        return self.state in (State.DRAFT, State.RUNNING, State.PAUSED)

    def status_object(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"status": SHOWN_STATUS[self.state]}
        if self.objective:
            shown["objective"] = self.objective
            shown["runtime"] = self.runtime.shown(self.limits)
        return shown

    def describe(self) -> str:
        """The goal for `/status`."""
        if self.state is State.DRAFT:
            return "goal armed: the next prompt becomes it"
        if not self.objective:
            return "no goal"
        r = self.runtime
        words = f"goal {SHOWN_STATUS[self.state]}: {self.objective} ({counted(r.turns, 'turn')}"
        if r.stop_cause:
            words += f", stopped by {r.stop_cause}"
        return words + ")"

    def limit_reached(self, since: Runtime) -> str:
        """The stop cause of the first limit this prompt reached (counted from `since`, the
        runtime when it adopted or resumed the goal), or ""."""
        r, lim = self.runtime, self.limits
        if r.turns - since.turns >= lim.turns:
            return f"turn limit ({counted(lim.turns, 'turn')})"
        if r.tokens - since.tokens >= lim.tokens:
            return f"token limit ({lim.tokens} tokens)"
        if r.work_ms - since.work_ms >= lim.seconds * 1000:
            return f"time limit ({lim.seconds} s)"
        if r.no_progress >= lim.no_progress:
            return f"no progress ({r.no_progress} turns without a tool call)"
        return ""

    def hold(self) -> tuple[State, str, Runtime]:
        """What `put_back` restores exactly (a change that could not be stored is undone)."""
        return self.state, self.objective, replace(self.runtime)

    def put_back(self, held: tuple[State, str, Runtime]) -> None:
        state, self.objective, runtime = held
        self.machine.state = state
        for key in STORED_KEYS:  # the same object: a run in progress keeps counting into it
            setattr(self.runtime, key, getattr(runtime, key))

    def snapshot(self) -> dict[str, Any]:
        runtime = {key: getattr(self.runtime, key) for key in STORED_KEYS}
        return {"state": self.state.value, "objective": self.objective, "runtime": runtime}

    def restore(self, saved: dict[str, Any]) -> None:
        """The last kept goal; running when the process went away → paused, "interrupted"."""
        try:
            state = State(saved["state"])
            objective = str(saved.get("objective") or "")
            raw = dict(saved.get("runtime") or {})
            runtime = Runtime()
            for key in STORED_KEYS:
                if key in raw:
                    setattr(runtime, key, type(getattr(runtime, key))(raw[key]))
        except (KeyError, TypeError, ValueError):
            return  # an unreadable goal: none
        if state is State.RUNNING:
            state, runtime.stop_cause = State.PAUSED, "interrupted"
        self.machine.state, self.objective, self.runtime = state, objective, runtime


class Markers:
    """Cuts goal markers out of streamed text: `feed` returns what may be shown now (a tail
    that could still become a marker is held back), `flush` the rest; `seen` lists the marker
    words found, in order."""

    def __init__(self) -> None:
        self.held = ""
        self.seen: list[str] = []

    def feed(self, text: str) -> str:
        text = self._cut(self.held + text)
        start = text.rfind("[")
        tail = text[start:] if start != -1 else ""
        # A tail that may still grow into a marker: `[`, `[go`, `[goal:comp`, ...
        if tail and len(tail) < MARKER_LONGEST and "]" not in tail and _may_open(tail):
            self.held = tail
            return text[:start]
        self.held = ""
        return text

    def flush(self) -> str:
        rest, self.held = self.held, ""
        return rest

    def _cut(self, text: str) -> str:
        self.seen += [m.group(1).lower() for m in MARKER.finditer(text)]
        return MARKER.sub("", text)


def _may_open(tail: str) -> bool:
    head, low = "[goal:", tail.lower()
    return head.startswith(low) if len(low) <= len(head) else low.startswith(head)
