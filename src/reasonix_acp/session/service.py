"""Live sessions of this process, and the session methods over them and the store.

Every handler fires its session machine first (machines/session.py): a refusal is -32600 naming
the state, and nothing else has happened. Notifications that belong to a response (commands,
plan, config updates) are sent with `Call.after_response`.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import logging
import os
import re
import uuid
from collections.abc import Callable
from typing import Any

from reasonix_acp.config import NO_PROVIDER, Config
from reasonix_acp.generated.methods import SESSION_UPDATE
from reasonix_acp.machines._base import TransitionRefused
from reasonix_acp.machines.session import State
from reasonix_acp.plugins import actions as extensions
from reasonix_acp.plugins.manifest import Plugin
from reasonix_acp.plugins.surface import UPDATE as SURFACE_UPDATE
from reasonix_acp.protocol.errors import AuthRequired, InternalError, InvalidParams, InvalidRequest
from reasonix_acp.protocol.router import Call
from reasonix_acp.providers.base import Provider
from reasonix_acp.session import commands, controls
from reasonix_acp.session.history import history_from_events
from reasonix_acp.session.live import Session
from reasonix_acp.session.projector import REPLAYED, updates
from reasonix_acp.session.runtime import SessionRuntime
from reasonix_acp.session.store import LeaseHeld, SessionRecord, Store, StoreError, now
from reasonix_acp.vendor import recovery
from reasonix_acp.vendor.readiness import checkpoint_from

log = logging.getLogger("reasonix_acp.session.service")

SESSION_ID = re.compile(r"^[A-Za-z0-9._-]+$")
PAGE_SIZE = 50
TITLE_LIMIT = 80


def check_session_id(method: str, session_id: str) -> str:
    if not session_id.strip():
        raise InvalidParams(f"{method}: missing sessionId")
    if (
        session_id != session_id.strip()
        or session_id in (".", "..")
        or not SESSION_ID.match(session_id)
    ):
        raise InvalidParams(f"{method}: invalid sessionId")
    return session_id


def check_absolute(method: str, field: str, path: str) -> str:
    if not os.path.isabs(path):
        raise InvalidParams(f"{method}: {field} must be an absolute path")
    return os.path.normpath(path)


def title_from(text: str) -> str:
    words = " ".join(text.split())
    return words if len(words) <= TITLE_LIMIT else words[: TITLE_LIMIT - 3] + "..."


class Sessions(SessionRuntime):
    def __init__(
        self,
        store: Store,
        config: Config,
        make_provider: Callable[[str], Provider],
        notify: Callable[[str, dict[str, Any]], None],
        request: Callable[[str, dict[str, Any]], Any] | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.make_provider = make_provider
        self.notify = notify
        self.request = request
        self.live: dict[str, Session] = {}
        self._inboxes: Any = None
        self.plugins: list[Plugin] | None = None  # read when the first session opens
        self._hooks: set[asyncio.Task[None]] = set()  # session_start hooks still running
        # Whether the client opted in to structured extension surfaces; set by the agent.
        self.surfaces_wanted: Callable[[], bool] = lambda: False
        # Reads config.toml again (strictly) and makes it the agent's; set by the agent.
        self.reload_config: Callable[[], tuple[Config, Callable[[str], Provider]]] | None = None

    # -- helpers ------------------------------------------------------------------------------

    def send(self, session: Session, update: dict[str, Any]) -> None:
        if update.get("sessionUpdate") == SURFACE_UPDATE and not self.surfaces_wanted():
            return  # the client did not opt in; it gets the text that follows
        self.notify(SESSION_UPDATE, {"sessionId": session.id, "update": update})

    def lookup(self, method: str, session_id: str) -> Session:
        session = self.live.get(session_id)
        if session is None:
            raise InvalidParams(f"{method}: unknown session {session_id}")
        return session

    def _opened_hooks(self, call: Call, session: Session, plan: bool) -> None:
        def after() -> None:
            self.send(
                session,
                {
                    "sessionUpdate": "available_commands_update",
                    "availableCommands": commands.available(session.plugins),
                },
            )
            if plan:
                self.send(session, {"sessionUpdate": "plan", "entries": session.record.plan})
            if any("session_start" in p.hooks for p in session.plugins):
                task = asyncio.get_running_loop().create_task(self._session_start(session))
                self._hooks.add(task)
                task.add_done_callback(self._hooks.discard)

        call.after_response(after)

    def show(self, session: Session, events: extensions.Events, turn: int) -> None:
        """Send events as a turn would and keep them in the transcript."""
        for kind, body in events:
            for update in updates(kind, body):
                self.send(session, update)
        self.store.append_events(session.id, turn, events)

    async def _session_start(self, session: Session) -> None:
        where = extensions.Where(session.id, session.record.cwd)
        events = await extensions.run_hooks(session.plugins, where, "session_start")
        if self.live.get(session.id) is session:  # not closed or deleted meanwhile
            self.show(session, events, session.record.turn_count)

    async def _session_end(self, session: Session) -> None:
        where = extensions.Where(session.id, session.record.cwd)
        await extensions.run_hooks(session.plugins, where, "session_end")

    def _store_call(self, method: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except LeaseHeld as exc:
            raise InvalidRequest(
                f"{method}: {exc}; close the other window or process first"
            ) from None
        except StoreError as exc:
            raise InternalError(f"{method}: {exc}") from None

    # -- session/new ---------------------------------------------------------------------------

    def new(self, call: Call, params: Any) -> dict[str, Any]:
        method = "session/new"
        cwd = check_absolute(method, "cwd", params.cwd)
        dirs = [
            check_absolute(method, f"additionalDirectories[{i}]", d)
            for i, d in enumerate(params.additional_directories or [])
        ]
        model = self.config.default_model
        if model is None:
            raise AuthRequired(f"{method}: {NO_PROVIDER}")
        record = SessionRecord(
            id=str(uuid.uuid4()),
            cwd=cwd,
            model=model,
            additional_directories=dirs,
            mcp_servers=[
                s.model_dump(mode="json", by_alias=True, exclude_unset=True)
                for s in params.mcp_servers
            ],
            approval=controls.DEFAULT_APPROVAL,
        )
        provider = self._provider(method, model)

        def create() -> None:
            self.store.create_session(record)
            self.store.acquire_lease(record.id)

        self._store_call(method, create)
        session = Session(record, provider, [])
        session.machine.fire("opened", "session is {state}")
        self.live[record.id] = session
        self._track(session)
        self._start_servers(session, record.mcp_servers)
        self._opened_hooks(call, session, plan=False)
        return {"sessionId": record.id, **session.opening_result(self.config)}

    def _provider(self, method: str, model: str) -> Provider:
        try:
            return self.make_provider(model)
        except ValueError as exc:
            raise InternalError(f"{method}: {exc}") from None

    # -- session/load and session/resume ------------------------------------------------------

    async def open_stored(self, call: Call, params: Any, replay: bool) -> dict[str, Any]:
        method = "session/load" if replay else "session/resume"
        session_id = check_session_id(method, params.session_id)
        live = self.live.get(session_id)
        record = live.record if live else self.store.get_session(session_id)
        if record is None:
            raise InvalidParams(f"{method}: unknown session {session_id}")
        if params.cwd is not None and params.cwd != "":
            cwd = check_absolute(method, "cwd", params.cwd)
            if cwd != record.cwd:
                raise InvalidParams(f"{method}: cwd {cwd} is not the session's cwd {record.cwd}")
        events = [(e.kind, e.body) for e in self.store.events(session_id)]
        given = params.mcp_servers
        servers = (
            [x.model_dump(mode="json", by_alias=True, exclude_unset=True) for x in given]
            if given is not None
            else None
        )
        restart = live is None or (servers is not None and servers != live.record.mcp_servers)
        if live is None:
            self._store_call(method, lambda: self.store.acquire_lease(session_id))

            if self.config.provider_for(record.model) is None and self.config.default_model:
                log.warning(
                    "session %s: model %s is not configured; using %s",
                    session_id,
                    record.model,
                    self.config.default_model,
                )
                record.model = self.config.default_model
                self.store.update_session(
                    session_id, model=record.model, updated_at=record.updated_at
                )

            unfinished = recovery.unfinished_calls(events)
            if unfinished:  # ended as the lost turn's sweep would have ended them
                closing = recovery.closing_updates(unfinished)
                self.store.append_events(session_id, record.turn_count, closing)
                events += closing
            live = Session(
                record,
                self._provider(method, record.model),
                history_from_events(events),
            )
            live.machine.fire("opened", "session is {state}")
            self.live[session_id] = live
            self._track(live, events)
            saved = next((body for kind, body in reversed(events) if kind == "status"), None)
            if saved is not None and saved.get("state") == "running":
                live.recovery = recovery.Offer(
                    recovery.recovery_id(session_id, int(saved.get("sequence", 0))),
                    [str(c.get("title", c.get("toolCallId"))) for c in unfinished],
                )
                live.status.protocol_recovery = live.recovery.id

            live.checkpoint = checkpoint_from(events)
        if servers is not None and servers != live.record.mcp_servers:
            live.record.mcp_servers = servers
            self.store.update_session(
                session_id, mcp_servers=servers, updated_at=live.record.updated_at
            )
        if restart:
            # The client's list for this opening is the session's set from now on.
            await live.stop_servers()
            self._start_servers(live, live.record.mcp_servers)
        if replay:
            for kind, body in events:
                if kind in REPLAYED:
                    for update in updates(kind, body):
                        self.send(live, update)
        self._opened_hooks(call, live, plan=True)
        return live.opening_result(self.config)

    # -- session/list --------------------------------------------------------------------------

    def _cursor(self, cwd: str | None, last: SessionRecord) -> str:
        payload = json.dumps([cwd, last.updated_at, last.id], separators=(",", ":")).encode()
        mac = hmac.new(self.store.secret(), payload, hashlib.sha256).digest()[:12]
        return base64.urlsafe_b64encode(mac + payload).decode().rstrip("=")

    def _uncursor(self, cwd: str | None, cursor: str) -> tuple[str, str]:
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
            mac, payload = raw[:12], raw[12:]
            good = hmac.compare_digest(
                mac, hmac.new(self.store.secret(), payload, hashlib.sha256).digest()[:12]
            )
            filt, updated_at, last_id = json.loads(payload)
        except (ValueError, TypeError):
            good = False
        if not good:
            raise InvalidParams(
                "session/list: unknown cursor (cursors come from a previous session/list)"
            )
        if filt != cwd:
            raise InvalidParams(
                "session/list: the cursor belongs to a listing with another cwd filter"
            )
        return updated_at, last_id

    def list(self, call: Call, params: Any) -> dict[str, Any]:
        cwd = check_absolute("session/list", "cwd", params.cwd) if params.cwd else None
        after = self._uncursor(cwd, params.cursor) if params.cursor else None
        live_ids = set(self.live)
        rows = [
            r
            for r in self.store.list_sessions(
                cwd, after, PAGE_SIZE + 1 + len(live_ids), prompted_only=False
            )
            if r.turn_count > 0 or r.id in live_ids
        ]
        page, more = rows[:PAGE_SIZE], len(rows) > PAGE_SIZE
        sessions = []
        for r in page:
            info: dict[str, Any] = {"sessionId": r.id, "cwd": r.cwd, "updatedAt": r.updated_at}
            if r.title:
                info["title"] = r.title
            if r.additional_directories:
                info["additionalDirectories"] = r.additional_directories
            sessions.append(info)
        result: dict[str, Any] = {"sessions": sessions}
        if more:
            result["nextCursor"] = self._cursor(cwd, page[-1])
        return result

    # -- session/close and session/delete -----------------------------------------------------

    async def _stop_turn(self, session: Session) -> None:
        task = session.turn_task
        if task is not None and not task.done():
            session.turn.request_cancel()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def close(self, call: Call | None, params: Any) -> dict[str, Any]:
        session_id = check_session_id("session/close", params.session_id)
        session = self.live.get(session_id)
        if session is None:
            return {}
        session.machine.fire("close", "session/close: session is {state}")
        await self._stop_turn(session)
        session.open_updates = False
        await self._session_end(session)
        await session.stop_servers()
        self.store.release_lease(session_id)
        session.machine.fire("closed", "session/close: session is {state}")
        self.live.pop(session_id, None)
        return {}

    async def delete(self, call: Call, params: Any) -> dict[str, Any]:
        session_id = check_session_id("session/delete", params.session_id)
        session = self.live.get(session_id)
        if session is not None:
            session.machine.fire("delete", "session/delete: session is {state}")
            await self._stop_turn(session)
            session.open_updates = False
            await self._session_end(session)
            await session.stop_servers()
            self.live.pop(session_id, None)
        try:
            self.store.delete_session(session_id)
            self.inboxes.drop(session_id)
        except StoreError as exc:
            raise InternalError(f"session/delete: {exc}") from None
        if session is not None:
            session.machine.fire("deleted", "session/delete: session is {state}")
        return {}

    async def close_all(self) -> None:
        async def close_one(session_id: str) -> None:
            try:
                await self.close(None, _Id(session_id))
            except (TransitionRefused, StoreError):
                log.exception("closing %s at shutdown", session_id)

        # Together, so every session's MCP servers stop within one grace period.
        await asyncio.gather(*(close_one(i) for i in list(self.live)))

    # -- controls ------------------------------------------------------------------------------

    def set_mode(self, call: Call, params: Any) -> dict[str, Any]:
        method = "session/set_mode"
        session = self.lookup(method, params.session_id)
        mode_id = params.mode_id.strip()
        approval = controls.LEGACY_MODES.get(mode_id)
        if approval is None and mode_id not in controls.MODE_IDS:
            raise InvalidParams(f"{method}: unknown modeId {params.mode_id}")
        mode = "normal" if approval else mode_id
        self._refuse_if_closing(method, session)
        changed_mode = mode != session.record.mode
        changed_approval = approval is not None and approval != session.record.approval
        session.record.mode = mode
        if approval:
            session.record.approval = approval
        self.store.update_session(
            session.id,
            mode=mode,
            approval=session.record.approval,
            updated_at=session.record.updated_at,
        )

        def after() -> None:
            if changed_mode:
                self.send(session, {"sessionUpdate": "current_mode_update", "currentModeId": mode})
            if changed_approval:
                self.send(
                    session,
                    {
                        "sessionUpdate": "config_option_update",
                        "configOptions": session.options(self.config),
                    },
                )

        call.after_response(after)
        return {}

    def _refuse_if_closing(self, method: str, session: Session) -> None:
        if session.machine.state not in (State.IDLE, State.PROMPTING, State.REBUILDING):
            raise InvalidRequest(f"{method}: session is {session.machine.state.value}")

    def set_config_option(self, call: Call, params: Any) -> dict[str, Any]:
        method = "session/set_config_option"
        request = params.root
        session = self.lookup(method, request.session_id)
        config_id = controls.normalise_config_id(request.config_id)
        value = request.value
        if config_id in controls.RETIRED:
            if not isinstance(value, str) or not controls.retired_value_ok(value):
                raise InvalidParams(
                    f'{method}: invalid value "{value}" for quality floor (accepted: standard, delivery; '
                    "legacy light folds to standard)"
                )
            return {
                "configOptions": session.options(self.config),
                "deprecatedNotice": controls.DEPRECATED_NOTICE,
            }
        options = session.options(self.config)
        allowed = controls.advertised_values(options, config_id)
        if allowed is None:
            raise InvalidParams(f"{method}: unknown config option {request.config_id}")
        if not isinstance(value, str):
            raise InvalidParams(f"{method}: {config_id} is a select option; its value is a string")
        if value not in allowed:
            raise InvalidParams(f"{method}: invalid value {value} for {config_id}")
        self._refuse_if_closing(method, session)
        self.apply(session, config_id, value)

        def after() -> None:
            self.send(
                session,
                {
                    "sessionUpdate": "config_option_update",
                    "configOptions": session.options(self.config),
                },
            )

        call.after_response(after)
        return {"configOptions": session.options(self.config)}

    def set_model(self, call: Call, params: Any) -> dict[str, Any]:
        method = "session/set_model"
        session = self.lookup(method, params.session_id)
        model = params.model_id.strip()
        if model not in controls.model_options(self.config, session.record.model):
            raise InvalidParams(f"{method}: invalid value {model} for model")
        self._refuse_if_closing(method, session)
        self.apply(session, "model", model)
        call.after_response(
            lambda: self.send(
                session,
                {
                    "sessionUpdate": "config_option_update",
                    "configOptions": session.options(self.config),
                },
            )
        )
        return {}

    def apply(self, session: Session, axis: str, value: str) -> None:
        """Change an axis now, or queue it when a turn is running (applied when it ends)."""
        if axis == "tool_approval":
            session.record.approval = value
            self.store.update_session(
                session.id, approval=value, updated_at=session.record.updated_at
            )
            return
        if session.machine.state is State.PROMPTING:
            session.queued[axis] = value
            if axis == "model":
                session.queued.pop("effort", None)
            return
        self.rebuild(session, {axis: value})

    def rebuild(self, session: Session, changes: dict[str, str]) -> None:
        """A new controller for a model or effort change; history and other axes carry over."""
        session.machine.fire("begin_rebuild", "session config: session is {state}")
        try:
            model = changes.get("model", session.record.model)
            effort = changes.get(
                "effort", session.record.effort if model == session.record.model else "auto"
            )
            provider = (
                self.make_provider(model) if model != session.record.model else session.provider
            )
            session.provider = provider
            session.record.model, session.record.effort = model, effort
            self.store.update_session(
                session.id, model=model, effort=effort, updated_at=session.record.updated_at
            )
        finally:
            session.machine.fire("end_rebuild", "session config: session is {state}")

    def apply_queued(self, session: Session) -> None:
        if not session.queued:
            return
        changes, session.queued = session.queued, {}
        try:
            self.rebuild(session, changes)
        except Exception as exc:
            log.exception("queued config change failed")
            self.send(
                session,
                {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {
                        "type": "text",
                        "text": f"\n\n[warning] session config switch failed after turn: {exc}",
                    },
                },
            )
        self.send(
            session,
            {
                "sessionUpdate": "config_option_update",
                "configOptions": session.options(self.config),
            },
        )

    def touch_title(self, session: Session, text: str) -> str | None:
        if session.record.title:
            return None
        title = title_from(text)
        if not title:
            return None
        session.record.title = title
        session.record.updated_at = now()
        self.store.update_session(session.id, title=title, updated_at=session.record.updated_at)
        return title


class _Id:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
