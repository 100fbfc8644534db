"""An MCP server's elicitation, put to the user of the turn that is running.

Where it goes, in order:
1. Clients that opted in to `reasonix.io.mcpInteraction` (exactly `{supported: true,
   schemaVersion: 1}`): `_reasonix.io/mcp/request_interaction` with the session, prompt and turn
   ids, the server name, the mode and message, and `requestedSchema` (form) or `url` +
   `elicitationId` (url).
2. Otherwise clients that advertise `elicitation.form` (or `.url` for url mode): the standard
   `elicitation/create`, scoped to the session and the tool call that is running.
3. Otherwise: cancel.

Rules:
- Only `accept`, `decline` and `cancel` count; a malformed reply, an unknown action, a transport
  error, or a URL with credentials in it (`https://user:secret@…`, never forwarded) or with a
  scheme other than http(s) all resolve as `cancel`. Content is kept only with `accept`.
- The decision is written to the transcript (an `mcp_interaction` event: server, mode, action,
  and the names of the fields answered, never their values) before the server gets its answer.
- A URL elicitation put to the client with `elicitation/create` and accepted is followed by
  `elicitation/complete` when its server says the interaction is done (MCP
  `notifications/elicitation/complete` with the same id); a completion for an elicitation the
  client never saw, or saw through the vendor route, is not forwarded.
- One `TurnInteractions` belongs to one turn. When the turn ends, questions still open are
  answered `cancel` and later replies cannot reach another turn: their request is cancelled,
  and a new turn has its own object.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlparse

from reasonix_acp.generated.methods import (
    ELICITATION_COMPLETE,
    ELICITATION_CREATE,
    REASONIX_MCP_REQUEST_INTERACTION,
)
from reasonix_acp.protocol.errors import AcpError, ConnectionClosed, RemoteError
from reasonix_acp.protocol.handshake import ClientFeatures

log = logging.getLogger("reasonix_acp.mcp")

CANCEL: dict[str, Any] = {"action": "cancel"}
ACTIONS = ("accept", "decline", "cancel")
Request = Callable[[str, dict[str, Any]], Awaitable[Any]]
Record = Callable[[dict[str, Any]], None]  # writes the decision to the transcript, durably
Notify = Callable[[str, dict[str, Any]], None]  # a notification to the client


def safe_url(url: Any) -> bool:
    if not isinstance(url, str):
        return False
    parsed = urlparse(url)
    return (
        parsed.scheme in ("http", "https")
        and bool(parsed.hostname)
        and parsed.username is None
        and parsed.password is None
    )


class TurnInteractions:
    def __init__(
        self,
        request: Request | None,
        client: ClientFeatures | None,
        session_id: str,
        prompt_id: str,
        turn_id: str,
        record: Record,
        call_id: Callable[[], str] = lambda: "",
        notify: Notify | None = None,
    ) -> None:
        self.request = request
        self.client = client
        self.session_id = session_id
        self.prompt_id = prompt_id
        self.turn_id = turn_id
        self.record = record
        self.call_id = call_id
        self.notify = notify
        self._urls: set[tuple[str, str]] = set()  # (server, elicitationId) the client accepted
        self.closed = False
        self._open: set[asyncio.Task[dict[str, Any]]] = set()
        # Made by the turn: its context names the client that sent the prompt. A question
        # arrives on the server link's own task (begun by whichever request started the
        # servers); it is asked in this context, so it goes to the turn's client (with
        # `acp serve`, the connection that prompted, not the one that opened the session).
        self._context = contextvars.copy_context()

    def close(self) -> None:
        """The turn ended: every open question is answered `cancel`."""
        self.closed = True
        for task in list(self._open):
            task.cancel()

    async def __call__(self, server: str, params: dict[str, Any]) -> dict[str, Any]:
        if self.closed or self.request is None:
            return CANCEL
        task = asyncio.get_running_loop().create_task(
            self._ask(server, params), context=self._context.copy()
        )
        self._open.add(task)
        try:
            answer = await asyncio.shield(task)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                task.cancel()  # the server withdrew the question
                raise
            answer = CANCEL  # the turn ended
        finally:
            self._open.discard(task)
        if self.closed and answer is not CANCEL:
            answer = CANCEL
        self.record(
            {
                "server": server,
                "mode": params.get("mode", "form"),
                "action": answer["action"],
                "fields": sorted(answer.get("content") or {}),
            }
        )
        return answer

    async def _ask(self, server: str, params: dict[str, Any]) -> dict[str, Any]:
        mode = params.get("mode") or "form"
        if mode not in ("form", "url"):
            return CANCEL
        if mode == "url" and not safe_url(params.get("url")):
            log.warning("MCP server %r asked to open an unsafe URL; cancelled", server)
            return CANCEL
        client = self.client
        if client is not None and client.mcp_interaction:
            method, body = REASONIX_MCP_REQUEST_INTERACTION, self._vendor(server, mode, params)
        elif client is not None and (
            client.elicitation_url if mode == "url" else client.elicitation_form
        ):
            method, body = ELICITATION_CREATE, self._standard(mode, params)
        else:
            return CANCEL
        assert self.request is not None
        try:
            reply = await self.request(method, body)
        except (RemoteError, ConnectionClosed, AcpError) as exc:
            log.warning("%s failed (%s); the MCP server gets cancel", method, exc)
            return CANCEL
        answer = answer_of(reply)
        if method == ELICITATION_CREATE and mode == "url" and answer["action"] == "accept":
            self._urls.add((server, body["elicitationId"]))
        return answer

    def completed(self, server: str, elicitation_id: str) -> None:
        """The server says a URL elicitation is done: the client hears it once."""
        if (server, elicitation_id) in self._urls and self.notify is not None:
            self._urls.discard((server, elicitation_id))
            self.notify(ELICITATION_COMPLETE, {"elicitationId": elicitation_id})

    def _vendor(self, server: str, mode: str, params: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "sessionId": self.session_id,
            "promptId": self.prompt_id,
            "turnId": self.turn_id,
            "server": server,
            "mode": mode,
            "message": str(params.get("message") or ""),
        }
        if mode == "form":
            body["requestedSchema"] = params.get("requestedSchema") or {"type": "object"}
        else:
            body["url"] = params["url"]
            body["elicitationId"] = str(params.get("elicitationId") or "")
        return body

    def _standard(self, mode: str, params: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "sessionId": self.session_id,
            "mode": mode,
            "message": str(params.get("message") or ""),
        }
        if self.call_id():
            body["toolCallId"] = self.call_id()
        if mode == "form":
            body["requestedSchema"] = params.get("requestedSchema") or {
                "type": "object",
                "properties": {},
            }
        else:
            body["url"] = params["url"]
            body["elicitationId"] = str(params.get("elicitationId") or "")
        return body


def answer_of(reply: Any) -> dict[str, Any]:
    data = reply.model_dump(mode="json", by_alias=True) if hasattr(reply, "model_dump") else reply
    if not isinstance(data, dict) or data.get("action") not in ACTIONS:
        return CANCEL
    if data["action"] != "accept":
        return {"action": data["action"]}
    content = data.get("content")
    if content is not None and not isinstance(content, dict):
        return CANCEL
    return {"action": "accept", "content": content or {}}
