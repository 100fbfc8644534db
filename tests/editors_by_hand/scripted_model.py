"""A scripted OpenAI-compatible chat-completions endpoint on 127.0.0.1 for trying the agent in an
editor by hand: deterministic replies chosen by a token in the latest user message.

    python tests/editors_by_hand/scripted_model.py PORT

then run the agent with OPENAI_BASE_URL=http://127.0.0.1:PORT/v1, OPENAI_API_KEY=x,
OPENAI_MODEL=scripted. Tokens: @@ASK (a sentence, then ask_user with three choices), @@PLAN
(present_plan, for plan mode), @@BG (bash run_in_background), @@CMD (a bash command that needs
permission), @@TASK (a subagent `task`). A tool result is answered "Done."; any other prompt
(a subagent's task, /compact's summary request) gets a short text reply. Every request is
appended to requests.jsonl in the working directory.

codecompanion.lua (Neovim, CodeCompanion.nvim) and agent-shell.el (Emacs, agent-shell) drive an
editor headless against it, each step's buffer dumped to a file (docs/editors.md, "What each
editor shows"). Use a sandbox-less config (`[sandbox] mode = "off"`) for the command questions.
"""

from __future__ import annotations

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "@@ASK": [
        {
            "text": "I need a decision.",
            "tool": (
                "ask_user",
                {
                    "question": "Which colour should the button be?",
                    "options": ["Red", "Green", "Blue"],
                },
            ),
        }
    ],
    "@@PLAN": [
        {
            "text": "I have looked around.",
            "tool": (
                "present_plan",
                {
                    "plan": "1. Read the settings file\n"
                    "2. Change the button colour to green\n"
                    "3. Run the tests"
                },
            ),
        }
    ],
    "@@BG": [{"tool": ("bash", {"command": "echo tick; sleep 30", "run_in_background": True})}],
    "@@CMD": [{"tool": ("bash", {"command": "mkdir -p build && touch build/stamp"})}],
    "@@TASK": [
        {
            "tool": (
                "task",
                {"prompt": "Read notes.md and say what it holds.", "description": "read the notes"},
            )
        }
    ],
}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def choose(messages: list[dict[str, Any]]) -> dict[str, Any]:
    if messages and messages[-1].get("role") == "tool":
        return {"text": "Done."}
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    said = _text(messages[last_user].get("content")) if last_user >= 0 else ""
    step = sum(1 for m in messages[last_user + 1 :] if m.get("role") == "assistant")
    for token, script in SCRIPTS.items():
        if token in said and step < len(script):
            return script[step]
    if "summar" in said.lower() or "compact" in said.lower():
        return {"text": "Summary: the user tried questions, a plan, commands and a subagent."}
    first = said.strip().splitlines()[-1][:60] if said.strip() else ""
    return {"text": f"Reply to: {first}"}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def _json(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        with open("requests.jsonl", "a") as log:
            log.write(json.dumps(body) + "\n")
        reply = choose(body.get("messages", []))
        text, tool = reply.get("text"), reply.get("tool")
        calls = []
        if tool:
            calls = [
                {
                    "index": 0,
                    "id": f"call_{int(time.time() * 1000)}",
                    "type": "function",
                    "function": {"name": tool[0], "arguments": json.dumps(tool[1])},
                }
            ]
        usage = {"prompt_tokens": 1200, "completion_tokens": 40, "total_tokens": 1240}
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if calls:
                message["tool_calls"] = [
                    {k: v for k, v in c.items() if k != "index"} for c in calls
                ]
            self._json(
                200,
                {
                    "id": "x",
                    "object": "chat.completion",
                    "model": "scripted",
                    "choices": [
                        {
                            "index": 0,
                            "message": message,
                            "finish_reason": "tool_calls" if calls else "stop",
                        }
                    ],
                    "usage": usage,
                },
            )
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()

        def send(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> None:
            chunk = {
                "id": "x",
                "object": "chat.completion.chunk",
                "model": "scripted",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                **extra,
            }
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()

        send({"role": "assistant"})
        if text:
            for word in text.split(" "):
                send({"content": word + " " if word != text.split(" ")[-1] else word})
        if calls:
            send({"tool_calls": calls})
        send({}, "tool_calls" if calls else "stop", usage=usage)
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8765
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
