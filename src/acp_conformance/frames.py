"""Reading the agent's frames for a scenario: one loop for responses, notifications, the
agent's own requests (answered by the client side as they come, and kept in order with the
notifications), cancel windows and quiet windows.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from acp_conformance.checks import TURN_CONTENT, obj
from acp_conformance.client import Client
from acp_conformance.model import ModelServer
from acp_conformance.process import Agent
from acp_conformance.remote import RemoteAgent
from acp_conformance.results import Lost, Skip

SESSION_OPENERS = ("session/new", "session/load", "session/resume")
CLIENT_METHODS = ("fs/", "terminal/", "session/request_permission", "elicitation/")
# The wait for an agent's first frame at least (--start-timeout): --timeout is for answers, and
# a process may take far longer to start (an interpreter loading its packages, a busy machine:
# public agents were seen taking 10-30 s).
START_SECONDS = 30.0


class Frames:
    def __init__(
        self,
        agent: Agent | RemoteAgent,
        client: Client,
        model: ModelServer | None,
        timeout: float,
        unanswered: float | None = None,
        start: float = START_SECONDS,
    ) -> None:
        self.start = start
        self.agent, self.client, self.model, self.timeout = agent, client, model, timeout
        # The wait for an answer that may never come (a frame no ACP client sends).
        self.unanswered = min(timeout, unanswered if unanswered is not None else timeout)
        self.notes: list[dict[str, Any]] = []  # frames with a method since the last await
        self.early: dict[str, dict[str, Any]] = {}  # responses that came before they were awaited
        self.sent: dict[str, dict[str, Any]] = {}  # requests sent, by id, until answered
        self.ended = False  # the agent's output has ended
        self.heard = False  # the agent has sent a frame
        self.unparsed: list[str] = []  # lines on its stdout that are not JSON objects

    def send(self, frame: Any) -> None:
        if isinstance(frame, dict) and frame.get("method") == "initialize":
            caps = obj(frame.get("params")).get("clientCapabilities")
            self.client.advertised = caps if isinstance(caps, dict) else {}
        if isinstance(frame, dict) and "id" in frame and "method" in frame:
            self.sent[json.dumps(frame["id"])] = frame
            self.client.mcp.declare(obj(frame.get("params")).get("mcpServers"))
            if frame["method"] == "session/prompt" and self.model is not None:
                self.model.new_turn(prompt_text(frame))
        self.agent.send(frame)

    def frames(self, seconds: float) -> Iterator[dict[str, Any]]:
        """The frames the agent sends within `seconds` (its requests to the client answered
        first); `ended` is set once its output has ended."""
        deadline = time.monotonic() + seconds
        while not self.ended:
            try:
                frame = self.agent.next(deadline - time.monotonic())
            except TimeoutError:
                return
            if frame is None:
                self.ended = True
                return
            self.heard = True
            if "_unparsed" in frame:  # not a frame: kept for the only_json check
                if frame["_unparsed"].strip():
                    self.unparsed.append(frame["_unparsed"])
                continue
            if "method" in frame and "id" in frame:
                self.client.answer(frame)
            yield frame

    def keep(self, frame: dict[str, Any]) -> None:
        """A frame nobody awaits now: a notification or request for the next checks, a
        response for when its id is awaited (an agent may answer out of order)."""
        if "method" in frame:
            self.notes.append(frame)
        elif "id" in frame:
            self.early[json.dumps(frame["id"])] = frame

    def response(self, wanted: Any, bounded: bool = False) -> dict[str, Any]:
        """The response to `wanted`: the same id, of the same JSON type; `bounded`, within the
        shorter wait for an answer that may never come."""
        key = json.dumps(wanted)
        wait = self.unanswered if bounded else self.timeout
        wait = wait if self.heard else max(wait, self.start)
        if key not in self.early:
            for frame in self.frames(wait):
                self.keep(frame)
                if key in self.early:
                    break
        if key in self.early:
            response = self.early.pop(key)
            self._opened(self.sent.pop(key, {}), response)
            return response
        if self.ended:
            raise Lost(f"the agent's output ended before it answered id {wanted!r}")
        others = [json.loads(k) for k in self.early][:5]
        seen = f"; responses to other ids: {others}" if others else ""
        raise Lost(f"no response to id {wanted!r} within {wait:g} s{seen}")

    def _opened(self, request: dict[str, Any], response: dict[str, Any]) -> None:
        """A session the client opened (new, load, resume answered with a result)."""
        result = response.get("result")
        if request.get("method") not in SESSION_OPENERS or not isinstance(result, dict):
            return
        sid = result.get("sessionId", obj(request.get("params")).get("sessionId"))
        if isinstance(sid, str):
            self.client.opened.add(sid)

    def settle(self, seconds: float) -> None:
        """What the agent sends within `seconds` (after a response: the updates an agent may
        send once it has answered) is kept for the step's checks."""
        for frame in self.frames(seconds):
            self.keep(frame)

    def mcp_listed(self, seconds: float) -> None:
        """When the agent has begun to reach the client's MCP server over ACP (an `mcp/message`
        kept since the last await), what it sends until it has asked for the server's tools,
        and the client has answered, within `seconds`: an agent that connects as the session opens is done before the
        prompt is sent, whatever the machine's load (an agent that connects at the prompt
        sends nothing here and costs no wait)."""
        if not any(f.get("method") == "mcp/message" for f in self.notes):
            return
        deadline = time.monotonic() + seconds
        listed = any(_lists_tools(f) for f in self.notes)
        # Until the client's answer to it is sent too (its server answers after a hold).
        while not listed or self.client.mcp.unsent:
            left = deadline - time.monotonic()
            if left <= 0 or self.ended:
                return
            for frame in self.frames(min(left, 0.02)):
                self.keep(frame)
                listed = listed or _lists_tools(frame)

    def unless_answered(self, rid: Any, settle: float) -> None:
        """Skip the rest when request `rid` is answered already (a turn too fast to cancel):
        what arrives within `settle` seconds is read first."""
        for frame in self.frames(settle):
            self.keep(frame)
        if json.dumps(rid) in self.early:
            raise Skip("the turn ended before the cancel could be sent (too fast to cancel)")
        statuses = tool_statuses(self.notes)
        if statuses and all(s in ("completed", "failed") for s in statuses.values()):
            # What the agent does with a cancel that lands after its work is done is a race.
            raise Skip("the tool call finished before the cancel could be sent (a race)")

    def await_note(self, method: str, unless: Any = None, update: str = "") -> None:
        """Wait for a frame of `method` (a turn has started, a tool runs: time to cancel it),
        a session/update of kind `update` if given. With `unless` (the prompt's id): SKIP when
        that turn ends without one, or when the scripted model could not make the tool call
        the scenario needs."""
        for frame in self.frames(self.timeout):
            self.keep(frame)
            kind = obj(obj(frame.get("params")).get("update")).get("sessionUpdate")
            # Without `update`, any update of the turn's content (not one of session state,
            # such as the commands a new session announces): the turn has started.
            wanted = (
                kind == update if update else kind in TURN_CONTENT or method != "session/update"
            )
            if frame.get("method") == method and wanted:
                return
            if self.model is not None and self.model.missing:
                raise Skip(self.model.missing)
            if unless is not None and json.dumps(unless) in self.early:
                if self.model is not None and not self.model.requests:
                    raise Skip("the agent never asked the scripted model for the turn")
                if self.model is not None and self.model.why_no_call:
                    raise Skip(self.model.why_no_call)
                raise Skip(f"the turn ended without any {method} {update}".rstrip())
        if self.ended:
            raise Lost(f"the agent's output ended before any {method}")
        if method.startswith(CLIENT_METHODS):  # it may do the work itself (run `sleep` on its own)
            raise Skip(f"the agent sent no {method} within {self.timeout:g} s")
        raise Lost(f"no {method} within {self.timeout:g} s")

    def window(self, seconds: float) -> list[dict[str, Any]]:
        return list(self.frames(seconds))


def prompt_text(frame: dict[str, Any]) -> list[str]:
    """The text blocks of a session/prompt (the scripted model finds them in the turn's own
    requests)."""
    blocks = obj(frame.get("params")).get("prompt")
    texts = [obj(b).get("text") for b in blocks] if isinstance(blocks, list) else []
    return [t for t in texts if isinstance(t, str)]


def tool_statuses(notes: list[dict[str, Any]]) -> dict[str, Any]:
    """Each tool call these notes report, by id, with its last status."""
    found: dict[str, Any] = {}
    for note in notes:
        update = obj(obj(note.get("params")).get("update"))
        if note.get("method") == "session/update" and update.get("sessionUpdate") in (
            "tool_call",
            "tool_call_update",
        ):
            key = json.dumps(update.get("toolCallId"))
            found[key] = update.get("status", found.get(key))
    return found


def _lists_tools(frame: dict[str, Any]) -> bool:
    return frame.get("method") == "mcp/message" and obj(frame.get("params")).get("method") == (
        "tools/list"
    )
