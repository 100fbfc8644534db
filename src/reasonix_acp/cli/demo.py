"""`acp demo`: a whole session, played by a client against `acp` with the offline model.

It spawns `acp --model offline --script demo_script.jsonl` on a private data directory, and
drives initialize, session/new, a prompt whose turn updates the plan and runs a command after
the user's permission (the demo answers "allow once"), a prompt
that is cancelled midway, and session/load (the stored history replayed), printing each step.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).with_name("demo_script.jsonl")


class Demo:
    def __init__(self, data: Path, cwd: Path) -> None:
        self.carry: tuple[str, list[str]] = ("", [])
        env = {
            **os.environ,
            "REASONIX_ACP_DATA_DIR": str(data),
            "REASONIX_ACP_CONFIG_DIR": str(data / "config"),
        }
        cmd = [sys.executable, "-m", "reasonix_acp", "--model", "offline", "--script", str(SCRIPT)]
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=cwd
        )
        self.next_id = 0
        self.cwd = str(cwd)

    def send(self, method: str, params: dict[str, Any], request: bool = True) -> int:
        assert self.proc.stdin
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            msg["id"] = self.next_id
        say(f"\n→ {method}" + (f" #{msg['id']}" if request else ""), params)
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        return self.next_id

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit("acp demo: the agent exited early")
        frame: dict[str, Any] = json.loads(line)
        return frame

    def answer(self, frame: dict[str, Any]) -> None:
        assert self.proc.stdin
        params = frame.get("params", {})
        if frame["method"] == "session/request_permission":
            sys.stdout.write(f"  asks     │ permission: {params['toolCall'].get('title')}\n")
            result: dict[str, Any] = {"outcome": {"outcome": "selected", "optionId": "allow_once"}}
            sys.stdout.write("  answer   │ Allow (once)\n")
        else:
            result = {}
        reply = {"jsonrpc": "2.0", "id": frame["id"], "result": result}
        self.proc.stdin.write((json.dumps(reply) + "\n").encode())
        self.proc.stdin.flush()

    def until(self, request_id: int, stop_after: int | None = None) -> dict[str, Any] | None:
        """Show notifications until the response to `request_id` (or `stop_after` updates)."""
        seen = 0
        text, held = self.carry  # a text run the previous call left open, and what it held
        self.carry = ("", [])
        while True:
            frame = self.read()
            if (
                "method" in frame and "id" in frame
            ):  # the agent asks: answer like a user who allows once
                flush(text)
                flush_lines(held)
                text = ""
                self.answer(frame)
                continue
            if frame.get("id") == request_id and "method" not in frame:
                flush(text)
                flush_lines(held)
                say(f"← response #{request_id}", frame.get("result", frame.get("error")))
                return frame
            update = frame.get("params", {}).get("update", {})
            kind = update.get("sessionUpdate")
            if kind in ("agent_message_chunk", "agent_thought_chunk"):
                prefix = "  thinking │ " if kind == "agent_thought_chunk" else "  agent    │ "
                if not text.startswith(prefix):
                    flush(text)
                    flush_lines(held)
                    text = prefix
                text += update["content"]["text"]
            elif kind is None and text:
                held.append(describe(frame))  # shown after the text run: never inside it
            else:
                flush(text)
                flush_lines(held)
                text = ""
                show_update(kind, update) if kind else sys.stdout.write(describe(frame))
            seen += 1
            if stop_after is not None and seen >= stop_after:
                # A text run still open goes on in the next call: it is never split.
                self.carry = (text, held)
                return None


def brief(payload: Any, width: int = 160) -> str:
    """JSON on one line, cut at a word boundary with `…` when longer than `width`."""
    text = json.dumps(payload, ensure_ascii=False)
    if len(text) <= width:
        return text
    cut = max(text.rfind(", ", 0, width), text.rfind(" ", 0, width))
    return text[: cut if cut > width // 2 else width] + " …"


def say(title: str, payload: Any = None) -> None:
    sys.stdout.write(title + ("  " + brief(payload) if payload is not None else "") + "\n")


def describe(frame: dict[str, Any]) -> str:
    """A notification other than a session update: the vendor status stream and the rest."""
    method, params = frame.get("method", ""), frame.get("params") or {}
    if method == "_reasonix.io/session/status_update":
        status = params.get("status") or {}
        outcome = (status.get("turnOutcome") or {}).get("kind")
        outcome = None if outcome == "none" else outcome
        said = f"{params.get('event')}: {status.get('state')}, {status.get('phase')}"
        return f"  status   │ {said}" + (f", outcome {outcome}" if outcome else "") + "\n"
    return f"  {method or 'frame'} │ {brief(params, 100)}\n"


def flush_lines(lines: list[str]) -> None:
    for line in lines:
        sys.stdout.write(line)
    lines.clear()


def flush(text: str) -> None:
    if text:
        sys.stdout.write(text + "\n")


def show_update(kind: str | None, update: dict[str, Any]) -> None:
    if kind == "user_message_chunk":
        sys.stdout.write(f"  user     │ {update['content'].get('text', '')}\n")
    elif kind == "tool_call":
        sys.stdout.write(
            f"  tool     │ {update['title']} ({update['kind']}) … {update['status']}\n"
        )
    elif kind == "tool_call_update":
        texts = [
            c["content"]["text"] for c in update.get("content", []) if c.get("type") == "content"
        ]
        sys.stdout.write(f"  tool     │ {update['status']}: {' '.join(texts)}\n")
    elif kind == "plan":
        for entry in update["entries"]:
            mark = {"completed": "x", "in_progress": ">", "pending": " "}[entry["status"]]
            sys.stdout.write(f"  plan     │ [{mark}] {entry['content']}\n")
    elif kind == "usage_update":
        sys.stdout.write(f"  usage    │ {update['used']} of {update['size']} context tokens\n")
    elif kind == "session_info_update":
        sys.stdout.write(f"  title    │ {update.get('title')}\n")
    elif kind == "available_commands_update":
        sys.stdout.write(f"  commands │ {len(update['availableCommands'])} available\n")
    else:
        sys.stdout.write(f"  {kind}\n")


def run_demo() -> int:
    with tempfile.TemporaryDirectory(prefix="acp-demo-") as tmp:
        root = Path(tmp)
        (root / "workspace").mkdir()
        demo = Demo(root / "data", root / "workspace")
        init = demo.send(
            "initialize",
            {
                "protocolVersion": 1,
                "clientInfo": {"name": "acp-demo", "version": "1"},
                "clientCapabilities": {
                    "_meta": {"reasonix.io": {"statusUpdates": {"supported": True}}}
                },
            },
        )
        demo.until(init)
        new = demo.send("session/new", {"cwd": str(root / "workspace"), "mcpServers": []})
        reply = demo.until(new)
        assert reply is not None
        sid = reply["result"]["sessionId"]
        demo.until(-1, stop_after=1)  # available_commands_update follows the response
        prompt = {
            "sessionId": sid,
            "prompt": [
                {"type": "text", "text": "The pagination test fails. Make a plan and fix it."}
            ],
        }
        demo.until(demo.send("session/prompt", prompt))
        long = demo.send(
            "session/prompt",
            {
                "sessionId": sid,
                "prompt": [{"type": "text", "text": "Now analyse the whole repository."}],
            },
        )
        demo.until(long, stop_after=3)
        time.sleep(0.2)
        demo.send("session/cancel", {"sessionId": sid}, request=False)
        demo.until(long)
        say(
            "\n(the session is reloaded from the store: its history is replayed before the response)"
        )
        demo.until(
            demo.send(
                "session/load", {"sessionId": sid, "cwd": str(root / "workspace"), "mcpServers": []}
            )
        )
        assert demo.proc.stdin
        demo.proc.stdin.close()
        code = demo.proc.wait(10)
        say(f"\nagent exited with {code}")
        return code
