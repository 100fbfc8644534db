"""What came of running a scenario: one result per check, and how results add up.

A check that fails is `fail` at level MUST and `warn` at SHOULD or MAY; one that was not
reached (an earlier step lost the agent, a `require` was not met, the agent offers no tool the
scenario needs) or had nothing to judge is `skip` with the reason.
A scenario is `fail` if any check failed, else `warn` if any warned, else `pass` if every check
passed, `skip` if every check was skipped, and `partial` when some passed and some were skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from acp_conformance.scenario import Check


@dataclass(frozen=True)
class Settings:
    command: str
    env: dict[str, str] = field(default_factory=dict)
    timeout: float = 10.0
    wire_dir: Path | None = None
    unanswered: float = 3.0  # the wait for an answer that may never come (a bad frame)
    start: float = 30.0  # the wait for the first answer of a process just started
    keep_home: bool = False  # the agent gets the runner's HOME and XDG_* (else its own)
    auth_method: str = ""  # --auth-method: the id core.auth.authenticate authenticates with
    url: str = ""  # --url: an agent reached over the network instead of `command` (remote.py)
    token: str = ""  # its bearer token (from --token-env's variable)
    transport: str = "http"  # --transport: http (Streamable HTTP) or ws (WebSocket)


@dataclass
class CheckResult:
    id: str
    level: str
    status: str  # pass | fail | warn | skip
    detail: str = ""
    cite: str = ""


@dataclass
class ScenarioResult:
    id: str
    suite: str
    title: str
    checks: list[CheckResult] = field(default_factory=list)
    reason: str = ""  # why it was skipped
    gated: bool = False  # it runs only where the agent advertises a capability (`require`)
    wire: list[dict[str, str]] = field(default_factory=list)  # both directions, when it failed
    stderr_tail: list[str] = field(default_factory=list)  # the agent's last stderr lines then

    def tier(self, level: str) -> str:
        """A check's tier, in acp-tck's words: a MUST is mandatory, or capability where the
        scenario runs only for an advertised capability; a SHOULD advisory; a MAY
        informational."""
        if level == "MUST":
            return "capability" if self.gated else "mandatory"
        return "advisory" if level == "SHOULD" else "informational"

    @property
    def status(self) -> str:
        found = {c.status for c in self.checks}
        for status in ("fail", "warn"):
            if status in found:
                return status
        if found == {"skip"} or (not found and self.reason):
            return "skip"
        return "partial" if "skip" in found else "pass"


class Skip(Exception):
    """The rest of the scenario does not apply (or cannot run): its checks are skipped."""


class Lost(Skip):
    """An awaited response never came: one check of that step fails (run.py counts a hang
    once); an agent still serving goes on with the next steps."""


def judged(check: Check, problem: str) -> CheckResult:
    status = "pass" if not problem else ("fail" if check.level == "MUST" else "warn")
    return CheckResult(check.id, check.level, status, problem, check.cite)


def skipped(check: Check, reason: str) -> CheckResult:
    return CheckResult(check.id, check.level, "skip", reason, check.cite)
