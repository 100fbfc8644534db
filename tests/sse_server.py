"""A real HTTP server on 127.0.0.1 that speaks OpenAI-style streaming chat completions.

Each POST takes the next behaviour from a queue (default: "ok"); every request body is kept.
A behaviour is a name, `(status, body)` for a plain answer, or a list of frames to stream.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {
        "id": "c",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


OK_STREAM = [
    chunk({"role": "assistant", "reasoning_content": "Let me "}),
    chunk({"reasoning_content": "think."}),
    chunk({"content": "Hello"}),
    chunk({"content": ", world"}),
    chunk({}, finish="stop"),
    b'data: {"id":"c","choices":[],"usage":{"prompt_tokens":40,"completion_tokens":7,"prompt_cache_hit_tokens":32,"prompt_cache_miss_tokens":8,"completion_tokens_details":{"reasoning_tokens":3}}}\n\n',
    b"data: [DONE]\n\n",
]

TOOL_STREAM = [
    chunk(
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "todo_", "arguments": ""},
                }
            ],
        }
    ),
    chunk(
        {
            "tool_calls": [
                {"index": 0, "function": {"name": "write", "arguments": '{"todos": [{"content": '}}
            ]
        }
    ),
    chunk(
        {
            "tool_calls": [
                {"index": 0, "function": {"arguments": '"ship it", "status": "pending"}]}'}}
            ]
        }
    ),
    chunk({}, finish="tool_calls"),
    b"data: [DONE]\n\n",
]


# Behaviours streamed chunked on a kept connection when `keep_alive` is set; "linger" sends the
# whole stream, [DONE] included, then keeps the body open for LINGER_SECONDS (or until `lingering`
# is set) without ending it, as some servers do.
KEPT = ("ok", "tool", "linger")
LINGER_SECONDS = 30.0
GATE_SECONDS = 30.0


class Server:
    def __init__(self) -> None:
        self.behaviours: deque[Any] = deque()
        self.bodies: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        self.models: list[str] | None = None  # what GET /models serves; None: 404
        self.entries: list[dict[str, Any]] | None = None  # whole /models entries, when given
        self.props: dict[str, Any] | None = None  # what GET /props serves (llama.cpp); None: 404
        self.show: dict[str, Any] | None = None  # what POST /api/show answers (Ollama)
        self.gets: list[dict[str, str]] = []  # the headers of each GET
        self.shown: list[bytes] = []  # the bodies of POST /api/show
        self.get_delay = 0.0  # seconds a GET waits before it is answered (a slow endpoint)
        # When given, every GET waits until it is set (for at most GATE_SECONDS).
        self.get_gate: threading.Event | None = None
        # Streams as real servers send them: chunked, the connection kept for the next request.
        self.keep_alive = False
        self.log: list[tuple[str, int]] = []  # (method, client port) of each request, in order
        self.lingering = threading.Event()  # set: a lingering stream gives up at once
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                outer.log.append(("GET", self.client_address[1]))
                outer.gets.append(dict(self.headers))
                time.sleep(outer.get_delay)
                if outer.get_gate is not None:
                    outer.get_gate.wait(GATE_SECONDS)
                if self.path == "/props" and outer.props is not None:
                    data = json.dumps(outer.props)
                elif outer.models is None or not self.path.endswith("/models"):
                    self.send_error(404)
                    return
                else:
                    entries = outer.entries or [{"id": m} for m in outer.models]
                    data = json.dumps({"object": "list", "data": entries})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data.encode())

            def do_POST(self) -> None:
                outer.log.append(("POST", self.client_address[1]))
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path == "/api/show":
                    outer.shown.append(body)
                    data = json.dumps(outer.show).encode()
                    self.send_response(200 if outer.show is not None else 404)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                outer.bodies.append(body)
                outer.headers.append(dict(self.headers))
                behaviour = outer.behaviours.popleft() if outer.behaviours else "ok"
                if isinstance(behaviour, tuple):
                    code, data = behaviour
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                if behaviour in ("401", "429", "500", "400"):
                    code = int(behaviour)
                    data = json.dumps(
                        {"error": {"message": f"status {code} from the test server", "type": "x"}}
                    ).encode()
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    if code == 429:
                        self.send_header("Retry-After", "0")
                    self.end_headers()
                    self.wfile.write(data)
                    return
                if behaviour == "hang":  # answered only once `lingering` is set, then cut
                    outer.lingering.wait(LINGER_SECONDS)
                    self.close_connection = True
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                if outer.keep_alive and isinstance(behaviour, str) and behaviour in KEPT:
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for frame in TOOL_STREAM if behaviour == "tool" else OK_STREAM:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))
                        self.wfile.flush()
                    if behaviour == "linger":  # the body never ends: [DONE], then silence
                        outer.lingering.wait(LINGER_SECONDS)
                        self.close_connection = True
                        return
                    self.wfile.write(b"0\r\n\r\n")
                    return
                self.send_header("Connection", "close")
                self.end_headers()
                frames = (
                    behaviour
                    if isinstance(behaviour, list)
                    else {"ok": OK_STREAM, "tool": TOOL_STREAM}.get(behaviour, OK_STREAM)
                )
                if behaviour == "disconnect":
                    frames = OK_STREAM[:3]
                if behaviour == "malformed":
                    frames = [*OK_STREAM[:2], b"data: {not json\n\n", *OK_STREAM[2:]]
                for frame in frames:
                    self.wfile.write(frame)
                    self.wfile.flush()
                self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.lingering.set()
        self.httpd.shutdown()
        self.httpd.server_close()
