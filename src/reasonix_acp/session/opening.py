"""Sessions opening: `session/new`, `session/load` (with replay) and `session/resume`.

Rules:
- A stored session is made live under this process's lease; one that another live process
  holds is refused with -32600 naming the holder.
- Opening repairs what a lost process left: a model no longer configured is replaced by the
  default, tool calls with no end get a failed end, and the interrupted turn becomes a
  protocol-recovery offer; an open readiness checkpoint is found again; a rewind cut short is
  finished, or its plan set aside when it cannot be read, and what it left is told by the
  session's next turn (session/rewind.py).
- A session live here is opened again only while idle (the session machine's `reopen`); the
  replay and the servers' restart (for a changed `mcpServers`) happen before the response.
- After the response: the command list, the plan if the session has one, session_start hooks.
"""

from __future__ import annotations

from typing import Any

from reasonix_acp.config import NO_PROVIDER
from reasonix_acp.config.mcp_entries import secret_values
from reasonix_acp.ids import uuid4
from reasonix_acp.protocol.errors import AuthRequired, InternalError, InvalidParams
from reasonix_acp.protocol.router import Call
from reasonix_acp.providers.discovery import complete, confirm
from reasonix_acp.reasonix_io import recovery
from reasonix_acp.reasonix_io.readiness import checkpoint_from
from reasonix_acp.redact import remember
from reasonix_acp.session import client_prompt, controls, fork_point
from reasonix_acp.session.images import replayable
from reasonix_acp.session.live import Session
from reasonix_acp.session.params import check_absolute, check_cwd, check_session_id
from reasonix_acp.session.projector import REPLAYED, updates
from reasonix_acp.session.rewind import Rewinds
from reasonix_acp.session.service import Events, Sessions, log
from reasonix_acp.session.store_rows import SessionRecord
from reasonix_acp.tools.workspace import session_temp


class Opening:
    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions
        self.rewinds = Rewinds(sessions)  # a rewind a lost process left is finished on opening

    def _opened(
        self, call: Call, session: Session, shown: list[Any] | None = None, stored: bool = False
    ) -> None:
        """After the response: commands; for a `stored` session (load, resume) its current
        plan, empty to clear the editor's, unless the replay just `shown` the same; its usage;
        session_start hooks."""

        def after() -> None:
            self.sessions.send(
                session,
                {
                    "sessionUpdate": "available_commands_update",
                    "availableCommands": session.available_commands(),
                },
            )
            plan = session.record.plan or []
            if stored and plan != shown:
                for update in updates("plan", {"entries": plan}):
                    self.sessions.send(session, update)
            if stored and session.record.turn_count:  # how full its context is
                self.sessions.send_usage(session)
            self.sessions.warm(session)
            self.sessions.commands_when_connected(session)
            if session.hooked("session_start"):
                self.sessions.spawn(self._session_start(session), hook=True)

        call.after_response(after)

    async def _session_start(self, session: Session) -> None:
        events = await session.run_hooks("session_start")
        if session.machine.publishing and events:
            self.sessions.show(session, events, session.record.turn_count)

    def _servers(self, given: list[Any]) -> list[dict[str, Any]]:
        """The client's `mcpServers` as stored; those it provides over ACP are declared on
        this connection (mcp_servers/acp_channel.py)."""
        servers = _servers(given)
        channel = self.sessions.runtime.mcp_channel
        if channel is not None:
            channel.declare(servers)
        return servers

    def _build(self, method: str, record: SessionRecord, events: Events) -> Session:
        try:
            return self.sessions.runtime.build(record, events)
        except ValueError as exc:
            raise InternalError(f"{method}: {exc}") from None

    # -- session/new ---------------------------------------------------------------------------

    async def new(self, call: Call, params: Any) -> dict[str, Any]:
        method = "session/new"
        cwd = check_absolute(method, "cwd", params.cwd)
        dirs = _directories(method, params)
        system_prompt = client_prompt.given(method, params)
        config = self.sessions.runtime.config
        listed = None if config.unreadable else await complete(config)
        refusal = config.refusal()
        if refusal is not None or config.default_model is None:
            raise AuthRequired(f"{method}: {listed or refusal or NO_PROVIDER}")
        model = config.default_model
        unknown = config.unknown_model(model) if config.provider_for(model) is None else None
        if unknown is None and model not in config.model_ids():  # a typo, or a model unlisted
            unknown = await confirm(config, model)
        if unknown is not None:
            raise InvalidParams(f"{method}: {unknown} (from --model, ACP_MODEL or default_model)")
        servers = self._servers(params.mcp_servers)
        record = SessionRecord(
            id=uuid4(),
            cwd=cwd,
            model=model,
            additional_directories=dirs,
            mcp_servers=servers,
            approval=controls.DEFAULT_APPROVAL,
            system_prompt=system_prompt,
        )
        session = self._build(method, record, [])
        if config.retired_default is not None:  # the default model was named by a retired id
            session.notices.append(config.retired_notice(config.retired_default, model))

        self.sessions.store_call(
            method, lambda: self.sessions.store.create_session(record, leased=True)
        )
        session.machine.fire("opened", "session is {state}")
        self.sessions.live[record.id] = session
        self.sessions.runtime.start_servers(session)
        self._opened(call, session)
        return {"sessionId": record.id, **session.opening_result()}

    # -- session/fork (unstable) -----------------------------------------------------------

    async def fork(self, call: Call, params: Any) -> dict[str, Any]:
        """A new session whose transcript is a copy of the source's as stored now, with its own
        id, lease, inbox, temp and MCP servers, opened as a resume would open it (its model
        reads the same history); the source is only read, whatever it is doing."""
        method = "session/fork"
        source_id = check_session_id(method, params.session_id)
        cwd = check_absolute(method, "cwd", params.cwd)
        dirs = _directories(method, params)
        system_prompt = client_prompt.given(method, params)
        source = self.sessions.store_call(
            method, lambda: self.sessions.store.get_session(source_id)
        )
        if source is None:
            raise InvalidParams(f"{method}: unknown session {source_id}")
        through, plan = self._fork_point(method, source_id, params.field_meta, source.plan)
        servers = self._servers(params.mcp_servers or [])
        record = SessionRecord(
            id=uuid4(),
            cwd=cwd,
            model=source.model,
            additional_directories=dirs,
            mcp_servers=servers,
            title=source.title,
            effort=source.effort,
            mode=source.mode,
            approval=source.approval,
            plan=plan,
            system_prompt=source.system_prompt if system_prompt is None else system_prompt,
        )
        forked = self.sessions.store_call(
            method, lambda: self.sessions.store.fork_session(source_id, record, through)
        )
        if not forked:  # deleted meanwhile
            raise InvalidParams(f"{method}: unknown session {source_id}")
        try:
            session, _ = self._restore(method, record)
        except BaseException:
            self.sessions.store.release_lease(record.id)
            raise
        self.sessions.live[record.id] = session
        try:
            self.sessions.runtime.start_servers(session)
        finally:
            session.machine.fire("opened", f"{method}: session is {{state}}")
        self._opened(call, session, stored=True)
        opened = session.opening_result()  # ForkSessionResponse has no legacy `models`
        return {
            "sessionId": record.id,
            "modes": opened["modes"],
            "configOptions": opened["configOptions"],
        }

    def _fork_point(
        self, method: str, source_id: str, meta: Any, plan: list[dict[str, Any]]
    ) -> tuple[int | None, list[dict[str, Any]]]:
        """The last turn a fork keeps (None: all of them) and its plan as of then
        (session/fork_point.py)."""
        given = fork_point.message_id(method, meta)
        if given is None:
            return None, plan
        live = self.sessions.live.get(source_id)
        busy = live is not None and live.turn.state.value != "idle"
        events = self.sessions.store_call(
            method, lambda: list(self.sessions.store.events(source_id))
        )
        through = fork_point.turn_ending_at(method, events, given, busy)
        kept = [e.body.get("entries") for e in events if e.kind == "plan" and e.turn <= through]
        return through, (kept[-1] if kept else None) or []

    # -- session/load and session/resume ------------------------------------------------------

    async def open_stored(self, call: Call, params: Any, replay: bool) -> dict[str, Any]:
        method = "session/load" if replay else "session/resume"
        session_id = check_session_id(method, params.session_id)
        system_prompt = client_prompt.given(method, params)
        given = params.mcp_servers
        servers = self._servers(given) if given is not None else None
        live = self.sessions.live.get(session_id)
        if live is not None:
            opening = (params.cwd, servers, system_prompt)
            return await self._reopen(call, method, live, opening, replay)
        record = self.sessions.store_call(
            method, lambda: self.sessions.store.get_session(session_id)
        )
        if record is None:
            raise InvalidParams(f"{method}: unknown session {session_id}")
        check_cwd(method, params.cwd, record)
        self.sessions.store_call(method, lambda: self.sessions.store.acquire_lease(session_id))
        if record.archived:  # a session in use is not archived
            record.archived = False
            self.sessions.store.update_session(session_id, archived=False, touch=False)
        try:
            recovered = self.sessions.store_call(method, lambda: self.rewinds.recover(session_id))
            if recovered.finished:
                record = self.sessions.store_call(
                    method, lambda: self.sessions.store.get_session(session_id)
                )
            session, events = self._restore(method, record)
            if recovered.notice:  # what a lost process's rewind left, told once
                session.notices.append(recovered.notice)
        except BaseException:
            self.sessions.store.release_lease(session_id)
            raise
        if servers is not None and servers != record.mcp_servers:
            record.mcp_servers = servers
            self.sessions.store.update_session(session_id, mcp_servers=servers, touch=False)
        self._keep(record, system_prompt)
        self.sessions.live[session_id] = session
        shown = None
        try:
            self.sessions.runtime.start_servers(session)
            if replay:
                shown = self._replay(session, events)
        finally:
            session.machine.fire("opened", f"{method}: session is {{state}}")
        self._opened(call, session, shown, stored=True)
        return session.opening_result()

    def _keep(self, record: SessionRecord, system_prompt: str | None) -> None:
        """A client's systemPrompt given on load or resume is the session's from now on (its
        next turn's system message); none given keeps the stored one."""
        if system_prompt is not None and system_prompt != record.system_prompt:
            record.system_prompt = system_prompt
            self.sessions.store.update_session(record.id, system_prompt=system_prompt, touch=False)

    async def _reopen(
        self,
        call: Call,
        method: str,
        session: Session,
        opening: tuple[str | None, list[dict[str, Any]] | None, str | None],
        replay: bool,
    ) -> dict[str, Any]:
        """Load or resume of a session live in this process: only while it is idle. `opening`:
        the request's cwd, MCP servers and systemPrompt text."""
        cwd, servers, system_prompt = opening
        check_cwd(method, cwd, session.record)
        session.machine.fire("reopen", f"{method}: session is {{state}}")
        try:
            self._keep(session.record, system_prompt)
            events = self.sessions.store_call(
                method, lambda: self.sessions.store.transcript(session.id)
            )
            if servers is not None and servers != session.record.mcp_servers:
                # The client's list for this opening is the session's set from now on.
                session.record.mcp_servers = servers
                self.sessions.store.update_session(session.id, mcp_servers=servers, touch=False)
                await session.stop_servers()
                self.sessions.runtime.start_servers(session)
            shown = self._replay(session, events) if replay else None
        finally:
            session.machine.fire("opened", f"{method}: session is {{state}}")
        self._opened(call, session, shown, stored=True)
        return session.opening_result()

    def _restore(self, method: str, record: SessionRecord) -> tuple[Session, Events]:
        """A stored session made live: stale model replaced, interrupted calls closed, the
        protocol-recovery offer and the readiness checkpoint found again."""
        session_id = record.id
        events = self.sessions.store_call(
            method, lambda: self.sessions.store.transcript(session_id)
        )
        config = self.sessions.runtime.config
        if config.provider_for(record.model) is None and config.default_model:
            log.warning(
                "session %s: model %s is not configured; using %s",
                session_id,
                record.model,
                config.default_model,
            )
            record.model = config.default_model
            self.sessions.store.update_session(session_id, model=record.model, touch=False)
        current = config.retired(record.model)
        if current is not None:
            notice = config.retired_notice(record.model, current)
            record.model, record.effort = current, "auto"
            self.sessions.store.update_session(
                session_id, model=current, effort="auto", touch=False
            )
        unfinished = recovery.unfinished_calls(events)
        if unfinished:  # ended as the lost turn's sweep would have ended them
            closing = recovery.closing_updates(unfinished)
            self.sessions.store.append_events(session_id, record.turn_count, closing)
            events += closing
        session = self._build(method, record, events)
        if current is not None:
            session.notices.append(notice)
        saved = next((body for kind, body in reversed(events) if kind == "status"), None)
        if saved is not None and saved.get("state") == "running":
            session.recovery = recovery.Offer(
                recovery.recovery_id(session_id, saved.get("sequence", 0)),
                [str(c.get("title", c.get("toolCallId"))) for c in unfinished],
            )
            session.status.protocol_recovery = session.recovery.id
        session.checkpoint = checkpoint_from(events)
        return session, events

    def _replay(self, session: Session, events: Events) -> list[Any] | None:
        """Send the transcript again; returns the last plan it showed."""
        plan = next(
            (body.get("entries") for kind, body in reversed(events) if kind == "plan"), None
        )
        budget = session.config.frame_budget

        def temp() -> str:
            return session_temp(session.id)

        self.sessions.send_all(
            session,
            (
                replayable(update, budget, temp) if kind == "user_message" else update
                for kind, body in events
                if kind in REPLAYED
                for update in updates(kind, body)
            ),
        )
        return plan


def _directories(method: str, params: Any) -> list[str]:
    """`additionalDirectories`, each absolute (else -32602 naming it)."""
    return [
        check_absolute(method, f"additionalDirectories[{i}]", d)
        for i, d in enumerate(params.additional_directories or [])
    ]


def _servers(given: list[Any]) -> list[dict[str, Any]]:
    """`mcpServers` as stored, their secret values remembered for redaction."""
    servers = [s.model_dump(mode="json", by_alias=True, exclude_unset=True) for s in given]
    remember(*secret_values(servers))
    return servers
