"""Running one scenario against a fresh agent process, and what came of it (results.py).

Losing the agent at a step with no checks of its own (an opening `initialize`, say) fails the
scenario through a check named `<scenario>.step-<n>`. Requests the agent sends meanwhile are
answered by the client side (client.py), as an editor would.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from importlib import resources
from typing import Any

from acp_conformance import (
    auth_checks,
    checks,
    history_checks,
    mcp_checks,
    note_checks,
    plan_checks,
    provider_checks,
    session_checks,
    tool_checks,
    turn_checks,
)
from acp_conformance.client import Client
from acp_conformance.frames import Frames
from acp_conformance.gates import required, unmet
from acp_conformance.model import ModelServer
from acp_conformance.process import Agent, CannotStart
from acp_conformance.remote import NO_PROCESS, RemoteAgent, agent_for
from acp_conformance.results import (
    CheckResult,
    Lost,
    ScenarioResult,
    Settings,
    Skip,
    judged,
    skipped,
)
from acp_conformance.scenario import Scenario, step_checks

__all__ = ["CheckResult", "ScenarioResult", "Settings", "run"]

CAPTURE = re.compile(r"\$\{(\w+)\}")
TURN_KINDS = {
    **turn_checks.CHECKS,
    **tool_checks.CHECKS,
    **mcp_checks.CHECKS,
    **plan_checks.CHECKS,
    **history_checks.CHECKS,
}
NOTE_KINDS = {**note_checks.ON_NOTES, **session_checks.ON_NOTES}
RESPONSE_KINDS = {
    **checks.ON_RESPONSE,
    **session_checks.ON_RESPONSE,
    **provider_checks.ON_RESPONSE,
    **auth_checks.ON_RESPONSE,
    **history_checks.ON_RESPONSE,
}
CAPTURES = {**session_checks.CAPTURES, **auth_checks.CAPTURES, **history_checks.CAPTURES}
WHOLE_RUN = ("only_json", "utf8")  # judged on everything the agent wrote on stdout so far


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
    def __init__(
        self,
        scenario: Scenario,
        io: Frames,
        places: dict[str, str],
        options: dict[str, Any] | None = None,
    ) -> None:
        self.scenario, self.io = scenario, io
        self.captured: dict[str, Any] = {
            "cwd": places["cwd"],
            "tmp": places["tmp"],
            "python": sys.executable,  # with ${mcp_server}: the scenarios' MCP server
            "mcp_server": str(resources.files("acp_conformance").joinpath("mcp_server.py")),
            **(options or {}),  # the runner's options a scenario requires (gates.py)
        }
        self.results: list[CheckResult] = []
        self.seen_calls = 0  # the client's calls judged by earlier awaits
        self.model_calls = 0  # the scripted model's tool calls made before this turn
        self.announced: set[Any] = set()  # toolCallIds reported in earlier turns
        self.refused: set[str] = set()  # ids (as JSON) answered with an error

    def run(self) -> str:
        """Every step in order; → why the rest was skipped, or ""."""
        for index, step in enumerate(self.scenario.steps):
            try:
                self._step(step)
            except Lost as why:
                self._count_once(index, why)
                # An agent still serving goes on with the next step's fresh request; one
                # that ended, or whose answer the next steps build on, is not reached.
                if self.io.ended or "await" not in step or "capture" in step:
                    self._rest(index + 1, f"not reached: {why}")
                    return ""
            except Skip as why:
                self._rest(index, str(why))
                return str(why)
        return ""

    def _count_once(self, index: int, why: Lost) -> None:
        """A lost answer fails one check: the step's first (its other checks had nothing to
        judge), or `<scenario>.step-<n>` for a step the scenario only passes through (an
        opening exchange: losing the agent there is still a failure, never a quiet skip).
        What the agent wrote on stdout is judged all the same (it may be why no answer came:
        a form drawn where frames go)."""
        done = {r.id for r in self.results}
        pending = [c for c in step_checks(self.scenario.steps[index]) if c.id not in done]
        for check in [c for c in pending if c.kind in WHOLE_RUN]:
            self.results.append(judged(check, self._whole_run(check.kind)))
        pending = [c for c in pending if c.kind not in WHOLE_RUN]
        if not pending:
            where = f"{self.scenario.id}.step-{index + 1}"
            self.results.append(
                CheckResult(where, "MUST", "fail", str(why), "the scenario's own step")
            )
            return
        self.results.append(judged(pending[0], str(why)))
        for check in pending[1:]:
            self.results.append(skipped(check, f"no answer to judge (counted at {pending[0].id})"))

    def _rest(self, index: int, reason: str) -> None:
        """Every check from step `index` on not judged yet is skipped with the reason."""
        done = {r.id for r in self.results}
        for step in self.scenario.steps[index:]:
            for check in step_checks(step):
                if check.id not in done:
                    self.results.append(skipped(check, reason))

    def _step(self, step: dict[str, Any]) -> None:
        if "if_refused" in step and json.dumps(step["if_refused"]) not in self.refused:
            return  # a step for when an earlier request was refused (initialize again)
        if "send" in step:
            if "unless_answered" in step:
                settle = float(step.get("settle_ms", 0)) / 1000
                self.io.unless_answered(step["unless_answered"], settle)
            self.io.send(substitute(step["send"], self.captured))
        elif "send_raw" in step:
            body = step["send_raw"] * int(step.get("repeat", 1))
            self.io.agent.send_line(step.get("prefix", "") + body + step.get("suffix", ""))
        elif "await" in step:
            self._await(step)
        elif "await_note" in step:
            self.io.await_note(
                step["await_note"], step.get("unless_answered"), step.get("update", "")
            )
        elif "require" in step:
            self._require(step["require"])
        elif "inspect" in step:  # a value captured earlier, judged once a require has passed
            value: dict[str, Any] = self.captured.get(step["inspect"]) or {}
            for check in step_checks(step):
                args = substitute(check.args, self.captured)
                try:
                    problem = RESPONSE_KINDS[check.kind](value, args)
                except checks.NotApplicable as why:
                    self.results.append(skipped(check, str(why)))
                    continue
                self.results.append(judged(check, problem))
        elif "quiet" in step:
            frames = self.io.window(float(step["quiet"]) / 1000)
            for check in step_checks(step):
                self.results.append(judged(check, checks.on_window(check.kind, frames)))
        elif "eof" in step:
            if self.io.agent.remote:
                raise Skip(NO_PROCESS)
            self.io.agent.close_stdin()
            code = self.io.agent.wait(float(step["eof"]))
            for check in step_checks(step):
                self.results.append(judged(check, checks.on_exit(check.kind, code, step["eof"])))
        else:
            raise ValueError(f"{self.scenario.id}: a step with nothing to do: {step}")

    def _whole_run(self, kind: str) -> str:
        if kind == "utf8":
            return checks.utf8(self.io.agent.not_utf8)
        return checks.only_json(self.io.unparsed)

    def _require(self, wanted: dict[str, Any]) -> None:
        """Each path in turn (gates.py): the first one not met SKIPs the rest, with why."""
        for path, value in wanted.items():
            why = unmet(self.captured, path, substitute(value, self.captured))
            if why:
                raise Skip(why)

    def _await(self, step: dict[str, Any]) -> None:
        bounded = bool(step.get("may_go_unanswered"))
        response = self.io.response(substitute(step["await"], self.captured), bounded)
        if "error" in response:
            self.refused.add(json.dumps(substitute(step["await"], self.captured)))
            if step.get("skip_if_refused"):  # a refusal the agent may make: nothing to judge
                raise Skip(f"{step['skip_if_refused']}: {checks.brief(response['error'])}")
        if "settle_ms" in step:  # updates that may come after the response count too
            self.io.settle(float(step["settle_ms"]) / 1000)
        if "mcp_listed_ms" in step:  # an MCP connection begun as the session opened, ended
            self.io.mcp_listed(float(step["mcp_listed_ms"]) / 1000)
        if step.get("script_played"):
            self._script_played()
        notes, self.io.notes = self.io.notes, []
        calls = self.io.client.calls[self.seen_calls :]
        self.seen_calls += len(calls)
        if "result" in response:  # a refused or failed prompt is judged as it is
            self._preconditions(step, calls)
        turn = turn_checks.Turn(
            notes, calls, self.io.client, self.io.model, set(self.announced), self.captured["cwd"]
        )
        for check in step_checks(step):
            args = substitute(check.args, self.captured)
            try:
                self._applies(args, calls)
                if args.get("if_result") and "result" not in response:
                    why = checks.brief(response.get("error"))
                    raise checks.NotApplicable(f"the request itself was refused ({why})")
                if check.kind in TURN_KINDS:
                    problem = TURN_KINDS[check.kind](turn, args)
                elif check.kind in WHOLE_RUN:
                    problem = self._whole_run(check.kind)
                elif check.kind in NOTE_KINDS:
                    problem = NOTE_KINDS[check.kind](notes, args)
                else:
                    problem = RESPONSE_KINDS[check.kind](response, args)
            except checks.NotApplicable as why:
                self.results.append(skipped(check, str(why)))
                continue
            self.results.append(judged(check, problem))
        self.announced |= tool_checks.announced_in(notes)
        for name, what in step.get("capture_from", {}).items():
            self.captured[name] = CAPTURES[what](response, notes)
        for name, path in step.get("capture", {}).items():
            try:
                self.captured[name] = checks.at(response, path)
            except KeyError:
                raise Skip(f"nothing to go on with: the response has no {path}") from None

    def _applies(self, args: dict[str, Any], calls: list[Any]) -> None:
        """A check with `when` (a captured path) judges only when the agent advertised it
        (`configOptions` before judging how an unknown option is refused); one with `needs`
        (a client method) only when the agent sent that request in the turn (what the client
        showed it can only be seen through the client)."""
        needed = args.get("needs")
        if needed and not any(c.method == needed for c in calls):
            raise checks.NotApplicable(f"the agent sent no {needed} in this turn")
        if "when" not in args:
            return
        try:
            found = checks.at(self.captured, args["when"])
        except KeyError:
            found = None
        if found in (None, [], {}):
            raise checks.NotApplicable(required(args["when"], None, found))

    def _script_played(self) -> None:
        """A turn whose checks need the scenario's script (a failure, a stall, the text it
        checks): SKIP when the agent's requests never got it, the scripted model having taken
        them all for side requests (model.py says how it tells them apart)."""
        model = self.io.model
        if model is not None and model.requests and not model.scripted:
            raise Skip(
                "the scripted model took every model request of the agent's for a side request "
                "(none offered tools or held the prompt's text in a user message): the "
                "scenario's script was not played"
            )

    def _preconditions(self, step: dict[str, Any], calls: list[Any]) -> None:
        """For a turn that ended with a result: `tool_turn`, the scripted model made a tool call
        in this turn (else SKIP: the agent offers no such tool, or never asked the model);
        `needs_request`, the agent sent that request (else SKIP)."""
        model = self.io.model
        made = len(model.calls) if model is not None else 0
        earlier, self.model_calls = self.model_calls, made
        if step.get("tool_turn") and made == earlier:
            why = model.why_no_call if model is not None else ""
            raise Skip(why or "the agent never asked the scripted model for the turn")
        needed = step.get("needs_request")
        if needed and not any(c.method == needed for c in calls):
            raise Skip(f"the agent sent no {needed} in this turn")


def written_folders(script: list[list[dict[str, Any]]]) -> tuple[str, ...]:
    """The directories the script's writes go into."""
    paths = [
        action.get("args", {}).get("path")
        for reply in script
        for action in reply
        if action.get("call") == "write"
    ]
    return tuple(os.path.dirname(p) for p in paths if isinstance(p, str) and os.path.dirname(p))


def wired(settings: Settings) -> bool:
    """The agent is pointed at the scripted model ({model_url} in its command or env)."""
    return "{model_url}" in settings.command or any(
        "{model_url}" in v for v in settings.env.values()
    )


def run(scenario: Scenario, settings: Settings) -> tuple[ScenarioResult, str, list[dict[str, Any]]]:
    """The scenario against a fresh agent → (its result, the wire log as NDJSON, the scripted
    model's exchanges)."""
    result = ScenarioResult(scenario.id, scenario.suite, scenario.title)
    if scenario.model is not None and not wired(settings):
        why = "needs the scripted model: put {model_url} in --agent or an --env value"
        if settings.url:
            why = "needs the scripted model, which an agent reached with --url is not pointed at"
        result.reason = why
        result.checks = [skipped(c, why) for c in scenario.checks]
        return result, "", []
    tmp = tempfile.mkdtemp(prefix="acp-conformance-")
    cwd = os.path.join(tmp, "ws")
    os.makedirs(cwd)
    places = {"tmp": tmp, "cwd": cwd}
    # A wired agent always has a model to reach, even where the scenario needs none.
    script = substitute(scenario.model or [], places)
    model = ModelServer(script) if wired(settings) else None
    places["model_url"] = model.url if model else ""
    agent: Agent | RemoteAgent | None = None
    client = Client(lambda frame: agent.send(frame) if agent else None, cwd, scenario.client)
    client.seed(written_folders(script))
    try:
        agent = agent_for(settings, places)
    except CannotStart:
        client.close()
        if model is not None:
            model.close()
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    frames = Frames(agent, client, model, settings.timeout, settings.unanswered, settings.start)
    runner = Runner(scenario, frames, places, options(settings))
    try:
        result.reason = runner.run()
    finally:
        agent.stop()
        client.close()
        if model is not None:
            model.close()
        shutil.rmtree(tmp, ignore_errors=True)
    result.checks = runner.results
    result.gated = any("require" in step for step in scenario.steps)
    if result.status in ("fail", "warn"):
        result.wire, result.stderr_tail = evidence(agent.wire)
    return result, agent.wire.ndjson(), model.exchanges if model is not None else []


def options(settings: Settings) -> dict[str, Any]:
    """The runner's options as a scenario's `require` reads them (gates.py): the id given with
    --auth-method, only when one was; whether the agent runs in a home of its own (never one
    reached with --url: a scenario that signs out or rewrites providers is SKIP there)."""
    given = {k for k in settings.env if k == "HOME" or k.startswith("XDG_")}
    # An agent at --url runs in whatever home it was started with: never one of its own.
    own = not settings.keep_home and not given and not settings.url
    found: dict[str, Any] = {"own_home": own}
    if settings.auth_method:
        found["auth_method"] = settings.auth_method
    return found


LONGEST = 2000  # characters of a line kept in a failure's evidence (the rest is counted)
STDERR_TAIL = 20  # the agent's last stderr lines kept with a failure


def evidence(wire: Any) -> tuple[list[dict[str, str]], list[str]]:
    """A failed scenario's wire transcript (both directions, long lines cut) and the tail of
    the agent's stderr, for the JSON report."""

    def cut(text: str) -> str:
        return text if len(text) <= LONGEST else f"{text[:LONGEST]}<... {len(text)} characters>"

    lines = [{"dir": d, "line": cut(t)} for d, t, _ in wire.lines if d != "stderr"]
    errors = [cut(t) for d, t, _ in wire.lines if d == "stderr"]
    return lines, errors[-STDERR_TAIL:]
