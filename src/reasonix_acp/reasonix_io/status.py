"""The vendor status of one session: `_reasonix.io/session/status` answers it, and every change
is published as `_reasonix.io/session/status_update` (a notification of its own, not a
`session/update` variant).

Rules:
- Every change increments `sequence`; a published update carries the status after the change
  and `params.sequence == status.sequence`.
- `begin_turn`: state running, phase `starting`, outcome reset, turn usage zeroed; event `phase`.
- While running: permission asks move the phase to `waiting_permission` and back to `working`
  (event `phase`); each model call's usage and its cost quote (pricing.py; none: unpriced)
  update turn and cumulative usage (event `usage`). A usage object's cost mirrors the total
  quote: `estimatedCost`/`currency` are its `selected` amount, null when the cost is
  incomplete or in several currencies (then `originalTotals` has one total per currency).
- `finish_turn(outcome)`, state back to idle:

    turn outcome        phase               turnOutcome.kind   event
    end_turn            completed           completed          completion
    goal_complete       review_ready        completed          completion
    goal_blocked        paused              paused             pause
    goal_paused         paused              paused             pause
    cancelled           cancelled           cancelled          completion
    max_turn_requests   paused              paused             pause
    max_tokens          paused              paused             pause
    refusal             completed           completed          completion
    budget_paused       paused              paused             pause
    readiness_paused    readiness_paused    paused             pause
    failed              error               error              error

- Reasons and risks are credential-redacted and cut to 2048 bytes, the summary to 16384, on a
  UTF-8 boundary. `risks` is always a list.
- Kept across restarts: the status is saved (`save`, a `status` transcript event) at each
  turn's start and end, before that update is published; `restore` brings it back idle, and a
  turn that was running when the process died shows as `recovery_paused`, one sequence later.
  The cumulative cost is saved as `Ledger.to_json()`; a ledger saved in the earlier shape
  (`calls`, `priced`, `total`, `currency`, ...) is converted, an unreadable one starts afresh.
- What is reported about the runtime is what is true of this agent: no planner (`plannerMode`
  "off"), and the sandbox commands run in now (`sandbox`, from tools/sandbox.py: `mode`
  "enforce" with its engine, write roots and network, or "off" with the roots file tools
  write in without asking).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from reasonix_acp.redact import scrub

if TYPE_CHECKING:
    from decimal import Decimal

    from reasonix_acp.config.ledger import Ledger
    from reasonix_acp.config.pricing import CostQuote

REASON_LIMIT = 2048
SUMMARY_LIMIT = 16384
FINISH: dict[str, tuple[str, str, str]] = {
    "end_turn": ("completed", "completed", "completion"),
    "goal_complete": ("review_ready", "completed", "completion"),
    "goal_blocked": ("paused", "paused", "pause"),
    "goal_paused": ("paused", "paused", "pause"),
    "cancelled": ("cancelled", "cancelled", "completion"),
    "max_turn_requests": ("paused", "paused", "pause"),
    "max_tokens": ("paused", "paused", "pause"),
    "refusal": ("completed", "completed", "completion"),
    "budget_paused": ("paused", "paused", "pause"),
    "readiness_paused": ("readiness_paused", "paused", "pause"),
    "failed": ("error", "error", "error"),
}


# Text is redacted, then cut to its limit. Only a window of REDACT_MARGIN beyond the limit is
# redacted when that is safe, so a long reply costs no more to summarise than a short one: the
# kept part must end at least REDACT_MARGIN // 2 characters before the redacted window does, so
# a secret cut in two by the window's end (a remembered value is far shorter than that; the
# credential patterns match a cut token too) never reaches it. When the replacements ate that
# margin, the whole text is redacted.
REDACT_MARGIN = 4096


def clip(text: str, limit: int) -> str:
    text = text.strip()
    window = text[: limit + REDACT_MARGIN]
    scrubbed = scrub(window)
    if len(window) < len(text) and len(scrubbed) - limit < REDACT_MARGIN // 2:
        scrubbed = scrub(text)
    data = scrubbed.strip().encode("utf-8", "replace")
    return data[:limit].decode("utf-8", "ignore")


def usage_object(totals: dict[str, int], ledger: Ledger | None) -> dict[str, Any]:
    """`ledger` None: no call counted yet (as an empty ledger)."""
    prompt, completion = totals["prompt"], totals["completion"]
    hit = totals["cache_hit"]
    total = ledger.total() if ledger is not None else None
    selected = total.selected if total is not None else None
    out: dict[str, Any] = {
        "totalTokens": prompt + completion,
        "promptTokens": prompt,
        "completionTokens": completion,
        "reasoningTokens": totals["reasoning"],
        "cacheHitTokens": hit,
        "cacheMissTokens": max(prompt - hit, 0),
        "cacheHitRatio": round(hit / prompt, 6) if prompt else None,
        "estimatedCost": float(_amount(selected.amount)) if selected else None,
        "currency": selected.currency if selected else None,
    }
    if total is not None:
        quote = total.to_json()
        for key in ("costComplete", "displayComplete", "displayStatus", "aggregateMode"):
            out[key] = quote[key]
        if "originalTotals" in quote:
            out["originalTotals"] = quote["originalTotals"]
        out["costQuote"] = quote
    out["usageSource"] = "executor"
    return out


def _amount(value: Decimal) -> str:
    # lazy: start-up (the pricing code loads with the first model call a session makes)
    from reasonix_acp.config.pricing import format_amount

    return format_amount(value)


def _new_ledger() -> Ledger:
    # lazy: start-up (the pricing code loads with the first model call a session makes)
    from reasonix_acp.config.ledger import Ledger

    return Ledger()


def _zero() -> dict[str, int]:
    return {"prompt": 0, "completion": 0, "reasoning": 0, "cache_hit": 0}


class StatusTracker:
    def __init__(
        self,
        session_id: str,
        publish: Callable[[dict[str, Any]], None],
        *,
        model: str,
        effort: str,
        mode: str,
        roots: list[str],
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        save: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.session_id = session_id
        self.publish = publish
        self.model, self.effort, self.mode = model, effort, mode
        self.roots = roots
        self.clock = clock
        self.save = save  # keeps the status across restarts: at each turn's start and end
        # What confines commands now (tools/sandbox.Sandbox.status); None: nothing does.
        self.sandbox: Callable[[], dict[str, Any]] | None = None
        self.goal: Callable[[], dict[str, Any]] | None = None  # reasonix_io/goal.Goal.status_object
        self.sequence = 0
        self.state = "idle"
        self.phase = "idle"
        self.outcome: dict[str, Any] = {"kind": "none"}
        self.readiness: dict[str, Any] = {"readyForReview": False, "summary": "", "risks": []}
        self.protocol_recovery: str | None = None  # recovery.py: the id of a pending recovery
        # Why the model endpoint could not be reached as the session opened; a turn's own model
        # request says more, so the first turn clears it and a late answer is ignored.
        self.endpoint_at_open: str | None = None
        self.turn_begun = False
        self.turn_totals, self.all_totals = _zero(), _zero()
        # The costs counted, made with the first call (or a restore): None counts as empty.
        self.turn_ledger: Ledger | None = None
        self._all_ledger: Ledger | None = None
        self._saved_ledger: Any = None  # a restored session's, read when first asked for

    @property
    def all_ledger(self) -> Ledger | None:
        """The session's costs; a restored one's saved ledger is read here, when first asked
        for (a load answers without loading the cost modules)."""
        if self._saved_ledger is not None:
            raw, self._saved_ledger = self._saved_ledger, None
            self._all_ledger = _restored(raw)
        return self._all_ledger

    @all_ledger.setter
    def all_ledger(self, ledger: Ledger | None) -> None:
        self._saved_ledger, self._all_ledger = None, ledger

    def snapshot(self) -> dict[str, Any]:
        offer = (
            {"protocolRecovery": {"id": self.protocol_recovery}} if self.protocol_recovery else {}
        )
        return {
            **offer,
            "schemaVersion": 1,
            "sequence": self.sequence,
            "sessionId": self.session_id,
            "state": self.state,
            "model": self.model,
            "effort": self.effort,
            "mode": self.mode,
            "workMode": "standard",
            "plannerMode": "off",
            "goal": self.goal() if self.goal is not None else {"status": "none"},
            "phase": self.phase,
            "turnOutcome": dict(self.outcome),
            "finalReadiness": {**self.readiness, "risks": list(self.readiness["risks"])},
            **(
                {"endpointAtOpen": {"reachable": False, "error": self.endpoint_at_open}}
                if self.endpoint_at_open
                else {}
            ),
            "sandbox": self.sandbox()
            if self.sandbox is not None
            else {
                "mode": "off",
                "engine": "none",
                "available": False,
                "workspaceRoot": self.roots[0],
                "writeRoots": list(self.roots),
                "networkEnabled": True,
            },
            "usage": {
                "turn": usage_object(self.turn_totals, self.turn_ledger),
                "cumulative": usage_object(self.all_totals, self.all_ledger),
            },
        }

    def _changed(self, event: str) -> None:
        self.sequence += 1
        if event != "usage" and (event != "phase" or self.phase == "starting"):
            self._save()  # a turn's start and end are saved before anyone hears of them
        self.publish(
            {
                "schemaVersion": 1,
                "sequence": self.sequence,
                "sessionId": self.session_id,
                "event": event,
                "status": self.snapshot(),
            }
        )

    def controls(self, model: str, effort: str, mode: str) -> None:
        """Model, effort or mode changed: seen by the next status read or update."""
        self.model, self.effort, self.mode = model, effort, mode

    def opened_unreachable(self, problem: str) -> None:
        if not self.turn_begun:
            self.endpoint_at_open = clip(problem, REASON_LIMIT)  # redacted: it may quote headers

    def begin_turn(self) -> None:
        self.state, self.phase = "running", "starting"
        self.protocol_recovery = None
        self.endpoint_at_open, self.turn_begun = None, True
        self.outcome = {"kind": "none"}
        self.readiness = {"readyForReview": False, "summary": "", "risks": []}
        self.turn_totals, self.turn_ledger = _zero(), None
        self._changed("phase")

    def set_phase(self, phase: str) -> None:
        if self.state != "running" or phase == self.phase:
            return
        self.phase = phase
        self._changed("phase")

    def usage(self, report: Any, quote: CostQuote | None) -> None:
        """One model call: its usage report and its cost quote (None: unpriced)."""
        if quote is None:
            # lazy: start-up (the pricing code loads with the first model call a session makes)
            from reasonix_acp.config.pricing import unpriced

            quote = unpriced(self.model, self.clock())
        if self.turn_ledger is None:
            self.turn_ledger = _new_ledger()
        if self.all_ledger is None:
            self.all_ledger = _new_ledger()
        for totals, ledger in (
            (self.turn_totals, self.turn_ledger),
            (self.all_totals, self.all_ledger),
        ):
            totals["prompt"] += report.prompt_tokens
            totals["completion"] += report.completion_tokens
            totals["reasoning"] += getattr(report, "reasoning_tokens", 0) or 0
            totals["cache_hit"] += report.cache_hit_tokens
            ledger.add(quote)
        self._changed("usage")

    def finish_turn(
        self,
        outcome: str,
        *,
        reason: str | None = None,
        summary: str = "",
        risks: list[str] | None = None,
    ) -> None:
        phase, kind, event = FINISH[outcome]
        self.state, self.phase = "idle", phase
        self.outcome = {"kind": kind}
        if reason:
            self.outcome["reason"] = clip(reason, REASON_LIMIT)
        if outcome == "failed" and reason:
            self.outcome["diagnostic"] = {"kind": "unknown"}
        self.readiness = {
            "readyForReview": outcome in ("end_turn", "goal_complete"),
            "summary": clip(summary, SUMMARY_LIMIT),
            "risks": [clip(r, REASON_LIMIT) for r in risks or []],
        }
        self._changed(event)

    # -- across restarts ----------------------------------------------------------------------

    def _save(self) -> None:
        if self.save is None:
            return
        ledger = self.all_ledger if self.all_ledger is not None else _new_ledger()
        self.save(
            {
                "sequence": self.sequence,
                "state": self.state,
                "phase": self.phase,
                "turnOutcome": self.outcome,
                "finalReadiness": self.readiness,
                "cumulative": dict(self.all_totals),
                "ledger": ledger.to_json(),
            }
        )

    def restore(self, saved: dict[str, Any]) -> None:
        """The saved status, idle. A turn that was running when the process went away shows
        as `recovery_paused` (the next sequence), not ready for review."""
        try:
            sequence = int(saved["sequence"])
            phase = str(saved["phase"])
            outcome = dict(saved["turnOutcome"])
            readiness = dict(saved["finalReadiness"])
            totals = {k: int(saved["cumulative"].get(k, 0)) for k in _zero()}
        except (KeyError, TypeError, ValueError, AttributeError):
            return  # an unreadable saved status: start fresh
        self.sequence, self.phase, self.all_totals = sequence, phase, totals
        self.outcome, self.readiness = outcome, readiness
        self.all_ledger, self._saved_ledger = None, saved.get("ledger", _UNREADABLE)
        self.state = "idle"
        if saved.get("state") == "running":
            self.sequence += 1
            self.phase = "recovery_paused"
            self.outcome = {"kind": "paused", "reason": "previous turn interrupted"}
            self.readiness = {**self.readiness, "readyForReview": False}


_UNREADABLE = object()  # a saved status without a ledger


def _restored(raw: Any) -> Ledger:
    """A saved ledger; an unreadable one is an empty ledger (counted afresh from here)."""
    # lazy: start-up (only a session restored with its saved status has costs to read)
    from reasonix_acp.config.ledger import Ledger

    try:
        return Ledger.from_json(raw if "events" in raw else _old_ledger(raw))
    except (KeyError, TypeError, ValueError, AttributeError):
        return Ledger()


def _old_ledger(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A ledger saved in the earlier shape (calls, priced, total, currency, bands, fingerprints,
    model, last), as `Ledger.to_json()` would have it."""
    # lazy: start-up (only a session restored with its saved status has costs to read)
    from reasonix_acp.config.pricing import DEEPSEEK_SCHEDULE

    calls, priced, currency = int(raw["calls"]), int(raw["priced"]), raw.get("currency")
    last = raw.get("last")
    rated_at = datetime.fromisoformat(last).astimezone(UTC) if last else None
    return {
        "events": calls,
        "pricedEvents": priced,
        "totals": {currency: str(raw["total"])} if priced and currency else {},
        "fingerprints": raw.get("fingerprints") or [],
        "bands": (raw.get("bands") or []) if priced else [],
        "models": [raw["model"]] if raw.get("model") else [],
        "sources": ["executor"] if calls else [],
        "ratedAt": rated_at.isoformat() if rated_at else None,
        # It rated in Beijing time.
        "rateDate": DEEPSEEK_SCHEDULE.local(rated_at).date().isoformat() if rated_at else None,
    }
