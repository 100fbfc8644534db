"""Drive a real `acp` process with a scenario file and record both directions.

Scenario files (tests/golden/*.ndjson) hold one entry per line:
- `{"args": [...], "config": "<toml>", "http": [...], "env": {...}, "needs": [...]}` (first
  line only): command-line arguments for `acp`, optionally the text of its config.toml, the
  answers of an OpenAI-style HTTP server on 127.0.0.1 (`${HTTP}` is its base URL), one per
  request: a behaviour name of tests/sse_server.py ("ok", "tool", "401" ...) or `[status,
  body]`, variables added to the agent's environment, and what the machine must have
  (`"bwrap"`: a working bubblewrap; tests/test_golden.py skips the scenario without it);
  `"deepseek": {"replies": [...], "models": [...], "key": ...}` starts the DeepSeek stand-in
  (tests/deepseek_server.py) at `${DEEPSEEK}` with these replies, served models and key;
- `{"dir": "c2a", "msg": <any JSON>}`: a frame to send, serialised compactly;
- `{"dir": "c2a", "raw": "<text>", "repeat": n, "suffix": "<text>"}`: raw text to send
  (`raw` n times, then `suffix`), for malformed and over-long lines;
- optional `"expect": n` on any entry: how many agent frames to wait for after sending it
  (default: 1 for a request, i.e. a `msg` object with `id` and `method`, or for `raw`; else 0),
  or `"until_id": X`: read agent frames until the response with id X (notifications included);
- `{"dir": "c2a", "reply": <result>}`: answer the agent's latest request; `"until_request": M`
  on any entry reads agent frames until the agent sends a request for method M;
- `{"restart": true}`: end this agent (it must exit 0) and start another on the same data dir;
- `{"kill": true, "args": [...]}`: SIGKILL this agent and start another on the same data dir,
  with these arguments when given;
- `{"sleep_ms": n}`: wait before the next entry;
- `{"model_requests": true}`: record the messages of each request the `http` or `deepseek`
  server was sent since the last such entry (each system message's text as `<system-n>`, n
  counting the texts seen), to pin what the model was given;
- `{"read_file": "<path>"}`: record the file's text (null where there is none).
Strings in `args` and `msg` may use `${CWD}`, `${CWD2}` (workspaces), `${DATA}`, `${GOLDEN}` and
`${SESSIONn}` (the id the n-th `session/new` or `session/fork` returned, or a rewind kept its
conversation as), `${MESSAGEn}` (the n-th message id the agent's session updates named),
`${RECOVERYn}` (the n-th `protocolRecovery.id` a status answer showed); the snapshot shows them
normalised.

After the last entry stdin is closed; the agent must exit 0 and may not write anything more.
The recorded transcript lists the sent entries and the agent's frames in order.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from tests import deepseek_server, sse_server
from tests.agent_process import WAIT_SECONDS as WAIT_SECONDS
from tests.agent_process import AgentProcess as AgentProcess
from tests.agent_process import acp_command as acp_command

INTERPRETER = re.compile(re.escape(str(Path(sys.executable).parent)) + r"/python[0-9.]*\b")


def _default_expect(entry: dict[str, Any]) -> int:
    if "raw" in entry:
        return 1
    msg = entry.get("msg")
    return int(isinstance(msg, dict) and "id" in msg and "method" in msg)


TEMP_BASE = re.compile(r"reasonix-acp-\d+")
# A time stamp, ISO 8601 or as a title shows it ("New session, 2026-12-06 09:30 UTC").
ISO_TIME = re.compile(r"\d{4}-\d\d-\d\d(?:T\d\d:\d\d:\d\d(?:\.\d+)?Z| \d\d:\d\d UTC)")


class Scenario:
    """Variables a scenario can use (`${CWD}`, `${CWD2}`, `${DATA}`, `${GOLDEN}`, `${MCP}` (the
    test MCP servers), `${PLUGINS}` (the test plugins), `${PYTHON}` (this interpreter), `${SESSION1}` ...)
    and the environment its agents run in: a private data dir and config dir, debug validation on,
    the sandbox off, no provider credentials from the machine."""

    def __init__(self, tmp: Path) -> None:
        self.vars: dict[str, str] = {
            "PLUGINS": str(Path(__file__).parent / "plugins"),
            "CWD": str(tmp / "ws"),
            "CWD2": str(tmp / "ws2"),
            "DATA": str(tmp / "data"),
            "GOLDEN": str(Path(__file__).parent / "golden"),
            "MCP": str(Path(__file__).parent / "mcp_servers"),
            "PYTHON": sys.executable,
            "TMP": str(tmp),
        }
        for key in ("CWD", "CWD2"):
            Path(self.vars[key]).mkdir(parents=True, exist_ok=True)
        (Path(self.vars["CWD"]) / "notes.txt").write_text("line one\nline two\n", encoding="utf-8")
        self.env = {
            "REASONIX_ACP_DATA_DIR": self.vars["DATA"],
            "REASONIX_ACP_CONFIG_DIR": str(tmp / "config"),
            "REASONIX_ACP_DEBUG": "1",
            # Commands run as on a machine without a sandbox engine, whatever this one has; the
            # sandbox's own tests turn it on (tests/tools/test_sandbox.py).
            "REASONIX_ACP_SANDBOX": "off",
            "DEEPSEEK_API_KEY": "",
            "OPENAI_API_KEY": "",
            "OPENAI_BASE_URL": "",
            "ACP_MODEL": "",
        }
        self.sessions: list[str] = []
        self.items: list[str] = []
        self.runs: list[str] = []
        self.compactions: list[str] = []
        self.messages: list[str] = []
        self.recoveries: list[str] = []
        self.model_seen = 0  # the server's requests recorded by `model_requests` so far
        self.systems: list[Any] = []  # the system messages' texts, named by order

    def substitute(self, node: Any) -> Any:
        if isinstance(node, str):
            for key, value in self.vars.items():
                node = node.replace("${" + key + "}", value)
            return node
        if isinstance(node, dict):
            return {k: self.substitute(v) for k, v in node.items()}
        if isinstance(node, list):
            return [self.substitute(x) for x in node]
        return node

    def learn(self, frame: dict[str, Any], methods: dict[Any, str]) -> None:
        params = frame.get("params")
        update = params.get("update") if isinstance(params, dict) else None
        compaction = update.get("compactionId") if isinstance(update, dict) else None
        if isinstance(compaction, str) and compaction not in self.compactions:
            self.compactions.append(compaction)  # random: named by order, `<compaction-1>` ...
        message = update.get("messageId") if isinstance(update, dict) else None
        if (
            isinstance(message, str)
            and message not in self.messages
            and message not in self.compactions
        ):
            self.messages.append(message)  # random: named by order, `<message-1>` ...
            self.vars[f"MESSAGE{len(self.messages)}"] = message
        child = update.get("sessionId") if isinstance(update, dict) else None
        if (
            update
            and update.get("sessionUpdate") == "subagent_update"
            and child not in self.sessions
        ):
            self.sessions.append(child)  # a subagent's session: named by order too
            self.vars[f"SESSION{len(self.sessions)}"] = child
        result = frame.get("result")
        if (
            methods.get(frame.get("id")) in ("session/new", "session/fork")
            and isinstance(result, dict)
            and "sessionId" in result
        ):
            self.sessions.append(result["sessionId"])
            self.vars[f"SESSION{len(self.sessions)}"] = result["sessionId"]
        if isinstance(result, dict):
            # Inbox item ids (`${ITEM1}` ...) and process run ids are random: named by order.
            item = result.get("itemId")
            if isinstance(item, str) and item not in self.items:
                self.items.append(item)
                self.vars[f"ITEM{len(self.items)}"] = item
            recovery = result.get("protocolRecovery")
            if isinstance(recovery, dict) and recovery.get("id") not in self.recoveries:
                self.recoveries.append(recovery["id"])
                self.vars[f"RECOVERY{len(self.recoveries)}"] = recovery["id"]
            run = result.get("runId")
            if isinstance(run, str) and run not in self.runs:
                self.runs.append(run)
            kept = result.get("keptAs")  # the session a rewind kept the conversation as
            if isinstance(kept, str) and kept not in self.sessions:
                self.sessions.append(kept)
                self.vars[f"SESSION{len(self.sessions)}"] = kept

    def recorded(self, entry: dict[str, Any], server: Any) -> dict[str, Any]:
        """What a `model_requests` or `read_file` entry records."""
        if "read_file" in entry:
            path = Path(self.substitute(entry["read_file"]))
            return {"file": str(path), "text": path.read_text() if path.is_file() else None}
        bodies = server.bodies[self.model_seen :] if server is not None else []
        self.model_seen += len(bodies)
        requests = []
        for body in bodies:
            messages = json.loads(body).get("messages") or []
            for message in messages:
                if message.get("role") == "system":
                    text = message.get("content")
                    self.systems += [] if text in self.systems else [text]
                    message["content"] = f"<system-{self.systems.index(text) + 1}>"
            requests.append(messages)
        return {"model_requests": requests}

    def normalise(self, node: Any) -> Any:
        if isinstance(node, str):
            for i, sid in enumerate(self.sessions, 1):
                node = node.replace(sid, f"<session-{i}>")
            for i, item in enumerate(self.items, 1):
                node = node.replace(item, f"<item-{i}>")
            for i, rid in enumerate(self.recoveries, 1):
                node = node.replace(rid, f"<recovery-{i}>")
            for i, run in enumerate(self.runs, 1):
                node = node.replace(run, f"<run-{i}>")
            for i, compaction in enumerate(self.compactions, 1):
                node = node.replace(compaction, f"<compaction-{i}>")
            for i, message in enumerate(self.messages, 1):
                node = node.replace(message, f"<message-{i}>")
            # The agent's interpreter, however its launcher names it (python, python3, python3.11)
            node = INTERPRETER.sub("<python>", node)
            for key in (
                "HTTP",
                "DEEPSEEK",
                "PYTHON",
                "CWD2",
                "CWD",
                "DATA",
                "GOLDEN",
                "MCP",
                "PLUGINS",
                "TMP",
            ):
                if key in self.vars:
                    node = node.replace(self.vars[key], f"<{key.lower()}>")
            node = TEMP_BASE.sub("reasonix-acp-<uid>", node)  # the session temp's base
            return ISO_TIME.sub("<time>", node)
        if isinstance(node, dict):
            return {k: self.normalise(v) for k, v in node.items()}
        if isinstance(node, list):
            return [self.normalise(x) for x in node]
        return node


def run(path: Path, tmp: Path) -> tuple[list[dict[str, Any]], Scenario]:
    entries = [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    scenario = Scenario(tmp)
    header = entries.pop(0) if entries and "args" in entries[0] else {"args": []}
    args: list[str] = scenario.substitute(header["args"])
    server: Any = None
    if "http" in header:  # an OpenAI-style server on 127.0.0.1: ${HTTP} is its base URL
        server = sse_server.Server().__enter__()
        for behaviour in header["http"]:
            is_plain = isinstance(behaviour, list) and isinstance(behaviour[0], int)
            server.behaviours.append(
                (behaviour[0], behaviour[1].encode()) if is_plain else behaviour
            )
        scenario.vars["HTTP"] = server.url
    if "deepseek" in header:  # the DeepSeek stand-in (tests/deepseek_server.py) at ${DEEPSEEK}
        server = deepseek_server.DeepSeek().__enter__()
        server.replies.extend(header["deepseek"].get("replies", []))
        server.models = header["deepseek"].get("models", server.models)
        server.key = header["deepseek"].get("key", server.key)  # the key its config.toml gives
        scenario.vars["DEEPSEEK"] = server.url
    scenario.env.update(scenario.substitute(header.get("env", {})))
    for name, text in header.get("files", {}).items():
        # a file the scenario's workspace starts with (an absolute path, `${CWD}/...`)
        path, text = Path(scenario.substitute(name)), scenario.substitute(text)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if "config" in header:  # config.toml text for the agent's private config dir
        config_dir = Path(scenario.env["REASONIX_ACP_CONFIG_DIR"])
        config_dir.mkdir(parents=True, exist_ok=True)
        config_text = scenario.substitute(header["config"])
        (config_dir / "config.toml").write_text(config_text, encoding="utf-8")
    agent = AgentProcess(args, scenario.env)
    transcript: list[dict[str, Any]] = []
    methods: dict[Any, str] = {}

    last_request: list[Any] = [None]

    def receive() -> dict[str, Any]:
        frame = agent.receive()
        scenario.learn(frame, methods)
        if "method" in frame and "id" in frame:
            last_request[0] = frame["id"]
        transcript.append({"dir": "a2c", "msg": frame})
        return frame

    try:
        for entry in entries:
            if entry.get("restart"):
                code, rest = agent.finish()
                assert (code, rest) == (0, []), (code, rest, agent.stderr)
                transcript.append({"restart": True})
                agent = AgentProcess(args, scenario.env)
                continue
            if entry.get("kill"):
                agent.proc.kill()
                agent.proc.wait(timeout=WAIT_SECONDS)
                if agent.proc.stdin is not None:
                    agent.proc.stdin.close()
                transcript.append({"kill": True})
                args = scenario.substitute(entry.get("args", args))
                agent = AgentProcess(args, scenario.env)
                continue
            if "sleep_ms" in entry:
                time.sleep(entry["sleep_ms"] / 1000)
                continue
            if "model_requests" in entry or "read_file" in entry:
                transcript.append(scenario.recorded(entry, server))
                continue
            if "reply" in entry:  # answer the agent's latest request with this result
                msg = {
                    "jsonrpc": "2.0",
                    "id": last_request[0],
                    "result": scenario.substitute(entry["reply"]),
                }
                agent.send(json.dumps(msg).encode() + b"\n")
                transcript.append({"dir": "c2a", "msg": msg})
            elif "raw" in entry:
                text = entry["raw"] * entry.get("repeat", 1) + entry.get("suffix", "")
                agent.send(text.encode("utf-8") + b"\n")
                transcript.append(
                    {k: v for k, v in entry.items() if k not in ("expect", "until_id")}
                )
            else:
                msg = scenario.substitute(entry["msg"])
                if (
                    isinstance(msg, dict)
                    and isinstance(msg.get("method"), str)
                    and isinstance(msg.get("id"), int | str)
                ):
                    methods[msg["id"]] = msg["method"]
                agent.send(json.dumps(msg, ensure_ascii=False).encode("utf-8") + b"\n")
                transcript.append({"dir": "c2a", "msg": msg})
            if "until_id" in entry:
                while receive().get("id") != entry["until_id"] or "method" in transcript[-1]["msg"]:
                    pass
            elif "until_request" in entry:  # read until the agent sends a request of this method
                while (
                    receive().get("method") != entry["until_request"]
                    or "id" not in transcript[-1]["msg"]
                ):
                    pass
            elif "until_update" in entry:  # read until a session update of this kind naming text
                kind, text = entry["until_update"]["sessionUpdate"], entry["until_update"]["has"]
                while not _is_update(receive(), kind, text):
                    pass
            else:
                for _ in range(entry.get("expect", _default_expect(entry))):
                    receive()
        code, rest = agent.finish()
    finally:
        if agent.proc.poll() is None:
            agent.proc.kill()
        if server is not None:
            server.__exit__(None, None, None)
    assert not rest, f"frames after end of input: {rest!r}"
    assert code == 0, f"exit code {code}; stderr:\n{agent.stderr.decode(errors='replace')}"
    return transcript, scenario


def _is_update(frame: dict[str, Any], kind: str, text: str) -> bool:
    update = frame.get("params", {}).get("update", {}) if frame.get("method") else {}
    return bool(update.get("sessionUpdate") == kind and text in json.dumps(update))


def normalise(
    transcript: list[dict[str, Any]], scenario: Scenario | None = None
) -> list[dict[str, Any]]:
    """Replace values that change between runs or machines."""

    def walk(node: Any, key: str | None = None) -> Any:
        if isinstance(node, dict):
            out = {k: walk(v, k) for k, v in node.items()}
            if key in ("agentInfo", "io.modelcontextprotocol/clientInfo") and "version" in out:
                out["version"] = "<version>"
            if key == "runtime" and "workDurationMs" in out:  # a goal's wall time
                out["workDurationMs"] = "<ms>"
            return out
        if isinstance(node, list):
            return [walk(x) for x in node]
        return node

    frames = [walk(frame) for frame in transcript]
    return scenario.normalise(frames) if scenario else frames
