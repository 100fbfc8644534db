"""One connection to one MCP server, through the official `mcp` SDK.

Invariants:
- The SDK's transports and session are async context managers whose cancel scopes must be
  entered and left by the same task, so each link owns one task (`_serve`) that opens them,
  reports ready (or failed), then waits for `stop`. Calls from turns go through the open
  session; `stop` sets an event and waits for that task to unwind, so a stdio child is stopped
  and reaped by the SDK before `stop` returns (stdin closed, then SIGTERM/SIGKILL of its process
  group; the grace period is lowered to 1 s here so a stuck server is gone within 2 s).
- A link that fails to start, or whose server dies, is `failed` with the reason; it never
  raises into the session. `/mcp reconnect` starts a fresh link from the same spec.
- A stdio server starts in the agent's own directory outside the workspace, as a program the
  workspace cannot choose, with the SDK's environment (launch.py: why, and `cwd` in config.toml
  to choose the directory); its stderr is ours. Every server is offered the session's roots (its
  cwd and additional directories, as file:// URIs) through MCP `roots/list`: that is how it
  learns the workspace.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from reasonix_acp.config.mcp_entries import WITHHELD
from reasonix_acp.mcp_servers.launch import Launch, NotStarted, launch
from reasonix_acp.redact import redact

log = logging.getLogger("reasonix_acp.mcp")

CONNECT_TIMEOUT = 20.0
STOP_TIMEOUT = 5.0
# (server name, elicitation params as a dict) → the MCP ElicitResult as a dict
Elicit = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
# (server name, elicitation id): the server said a URL elicitation is complete
Completed = Callable[[str, str], None]
ELICITATION_COMPLETE = "notifications/elicitation/complete"


class Link:
    def __init__(
        self,
        spec: dict[str, Any],
        cwd: str,
        elicit: Elicit | None = None,
        completed: Completed | None = None,
        extra: Sequence[str] = (),
    ) -> None:
        """Without `elicit` the server is not told the host can elicit. `cwd` and `extra` (the
        session's additional directories) are the roots the server is offered."""
        self.spec = spec
        self.name: str = spec["name"]
        self.cwd = cwd
        self.roots = [cwd, *(d for d in extra if d != cwd)]
        self._launch: Launch | None = None
        self.elicit = elicit
        self.completed = completed
        self.state = "stopped"  # connecting | connected | failed | stopped
        self.error: str | None = None
        self.tools: list[Any] = []  # mcp.types.Tool
        self.prompts: list[Any] = []  # mcp.types.Prompt, where the server offers prompts
        self.server_info: str = ""
        self._session: Any = None
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._stale = False  # the server said its tool list changed
        self.reported = False  # the failure was shown to the user

    @property
    def transport(self) -> str:
        return str(self.spec.get("type") or "stdio")

    def start(self) -> None:
        self.state, self.error = "connecting", None
        self._ready.clear()
        self._stop.clear()
        withheld = self.spec.get(WITHHELD)
        if withheld:  # a stored copy: connecting without its credentials would only fail
            self._fail(
                f"not started: its credentials ({', '.join(withheld)}) were not stored; the "
                "client must send mcpServers again (session/load, or session/resume with "
                "mcpServers) to connect it"
            )
            self._ready.set()
            return
        if self.transport == "stdio":
            try:
                self._launch = launch(self.spec, self.roots)
            except NotStarted as exc:
                self._fail(f"not started: {exc}")
                self._ready.set()
                return
        self._task = asyncio.get_running_loop().create_task(self._serve())

    async def ready(self, timeout: float = CONNECT_TIMEOUT) -> None:
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except TimeoutError:
            self._fail(f"did not finish connecting within {timeout:g} s")
            await self.stop()
            self.state = "failed"

    async def stop(self) -> None:
        task, self._task = self._task, None
        self._stop.set()
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), STOP_TIMEOUT)
            except TimeoutError:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if self.state != "failed":
            self.state = "stopped"
        self._session = None

    def _fail(self, reason: str) -> None:
        self.state, self.error = "failed", redact(reason, 500)
        self.reported = False
        log.warning("MCP server %r: %s", self.name, reason)

    # -- the serving task -----------------------------------------------------------------

    def _transport(self) -> Any:
        spec = self.spec
        if self.transport == "stdio":
            from mcp.client import stdio

            stdio.PROCESS_TERMINATION_TIMEOUT = 1.0
            assert self._launch is not None  # start() found it
            command, args, env, cwd = self._launch
            params = stdio.StdioServerParameters(command=command, args=args, env=env, cwd=cwd)
            return stdio.stdio_client(params, errlog=sys.stderr)
        headers = {h["name"]: h["value"] for h in spec.get("headers") or []}
        if self.transport == "sse":
            from mcp.client.sse import sse_client

            return sse_client(spec["url"], headers=headers)
        return _streamable_http(spec["url"], headers)

    async def _serve(self) -> None:
        from mcp.client.session import ClientSession

        try:
            async with contextlib.AsyncExitStack() as stack:
                streams = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(
                    ClientSession(
                        streams[0],
                        streams[1],
                        elicitation_callback=self._on_elicit if self.elicit else None,
                        list_roots_callback=self._on_roots,
                        message_handler=self._on_message,
                    )
                )
                init = await session.initialize()
                info = getattr(init, "server_info", None)
                self.server_info = f"{info.name} {info.version}" if info else ""
                self._session = session
                self.tools = await self._list_tools()
                if getattr(getattr(init, "capabilities", None), "prompts", None) is not None:
                    self.prompts = await self._list_prompts()
                self.state = "connected"
                self._ready.set()
                await self._stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # the SDK raises exception groups from its task groups
            if self.state != "stopped" and not self._stop.is_set():
                self._fail(_reason(exc))
        finally:
            self._session = None
            self._ready.set()
            if self.state == "connected":
                self.state = "stopped" if self._stop.is_set() else "failed"
                if self.state == "failed":
                    self._fail("the server closed the connection")

    async def _list_tools(self) -> list[Any]:
        from mcp import types

        tools: list[Any] = []
        cursor: str | None = None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await self._session.list_tools(params=params)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                return tools

    async def _list_prompts(self) -> list[Any]:
        """The server's prompts; none when it fails to list them (its tools still work)."""
        try:
            return list((await self._session.list_prompts()).prompts)
        except Exception as exc:
            log.warning("MCP server %r: listing its prompts failed: %s", self.name, exc)
            return []

    async def _on_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method == "notifications/tools/list_changed":
            self._stale = True
        elif method == ELICITATION_COMPLETE and self.completed is not None:
            found = getattr(getattr(message, "params", None), "elicitation_id", None)
            if isinstance(found, str):
                self.completed(self.name, found)
        elif isinstance(message, Exception):
            log.warning("MCP server %r sent something unreadable: %s", self.name, message)

    async def _on_roots(self, context: Any) -> Any:
        from mcp import types

        roots = [
            types.Root(uri=Path(root).as_uri(), name=os.path.basename(root.rstrip("/")) or root)
            for root in self.roots
            if os.path.isabs(root)
        ]
        return types.ListRootsResult(roots=roots)

    async def _on_elicit(self, context: Any, params: Any) -> Any:
        from mcp import types

        assert self.elicit is not None
        data = params.model_dump(mode="json", by_alias=True, exclude_none=True)
        answer = await self.elicit(self.name, data)
        return types.ElicitResult.model_validate(answer)

    # -- what turns use -------------------------------------------------------------------

    async def refresh(self) -> bool:
        """Re-read the tool list if the server said it changed; True when it did."""
        if not self._stale or self._session is None:
            return False
        self._stale = False
        try:
            self.tools = await self._list_tools()
        except Exception as exc:
            log.warning("MCP server %r: tool list refresh failed: %s", self.name, exc)
            return False
        return True

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        session = self._session
        if session is None:
            raise ConnectionError(f"MCP server {self.name} is {self.state}")
        return await session.get_prompt(name, arguments)

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        session = self._session
        if session is None:
            raise ConnectionError(f"MCP server {self.name} is {self.state}")
        try:
            return await session.call_tool(tool, arguments)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if self._task is None or self._task.done():
                self._fail(_reason(exc))
            raise


def _streamable_http(url: str, headers: dict[str, str]) -> Any:
    import httpx2  # the HTTP client the SDK's transports take
    from mcp.client.streamable_http import streamable_http_client

    @contextlib.asynccontextmanager
    async def connect() -> Any:
        # The SDK's own defaults: 30 s to connect or write, 300 s for a held-open stream.
        timeout = httpx2.Timeout(30.0, read=300.0)
        async with (
            httpx2.AsyncClient(headers=headers, timeout=timeout) as client,
            streamable_http_client(url, http_client=client) as streams,
        ):
            yield streams

    return connect()


def _reason(exc: BaseException) -> str:
    """The innermost useful message of an exception (group)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
