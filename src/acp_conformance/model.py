"""A scripted model any agent can use: an OpenAI-compatible Chat Completions server on
127.0.0.1 (`{model_url}` is its base URL, ending in /v1).

- `GET /v1/models` lists one model, MODEL_ID.
- `POST /v1/chat/completions` answers with the next reply of the scenario's script (the last
  one again once the script is used up), streamed as server-sent events when the request asks
  for `stream`, else as one completion. A reply is a list of actions:
    {"text": "..."}            assistant text      {"thought": "..."}   reasoning text
    {"stall_ms": n}            wait (a turn to cancel)
    {"fail": 500}              answer with that HTTP status and an error body
    {"usage": {"prompt_tokens": n, "completion_tokens": m}}
- Every request body is kept (`requests`), for checks and the wire log.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL_ID = "conformance-model"


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {
        "id": "conformance",
        "object": "chat.completion.chunk",
        "model": MODEL_ID,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


class ModelServer:
    def __init__(self, script: list[list[dict[str, Any]]]) -> None:
        self.script = script or [[{"text": "ok"}]]
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
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
                try:
                    request = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    request = {}
                reply = server.next_reply(request)
                server.answer(self, reply, bool(request.get("stream")))

            def _plain(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.handler = Handler
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def next_reply(self, request: dict[str, Any]) -> list[dict[str, Any]]:
        with self._lock:
            self.requests.append(request)
            index = min(len(self.requests) - 1, len(self.script) - 1)
            return self.script[index]

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
                handler.wfile.flush()
            handler.wfile.write(_chunk({}, finish="stop") + b"data: [DONE]\n\n")
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
        body = {
            "id": "conformance",
            "object": "chat.completion",
            "model": MODEL_ID,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            **({"usage": usage} if usage else {}),
        }
        handler._plain(200, json.dumps(body).encode())  # type: ignore[attr-defined]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
