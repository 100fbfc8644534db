"""A session's plugins at work: their actions (`/<plugin>:<action>`), their hooks, and the
extension surfaces both publish. The plugin interface itself is in plugins.py.

Rules:
- An action's form is filled before the action runs: `key=value` words first; then each
  field with `options` is asked with `session/request_permission` (one option per choice, and
  Cancel), as the ask path does; then defaults. A cancelled question cancels the action, and a
  required field with no value fails it; neither runs the command.
- An action that answers `prompt` starts a model turn with that prompt. Otherwise the agent
  answers with the action's `text`. A failed action answers with a `[warning]` and the model
  is not called (a failed deploy is not something to improvise on).
- Hooks never fail what they are attached to: a failure is logged on stderr. `session_start`
  runs after a session opens, `turn_end` after each turn that was not cancelled (before the
  prompt's answer), `session_end` when a session closes or is deleted. Their surfaces are
  shown except at `session_end`, when nobody is left to see them.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from reasonix_acp.generated.methods import SESSION_REQUEST_PERMISSION
from reasonix_acp.plugins import surface as extension_surface
from reasonix_acp.plugins.plugin import Action, CommandFailed, FormField, Plugin
from reasonix_acp.protocol.errors import AcpError, ConnectionClosed, RemoteError

log = logging.getLogger("reasonix_acp.plugins.actions")

Events = list[tuple[str, dict[str, Any]]]
# A request to the client: (method, params) → its decoded result.
Request = Callable[[str, dict[str, Any]], Awaitable[Any]]


def _unwrapped(argv: list[str], cwd: str) -> list[str]:
    return argv


@dataclass(frozen=True)
class Where:
    """The session an action or hook runs for: its cwd, and how a command runs there (in the
    session's sandbox: tools/sandbox.py)."""

    session_id: str
    cwd: str
    wrap: Callable[[list[str], str], list[str]] = _unwrapped


@dataclass
class ActionResult:
    """What an action came to: a model turn to start, or a reply, with the surfaces to show
    first."""

    prompt: str | None = None  # a model turn with this prompt follows
    reply: str = ""  # else the agent's answer
    events: Events = field(default_factory=list)  # surfaces to show first


def surface_events(plugin_id: str, raw: list[Any], session_id: str) -> Events:
    return [
        ("extension_surface", {"surface": s})
        for s in extension_surface.normalise(plugin_id, raw, session_id)
    ]


def parse_args(rest: str) -> dict[str, str]:
    """`k=v extra` → {"k": "v", "arg1": "extra"}."""
    args: dict[str, str] = {}
    n = 0
    for word in rest.split():
        key, eq, value = word.partition("=")
        if eq and key:
            args[key] = value
        else:
            n += 1
            args[f"arg{n}"] = word
    return args


async def _ask(
    request: Request | None, where: Where, plugin: Plugin, action: Action, spec: FormField
) -> str | None:
    """One form field with options, as a permission request; None when not answered."""
    key = spec.key
    options = [
        {"optionId": f"{key}:{i}", "name": choice, "kind": "allow_once"}
        for i, choice in enumerate(spec.options, 1)
    ]
    options.append({"optionId": f"{key}:cancel", "name": "Cancel", "kind": "reject_once"})
    tool_call = {
        "toolCallId": f"form-{plugin.id}-{action.name}-{key}",
        "title": f"{spec.label} ({action.label})",
        "kind": "other",
        "status": "pending",
        "rawInput": {"plugin": plugin.id, "action": action.name, "field": key},
    }
    if request is None:
        return None
    try:
        reply = await request(
            SESSION_REQUEST_PERMISSION,
            {"sessionId": where.session_id, "toolCall": tool_call, "options": options},
        )
    except (RemoteError, ConnectionClosed, AcpError) as exc:
        log.warning("form question failed (%s); the action is cancelled", exc)
        return None
    outcome = reply.outcome
    chosen = getattr(outcome, "option_id", None)
    if outcome.outcome != "selected" or chosen is None:
        return None
    index = str(chosen).removeprefix(f"{key}:")
    if not index.isdigit() or not 1 <= int(index) <= len(spec.options):
        return None
    return spec.options[int(index) - 1]


async def run_action(
    request: Request | None, where: Where, plugin: Plugin, action: Action, rest: str
) -> ActionResult:
    name = f"/{plugin.id}:{action.name}"
    args = parse_args(rest)
    for spec in action.form:
        if spec.key in args:
            continue
        value = await _ask(request, where, plugin, action, spec) if spec.options else None
        if value is None and spec.options:
            return ActionResult(reply=f"{name} cancelled: {spec.label} was not chosen.")
        value = value if value is not None else spec.default
        if value is None and spec.required:
            return ActionResult(
                reply=f"\n\n[warning] {name} needs {spec.key}=<value> ({spec.label})"
            )
        if value is not None:
            args[spec.key] = value
    payload = {
        "event": "action",
        "action": action.name,
        "args": args,
        "sessionId": where.session_id,
        "cwd": where.cwd,
    }
    try:
        out = await plugin.run(action.command, payload, where.cwd, where.wrap)
    except CommandFailed as exc:
        return ActionResult(reply=f"\n\n[warning] {name} failed: {exc}")
    events = surface_events(plugin.id, out.surfaces, where.session_id)
    return ActionResult(out.prompt, out.text or f"{name} done.", events)


async def run_hooks(
    plugins: Sequence[Plugin], where: Where, hook: str, extra: dict[str, Any] | None = None
) -> Events:
    """Every plugin's `hook` in turn; their surfaces (not yet shown)."""
    events: Events = []
    for plugin in plugins:
        argv = plugin.hooks.get(hook)
        if argv is None:
            continue
        payload = {"event": hook, "sessionId": where.session_id, "cwd": where.cwd}
        try:
            out = await plugin.run(argv, {**payload, **(extra or {})}, where.cwd, where.wrap)
        except CommandFailed as exc:
            log.warning("plugin %s: %s hook failed: %s", plugin.id, hook, exc)
            continue
        events += surface_events(plugin.id, out.surfaces, where.session_id)
    return events
