"""A stand-in for DeepSeek's chat API on 127.0.0.1 that refuses what the real one refuses.

The rules are DeepSeek's documentation's (`guides/thinking_mode`, `quick_start/pricing`, late
2026; src/reasonix_acp/config/deepseek.py says the same from the agent's side):

- Every request needs `Authorization: Bearer <key>` with the key (`key`, the tests' KEY): a
  missing or wrong one is answered 401 "Authentication Fails" (`authentication_error`), before
  anything else is looked at; `unauthorized` counts them.
- `GET /models` lists the served models; a request naming another model (the retired
  `deepseek-chat`, `deepseek-reasoner`) is answered 400 "Model Not Exist".
- `thinking` is `{"type": "enabled" | "disabled"}` (enabled when absent); `reasoning_effort` one
  of the documented values. Anything else: 400.
- Every assistant message's tool calls are answered by tool messages right after it, and every
  tool message answers one of them (the OpenAI rule DeepSeek keeps): else 400.
- In thinking mode, every assistant message must carry a `reasoning_content` string: else 400
  `The "reasoning_content" in the thinking mode must be passed back to the API.` The docs ask
  it of the messages between two user messages where the model made tool calls; those who
  tested the API report checks on other assistant messages too, and the empty string accepted
  everywhere: the stand-in keeps the strictest reading. With thinking disabled it is ignored.
- `tool_choice` is `none`, `auto`, `required` or `{"type": "function", "function": {"name"}}`
  naming an offered tool (the chat completions reference); anything else: 400. Thinking mode
  takes only `none` and `auto`: a forced choice is answered 400 `Thinking mode does not support
  this tool_choice` (what the API answers; with thinking disabled a forced choice is taken).
  With `none` the model calls no tool: a reply's tool calls are left out, and one that had only
  those is the default text instead.
- Thinking on: each reply streams `reasoning_content` before its content and tool calls.
- Usage: `prompt_cache_hit_tokens` is the longest byte prefix the request shares with an earlier
  one, in 64-token blocks (a token is taken as 4 bytes); the rest is a miss.

- `POST /v1/tools/search` (the Search API, "Search and Fetch" guide): the Bearer token must be
  the key (401 "Invalid token." otherwise); `search_problem` says what it refuses (400);
  answers come from `search_results` in order, `{"results": []}` when it runs out.

Replies come from `replies` in order (`{"thought", "text", "tool_calls": [{"name",
"arguments"}]}`), and when it runs out: a tool result is answered "Done." and a prompt "Reply
to: <its first line>". `refuse` queues plain failures `(status, message)` for the next requests.
A request whose first user message holds a key of `tasks` (a subagent's task) takes its replies
from that queue instead, the defaults after; with `meet` set, the first request of each of those
keys waits until all of them have arrived (they run at once, or the wait times out and the
requests are refused).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODELS = ["deepseek-flash", "deepseek-v4-pro", "deepseek-v4-flash"]
EFFORTS = {"minimal", "low", "medium", "high", "xhigh", "max", "ultra", "none"}
RETIRED = {"deepseek-chat", "deepseek-reasoner"}
MISSING_REASONING = "The `reasoning_content` in the thinking mode must be passed back to the API."
FORCED_IN_THINKING = "Thinking mode does not support this tool_choice"
BLOCK = 64  # tokens a cache hit is counted in
KEY = "sk-deepseek-stand-in-0123456789"  # the key the tests configure


def search_problem(body: Any) -> str | None:
    """Why the Search API would refuse this body (HTTP 400), or None: `query` a string of 1 to
    128 characters, not only blanks; `count` an integer of 1 to 50; `ori_question` null or 1 to
    128 characters; `need_content` a boolean; `localization` a string (an IP address)."""
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    query = body.get("query")
    if not isinstance(query, str) or not query.strip() or len(query) > 128:
        return "'query' must be a string of 1 to 128 characters"
    count = body.get("count", 10)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 50:
        return "'count' must be an integer from 1 to 50"
    question = body.get("ori_question")
    if question is not None and (not isinstance(question, str) or not 1 <= len(question) <= 128):
        return "'ori_question' must be a string of 1 to 128 characters"
    if not isinstance(body.get("need_content", False), bool):
        return "'need_content' must be a boolean"
    if not isinstance(body.get("localization", ""), str):
        return "'localization' must be a string"
    return None


def problem(body: Any, served: list[str], reasoner: bool = True) -> str | None:
    """Why DeepSeek's API would refuse this request body (HTTP 400), or None."""
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    if body.get("model") in RETIRED:
        names = " or ".join(served)
        return f"The supported API model names are {names}, but you passed {body['model']}."
    if body.get("model") not in served:
        return "Model Not Exist"
    thinking = body.get("thinking", {"type": "enabled"})
    if not isinstance(thinking, dict) or thinking.get("type") not in ("enabled", "disabled"):
        return f"invalid thinking: {thinking!r}"
    if "reasoning_effort" in body and body["reasoning_effort"] not in EFFORTS:
        return f"invalid reasoning_effort: {body['reasoning_effort']!r}"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages must be a non-empty list"
    if any(not isinstance(m, dict) or m.get("role") not in ROLES for m in messages):
        return "every message needs a role of system, user, assistant or tool"
    thinks = reasoner and thinking["type"] == "enabled"
    return (
        choice_problem(body, thinks)
        or unanswered(messages)
        or (missing_reasoning(messages) if thinks else None)
    )


def choice_problem(body: dict[str, Any], thinks: bool) -> str | None:
    """Why `tool_choice` would be refused: not one of the documented values (a function
    naming a tool not offered included), or a forced choice in thinking mode."""
    if "tool_choice" not in body:
        return None
    choice = body["tool_choice"]
    offered = {(t.get("function") or {}).get("name") for t in body.get("tools") or []}
    named = isinstance(choice, dict) and choice.get("type") == "function"
    name = (choice.get("function") or {}).get("name") if named else None
    if choice not in ("none", "auto", "required") and (not named or name not in offered):
        return f"invalid tool_choice: {choice!r}"
    if thinks and choice not in ("none", "auto"):
        return FORCED_IN_THINKING
    return None


ROLES = ("system", "user", "assistant", "tool")


def unanswered(messages: list[dict[str, Any]]) -> str | None:
    """The OpenAI pairing rule: tool calls answered right after, tool messages answering."""
    open_calls: set[str] = set()
    for i, message in enumerate(messages):
        role = message["role"]
        if role == "tool":
            if message.get("tool_call_id") not in open_calls:
                return f"messages[{i}]: a tool message must answer a preceding tool call"
            open_calls.discard(message["tool_call_id"])
            continue
        if open_calls:
            return f"messages[{i}]: the tool calls {sorted(open_calls)} were not answered"
        if role == "assistant":
            open_calls = {c.get("id") for c in message.get("tool_calls") or []}
    return f"the tool calls {sorted(open_calls)} were not answered" if open_calls else None


def missing_reasoning(messages: list[dict[str, Any]]) -> str | None:
    """Thinking mode: every assistant message carries a `reasoning_content` string (the
    strictest of the checks reported against the API; an empty string is accepted, as the API
    accepts it)."""
    for message in messages:
        if message["role"] == "assistant" and not isinstance(message.get("reasoning_content"), str):
            return MISSING_REASONING
    return None


def common_prefix(a: bytes, b: bytes) -> int:
    """The length of the longest common prefix of `a` and `b`."""
    low, high = 0, min(len(a), len(b))
    while low < high:  # a[:low] == b[:low]; the answer is in [low, high]
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {
        "id": "ds",
        "object": "chat.completion.chunk",
        "model": "deepseek-flash",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def _pieces(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or []


class DeepSeek:
    def __init__(self) -> None:
        self.models = list(MODELS)
        self.replies: deque[dict[str, Any]] = deque()
        self.refuse: deque[tuple[int, str]] = deque()
        self.bodies: list[bytes] = []  # every request body, refused ones included
        self.refused: list[str] = []  # why each refused request was refused
        self.usage: list[dict[str, int]] = []  # the usage of each answered request
        self.calls = 0
        self.key = KEY  # the Bearer token every request must carry
        self.unauthorized = 0  # requests refused 401 for a missing or wrong key
        self.searches: list[bytes] = []  # every Search API request body
        self.search_results: deque[list[dict[str, Any]]] = deque()  # answers, in order
        # False: as the retired non-thinking deepseek-chat was (no reasoning, no rule about it)
        self.reasoner = True
        self.tasks: dict[str, deque[dict[str, Any]]] = {}  # a subagent's replies, by task key
        self.meet = False  # the first requests of every task key wait for each other
        self.met: list[str] = []  # task keys whose first request waited, in arrival order
        self._barrier: threading.Barrier | None = None
        self._answered: list[bytes] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if not outer.authorized(self.headers.get("Authorization")):
                    self._json(401, outer.unauthorized_answer(self.headers.get("Authorization")))
                    return
                if not self.path.endswith("/models"):
                    self._json(404, {"error": {"message": "Not Found"}})
                    return
                data = [{"id": m, "object": "model", "owned_by": "deepseek"} for m in outer.models]
                self._json(200, {"object": "list", "data": data})

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path.split("?", 1)[0] == "/v1/tools/search":
                    with outer._lock:
                        status, body = outer.search(self.headers.get("Authorization"), raw)
                    self._json(status, body)
                    return
                if not outer.authorized(self.headers.get("Authorization")):
                    self._json(401, outer.unauthorized_answer(self.headers.get("Authorization")))
                    return
                if not outer._meeting(raw):
                    self._json(400, {"error": {"message": "the tasks did not run at once"}})
                    return
                with outer._lock:
                    status, answer = outer._answer(raw)
                if status != 200:
                    self._json(status, {"error": {"message": answer, "type": "invalid_request"}})
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(answer)
                self.close_connection = True

            def _json(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> DeepSeek:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def authorized(self, authorization: str | None) -> bool:
        """Whether a request's Authorization header carries the key; counted when not."""
        if authorization == f"Bearer {self.key}":
            return True
        with self._lock:
            self.unauthorized += 1
        return False

    def unauthorized_answer(self, authorization: str | None) -> dict[str, Any]:
        """DeepSeek's 401 body: the key it was given, all but its last four characters hidden."""
        given = (authorization or "").removeprefix("Bearer ").strip()
        shown = f"****{given[-4:]}" if given else "(none)"
        return {
            "error": {
                "message": f"Authentication Fails, Your api key: {shown} is invalid",
                "type": "authentication_error",
                "param": None,
                "code": "invalid_request_error",
            }
        }

    def search(self, authorization: str | None, raw: bytes) -> tuple[int, dict[str, Any]]:
        """`POST /v1/tools/search` as the Search API answers it (search_problem)."""
        self.searches.append(raw)
        if authorization != f"Bearer {self.key}":
            return 401, {"error": {"message": "Invalid token.", "type": "authentication_error"}}
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        why = search_problem(body)
        if why is not None:
            return 400, {"error": {"message": why, "type": "invalid_request_error"}}
        results = self.search_results.popleft() if self.search_results else []
        return 200, {"results": results[: body.get("count", 10)]}

    def task_of(self, body: Any) -> str | None:
        """The `tasks` key the request's first user message holds, if any."""
        messages = body.get("messages") if isinstance(body, dict) else None
        first = next((m for m in messages or [] if m.get("role") == "user"), None)
        text = first.get("content") if isinstance(first, dict) else None
        return next((k for k in self.tasks if isinstance(text, str) and k in text), None)

    def _meeting(self, raw: bytes) -> bool:
        """With `meet`: a task's first request waits for every other task's first request."""
        if not self.meet:
            return True
        try:
            key = self.task_of(json.loads(raw))
        except ValueError:
            return True
        with self._lock:
            if key is None or key in self.met:
                return True
            self.met.append(key)
            if self._barrier is None:
                self._barrier = threading.Barrier(len(self.tasks), timeout=20)
            barrier = self._barrier
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            return False
        return True

    def requests(self) -> list[dict[str, Any]]:
        return [json.loads(b) for b in self.bodies]

    def _answer(self, raw: bytes) -> tuple[int, Any]:
        self.bodies.append(raw)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        why = problem(body, self.models, self.reasoner)
        if why is None and self.refuse:
            status, why = self.refuse.popleft()
            self.refused.append(why)
            return status, why
        if why is not None:
            self.refused.append(why)
            return 400, why
        self.calls += 1
        thinking = self.reasoner and body.get("thinking", {}).get("type", "enabled") == "enabled"
        key = self.task_of(body)
        queue = self.tasks[key] if key is not None else self.replies
        reply = queue.popleft() if queue else self._default(body["messages"])
        if body.get("tool_choice") == "none" and reply.get("tool_calls"):
            reply = {**reply, "tool_calls": []}  # the model may call no tool: it writes
            reply["text"] = reply.get("text") or self._default(body["messages"])["text"]
        usage = self._usage(raw, reply)
        self._answered.append(raw)
        return 200, self._stream(reply, thinking, usage)

    def _default(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        last = messages[-1]
        if last["role"] == "tool":
            return {"thought": "The tool answered.", "text": "Done."}
        content = last.get("content")
        text = content if isinstance(content, str) else json.dumps(content)
        first = (text.strip().splitlines() or [""])[0][:60]
        return {"thought": f"Thinking about: {first}", "text": f"Reply to: {first}"}

    def _usage(self, raw: bytes, reply: dict[str, Any]) -> dict[str, int]:
        shared = max((common_prefix(e, raw) for e in self._answered[-4:]), default=0)
        prompt = len(raw) // 4 + 1
        hit = min((shared // 4) // BLOCK * BLOCK, prompt)
        completion = (len(reply.get("thought", "")) + len(reply.get("text", ""))) // 4 + 1
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_cache_hit_tokens": hit,
            "prompt_cache_miss_tokens": prompt - hit,
        }
        self.usage.append(usage)
        return usage

    def _stream(self, reply: dict[str, Any], thinking: bool, usage: dict[str, int]) -> bytes:
        frames = [_chunk({"role": "assistant", "content": ""})]
        if thinking:
            thought = reply.get("thought") or "Thinking."
            frames += [_chunk({"reasoning_content": p}) for p in _pieces(thought)]
        frames += [_chunk({"content": p}) for p in _pieces(reply.get("text", ""))]
        calls = reply.get("tool_calls") or []
        for n, call in enumerate(calls):
            self_id = call.get("id") or f"call_{self.calls}_{n}"
            arguments = json.dumps(call.get("arguments", {}))
            head = {"index": n, "id": self_id, "type": "function"}
            frames.append(
                _chunk(
                    {"tool_calls": [{**head, "function": {"name": call["name"], "arguments": ""}}]}
                )
            )
            for piece in _pieces(arguments, 11):
                frames.append(
                    _chunk({"tool_calls": [{"index": n, "function": {"arguments": piece}}]})
                )
        frames.append(_chunk({"content": ""}, "tool_calls" if calls else "stop"))
        tail = {"id": "ds", "object": "chat.completion.chunk", "choices": [], "usage": usage}
        frames.append(b"data: " + json.dumps(tail).encode() + b"\n\n")
        frames.append(b"data: [DONE]\n\n")
        return b"".join(frames)
