"""Live sessions of this process, and the session methods over them and the store.

Every handler fires its session machine first (machines/session.py): a refusal is -32600 naming
the state, and nothing else has happened. Notifications that belong to a response (commands,
plan, config updates) are sent with `Call.after_response`. Close and delete run their work in
shielded tasks: a cancelled request still leaves the session closed or deleted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any

from reasonix_acp.generated.methods import SESSION_UPDATE
from reasonix_acp.machines._base import TransitionRefused
from reasonix_acp.plugins.surface import UPDATE as SURFACE_UPDATE
from reasonix_acp.protocol.errors import InternalError, InvalidParams, InvalidRequest
from reasonix_acp.protocol.framing import encode, notification
from reasonix_acp.protocol.router import Call
from reasonix_acp.providers import discovery
from reasonix_acp.reasonix_io.inbox import InboxError
from reasonix_acp.redact import redact
from reasonix_acp.session import verbatim
from reasonix_acp.session.checkpoint_rows import CheckpointRows
from reasonix_acp.session.listing import PAGE_SIZE, page, uncursor
from reasonix_acp.session.live import Session
from reasonix_acp.session.params import check_absolute, check_session_id
from reasonix_acp.session.projector import (
    GATED,
    Delta,
    Elsewhere,
    Fallback,
    delta_frame,
    live_updates,
    named,
    per_client,
)
from reasonix_acp.session.runtime import Runtime
from reasonix_acp.session.store import LeaseHeld, Store, StoreError
from reasonix_acp.tools.sandbox import engine as sandbox_engine
from reasonix_acp.tools.workspace import remove_session_temp

log = logging.getLogger("reasonix_acp.session.service")

SEND_BATCH = 64 << 10  # bytes of frames per write-queue operation in send_all
Events = list[tuple[str, dict[str, Any]]]
Request = Callable[[str, dict[str, Any]], Awaitable[Any]]
ARCHIVE_FILTERS = ("exclude", "include", "only")  # session/list's `archived`


class Sessions:
    def __init__(
        self,
        store: Store,
        runtime: Runtime,
        notify: Callable[[str, dict[str, Any]], None],
        request: Request | None = None,
    ) -> None:
        self.store = store
        self.runtime = runtime
        self.notify = notify
        self.request = request
        self.live: dict[str, Session] = {}
        self._tasks: set[asyncio.Future[Any]] = set()  # closes and deletes in flight
        self._hooks: set[asyncio.Future[Any]] = set()  # session_start hooks still running
        # Whether the client opted in to structured extension surfaces; set by the agent.
        self.surfaces_wanted: Callable[[], bool] = lambda: False
        # Whether the client advertised a capability ("compaction", "notices"); set by the agent.
        self.supports: Callable[[str], bool] = lambda capability: False
        # Returns once the client reads our output again (server/connection.py); set by the agent.
        self.writable: Callable[[], Awaitable[None]] | None = None
        # Sends one or more notifications already encoded (frames, each ending in a newline)
        # for a session (its id: who hears it, server/peers.py); set by the agent.
        self.notify_encoded: Callable[[str, bytes, str], None] | None = None
        # Sends a frame made for each client hearing the session, as it is served (`_shown`).
        self.notify_each: Callable[[str, str, Callable[[], bytes | None]], None] | None = None
        # Starts loading what a prompt needs in the background, the session's provider's
        # `prepare` on the way (server/warm.py); set by the agent.
        self.preload: Callable[[Callable[[], None]], None] | None = None

    # -- helpers ------------------------------------------------------------------------------

    def send(self, session: Session, update: dict[str, Any]) -> None:
        if not session.machine.publishing:
            return  # closed or deleted: its response was the last word
        if self.notify_encoded is None:
            update = update.decoded() if type(update) is verbatim.Encoded else update
            if self._shown(update):
                self.notify(SESSION_UPDATE, {"sessionId": _on(session, update), "update": update})
            return
        if self.notify_each is not None and per_client(update, SURFACE_UPDATE):  # as each asked
            self.notify_each(SESSION_UPDATE, session.id, lambda: self._frame(session, update))
            return
        data = self._frame(session, update)
        if data is not None:
            self.notify_encoded(SESSION_UPDATE, data, session.id)

    def send_all(self, session: Session, updates: Iterable[dict[str, Any]]) -> None:
        """`send` for each update, written in batches of about SEND_BATCH bytes (a replay sends
        thousands at once: one queue operation per batch rather than per frame). Nothing here
        awaits, so the session cannot close halfway through."""
        if not session.machine.publishing:
            return
        if self.notify_encoded is None:
            for update in updates:
                self.send(session, update)
            return
        batch: list[bytes] = []
        size = 0
        for update in updates:
            data = self._frame(session, update)
            if data is not None:
                batch.append(data)
                size += len(data)
            if size >= SEND_BATCH:
                self.notify_encoded(SESSION_UPDATE, b"".join(batch), session.id)
                batch, size = [], 0
        if batch:
            self.notify_encoded(SESSION_UPDATE, b"".join(batch), session.id)

    def _frame(self, session: Session, update: dict[str, Any]) -> bytes | None:
        """The `session/update` frame for update, or None when the client does not get it."""
        if type(update) is Delta:
            return delta_frame(session.templates, session.id, update)
        if not self._shown(update):
            return None
        if type(update) is verbatim.Encoded:
            return verbatim.frame(session.templates, session.id, update)
        params = {"sessionId": _on(session, update), "update": update}
        return encode(notification(SESSION_UPDATE, params))

    def _shown(self, update: dict[str, Any]) -> bool:
        """A structured extension surface goes only to a client that opted in; the others get
        the text that follows it. Compaction updates and notices go only to clients that
        advertise them; their fallback text only to the others."""
        kind = update.get("sessionUpdate")
        if kind == SURFACE_UPDATE:
            return self.surfaces_wanted()
        if type(update) is Fallback:
            return not self.supports(update.instead_of)
        if type(update) is Elsewhere:
            return self.supports("subagents")
        gate = GATED.get(kind)  # type: ignore[arg-type]
        return gate is None or self.supports(gate)

    def send_usage(self, session: Session, cost: dict[str, Any] | None = None) -> None:
        """`usage_update`: the tokens in the context now, of the model's context size."""
        size = session.provider.context_window
        update: dict[str, Any] = {
            "sessionUpdate": "usage_update",
            "used": session.used,
            "size": size,
        }
        if cost is not None:
            update["cost"] = cost
        self.send(session, update)

    def show(self, session: Session, events: Events, turn: int) -> None:
        """Send events as a live turn does, and keep them in the transcript."""
        events = [(kind, named(kind, body)) for kind, body in events]
        for kind, body in events:
            for update in live_updates(kind, body):
                self.send(session, update)
        self.store.append_events(session.id, turn, events)

    def lookup(self, method: str, session_id: str) -> Session:
        session = self.live.get(session_id)
        if session is None:
            raise InvalidParams(f"{method}: unknown session {session_id}")
        return session

    def commands_when_connected(self, session: Session) -> None:
        """Once the session's MCP servers have connected, the command list again if they
        offer prompts (`/mcp__<server>__<prompt>`, mcp_servers/prompts.py)."""
        servers = session.servers
        if not servers:
            return

        async def announce() -> None:
            await servers.settled()
            if session.servers is servers and session.prompt_commands()[0]:
                update = {
                    "sessionUpdate": "available_commands_update",
                    "availableCommands": session.available_commands(),
                }
                self.send(session, update)

        self.spawn(announce(), hook=True)

    def warm(self, session: Session) -> None:
        """After an opening's response: the prompt path starts loading and the provider connects
        to its endpoint, while the user writes the prompt; an endpoint unreachable now is said in
        the session's status (`endpointAtOpen`) until a turn tries it again."""
        if self.preload is not None:
            self.preload(session.provider.prepare)
        if session.config.sandbox.mode != "off":  # the sandbox engine's probe, once per process
            threading.Thread(target=sandbox_engine, name="acp-probe", daemon=True).start()
        self.spawn(self._warm_provider(session), hook=True)

    async def _warm_provider(self, session: Session) -> None:
        provider, config = session.provider, session.config
        size = provider.context_window
        problem, listed = await discovery.warm_up(provider, config, session.record.model)
        if provider.context_window != size and session.provider is provider:
            self.send_usage(session)  # the endpoint told the model's context size
        if problem is not None and session.provider is provider:  # not replaced meanwhile
            log.info("session %s: the model endpoint is unreachable: %s", session.id, problem)
            session.status.opened_unreachable(problem)
        for each in list(self.live.values()) if listed else ():
            if each.config is config:  # its model choices grew
                self.send(each, each.config_update())

    def spawn(self, work: Coroutine[Any, Any, Any], hook: bool = False) -> asyncio.Future[Any]:
        """A task the shutdown waits for (hooks: cancels)."""
        tasks = self._hooks if hook else self._tasks
        task = asyncio.ensure_future(work)
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        return task

    def store_call(self, method: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except LeaseHeld as exc:
            raise InvalidRequest(
                f"{method}: {exc}; close the other window or process first"
            ) from None
        except StoreError as exc:
            raise InternalError(f"{method}: {exc}") from None

    # -- session/list --------------------------------------------------------------------------

    def list(self, call: Call, params: Any) -> dict[str, Any]:
        cwd = check_absolute("session/list", "cwd", params.cwd) if params.cwd else None
        archived = params.archived or "exclude"
        if archived not in ARCHIVE_FILTERS:
            raise InvalidParams(
                f"session/list: archived must be exclude, include or only, not {archived!r}"
            )
        after = uncursor(self.store.secret(), cwd, params.cursor) if params.cursor else None
        # Prompted sessions and those live here; the store filters before its LIMIT, so one row
        # past the page means there is a next page.
        live_ids = list(self.live)
        rows = self.store_call(
            "session/list",
            lambda: self.store.list_sessions(
                cwd, after, PAGE_SIZE + 1, live=live_ids, archived=archived
            ),
        )
        return page(rows, cwd, self.store.secret)

    # -- session/close and session/delete -----------------------------------------------------

    async def close(self, call: Call | None, params: Any) -> dict[str, Any]:
        session_id = check_session_id("session/close", params.session_id)
        session = self.live.get(session_id)
        if session is None:
            return {}
        session.machine.fire("close", "session/close: session is {state}")
        if session.closing is None:
            session.closing = self.spawn(self._close(session))
        await asyncio.shield(session.closing)
        return {}

    async def delete(self, call: Call | None, params: Any) -> dict[str, Any]:
        method = "session/delete"
        session_id = check_session_id(method, params.session_id)
        session = self.live.get(session_id)
        if session is None:
            self._delete_stored(method, session_id)
            return {}
        session.machine.fire("delete", f"{method}: session is {{state}}")
        if session.deleting is None:
            session.deleting = self.spawn(self._delete(method, session))
        await asyncio.shield(session.deleting)
        return {}

    def _delete_stored(self, method: str, session_id: str) -> None:
        """A session not live here; refused while another live process holds it.

        Deleting it from the store is the delete: once that has committed, the answer says so.
        Its inbox and temp directory are cleared after; a failure there (the inbox file locked
        by another process past the busy timeout) is logged and leaves orphaned rows behind
        rather than reporting a failure for a session that is gone."""
        self.store_call(method, lambda: CheckpointRows(self.store).delete_session(session_id))
        try:
            self.runtime.inboxes.drop(session_id)
        except (sqlite3.Error, InboxError) as exc:
            log.warning("session %s deleted; its inbox could not be cleared: %s", session_id, exc)
        remove_session_temp(session_id)

    def _teardown(self, session: Session) -> asyncio.Future[None]:
        """Stop the turn, run session_end hooks, stop the servers, release the lease: once,
        shared by a close and a delete of the same session."""
        if session.teardown is None:
            session.teardown = self.spawn(self._stop(session))
        return session.teardown

    async def _stop(self, session: Session) -> None:
        task = session.turn_task
        if task is not None and not task.done():
            session.turn.request_cancel()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        session.open_updates = False
        try:
            await session.run_hooks("session_end")
        finally:
            await session.stop_background()
            await session.stop_servers()
            close = getattr(session.provider, "aclose", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    await close()
            try:
                self.store.release_lease(session.id)
            except StoreError:
                log.exception("session %s: releasing the lease failed", session.id)

    async def _close(self, session: Session) -> None:
        try:
            await asyncio.shield(self._teardown(session))
        finally:
            session.machine.fire("closed", "session/close: session is {state}")
            if session.deleting is None:
                self.live.pop(session.id, None)

    async def _delete(self, method: str, session: Session) -> None:
        try:
            await asyncio.shield(self._teardown(session))
            self._delete_stored(method, session.id)
        finally:
            session.machine.fire("deleted", f"{method}: session is {{state}}")
            self.live.pop(session.id, None)

    async def close_ids(self, session_ids: Iterable[str]) -> None:
        """These sessions closed, together, so every one's MCP servers stop within one grace
        period (the last client that held them left)."""

        async def close_one(session_id: str) -> None:
            try:
                await self.close(None, _Id(session_id))
            except (TransitionRefused, StoreError, InternalError):
                log.exception("closing %s", session_id)

        await asyncio.gather(*(close_one(i) for i in session_ids))

    async def close_all(self) -> None:
        """End of input or a signal: every session closed, hooks stopped, nothing left running."""
        for hook in list(self._hooks):
            hook.cancel()
        await self.close_ids(list(self.live))
        pending = [*self._tasks, *self._hooks]
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)

    # -- _reasonix.io/session/status -----------------------------------------------------------

    def status(self, call: Call, params: Any) -> dict[str, Any]:
        """`_reasonix.io/session/status`: the session's status object, as of now."""
        session = self.lookup("_reasonix.io/session/status", params.session_id)
        record = session.record
        session.status.controls(record.model, session.effort, record.mode)
        snapshot: dict[str, Any] = session.status.snapshot()
        if running := session.background():
            snapshot["backgroundCommands"] = running
        if session.children:
            children = session.children.items()
            snapshot["subagents"] = [{"sessionId": i, "title": c.title} for i, c in children]
        return snapshot

    def keep_goal(self, session: Session, method: str, turn: int, quiet: bool = False) -> None:
        """The session's goal, stored (a `goal` transcript event). A failed write answers
        -32603 `<method>: persist goal: …`, or, `quiet`, is only logged (the turn's answer is
        decided by then)."""
        try:
            self.store.append_events(session.id, turn, [("goal", session.goal.snapshot())])
        except (StoreError, OSError, sqlite3.Error) as exc:
            if quiet:
                log.error("session %s: persist goal: %s", session.id, exc)
                return
            raise InternalError(f"{method}: persist goal: {redact(str(exc))}") from None


def _on(session: Session, update: dict[str, Any]) -> str:
    """The session an update is sent on: a subagent's own, else `session`."""
    child = update.session_id if type(update) is Elsewhere else None
    return child or session.id


class _Id:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
