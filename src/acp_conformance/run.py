"""Running one scenario against a fresh agent process, and what came of it.

A check that fails is `fail` at level MUST and `warn` at SHOULD or MAY; one that was not
reached (an earlier step lost the agent, or a `require` was not met) is `skip` with the reason.
Losing the agent at a step with no checks of its own (an opening `initialize`, say) fails the
scenario through a check named `<scenario>.step-<n>`.
A scenario is `fail` if any check failed, else `warn` if any warned, else `skip` if it was
skipped, else `pass`. Requests the agent sends meanwhile are answered -32601 (this slice of the
client side offers no client method).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_conformance import checks
from acp_conformance.model import ModelServer
from acp_conformance.process import Agent
from acp_conformance.scenario import Check, Scenario, step_checks

CAPTURE = re.compile(r"\$\{(\w+)\}")


@dataclass(frozen=True)
class Settings:
    command: str
    env: dict[str, str] = field(default_factory=dict)
    timeout: float = 10.0
    wire_dir: Path | None = None


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

    @property
    def status(self) -> str:
        found = {c.status for c in self.checks}
        for status in ("fail", "warn", "skip"):
            if status in found:
                return status
        return "pass"


class Skip(Exception):
    """The rest of the scenario does not apply (or cannot run): its checks are skipped."""


class Lost(Skip):
    """An awaited response never came: that step's checks fail, the rest are skipped."""


def judged(check: Check, problem: str) -> CheckResult:
    status = "pass" if not problem else ("fail" if check.level == "MUST" else "warn")
    return CheckResult(check.id, check.level, status, problem, check.cite)


def substitute(node: Any, captured: dict[str, Any]) -> Any:
    if isinstance(node, str):
        whole = CAPTURE.fullmatch(node)
        if whole and whole.group(1) in captured:
            return captured[whole.group(1)]
        return CAPTURE.sub(lambda m: str(captured.get(m.group(1), m.group(0))), node)
    if isinstance(node, list):
        return [substitute(x, captured) for x in node]
    if isinstance(node, dict):
        return {k: substitute(v, captured) for k, v in node.items()}
    return node


class Runner:
    def __init__(self, scenario: Scenario, settings: Settings, agent: Agent, cwd: str) -> None:
        self.scenario, self.settings, self.agent = scenario, settings, agent
        self.captured: dict[str, Any] = {"cwd": cwd}
        self.results: list[CheckResult] = []
        self.notes: list[dict[str, Any]] = []  # notifications since the last awaited response
        self.early: dict[str, dict[str, Any]] = {}  # responses that came before they were awaited
        self.ended = False  # the agent's output has ended

    def run(self) -> str:
        """Every step in order; → why the rest was skipped, or ""."""
        for index, step in enumerate(self.scenario.steps):
            try:
                self._step(step)
            except Skip as why:
                self._rest(index, why)
                return "" if isinstance(why, Lost) else str(why)
        return ""

    def _rest(self, index: int, why: Skip) -> None:
        """After a Skip at step `index`: a lost agent fails that step's checks; every check not
        judged yet is skipped with the reason."""
        done = {r.id for r in self.results}
        if isinstance(why, Lost) and not step_checks(self.scenario.steps[index]):
            # A step the scenario only passes through (an opening exchange): losing the agent
            # there is still a failure, never a quiet skip.
            where = f"{self.scenario.id}.step-{index + 1}"
            self.results.append(
                CheckResult(where, "MUST", "fail", str(why), "the scenario's own step")
            )
        for offset, step in enumerate(self.scenario.steps[index:]):
            for check in step_checks(step):
                if check.id in done:
                    continue
                if isinstance(why, Lost) and offset == 0:
                    self.results.append(judged(check, str(why)))
                else:
                    reason = f"not reached: {why}" if isinstance(why, Lost) else str(why)
                    self.results.append(
                        CheckResult(check.id, check.level, "skip", reason, check.cite)
                    )

    def _step(self, step: dict[str, Any]) -> None:
        if "send" in step:
            if "unless_answered" in step:
                self._unless_answered(
                    step["unless_answered"], float(step.get("settle_ms", 0)) / 1000
                )
            self.agent.send(substitute(step["send"], self.captured))
        elif "send_raw" in step:
            body = step["send_raw"] * int(step.get("repeat", 1))
            self.agent.send_line(step.get("prefix", "") + body + step.get("suffix", ""))
        elif "await" in step:
            self._await(step)
        elif "await_note" in step:
            self._await_note(step["await_note"])
        elif "require" in step:
            for path, wanted in step["require"].items():
                try:
                    found = checks.at(self.captured, path)
                except KeyError:
                    found = None
                if found != wanted:
                    raise Skip(f"not advertised: {path} is {found!r}")
        elif "inspect" in step:  # a value captured earlier, judged once a require has passed
            value: dict[str, Any] = self.captured.get(step["inspect"]) or {}
            for check in step_checks(step):
                args = substitute(check.args, self.captured)
                self.results.append(judged(check, checks.ON_RESPONSE[check.kind](value, args)))
        elif "quiet" in step:
            frames = self._window(float(step["quiet"]) / 1000)
            for check in step_checks(step):
                self.results.append(judged(check, checks.on_window(check.kind, frames)))
        elif "eof" in step:
            self.agent.close_stdin()
            code = self.agent.wait(float(step["eof"]))
            for check in step_checks(step):
                self.results.append(judged(check, checks.on_exit(check.kind, code, step["eof"])))
        else:
            raise ValueError(f"{self.scenario.id}: a step with nothing to do: {step}")

    def _await(self, step: dict[str, Any]) -> None:
        wanted = substitute(step["await"], self.captured)
        response = self._response(wanted)
        notes, self.notes = self.notes, []
        for check in step_checks(step):
            args = substitute(check.args, self.captured)
            if check.kind in checks.ON_NOTES:
                problem = checks.ON_NOTES[check.kind](notes, args)
            else:
                problem = checks.ON_RESPONSE[check.kind](response, args)
            self.results.append(judged(check, problem))
        for name, path in step.get("capture", {}).items():
            try:
                self.captured[name] = checks.at(response, path)
            except KeyError:
                raise Skip(f"nothing to go on with: the response has no {path}") from None

    def _frames(self, seconds: float) -> Iterator[dict[str, Any]]:
        """The frames the agent sends within `seconds`, its own requests answered and left
        out; `ended` is set once its output has ended."""
        deadline = time.monotonic() + seconds
        while not self.ended:
            try:
                frame = self.agent.next(deadline - time.monotonic())
            except TimeoutError:
                return
            if frame is None:
                self.ended = True
                return
            if not self._answered_request(frame):
                yield frame

    def _keep(self, frame: dict[str, Any]) -> None:
        """A frame nobody awaits now: a notification for the next checks, a response for
        when its id is awaited (an agent may answer out of order)."""
        if "method" in frame:
            self.notes.append(frame)
        elif "id" in frame:
            self.early[json.dumps(frame["id"])] = frame

    def _response(self, wanted: Any) -> dict[str, Any]:
        """The response to `wanted`: the same id, of the same JSON type."""
        key = json.dumps(wanted)
        if key not in self.early:
            for frame in self._frames(self.settings.timeout):
                self._keep(frame)
                if key in self.early:
                    break
        if key in self.early:
            return self.early.pop(key)
        if self.ended:
            raise Lost(f"the agent's output ended before it answered id {wanted!r}")
        others = [json.loads(k) for k in self.early][:5]
        seen = f"; responses to other ids: {others}" if others else ""
        raise Lost(f"no response to id {wanted!r} within {self.settings.timeout:g} s{seen}")

    def _unless_answered(self, rid: Any, settle: float) -> None:
        """Skip the rest when request `rid` is answered already (a turn too fast to cancel):
        what arrives within `settle` seconds is read first."""
        for frame in self._frames(settle):
            self._keep(frame)
        if json.dumps(rid) in self.early:
            raise Skip("the turn ended before the cancel could be sent (too fast to cancel)")

    def _await_note(self, method: str) -> None:
        """Wait for a notification of `method` (a turn has started: time to cancel it)."""
        for frame in self._frames(self.settings.timeout):
            self._keep(frame)
            if frame.get("method") == method:
                return
        if self.ended:
            raise Lost(f"the agent's output ended before any {method}")
        raise Lost(f"no {method} within {self.settings.timeout:g} s")

    def _answered_request(self, frame: dict[str, Any]) -> bool:
        if "method" in frame and "id" in frame:
            error = {"code": -32601, "message": f"{frame['method']} is not offered by this client"}
            self.agent.send({"jsonrpc": "2.0", "id": frame["id"], "error": error})
            return True
        return False

    def _window(self, seconds: float) -> list[dict[str, Any]]:
        return list(self._frames(seconds))


def wired(settings: Settings) -> bool:
    """The agent is pointed at the scripted model ({model_url} in its command or env)."""
    return "{model_url}" in settings.command or any(
        "{model_url}" in v for v in settings.env.values()
    )


def run(scenario: Scenario, settings: Settings) -> tuple[ScenarioResult, str]:
    """The scenario against a fresh agent → (its result, the wire log as NDJSON)."""
    result = ScenarioResult(scenario.id, scenario.suite, scenario.title)
    if scenario.model is not None and not wired(settings):
        why = "needs the scripted model: put {model_url} in --agent or an --env value"
        result.reason = why
        result.checks = [CheckResult(c.id, c.level, "skip", why, c.cite) for c in scenario.checks]
        return result, ""
    tmp = tempfile.mkdtemp(prefix="acp-conformance-")
    cwd = os.path.join(tmp, "ws")
    os.makedirs(cwd)
    # A wired agent always has a model to reach, even where the scenario needs none.
    model = ModelServer(scenario.model or []) if wired(settings) else None
    places = {"tmp": tmp, "cwd": cwd, "model_url": model.url if model else ""}
    agent = Agent(settings.command, settings.env, places)
    runner = Runner(scenario, settings, agent, cwd)
    try:
        result.reason = runner.run()
    finally:
        agent.stop()
        if model is not None:
            model.close()
        shutil.rmtree(tmp, ignore_errors=True)
    result.checks = runner.results
    return result, agent.wire.ndjson()
