"""The broken agent's tool loop (broken_agent.py): it asks the scripted model at SCRIPTED_MODEL
(non-streamed), offering `write`, `bash` and `read`, asks permission for writes and commands,
runs the calls through the client (`fs/*`, `terminal/*`, when advertised) or by itself,
reports them as tool calls and sends the results back, until the model answers with text.
Correct by default; the faults (BREAK) it knows:

  no-tools        offers the model no tools          rel-path     relative paths (fs, cwd,
  outside-path    writes /tmp/elsewhere-<pid>.txt                  locations, diffs)
  bad-session     client requests for session s999   late-request an fs read after the turn
  no-release      never releases a terminal          stale-terminal  output, kill and
                                                                  content of term-x
  bad-requests    client requests missing fields     ignore-caps  fs and terminal unasked
  bad-options     only allow options, one id twice   ask-again    never remembers "always"
  ignore-reject   runs rejected calls                ignore-perm-cancel  goes on after a
  wrong-tool-id   updates and permissions name an                  cancelled permission
                  unknown tool call                  dup-tool-id  every call is tool-1,
                                                                  reported twice
  update-after-final  an update after completed      unfinished-tool  never completes
  no-tool-result  tells the model nothing            skip-write   says written, writes not
  ignore-errors   a client error is a success (and the file is written locally)
  no-tool-calls   reports no tool_call updates
  tool-unnamed    tool_call updates without the tool's name
and those of broken_mcp.py (the MCP servers the client provides over ACP, whose tools it offers
beside its own and asks permission for) and broken_plan.py (its todo list, `write_todos`).

QUIRK (a comma-separated list) makes it behave as some real agents lawfully do, for the
calibration cases of test_peers.py:
  retry-errors    a model request answered with an HTTP error is sent again, eight times, half
                  a second apart (some agents retry whatever failed)
  side-requests   asks the model for a title, without tools, before each request of a turn
  shell-line      terminal/create with the whole command line in `command`, no `args`
  verify-on-disk  checks a client write on the disk, and reads files itself
  careful-dirs    refuses a write into a directory that does not exist, before asking
  no-always       offers only allow_once and reject_once
  always-per-path remembers an "always" answer for the one path it was given for
  stop-on-reject  ends the turn after a rejected permission, without asking the model again
  write-locally   writes files itself even when the client offers fs/write_text_file
  own-shell       runs commands itself even when the client offers terminals
  done-before-cancel  a command is done at once; the turn then ends end_turn after 0.6 s
  tool-search     hides its MCP server's tools behind `search_tools` until a search finds them
and broken_plan.py's.
"""

from __future__ import annotations

import json
import os
import threading
import time
from functools import partial

import broken_plan
from broken_mcp import AcpServers, StandInTools
from broken_model import ask_model

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

BREAK = {b.strip() for b in os.environ.get("BREAK", "").split(",") if b.strip()}
QUIRK = {b.strip() for b in os.environ.get("QUIRK", "").split(",") if b.strip()}


def _tool(name: str, params: list[str]) -> dict[str, Any]:
    props = {p: {"type": "string"} for p in params}
    body = {"type": "object", "properties": props, "required": params}
    return {"type": "function", "function": {"name": name, "parameters": body}}


TOOLS = [_tool("write", ["path", "content"]), _tool("bash", ["command"]), _tool("read", ["path"])]
TOOLS.append(broken_plan.TOOL)
# The conformance MCP server's one tool, offered (never started: the call is made here) when
# the session was given an MCP server named "conformance".
ELICIT = "mcp__conformance__conformance_elicit"
OPEN_URL = "mcp__conformance__conformance_open_url"
SEARCH = "search_tools"
KINDS = {
    "write": "edit",
    "bash": "execute",
    "read": "read",
    SEARCH: "search",
    "write_todos": "think",
}
KINDS |= {ELICIT: "other", OPEN_URL: "other"}


def offered(mcp: bool, found: bool) -> list[dict[str, Any]]:
    """The tools offered the model: the MCP server's behind a search (tool-search) until
    `found`."""
    if not mcp:
        return TOOLS
    if "tool-search" in QUIRK and not found:
        return [*TOOLS, _tool(SEARCH, ["query"])]
    return [*TOOLS, _tool(ELICIT, ["question"]), _tool(OPEN_URL, ["reason"])]


class Tools(StandInTools):
    """One turn's tool loop. `request(method, params, cancelled)` is a blocking client request
    → (result, error), (None, None) when the turn was cancelled while it waited."""

    calls = 0  # tool calls so far in this process
    remembered: dict[str, bool] = {}  # tool name → allowed ("always" answers)

    def __init__(
        self,
        sid: str,
        caps: dict[str, Any],
        cwd: str,
        request: Callable[..., tuple[Any, Any]],
        update: Callable[[str, dict[str, Any]], None],
        cancelled: threading.Event,
        mcp: bool = False,
        acp: AcpServers | None = None,
    ) -> None:
        self.sid, self.caps, self.cwd, self.mcp = sid, caps, cwd, mcp
        self.acp = acp or AcpServers([], request)
        self.found = False  # a search_tools call found the MCP server's tool
        self.request, self.update, self.cancelled = request, update, cancelled
        self.wire_sid = "s999" if "bad-session" in BREAK else sid

    def can(self, what: str) -> bool:
        fs = self.caps.get("fs") or {}
        offered = self.caps.get("terminal") is True if what == "terminal" else fs.get(what)
        return bool(offered) or "ignore-caps" in BREAK

    def run(self, text: str) -> tuple[str, str] | None:
        """(stop reason, the model's last text), or None when the model made no tool call."""
        messages: list[dict[str, Any]] = [{"role": "user", "content": text}]
        self.acp.connect()
        made = False
        for _ in range(6):
            message = self._ask(messages)
            if message is None:
                return ("cancelled", "") if made else None
            calls = message.get("tool_calls") or []
            if not calls:
                return ("end_turn", message.get("content") or "") if made else None
            made = True
            messages.append(message)
            for call in calls:
                stop, result = self.one(call)
                if stop:
                    return ("cancelled" if self.cancelled.is_set() else "end_turn"), ""
                if "no-tool-result" not in BREAK:
                    messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
            if "done-before-cancel" in QUIRK:  # the tool is done; a cancel now comes too late
                time.sleep(0.6)
                return "end_turn", ""
        return "end_turn", ""

    def _ask(self, messages: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The model's answer on a thread, so that a cancel is not kept waiting."""
        if "side-requests" in QUIRK:  # a title for the conversation, asked on the side
            ask_model([{"role": "user", "content": "A title, please"}], [])
        box: list[dict[str, Any] | None] = []
        worker = threading.Thread(
            target=lambda: box.append(
                ask_model(messages, offered(self.mcp, self.found) + self.acp.listed)
            ),
            daemon=True,
        )
        worker.start()
        while worker.is_alive() and not self.cancelled.is_set():
            worker.join(0.05)
        return box[0] if box and not self.cancelled.is_set() else None

    def one(self, call: dict[str, Any]) -> tuple[bool, str]:
        """Report, permit and run one call → (the turn was cancelled, the result text)."""
        name = call["function"]["name"]
        args = json.loads(call["function"]["arguments"] or "{}")
        Tools.calls += 1
        tid = "tool-1" if "dup-tool-id" in BREAK else f"tool-{Tools.calls}"
        shown = "ghost-1" if "wrong-tool-id" in BREAK else tid
        path = self.path(args.get("path", ""))
        where = {"locations": [{"path": path}]} if "path" in args else {}
        start = {"sessionUpdate": "tool_call", "toolCallId": tid, "title": name, "name": name}
        if "tool-unnamed" in BREAK:
            del start["name"]
        for _ in range(2 if "dup-tool-id" in BREAK else 1):
            if "no-tool-calls" not in BREAK:
                self.update(
                    self.sid,
                    {**start, "kind": KINDS.get(name, "other"), "status": "pending", **where},
                )
        if name == "write" and "careful-dirs" in QUIRK and not os.path.isdir(os.path.dirname(path)):
            self.finish(shown, "failed", [])
            return False, f"no such directory: {os.path.dirname(path)}"
        if name in ("write", "bash", *self.acp.tools):
            asked = "ghost-asked" if "wrong-tool-id" in BREAK else shown  # yet another id
            verdict = self.permit(name, asked, where)
            if verdict == "cancelled" and "ignore-perm-cancel" not in BREAK:
                self.finish(shown, "failed", [])
                return True, ""
            if verdict == "rejected" and "ignore-reject" not in BREAK:
                self.finish(shown, "failed", [])
                return "stop-on-reject" in QUIRK, "the user refused this tool call"
        try:
            run = {ELICIT: self.do_elicit, SEARCH: self.do_search, OPEN_URL: self.do_url}.get(name)
            run = run or getattr(self, f"do_{name}", None) or partial(self.do_acp, name)
            result, content = run(args, path, shown)
        except Failed as exc:
            self.finish(shown, "failed", [])
            return False, str(exc)
        except Cancelled:
            self.finish(shown, "failed", [])
            return True, ""
        self.finish(shown, "completed", content)
        return False, result

    def path(self, given: str) -> str:
        if "outside-path" in BREAK:
            return f"/tmp/elsewhere-{os.getpid()}.txt"
        if "rel-path" in BREAK and os.path.isabs(given):
            return os.path.relpath(given, self.cwd)
        return given

    def finish(self, tid: str, status: str, content: list[dict[str, Any]]) -> None:
        if "no-tool-calls" in BREAK:
            return
        if "unfinished-tool" in BREAK:
            status = "in_progress"
        body = {"sessionUpdate": "tool_call_update", "toolCallId": tid, "status": status}
        self.update(self.sid, {**body, **({"content": content} if content else {})})
        if "update-after-final" in BREAK:
            self.update(self.sid, {**body, "status": "in_progress"})

    def permit(self, name: str, tid: str, where: dict[str, Any]) -> str:
        """ "allowed", "rejected" or "cancelled"."""
        if "always-per-path" in QUIRK:
            name += repr(where)
        if name in self.remembered and "ask-again" not in BREAK:
            return "allowed" if self.remembered[name] else "rejected"
        kinds = ["allow_once", "allow_always", "reject_once", "reject_always"]
        if "no-always" in QUIRK:
            kinds = ["allow_once", "reject_once"]
        if "bad-options" in BREAK:
            kinds = ["allow_once", "allow_once"]
        options = [{"optionId": k, "name": k.replace("_", " "), "kind": k} for k in kinds]
        params: dict[str, Any] = {
            "sessionId": self.wire_sid,
            "toolCall": {"toolCallId": tid, "title": name, **where},
            "options": options,
        }
        if "bad-requests" in BREAK:
            del params["toolCall"]["toolCallId"]
        result, _ = self.request("session/request_permission", params, self.cancelled, True)
        outcome = (result or {}).get("outcome") or {}
        if outcome.get("outcome") != "selected":
            return "cancelled"
        chosen = str(outcome.get("optionId", ""))
        if chosen.endswith("_always"):
            self.remembered[name] = chosen.startswith("allow")
        return "allowed" if chosen.startswith("allow") else "rejected"

    def client(self, method: str, params: dict[str, Any]) -> Any:
        """A client request for this session; raises Failed on an error answer."""
        body = {"sessionId": self.wire_sid, **params}
        result, error = self.request(method, body, self.cancelled)
        if result is None and error is None:
            raise Cancelled
        if error is not None and "ignore-errors" not in BREAK:
            raise Failed(f"{method}: {error.get('message')}")
        return result or {}

    def do_write(
        self, args: dict[str, Any], path: str, tid: str
    ) -> tuple[str, list[dict[str, Any]]]:
        content = str(args.get("content", ""))
        diff = [{"type": "diff", "path": path, "oldText": None, "newText": content}]
        if "skip-write" in BREAK:
            return "written", diff
        local_only = "write-locally" in QUIRK
        if self.can("writeTextFile") and not local_only:
            params = {"path": path, "content": content}
            if "bad-requests" in BREAK:
                del params["content"]
            self.client("fs/write_text_file", params)
            if "verify-on-disk" in QUIRK and not os.path.isfile(path):
                raise Failed(f"{path} is not on the disk after fs/write_text_file")
        if not self.can("writeTextFile") or "ignore-errors" in BREAK or local_only:
            local = os.path.join(self.cwd, path)
            os.makedirs(os.path.dirname(local), exist_ok=True)
            with open(local, "w", encoding="utf-8") as fh:
                fh.write(content)
        return "written", diff

    def do_read(
        self, args: dict[str, Any], path: str, tid: str
    ) -> tuple[str, list[dict[str, Any]]]:
        if self.can("readTextFile") and "verify-on-disk" not in QUIRK:
            params = {} if "bad-requests" in BREAK else {"path": path}
            text = str(self.client("fs/read_text_file", params).get("content", ""))
        else:
            try:
                with open(os.path.join(self.cwd, path), encoding="utf-8") as fh:
                    text = fh.read()
            except OSError as exc:
                raise Failed(f"{path}: {exc.strerror}") from None
        return text, [{"type": "content", "content": {"type": "text", "text": text}}]

    def do_bash(
        self, args: dict[str, Any], path: str, tid: str
    ) -> tuple[str, list[dict[str, Any]]]:
        command = str(args.get("command", ""))
        if "done-before-cancel" in QUIRK:
            return "done", []
        if not self.can("terminal") or "own-shell" in QUIRK:
            return self._locally(command), []
        params: dict[str, Any] = {"command": "sh", "args": ["-c", command]}
        if "shell-line" in QUIRK:
            params = {"command": command}
        params["cwd"] = "." if "rel-path" in BREAK else self.cwd
        if "bad-requests" in BREAK:
            del params["command"]
        term = self.client("terminal/create", params).get("terminalId")
        ids = {"terminalId": term}
        try:
            self.client("terminal/wait_for_exit", ids)
            if "stale-terminal" in BREAK:  # refused; the agent goes on as if nothing happened
                self.request("terminal/output", {"sessionId": self.wire_sid, "terminalId": "t-x"})
            out = self.client("terminal/output", ids)
        except Cancelled:
            killed = {"terminalId": "term-x"} if "stale-terminal" in BREAK else ids
            self.request("terminal/kill", {"sessionId": self.wire_sid, **killed})
            raise
        finally:
            if "no-release" not in BREAK:
                self.request("terminal/release", {"sessionId": self.wire_sid, **ids})
        shown = "term-x" if "stale-terminal" in BREAK else term
        return str(out.get("output", "")), [{"type": "terminal", "terminalId": shown}]

    def do_write_todos(self, args: dict[str, Any], *_: Any) -> tuple[str, list[Any]]:
        return broken_plan.report(self.sid, args, self.caps, self.update)

    def do_acp(self, name: str, args: dict[str, Any], *_: Any) -> tuple[str, list[Any]]:
        """A tool of a server the client provides over ACP (broken_mcp.py)."""
        done, text = self.acp.call(name, args)
        if not done:
            raise Failed(text)
        return text, [{"type": "content", "content": {"type": "text", "text": text}}]

    def do_search(self, args: dict[str, Any], path: str, tid: str) -> tuple[str, list[Any]]:
        self.found = "conformance" in str(args.get("query", ""))
        return (f"found {ELICIT}" if self.found else "nothing found"), []

    def _locally(self, command: str) -> str:
        import subprocess  # only here: most runs start no command

        proc = subprocess.Popen(
            ["sh", "-c", command], cwd=self.cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        while proc.poll() is None:
            if self.cancelled.is_set() and "ignore-cancel" not in BREAK:
                proc.kill()
                proc.wait()
                raise Cancelled
            time.sleep(0.05)
        assert proc.stdout is not None
        return proc.stdout.read().decode("utf-8", "replace")


class Failed(Exception):
    pass


class Cancelled(Exception):
    pass
