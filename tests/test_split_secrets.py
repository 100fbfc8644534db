"""A secret the agent knows never reaches anyone in pieces: output read or passed on in parts
(a command's output as it comes, a cut output, the editor's terminal cut at its byte limit, an
MCP result in several blocks, a plugin's output cut at its limit) goes through one scrubber
(src/reasonix_acp/scrubber.py), so no part of the key is shown where its whole would have been
redacted. Through a real `acp` against the DeepSeek stand-in (its key is the secret), real
commands, a real MCP server and a real plugin; each test checks the model's requests, every
frame the client got, the store and the session's temp directory, and that the rest of the
output survives. Background commands read in parts: tests/tools/test_background.py."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.deepseek_server import KEY, DeepSeek
from tests.test_deepseek import agent, config
from tests.test_history_exact import converse
from tests.transcript import Scenario

NAME = "DEEPSEEK_API_KEY="
ENV_FILE = f"{NAME}{KEY}\nPLAIN=keep-me\n"
HALF = len(NAME) + len(KEY) // 2  # bytes of ENV_FILE up to the key's middle
SPLIT_SERVER = Path(__file__).parent / "mcp_servers" / "split_server.py"


def pieces(secret: str, size: int = 12) -> list[str]:
    """Every `size`-character stretch of `secret`: a part of it shown anywhere shows some."""
    return [secret[i : i + size] for i in range(len(secret) - size + 1)]


class Run:
    """One `acp` against the stand-in, its temp directory its own; what it sent everywhere."""

    def __init__(self, tmp: Path, server: DeepSeek, extra: str = "") -> None:
        scenario = Scenario(tmp)
        scenario.env["TMPDIR"] = str(tmp / "tmp")
        (tmp / "tmp").mkdir()
        self.tmp, self.server = tmp, server
        self.c = agent(tmp, config(server, extra), scenario)
        (tmp / "ws" / ".env").write_text(ENV_FILE, encoding="utf-8")
        self.requests: list[dict[str, Any]] = []  # the agent's requests to the client

    def open(self, capabilities: dict[str, Any] | None = None, **new: Any) -> str:
        c = self.c
        c.result("initialize", {"protocolVersion": 1, "clientCapabilities": capabilities or {}})
        params = {"cwd": c.scenario.vars["CWD"], "mcpServers": [], **new}
        sid: str = c.result("session/new", params)["sessionId"]
        option = {"sessionId": sid, "configId": "tool_approval", "value": "danger-full-access"}
        c.result("session/set_config_option", option)
        return sid

    def prompt(self, sid: str, on_request: Callable[[dict[str, Any]], Any] | None = None) -> None:
        def answer(frame: dict[str, Any]) -> Any:
            self.requests.append(frame)
            assert on_request is not None, frame
            return on_request(frame)

        blocks = [{"type": "text", "text": "go"}]
        assert converse(self.c, sid, blocks, answer)["result"] == {"stopReason": "end_turn"}

    def ended(self) -> list[str]:
        """The text of each tool call's end, as the client was shown it."""
        return [
            "".join(
                c["content"].get("text", "")
                for c in u.get("content") or []
                if c.get("type") == "content"
            )
            for u in self.updates()
            if u.get("status") in ("completed", "failed")
        ]

    def updates(self) -> list[dict[str, Any]]:
        return [n["params"]["update"] for n in self.c.notes if n.get("method") == "session/update"]

    def tool_messages(self) -> list[str]:
        """What the model was sent of each tool call, in the last request."""
        last = self.server.requests()[-1]["messages"]
        return [m["content"] for m in last if m["role"] == "tool"]

    def finish_and_check(self, secret: str = KEY) -> None:
        """The agent ends cleanly, and no part of `secret` is anywhere it sent or kept."""
        assert self.c.close() == 0
        assert self.server.refused == []
        requests = b"".join(self.server.bodies).decode()
        frames = json.dumps([self.c.notes, self.requests])
        stored = b"".join(p.read_bytes() for p in (self.tmp / "data").rglob("*") if p.is_file())
        temp = b"".join(p.read_bytes() for p in (self.tmp / "tmp").rglob("*") if p.is_file())
        for piece in pieces(secret):
            assert piece not in requests, f"the model was sent {piece!r}"
            assert piece not in frames, f"the client was sent {piece!r}"
            assert piece.encode() not in stored, f"the store keeps {piece!r}"
            assert piece.encode() not in temp, f"the session's temp keeps {piece!r}"


def bash(command: str) -> dict[str, Any]:
    return {
        "thought": "Run it.",
        "tool_calls": [{"name": "bash", "arguments": {"command": command}}],
    }


def test_a_key_printed_in_two_writes_is_not_shown_half_as_the_command_runs(
    tmp_path: Path,
) -> None:
    """The command prints the first half of the key, waits past the first progress update,
    then prints the rest: the `in_progress` update shows no part of it."""
    command = f"sleep 0.4; head -c {HALF} .env; sleep 0.8; tail -c +{HALF + 1} .env; echo done"
    with DeepSeek() as server:
        server.replies.extend([bash(command), {"thought": "Ran.", "text": "Ran."}])
        run = Run(tmp_path, server)
        run.prompt(run.open())
        progress = [u for u in run.updates() if u.get("status") == "in_progress"]
        assert [u for u in progress if u.get("content")], "it ran long enough to show progress"
        (ended,) = run.ended()
        assert ended == f"{NAME}[redacted]\nPLAIN=keep-me\ndone\n"
        assert run.tool_messages()[-1] == ended
        run.finish_and_check()


def test_a_key_at_the_output_cap_is_not_cut_in_half(tmp_path: Path) -> None:
    """The output is cut at the bash tool's cap (47 KiB) where the key is: what is shown, the
    model's copy and the file that keeps the whole output hold no part of it."""
    cap = 47 * 1024
    pad = cap - HALF
    command = f"head -c {pad} /dev/zero | tr '\\0' x; cat .env"
    with DeepSeek() as server:
        server.replies.extend([bash(command), {"thought": "Ran.", "text": "Ran."}])
        run = Run(tmp_path, server)
        run.prompt(run.open())
        (ended,) = run.ended()
        assert ended.startswith("x" * pad + NAME + "[redacted]")
        assert "[output cut at 48128 of " in ended
        (kept,) = (tmp_path / "tmp").rglob("bash-*.log")
        assert kept.read_text() == "x" * pad + f"{NAME}[redacted]\nPLAIN=keep-me\n"
        assert run.tool_messages()[-1].count("x") > 10_000
        run.finish_and_check()


class EditorTerminal:
    """The client's terminals: runs the command, keeps at most `outputByteLimit` bytes of its
    output (the oldest dropped first, on a character boundary), as the protocol has it."""

    def __init__(self) -> None:
        self.outputs: dict[str, tuple[str, bool, int]] = {}

    def answer(self, frame: dict[str, Any]) -> Any:
        method, params = frame["method"], frame["params"]
        if method == "terminal/create":
            done = subprocess.run(
                [params["command"], *params["args"]],
                cwd=params["cwd"],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=30,
            )
            limit = params["outputByteLimit"]
            data = done.stdout[-limit:] if len(done.stdout) > limit else done.stdout
            tid = f"t{len(self.outputs) + 1}"
            text = data.decode("utf-8", "ignore")
            self.outputs[tid] = (text, len(done.stdout) > limit, done.returncode)
            return {"terminalId": tid}
        text, truncated, code = self.outputs[params["terminalId"]]
        if method == "terminal/wait_for_exit":
            return {"exitCode": code}
        if method == "terminal/output":
            return {"output": text, "truncated": truncated, "exitStatus": {"exitCode": code}}
        return {}


def test_a_key_at_the_editor_terminals_cut_is_not_shown_in_part(tmp_path: Path) -> None:
    """The editor's terminal keeps the last MiB of the output, dropping the first half of the
    key: the model is not sent the second half."""
    limit = 1024 * 1024
    tail = "END-OF-OUTPUT\n"
    pad = limit - (len(ENV_FILE) - HALF) - len(tail)
    command = f"cat .env; head -c {pad} /dev/zero | tr '\\0' y; printf '{tail}'"
    editor = EditorTerminal()
    with DeepSeek() as server:
        server.replies.extend([bash(command), {"thought": "Ran.", "text": "Ran."}])
        run = Run(tmp_path, server)
        run.prompt(run.open({"terminal": True}), editor.answer)
        ((_, truncated, _),) = editor.outputs.values()
        assert truncated
        sent = run.tool_messages()[-1]
        assert "yyyy" in sent and sent.endswith(
            "END-OF-OUTPUT\n\n[output truncated by the client terminal]"
        )
        run.finish_and_check()


def test_a_secret_across_two_mcp_blocks_is_redacted(tmp_path: Path) -> None:
    """An MCP tool answers in two text blocks, a value of its server's env split between them:
    neither block, nor the model's text, shows a part of it; the text around it stays."""
    secret = "ENVSECRET-0123456789-abcdefghij"
    server_entry = {
        "name": "split",
        "command": sys.executable,
        "args": [str(SPLIT_SERVER)],
        "env": [{"name": "SERVICE_TOKEN", "value": secret}],
    }
    call = {"name": "mcp__split__halves", "arguments": {"name": "SERVICE_TOKEN"}}
    with DeepSeek() as server:
        server.replies.extend(
            [{"thought": "Ask.", "tool_calls": [call]}, {"thought": "Done.", "text": "Done."}]
        )
        run = Run(tmp_path, server)
        run.prompt(run.open(mcpServers=[server_entry]))
        (ended,) = run.ended()
        assert ended.startswith("token: [redacted]") and ended.endswith(" (the end)")
        sent = run.tool_messages()[-1]
        assert sent.startswith("token: [redacted]") and sent.endswith(" (the end)")
        run.finish_and_check(secret)


def test_a_key_at_a_plugins_output_limit_is_not_cut_in_half(tmp_path: Path) -> None:
    """A plugin tool prints padding so that its output limit (1 MiB) falls in the key, and a
    failing one prints the key where its error's last 2000 characters begin."""
    limit = 1024 * 1024
    plugin = tmp_path / "plugins" / "leaky"
    plugin.mkdir(parents=True)
    (plugin / "tool.py").write_text(
        "import json, sys\n"
        "request = json.load(sys.stdin)\n"
        "env = open('.env').read()\n"
        f"if request['tool'] == 'big':\n"
        f"    sys.stdout.write('x' * {limit - HALF} + env)\n"
        "else:\n"
        f"    sys.stderr.write(env + 'z' * {2000 - (len(ENV_FILE) - HALF)})\n"
        "    sys.exit(1)\n",
        encoding="utf-8",
    )
    tools = "".join(
        f'[tools.{name}]\ndescription = "{name}"\ncommand = ["{sys.executable}", "{plugin}/tool.py"]\n'
        'parameters = { type = "object", properties = {} }\n'
        for name in ("big", "failing")
    )
    (plugin / "plugin.toml").write_text(f'id = "leaky"\n{tools}', encoding="utf-8")
    calls = [{"name": f"leaky__{n}", "arguments": {}} for n in ("big", "failing")]
    with DeepSeek() as server:
        server.replies.extend(
            [{"thought": "Call.", "tool_calls": calls}, {"thought": "Done.", "text": "Done."}]
        )
        run = Run(tmp_path, server, f'[plugins]\npaths = ["{plugin.parent}"]\n')
        run.prompt(run.open())
        big, failing = run.ended()
        assert big.startswith("x" * 40_000)
        assert failing.startswith("plugin leaky: ") and failing.endswith("z" * 1900)
        assert "PLAIN=keep-me\n" in failing
        messages = run.tool_messages()
        assert messages[-2].count("x") > 10_000 and f"{NAME}[redacted]" in messages[-2]
        assert messages[-1] == failing
        run.finish_and_check()


def test_a_key_at_greps_line_limit_is_not_cut_in_half(tmp_path: Path) -> None:
    """grep shows a matching line's first 400 characters: a key across that limit is shown
    as [redacted], not as its first half."""
    line = "x" * (400 - HALF) + ENV_FILE.splitlines()[0] + " and more"
    call = {"name": "grep", "arguments": {"pattern": "DEEPSEEK", "path": "."}}
    with DeepSeek() as server:
        server.replies.extend(
            [{"thought": "Look.", "tool_calls": [call]}, {"thought": "Done.", "text": "Done."}]
        )
        run = Run(tmp_path, server)
        (tmp_path / "ws" / "long.txt").write_text(line + "\n", encoding="utf-8")
        run.prompt(run.open())
        (ended,) = run.ended()
        assert f"long.txt:1: {'x' * (400 - HALF)}{NAME}[redacted]" in ended
        run.finish_and_check()


class Pages(BaseHTTPRequestHandler):
    """/big: a text page cut at web_fetch's 5 MiB where the key is; /missing: a 404 whose
    body is cut at 500 characters where the key is."""

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/big":
            status, body = 200, "x" * (5 * 1024 * 1024 - HALF) + ENV_FILE + "y" * 4096
        else:
            status, body = 404, "x" * (500 - HALF) + ENV_FILE
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def test_a_key_at_web_fetchs_cuts_is_not_cut_in_half(tmp_path: Path) -> None:
    """A page longer than web_fetch reads, its limit in the key, and an error page whose
    excerpt ends in the key: neither shows a part of it."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    calls = [{"name": "web_fetch", "arguments": {"url": f"{base}/{p}"}} for p in ("big", "missing")]
    try:
        with DeepSeek() as server:
            server.replies.extend(
                [{"thought": "Fetch.", "tool_calls": calls}, {"thought": "Done.", "text": "Done."}]
            )
            run = Run(tmp_path, server, '[web]\nallow = ["127.0.0.1"]\n')
            run.prompt(run.open())
            big, missing = run.ended()
            assert big.startswith(f"Fetched {base}/big (HTTP 200, text/plain; only its first 5 MB")
            assert "x" * 1000 in big
            assert missing.startswith(f"{base}/missing answered HTTP 404: xxxx")
            assert missing.endswith(f"{NAME}[redacted]\nPLAI")
            assert "x" * 1000 in run.tool_messages()[-2]
            run.finish_and_check()
    finally:
        httpd.shutdown()
        httpd.server_close()
