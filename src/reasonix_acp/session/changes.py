"""What changes what a session runs on: `session/set_mode`, `session/set_config_option`, the
legacy `session/set_model`, and the runtime reload (`_reasonix.io/session/reloadExtensions`).

Rules:
- Params are checked first; then the session machine admits the change (`configure`, or
  `begin_rebuild` / `queue_reload`); a refusal is -32600 naming the state and nothing changed.
- A model or effort change while a prompt runs is queued and applied when the prompt ends
  (`settle`); mode and tool approval apply at once (the running turn reads the preset live).
- Goal mode (machines/goal.py): `goal` arms a draft, any other mode clears the goal, both
  stored first (-32603 `<method>: persist goal: …`, nothing changed). A model or effort change
  while the goal runs is refused by the goal machine (-32600, GOAL_SWITCH).
- A reload asked for while a turn or another rebuild runs answers `{"queued": true}` and runs
  when that ends (`settle`): one reload however many were asked for.
"""

from __future__ import annotations

import logging
from typing import Any

from reasonix_acp.machines.goal import State as GoalState
from reasonix_acp.machines.session import State
from reasonix_acp.protocol.errors import InternalError, InvalidParams
from reasonix_acp.protocol.router import Call
from reasonix_acp.reasonix_io.goal import Runtime
from reasonix_acp.session import controls
from reasonix_acp.session.live import Session
from reasonix_acp.session.service import Sessions

log = logging.getLogger("reasonix_acp.session.changes")

RELOAD = "_reasonix.io/session/reloadExtensions"
GOAL_SWITCH = "session config: active Goal continuation must finish before switching config"


class Changes:
    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions

    # -- session/set_mode ----------------------------------------------------------------------

    def set_mode(self, call: Call, params: Any) -> dict[str, Any]:
        method = "session/set_mode"
        session = self.sessions.lookup(method, params.session_id)
        mode_id = params.mode_id.strip()
        approval = controls.LEGACY_MODES.get(mode_id)
        if approval is None and mode_id not in controls.MODE_IDS:
            raise InvalidParams(f"{method}: unknown modeId {params.mode_id}")
        self._set_mode(call, session, mode_id, method)
        return {}

    def _set_mode(self, call: Call, session: Session, mode_id: str, method: str) -> None:
        """The mode changed by `session/set_mode` or the `mode` config option: stored, then
        both updates (`current_mode_update`, `config_option_update`) after the response."""
        approval = controls.LEGACY_MODES.get(mode_id)
        session.machine.fire("configure", f"{method}: session is {{state}}")
        record = session.record
        mode = "normal" if approval else mode_id
        self._goal_for(session, mode, method)
        changed_mode = mode != record.mode
        changed_approval = approval is not None and approval != record.approval
        record.mode = mode
        if approval:
            record.approval = approval
        self.sessions.store.update_session(
            session.id, mode=mode, approval=record.approval, touch=False
        )

        def after() -> None:
            if changed_mode:
                self.sessions.send_all(session, session.mode_updates())
            elif changed_approval or method != "session/set_mode":
                self.sessions.send(session, session.config_update())

        call.after_response(after)

    def _goal_for(self, session: Session, mode: str, method: str) -> None:
        """Goal mode arms a draft (a goal that is not finished is kept); every other mode
        clears the goal. Stored before the mode changes: a failed write changes nothing."""
        goal = session.goal
        before, held = goal.snapshot(), goal.hold()
        if mode == "goal":
            goal.fire("arm", f"{method}: goal is {{state}}")
            if before["state"] != "draft" and goal.state is GoalState.DRAFT:
                goal.objective, goal.runtime = "", Runtime()
        elif goal.state is not GoalState.NONE:
            goal.fire("clear", f"{method}: goal is {{state}}")
            goal.objective, goal.runtime = "", Runtime()
        if goal.snapshot() != before:
            try:
                self.sessions.keep_goal(session, method, session.record.turn_count)
            except InternalError:
                goal.put_back(held)
                raise

    # -- session/set_config_option and session/set_model --------------------------------------

    def set_config_option(self, call: Call, params: Any) -> dict[str, Any]:
        method = "session/set_config_option"
        request = params.root
        session = self.sessions.lookup(method, request.session_id)
        config_id = controls.normalise_config_id(request.config_id)
        value = request.value
        if config_id in controls.RETIRED:
            if not isinstance(value, str) or not controls.retired_value_ok(value):
                raise InvalidParams(
                    f'{method}: invalid value "{value}" for quality floor (accepted: standard, '
                    "delivery; legacy light folds to standard)"
                )
            return {
                "configOptions": session.options(),
                "deprecatedNotice": controls.DEPRECATED_NOTICE,
            }
        allowed = controls.advertised_values(session.options(), config_id)
        if allowed is None:
            raise InvalidParams(f"{method}: unknown config option {request.config_id}")
        if not isinstance(value, str):
            raise InvalidParams(f"{method}: {config_id} is a select option; its value is a string")
        if value not in allowed and config_id == "model":
            raise InvalidParams(f"{method}: {session.config.unknown_model(value)}")
        if value not in allowed:
            raise InvalidParams(
                f"{method}: invalid value {value} for {config_id}; one of: {', '.join(allowed)}"
            )
        if config_id == "mode":
            self._set_mode(call, session, value, method)
            return {"configOptions": session.options()}
        if config_id in ("model", "effort"):
            session.goal.fire("switch_config", GOAL_SWITCH)
        session.machine.fire("configure", f"{method}: session is {{state}}")
        self.apply(session, config_id, value)
        call.after_response(lambda: self.sessions.send(session, session.config_update()))
        return {"configOptions": session.options()}

    def set_model(self, call: Call, params: Any) -> dict[str, Any]:
        method = "session/set_model"
        session = self.sessions.lookup(method, params.session_id)
        model = params.model_id.strip()
        if model not in controls.model_options(session.config, session.record.model):
            raise InvalidParams(f"{method}: {session.config.unknown_model(model)}")
        session.goal.fire("switch_config", GOAL_SWITCH)
        session.machine.fire("configure", f"{method}: session is {{state}}")
        self.apply(session, "model", model)
        call.after_response(lambda: self.sessions.send(session, session.config_update()))
        return {}

    def apply(self, session: Session, axis: str, value: str) -> None:
        """An admitted change: now, or queued while a prompt runs (applied when it ends)."""
        if axis == "tool_approval":
            session.record.approval = value
            self.sessions.store.update_session(session.id, approval=value, touch=False)
            return
        if session.machine.state is State.PROMPTING:  # admitted by `configure` as queued
            session.queued[axis] = value
            if axis == "model":
                session.queued.pop("effort", None)
            return
        self._rebuild(session, {axis: value})

    def _retire(self, provider: Any) -> None:
        """A replaced provider's connections are closed (in the background: no turn uses it)."""
        close = getattr(provider, "aclose", None)
        if close is not None:
            self.sessions.spawn(close())

    def _rebuild(self, session: Session, changes: dict[str, str]) -> None:
        """A new controller for a model or effort change; history and other axes carry over."""
        session.machine.fire("begin_rebuild", "session config: session is {state}")
        try:
            record = session.record
            model = changes.get("model", record.model)
            effort = changes.get("effort", record.effort if model == record.model else "auto")
            switched = model != record.model
            if switched:
                self._retire(session.provider)
                session.provider = session.settings.make_provider(model)
            record.model, record.effort = model, effort
            self.sessions.store.update_session(session.id, model=model, effort=effort, touch=False)
        finally:
            session.machine.fire("end_rebuild", "session config: session is {state}")
        if switched:  # the new model's context size
            self.sessions.send_usage(session)

    # -- after a prompt or a rebuild -------------------------------------------------------------

    async def settle(self, session: Session) -> None:
        """What waited for the prompt (or the rebuild) to end: queued config, then a reload."""
        if session.queued and session.machine.can("begin_rebuild"):
            changes, session.queued = session.queued, {}
            try:
                self._rebuild(session, changes)
            except Exception as exc:
                log.exception("queued config change failed")
                self._warn(session, f"session config switch failed after turn: {exc}")
            self.sessions.send(session, session.config_update())
        if session.reload_queued and session.machine.can("begin_rebuild"):
            session.reload_queued = False
            try:
                await self._reload(None, session)
            except InternalError as exc:
                self._warn(session, exc.message)

    def _warn(self, session: Session, text: str) -> None:
        if self.sessions.supports("notices"):
            notice = {"severity": "warning", "title": "Session change failed", "description": text}
            self.sessions.send(session, {"sessionUpdate": "notice", **notice})
            return
        chunk = {"type": "text", "text": f"\n\n[warning] {text}"}
        self.sessions.send(session, {"sessionUpdate": "agent_message_chunk", "content": chunk})

    # -- _reasonix.io/session/reloadExtensions ----------------------------------------------------

    async def reload(self, call: Call, params: Any) -> dict[str, Any]:
        """Rebuild the session's runtime from config.toml (providers, plugins, MCP servers,
        permissions, limits), all or nothing; queued while a turn or a rebuild runs."""
        session = self.sessions.lookup(RELOAD, params.session_id)
        if session.machine.can("queue_reload"):
            session.machine.fire("queue_reload", f"{RELOAD}: session is {{state}}")
            session.reload_queued = True
            return {"queued": True}
        return await self._reload(call, session)

    async def _reload(self, call: Call | None, session: Session) -> dict[str, Any]:
        runtime = self.sessions.runtime
        try:
            settings, provider, model = runtime.rebuilt(session)
        except ValueError as exc:
            raise InternalError(f"{RELOAD}: {exc}") from None
        # Built: swap it in. Nothing above changed the session.
        session.machine.fire("begin_rebuild", f"{RELOAD}: session is {{state}}")
        try:
            self._retire(session.provider)
            session.settings, session.provider = settings, provider
            runtime.adopt(settings)
            if model != session.record.model:
                session.record.model, session.record.effort = model, "auto"
                self.sessions.store.update_session(session.id, model=model, effort="auto")
            await session.stop_servers()
            runtime.start_servers(session)
            session.read_project()
        finally:
            session.machine.fire("end_rebuild", f"{RELOAD}: session is {{state}}")
        self._commands_after(call, session)
        await self.settle(session)  # a reload asked for meanwhile runs now
        return {}

    def _commands_after(self, call: Call | None, session: Session) -> None:
        def send() -> None:
            update = {
                "sessionUpdate": "available_commands_update",
                "availableCommands": session.available_commands(),
            }
            self.sessions.send(session, update)

        if call is None:
            send()
        else:
            call.after_response(send)
        self.sessions.commands_when_connected(session)
