"""Scenario files: one JSON file per scenario under `scenarios/`, data only.

    {"id": "core.initialize.basic", "title": "...", "suite": "core",
     "model": [[{"text": "..."}], ...],      # optional: the scripted model's replies (model.py)
     "client": {"permission": "reject_once", ...},  # optional: the client side (client.py)
     "steps": [
       {"send": {<frame>}},                 # `${name}` in strings: a value captured before
       {"send": {<frame>}, "unless_answered": <id>, "settle_ms": n},  # SKIP the rest if <id>
                                             # is answered within n ms (too fast to cancel)
       {"send_raw": "<text>", "repeat": n, "prefix": "..", "suffix": ".."},  # one raw line
       {"await": <request id>, "capture": {"session": "result.sessionId"}, "checks": [...]},
       {"await": <id>, "settle_ms": n, ...},  # with what comes within n ms after the response
       {"await": <id>, "mcp_listed_ms": n, ...},  # and, if the agent began to reach the
                                             # client's MCP server, until its tools/list (n ms)
       {"await": <id>, "may_go_unanswered": true, ...},  # a bad frame's answer, awaited only
                                             # --unanswered-timeout (it may never come)
       {"await": <id>, "tool_turn": true, "needs_request": "<method>", "checks": [...]},
                                             # SKIP the rest unless the scripted model's tool
                                             # call was made / the agent sent that request
       {"await": <id>, "script_played": true, ...},  # SKIP the rest unless the scripted
                                             # model served its script (a failure, a stall)
       {"await_note": "session/update"},     # until such a notification (a turn is running)
       {"await_note": "terminal/create", "unless_answered": <id>},  # or a request of the
                                             # agent; SKIP if turn <id> ends without one
       {"await_note": "session/update", "update": "tool_call"},  # an update of that kind
       {"send": {<frame>}, "if_refused": <id>},  # (also on an await) only when request <id>
                                             # was answered with an error (initialize again)
       {"require": {"agentCapabilities.loadSession": true}},   # else the scenario is SKIP
       {"require": {"<path>": {"one_of": [null, false]}}},      # any of these (null: absent)
                                             # (gates.py: the other forms, the runner's options)
       {"await": <id>, "skip_if_refused": "<why>", ...},  # SKIP the rest, with why, if <id>
                                             # is refused (credentials the agent may refuse)
       {"inspect": "caps", "checks": [...]},  # response checks on a value captured before
       {"quiet": <ms>, "checks": [...]},     # frames within the window
       {"eof": <s>, "checks": [...]}         # stdin closed; the process within the window
     ]}

An await step may also keep what its notifications said for a later step:
`"capture_from": {"live": "message_ids", "option": "mode_option"}` (session_checks.py;
`auth_updates`, auth_checks.py; `reply_id` and `user_message_id`, history_checks.py).
A check: `{"id", "level": "MUST" | "SHOULD" | "MAY", "cite", "kind", ...}`; the kinds are in
checks.py, note_checks.py, turn_checks.py, tool_checks.py, mcp_checks.py, plan_checks.py,
session_checks.py, history_checks.py, provider_checks.py and auth_checks.py. A step that
judges a refusal (a check of kind `error`) also judges the error's message, non-empty and on one
line: the SHOULD check `<its first error check's id>.message` is implied (`message_check`),
unless the step has an `error_message` check of its own. With `"when": "<captured path>"` a
check is SKIP unless the agent advertised that (a value there, not empty); with
`"needs": "<client method>"` unless the agent sent that request in the turn. `${cwd}` is the
scenario's workspace (an absolute path), `${tmp}` the directory around it (outside the
workspace); both also in the model's script.
`${python} ${mcp_server}` starts the runner's own MCP server (mcp_server.py), for `mcpServers`.
A path is keys joined by "." or a JSON Pointer ("/a/b", "~1" for a "/" in a key).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

LEVELS = ("MUST", "SHOULD", "MAY")
SUITES = ("core", "client", "robustness", "reasonix")


@dataclass(frozen=True)
class Check:
    id: str
    level: str
    cite: str
    kind: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    suite: str
    steps: list[dict[str, Any]]
    model: list[list[dict[str, Any]]] | None = None  # the scripted model's replies (model.py)
    client: dict[str, Any] = field(default_factory=dict)  # the client side's setup (client.py)

    @property
    def checks(self) -> list[Check]:
        return [check for step in self.steps for check in step_checks(step)]


def step_checks(step: dict[str, Any]) -> list[Check]:
    found = []
    for raw in step.get("checks", []):
        args = {k: v for k, v in raw.items() if k not in ("id", "level", "cite", "kind")}
        found.append(Check(raw["id"], raw["level"], raw["cite"], raw["kind"], args))
    return found + message_check(found)


# Every refusal the runner provokes is one whose message a user reads (acp-tck's ACP-ERROR-001).
MESSAGE_CITE = "ACP schema: Error.message, a short description of the error (non-empty, one line)"


def message_check(found: list[Check]) -> list[Check]:
    """The check implied on a step that judges a refusal: its error's message is text on one
    line (checks.py `error_message`: SKIP where no error came, as where a MAY was accepted)."""
    refusals = [c for c in found if c.kind == "error"]
    if not refusals or any(c.kind == "error_message" for c in found):
        return []
    return [Check(f"{refusals[0].id}.message", "SHOULD", MESSAGE_CITE, "error_message")]


def parse(data: dict[str, Any], where: str) -> Scenario:
    for key in ("id", "title", "suite", "steps"):
        if key not in data:
            raise ValueError(f"{where}: no {key!r}")
    if data["suite"] not in SUITES:
        raise ValueError(f"{where}: suite must be one of {', '.join(SUITES)}")
    scenario = Scenario(
        data["id"],
        data["title"],
        data["suite"],
        list(data["steps"]),
        data.get("model"),
        dict(data.get("client", {})),
    )
    for check in scenario.checks:
        if check.level not in LEVELS:
            raise ValueError(f"{where}: check {check.id}: level must be one of {LEVELS}")
        if not check.cite:
            raise ValueError(f"{where}: check {check.id} cites nothing")
    return scenario


def load_all() -> list[Scenario]:
    """Every shipped scenario, by id; check ids are unique across them."""
    scenarios = []
    folder = resources.files("acp_conformance").joinpath("scenarios")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            scenarios.append(parse(json.loads(entry.read_text("utf-8")), entry.name))
    seen: set[str] = set()
    for scenario in scenarios:
        for check in scenario.checks:
            if check.id in seen:
                raise ValueError(f"check id {check.id} is used twice")
            seen.add(check.id)
    return sorted(scenarios, key=lambda s: s.id)
