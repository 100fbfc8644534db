"""The editor's side of the connection: the runner answers what the agent asks of the client.

- `fs/read_text_file` / `fs/write_text_file`: a write goes to the disk (its directories made),
  as an editor saves it, so an agent that checks the disk or reads with its own tools sees it;
  the scenario's unsaved `buffers` are an overlay a read sees first (a write to a buffered
  file updates the buffer too); a file in neither is -32002.
- `terminal/*` run real processes (terminals.py).
- `session/request_permission` is answered as the scenario's `permission` says, the option
  picked by `kind` among those offered: `allow_once` (the default), `allow_always`,
  `reject_once`, `reject_always`, or `cancel` (the user stops the turn: session/cancel is sent,
  then the request is answered `cancelled`, as the spec requires of a client that cancels).
- `elicitation/create` is answered as the scenario's `elicitation` says: `decline` (the
  default), `cancel`, or `accept` with every field filled (refused -32602 for a mode the client
  did not advertise).
- `mcp/message` reaches the client's own MCP server over ACP (mcp_over_acp.py), for the
  `{"type": "acp"}` entries of the `mcpServers` the client sent (`declare`).
- Anything else is -32601, and so is an fs or terminal method the client did not advertise
  (as an editor without it would answer). A scenario's `errors` ({method: code}) refuses that
  method instead.

Every request is kept as a Call, in order, with its answer, for the checks (turn_checks.py).
The scenario's `client` object configures all this:
    {"permission": "reject_once", "elicitation": "accept", "buffers": {"a.txt": ".."},
     "files": {"a.txt": ".."}, "errors": {"fs/write_text_file": -32603}}
(`files` are written to the disk before the agent starts; paths are relative to the cwd.)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from acp_conformance.mcp_over_acp import McpOverAcp
from acp_conformance.terminals import Terminals

Send = Callable[[dict[str, Any]], None]
FAMILY = {
    "allow_once": "allow",
    "allow_always": "allow",
    "reject_once": "reject",
    "reject_always": "reject",
}


@dataclass
class Call:
    """One request the agent sent the client, and what the client answered."""

    method: str
    params: Any
    answer: dict[str, Any]  # {"result": ..} or {"error": ..}
    note: str = ""  # what was wrong with it, as the client saw (an unknown terminal, ...)


@dataclass
class Client:
    send: Send  # writes a frame to the agent (thread-safe)
    cwd: str
    setup: dict[str, Any] = field(default_factory=dict)
    advertised: dict[str, Any] = field(default_factory=dict)  # clientCapabilities sent
    opened: set[str] = field(default_factory=set)  # sessions the client opened
    overlay: dict[str, str] = field(default_factory=dict)  # absolute path → text
    calls: list[Call] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.terminals = Terminals(self._reply, self.cwd)
        self.mcp = McpOverAcp()
        for name, text in self.setup.get("buffers", {}).items():
            self.overlay[self.absolute(name)] = text

    def absolute(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.cwd, path))

    def seed(self, folders: tuple[str, ...] = ()) -> None:
        """The scenario's `files`, on the disk, before the agent starts, and `folders` (the
        directories the scripted model writes into: a careful agent refuses a write into a
        directory that does not exist before it asks)."""
        for folder in folders:
            os.makedirs(self.absolute(folder), exist_ok=True)
        for name, text in self.setup.get("files", {}).items():
            where = self.absolute(name)
            os.makedirs(os.path.dirname(where), exist_ok=True)
            with open(where, "w", encoding="utf-8") as fh:
                fh.write(text)

    def text_of(self, path: str) -> str | None:
        """The file as the client sees it: the overlay, else the disk, else None."""
        where = self.absolute(path)
        if where in self.overlay:
            return self.overlay[where]
        try:
            with open(where, encoding="utf-8") as fh:
                return fh.read()
        except (OSError, UnicodeDecodeError):
            return None

    def answer(self, frame: dict[str, Any]) -> None:
        """Answer one request of the agent (now, or from a thread for a terminal's exit)."""
        method, params = frame["method"], frame.get("params")
        call = Call(method, params, {})
        self.calls.append(call)
        if not offered(self.advertised, method, params):
            # An elicitation mode the client did not advertise is invalid params (the spec).
            code = -32602 if method == "elicitation/create" else -32601
            return self._reply(frame["id"], call, error=(code, f"{method}: not advertised"))
        code = self.setup.get("errors", {}).get(method)
        if code is not None:
            return self._reply(frame["id"], call, error=(code, f"{method} refused (scenario)"))
        if method == "mcp/message":  # its envelope is judged as the binding does, params and all
            return self._mcp_message(frame["id"], call, params)
        handler = {
            "fs/read_text_file": self._read,
            "fs/write_text_file": self._write,
            "session/request_permission": self._permission,
            "elicitation/create": self._elicitation,
        }.get(method)
        if handler is None and method.startswith("terminal/"):
            handler = self.terminals.handle
        if handler is None or not isinstance(params, dict):
            error = (-32601, f"{method} is not offered by this client")
            if handler is not None:
                error = (-32602, "params must be an object")
            return self._reply(frame["id"], call, error=error)
        return handler(frame["id"], call, params)

    def _reply(
        self,
        rid: Any,
        call: Call,
        result: Any = None,
        error: tuple[int, str] | None = None,
    ) -> None:
        if error is not None:
            call.answer = {"error": {"code": error[0], "message": error[1]}}
        else:
            call.answer = {"result": result if result is not None else {}}
        self.send({"jsonrpc": "2.0", "id": rid, **call.answer})

    def _read(self, rid: Any, call: Call, params: dict[str, Any]) -> None:
        path = params.get("path")
        if not isinstance(path, str) or not os.path.isabs(path):
            return self._reply(rid, call, error=(-32602, "an absolute path, please"))
        text = self.text_of(path)
        if text is None:
            return self._reply(rid, call, error=(-32002, f"resource not found: {path!r}"))
        line, limit = params.get("line"), params.get("limit")
        if isinstance(line, int) or isinstance(limit, int):
            lines = text.splitlines(keepends=True)
            start = max((line if isinstance(line, int) else 1) - 1, 0)
            end = start + limit if isinstance(limit, int) else None
            text = "".join(lines[start:end])
        return self._reply(rid, call, {"content": text})

    def _write(self, rid: Any, call: Call, params: dict[str, Any]) -> None:
        path, content = params.get("path"), params.get("content")
        if not isinstance(path, str) or not os.path.isabs(path) or not isinstance(content, str):
            return self._reply(rid, call, error=(-32602, "an absolute path and content, please"))
        where = os.path.normpath(path)
        if where in self.overlay:
            self.overlay[where] = content
        try:
            os.makedirs(os.path.dirname(where), exist_ok=True)
            with open(where, "w", encoding="utf-8") as fh:
                fh.write(content)
        except OSError as exc:
            return self._reply(rid, call, error=(-32603, f"cannot write {path}: {exc.strerror}"))
        return self._reply(rid, call, {})

    def _permission(self, rid: Any, call: Call, params: dict[str, Any]) -> None:
        wanted = self.setup.get("permission", "allow_once")
        options = [o for o in params.get("options") or [] if isinstance(o, dict)]
        if wanted == "cancel":
            self.send({"jsonrpc": "2.0", "method": "session/cancel", "params": _sid(params)})
            return self._reply(rid, call, {"outcome": {"outcome": "cancelled"}})
        if not options:
            return self._reply(rid, call, error=(-32602, "no options to choose from"))
        exact = [o for o in options if o.get("kind") == wanted]
        kin = [o for o in options if FAMILY.get(o.get("kind", "")) == FAMILY.get(wanted)]
        picked = (exact or kin or options)[0]
        if not exact:
            call.note = f"no {wanted} option offered; picked {picked.get('kind')!r}"
        outcome = {"outcome": "selected", "optionId": picked.get("optionId")}
        return self._reply(rid, call, {"outcome": outcome})

    def _elicitation(self, rid: Any, call: Call, params: dict[str, Any]) -> None:
        action = self.setup.get("elicitation", "decline")
        if action != "accept" or params.get("mode") == "url":  # a URL-mode accept has no content
            return self._reply(rid, call, {"action": action})
        form = params.get("requestedSchema")
        return self._reply(rid, call, {"action": "accept", "content": filled(form)})

    def _mcp_message(self, rid: Any, call: Call, params: Any) -> None:
        def reply(result: Any = None, error: tuple[int, str] | None = None) -> None:
            self._reply(rid, call, result, error)

        self.mcp.handle(params, reply)

    def close(self) -> None:
        self.terminals.close()
        self.mcp.close()


def offered(advertised: dict[str, Any], method: str, params: Any) -> bool:
    """Whether the client's capabilities cover `method` (methods not gated by one: True)."""
    fs: dict[str, Any] = advertised["fs"] if isinstance(advertised.get("fs"), dict) else {}
    if method == "fs/read_text_file":
        return fs.get("readTextFile") is True
    if method == "fs/write_text_file":
        return fs.get("writeTextFile") is True
    if method.startswith("terminal/"):
        return advertised.get("terminal") is True
    if method == "elicitation/create":
        modes = advertised.get("elicitation")
        mode = params.get("mode") if isinstance(params, dict) else None
        return isinstance(modes, dict) and modes.get(mode) is not None
    return True


def filled(form: Any) -> dict[str, Any]:
    """An answer to a form elicitation: every property given a value of its type (the first
    of an enum), strings `conformance-answer`."""
    props = form.get("properties") if isinstance(form, dict) else None
    answer: dict[str, Any] = {}
    for name, prop in (props if isinstance(props, dict) else {}).items():
        prop = prop if isinstance(prop, dict) else {}
        kind = prop.get("type")
        if isinstance(prop.get("enum"), list) and prop["enum"]:
            answer[name] = prop["enum"][0]
        elif kind in ("number", "integer"):
            answer[name] = prop.get("minimum", 1)
        elif kind == "boolean":
            answer[name] = True
        elif kind == "array":
            answer[name] = []
        else:
            answer[name] = "conformance-answer"
    return answer


def _sid(params: dict[str, Any]) -> dict[str, Any]:
    return {"sessionId": params.get("sessionId")}
