"""A scripted model any agent can use: an OpenAI-compatible Chat Completions server on
127.0.0.1 (`{model_url}` is its base URL, ending in /v1).

- `GET /v1/models` lists one model, MODEL_ID.
- `POST /v1/chat/completions` answers with the script's reply for the request's place in the
  conversation (placement.py), or DEFAULT_REPLY for a side request (a title or summary an agent
  asks for beside the turn), which uses up nothing. A request that offers `tools` is the turn's;
  one that offers none is a side request, unless the agent has offered its model no tools so
  far (some agents never do: their tools are text in the reply), the script needs no tool call
  (a text, a stall, a failure) and a user message of the request holds text of the prompt the
  runner sent (`new_turn`). Streamed as server-sent events when the request asks for `stream`,
  else as one completion. A reply is a list of actions:
    {"text": "..."}            assistant text      {"thought": "..."}   reasoning text
    {"stall_ms": n}            wait (a turn to cancel)
    {"fail": 500}              answer with that HTTP status and an error body (once: the
                               agent's retry of the same request gets RETRIED_REPLY)
    {"usage": {"prompt_tokens": n, "completion_tokens": m}}
    {"call": "write" | "shell" | "read", "args": {"path": .., "content": .., "command": ..}}
                               a tool call, made with the offered tool that plays that role
                               (roles.py), its arguments under that tool's parameter names
    {"call": "named", "name": "conformance_elicit", "args": {..}}   the tool of that name
                               (when it is not offered but a tool-search tool is, the model
                               searches for it first: roles.py, placement.py)
    {"call": "todo", "args": {"items": [{"content": "..", "status": "pending"}]}}
                               the todo list, in the todo-like tool's own shape
  A reply with calls ends with finish_reason `tool_calls`; the agent's follow-up request (which
  carries the tool results and so one more assistant message) gets the next reply. When the agent offers no tool for a role,
  the reply is a short text instead and `missing` says why (the scenario is SKIP).
- Every request body is kept (`requests`), and every call made (`calls`, and `given`: each
  one's role and role-level arguments, as scripted), for checks; each
  exchange (when, the tools offered, the messages, the reply given) is in `exchanges` for the
  wire log.
"""

from __future__ import annotations

import json
import threading
import time
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from acp_conformance import roles
from acp_conformance.placement import Placement

MODEL_ID = "conformance-model"
POLL = 0.02  # seconds: how soon a closed model's server loop notices
DEFAULT_REPLY = [{"text": "Conformance"}]  # for side requests
# A `fail` is given once at its place in the conversation: an agent that retries a failed
# request (with its own backoff) gets this, instead of being held until its retries run out.
RETRIED_REPLY = [{"text": "Answered on a retry."}]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {
        "id": "conformance",
        "object": "chat.completion.chunk",
        "model": MODEL_ID,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def _call(call: dict[str, Any]) -> dict[str, Any]:
    function = {"name": call["name"], "arguments": call["arguments"]}
    return {"id": call["id"], "type": "function", "function": function}


def _call_chunks(call: dict[str, Any], index: int) -> bytes:
    """A tool call as streamed deltas: id and name first, the arguments in two pieces."""
    head = {**_call(call), "index": index}
    head["function"] = {"name": call["name"], "arguments": ""}
    half = len(call["arguments"]) // 2
    parts = [call["arguments"][:half], call["arguments"][half:]]
    tails = [{"index": index, "function": {"arguments": part}} for part in parts]
    return b"".join(_chunk({"tool_calls": [d]}) for d in [head, *tails])


def user_text(messages: Any) -> str:
    """The text of a request's user messages (a string content, or its text parts), joined."""
    said: list[str] = []
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        parts = content if isinstance(content, list) else [{"text": content}]
        said += [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return "\n".join(said)


class ModelServer:
    def __init__(self, script: list[list[dict[str, Any]]]) -> None:
        self.script = script or [[{"text": "ok"}]]
        self.placement = Placement(self.script)
        self.requests: list[dict[str, Any]] = []
        self.other_paths: list[str] = []  # POSTs to paths that are not Chat Completions
        self.scripted = 0  # replies served from the script (not the default of side requests)
        self.tooled = False  # a request offered tools: from then on, one without is a side one
        self.needs_tools = any("call" in action for reply in self.script for action in reply)
        self.prompt: list[str] = []  # the text blocks of the prompt of the turn
        self.exchanges: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []  # {"id", "name", "arguments"} as sent
        self.given: list[dict[str, Any]] = []  # {"role", "args"}: each call as scripted
        self.missing = ""  # why a scripted tool call could not be made
        self._lock = threading.Lock()
        self._failed: set[tuple[int, int]] = set()  # (turn, reply) places a `fail` was given
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    body = json.dumps(
                        {"object": "list", "data": [{"id": MODEL_ID, "object": "model"}]}
                    )
                    self._plain(200, body.encode())
                else:
                    self._plain(404, b'{"error": {"message": "not found"}}')

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                if self.path.split("?", 1)[0].rstrip("/") != "/v1/chat/completions":
                    # Another protocol's endpoint (a Gemini or Anthropic client): said as
                    # such, in the answer and in the model's log.
                    server.refused(self.path)
                    why = f"{self.path} is not served: this is a Chat Completions server"
                    self._plain(404, json.dumps({"error": {"message": why}}).encode())
                    return
                try:
                    request = json.loads(body or b"{}")
                except ValueError:
                    request = {}
                reply = server.next_reply(request)
                server.answer(self, reply, bool(request.get("stream")))

            def _plain(self, status: int, body: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    self.close_connection = True  # the agent hung up (a cancel)

        self.handler = Handler
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        # `shutdown` waits for the loop's next poll: a short one, since every scenario closes
        # its model (the default half second was most of a short scenario's time).
        serve = partial(self.httpd.serve_forever, poll_interval=POLL)
        threading.Thread(target=serve, daemon=True).start()

    @property
    def why_no_call(self) -> str:
        """Why the script's tool call was not made: a tool not offered, or no tools at all."""
        if not self.requests and self.other_paths:
            return f"the agent speaks another model API: it asked for {self.other_paths[0]}"
        if self.missing or not self.requests:
            return self.missing
        if not any(isinstance(r.get("tools"), list) and r["tools"] for r in self.requests):
            return roles.missing("", None)
        return ""

    def refused(self, path: str) -> None:
        """A request to a path this server does not serve, kept in the model's log."""
        with self._lock:
            self.other_paths.append(path)
            self.exchanges.append({"t": time.time(), "path": path, "reply": "404: not served"})

    def new_turn(self, prompt: list[str] | None = None) -> None:
        """The runner sent a session/prompt (`prompt`: its text blocks): requests from now on
        belong to the next turn."""
        with self._lock:
            self.placement.new_turn()
            self.prompt = [text for text in prompt or [] if text.strip()]

    def _turn_request(self, tools: Any, messages: Any) -> bool:
        """Whether a request is the turn's own, not a side request (the module's rule)."""
        if isinstance(tools, list) and tools:
            self.tooled = True
            return True
        if self.tooled or self.needs_tools:
            return False
        said = user_text(messages)
        return any(text in said for text in self.prompt)

    def next_reply(self, request: dict[str, Any]) -> list[dict[str, Any]]:
        with self._lock:
            self.requests.append(request)
            tools, messages = request.get("tools"), request.get("messages")
            if not self._turn_request(tools, messages):
                reply = DEFAULT_REPLY
            else:
                index = self.placement.index(messages)
                reply = self._with_tools(self.script[index], tools)
                self.scripted += 1
                place = (self.placement.turn, index)
                if any("fail" in action for action in reply) and place in self._failed:
                    reply = RETRIED_REPLY  # the agent's own retry of a failed request
                elif any("fail" in action for action in reply):
                    self._failed.add(place)
            self.exchanges.append(
                {
                    "t": time.time(),
                    "tools": roles.names(tools),
                    "messages": messages,
                    "reply": reply,
                }
            )
            return reply

    def _with_tools(self, reply: list[dict[str, Any]], tools: Any) -> list[dict[str, Any]]:
        """The reply with each `call` bound to an offered tool: {"tool_call": {id, name,
        arguments}}; a call no tool can make turns the reply into a text saying so."""
        bound: list[dict[str, Any]] = []
        for action in reply:
            if "call" not in action:
                bound.append(action)
                continue
            chosen = roles.choose(action["call"], tools, action.get("name", ""))
            finder = roles.choose("search", tools) if action["call"] == "named" else None
            if chosen is None and finder and self.placement.detour(action["name"]):
                query = {"query": action["name"]}
                return [{"tool_call": self._call(finder, query)}]
            if chosen is None:
                why = roles.missing(action["call"], tools, action.get("name", ""))
                self.missing = self.missing or why
                return [{"text": f"(the scripted model wanted a {action['call']}-like tool)"}]
            bound.append({"tool_call": self._call(chosen, action.get("args", {}))})
        return bound

    def _call(self, chosen: roles.Chosen, args: dict[str, Any]) -> dict[str, Any]:
        call = {
            "id": f"call_{len(self.calls) + 1}",
            "name": chosen.name,
            "arguments": json.dumps(roles.arguments(chosen, args)),
        }
        self.calls.append(call)
        self.given.append({"role": chosen.role, "args": args})
        return call

    def answer(
        self, handler: BaseHTTPRequestHandler, reply: list[dict[str, Any]], stream: bool
    ) -> None:
        for action in reply:
            if "fail" in action:
                body = json.dumps({"error": {"message": "the scripted model failed", "type": "x"}})
                handler._plain(int(action["fail"]), body.encode())  # type: ignore[attr-defined]
                return
        if not stream:
            return self._whole(handler, reply)
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Connection", "close")
        handler.end_headers()
        calls = 0  # tool calls streamed so far: the next one's index
        try:
            handler.wfile.write(_chunk({"role": "assistant"}))
            for action in reply:
                if "stall_ms" in action:
                    handler.wfile.flush()
                    time.sleep(float(action["stall_ms"]) / 1000)
                elif "text" in action:
                    handler.wfile.write(_chunk({"content": action["text"]}))
                elif "thought" in action:
                    handler.wfile.write(_chunk({"reasoning_content": action["thought"]}))
                elif "usage" in action:
                    usage = {"id": "conformance", "choices": [], "usage": action["usage"]}
                    handler.wfile.write(b"data: " + json.dumps(usage).encode() + b"\n\n")
                elif "tool_call" in action:
                    handler.wfile.write(_call_chunks(action["tool_call"], calls))
                    calls += 1
                handler.wfile.flush()
            finish = "tool_calls" if calls else "stop"
            handler.wfile.write(_chunk({}, finish=finish) + b"data: [DONE]\n\n")
            handler.wfile.flush()
        except OSError:
            pass  # the agent hung up (a cancel): nothing more to say
        handler.close_connection = True

    def _whole(self, handler: BaseHTTPRequestHandler, reply: list[dict[str, Any]]) -> None:
        for action in reply:
            if "stall_ms" in action:
                time.sleep(float(action["stall_ms"]) / 1000)
        text = "".join(a["text"] for a in reply if "text" in a)
        usage = next((a["usage"] for a in reply if "usage" in a), None)
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        calls = [_call(a["tool_call"]) for a in reply if "tool_call" in a]
        if calls:
            message["tool_calls"] = calls
        elif not text:
            message["content"] = ""
        body = {
            "id": "conformance",
            "object": "chat.completion",
            "model": MODEL_ID,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            **({"usage": usage} if usage else {}),
        }
        handler._plain(200, json.dumps(body).encode())  # type: ignore[attr-defined]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
