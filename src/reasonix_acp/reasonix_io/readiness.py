"""The final-readiness gate: a turn that changed files must show a passing check before it ends.

The rule (on with `[readiness] require_checks = true` in config.toml; off by default):
- A `write` or `edit` that completed creates an obligation.
- A `bash` command that completed (exit status 0) after the last such change meets it.
- A turn that would end normally while an obligation is open ends instead with a `[warning]`
  chunk naming the files, `end_turn`, status phase `readiness_paused`, and a one-shot checkpoint
  in the transcript (`readiness_checkpoint`).
- The checkpoint is resumed by `session/prompt` with `action: "final_readiness_recovery"` (text
  still required) or a prompt that is only `/continue-checks [guidance]`; the resumed turn starts
  with the obligation still open. Any other prompt clears the checkpoint
  (`readiness_cleared`), after which the recovery forms answer -32600 without a status turn.
"""

from __future__ import annotations

from typing import Any

CHANGES = ("write", "edit")
CHECKS = ("bash",)
DEFAULT_GUIDANCE = (
    "Continue the remaining checks: keep the changes made so far, run the relevant checks, "
    "and report what passed and what could not be verified."
)


class Obligations:
    def __init__(self, enabled: bool, owed: list[str] | None = None) -> None:
        self.enabled = enabled
        self.changed: list[str] = list(owed or [])

    def observe(self, tool: str, status: str, args: dict[str, Any]) -> None:
        if not self.enabled or status != "completed":
            return
        if tool in CHANGES:
            path = str(args.get("path", ""))
            if path not in self.changed:
                self.changed.append(path)
        elif tool in CHECKS:
            self.changed = []

    def unmet(self) -> str | None:
        """The warning text when the turn may not end yet, else None."""
        if not self.enabled or not self.changed:
            return None
        files = ", ".join(self.changed[:10]) + (" …" if len(self.changed) > 10 else "")
        return (
            f"final-answer readiness gate not satisfied: changed {files} without a passing "
            "check afterwards; send /continue-checks to run them"
        )


def checkpoint_from(events: list[tuple[str, dict[str, Any]]]) -> list[str] | None:
    """The open checkpoint of a stored transcript (its files), or None."""
    for kind, body in reversed(events):
        if kind == "readiness_checkpoint":
            return list(body.get("changed", []))
        if kind == "readiness_cleared":
            return None
    return None
