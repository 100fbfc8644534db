"""`acp connect URL` against a stand-in remote endpoint, all real processes and sockets.

The stand-in is what a remote ACP endpoint does: a WebSocket server on 127.0.0.1 that refuses
an upgrade without the right bearer token (HTTP 401) and, for each WebSocket, runs a real
`acp --model offline` on pipes (one data directory for all of them, so a session stored by
one is resumed by the next) and carries frames both ways. It can drop a connection (close
1011, its acp killed, nothing listening until it is started again on the same port) or close
one for good (1000), when told to or on the next frame with a given method.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from http import HTTPStatus
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request as HttpRequest
from websockets.http11 import Response as HttpResponse

from tests.agent_process import AgentProcess, acp_command
from tests.test_setup_keys import fresh

TOKEN = "tok-3f9c1e7a5b2d4f60a8e1c9d7b3a5f2e4"
WAIT = 20.0


class Link:
    """One WebSocket the stand-in accepted: what came in on it, and how it ended."""

    def __init__(self, ws: ServerConnection) -> None:
        self.ws = ws
        self.got: list[dict[str, Any]] = []  # the frames the bridge sent, in order
        self.proc: asyncio.subprocess.Process | None = None
        self.close_code: int | None = None
        self.ended = threading.Event()


class StandIn:
    """The remote endpoint, on its own event loop in a thread."""

    def __init__(
        self,
        tmp: Path,
        *,
        resume: bool = True,
        script: Path | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        (tmp / "remote").mkdir(exist_ok=True)
        self.env = fresh(tmp / "remote")
        self.data = str(tmp / "remote" / "data")
        self.resume = resume  # False: the agent's initialize answer advertises no resume
        self.script = ["--script", str(script)] if script is not None else []
        self.tls = tls
        self.links: list[Link] = []
        self.errors: list[BaseException] = []  # the handler's own failures: a test's bug
        self.logs = tmp / "remote"
        self.port = 0
        self.drop_on: tuple[str, int] | None = None  # (method, close code)
        self.dropped = threading.Event()
        self._server: Server | None = None
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}/acp"

    def _run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(WAIT)

    def start(self) -> None:
        self._run(self._start())

    def drop(self, code: int = 1011) -> None:
        self._run(self._drop(code))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._run(self._drop(1001))
        self._loop.call_soon_threadsafe(self._loop.stop)

    async def _start(self) -> None:
        self.dropped.clear()
        self._server = await serve(
            self._handle,
            "127.0.0.1",
            self.port,
            process_request=self._check,
            max_size=None,
            ssl=self.tls,
        )
        self.port = next(iter(self._server.sockets)).getsockname()[1]

    def _check(self, connection: ServerConnection, request: HttpRequest) -> HttpResponse | None:
        if request.headers.get("Authorization") == f"Bearer {TOKEN}":
            return None
        return connection.respond(HTTPStatus.UNAUTHORIZED, "a bearer token is needed\n")

    async def _drop(self, code: int) -> None:
        """Every connection closed with `code`, its acp killed and reaped; nothing listens."""
        server, self._server = self._server, None
        if server is not None:
            server.close(close_connections=False)
        for link in self.links:
            if link.proc is not None and link.proc.returncode is None:
                link.proc.kill()
                await link.proc.wait()
            await link.ws.close(code, "stand-in")
        if server is not None:
            await server.wait_closed()
        self.dropped.set()

    async def _handle(self, ws: ServerConnection) -> None:
        try:
            await self._serve(ws)
        except BaseException as exc:
            self.errors.append(exc)
            raise

    async def _serve(self, ws: ServerConnection) -> None:
        link = Link(ws)
        self.links.append(link)
        log = (self.logs / f"acp-{len(self.links)}.log").open("wb")
        link.proc = proc = await asyncio.create_subprocess_exec(
            *acp_command(),
            "--model",
            "offline",
            "--data-dir",
            self.data,
            *self.script,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            env=self.env,
            limit=1 << 24,
        )
        down = asyncio.create_task(self._down(link, proc))
        try:
            await self._up(link, proc)
        finally:
            if proc.returncode is None and proc.stdin is not None:
                proc.stdin.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(proc.wait(), WAIT)
            await down
            log.close()
            link.close_code = ws.close_code
            link.ended.set()

    async def _up(self, link: Link, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdin is not None
        with contextlib.suppress(ConnectionClosed):  # a drop of ours: 1011
            await self._carry_up(link, proc)

    async def _carry_up(self, link: Link, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdin is not None
        async for message in link.ws:
            frame = json.loads(message)
            link.got.append(frame)
            if self.drop_on is not None and frame.get("method") == self.drop_on[0]:
                code = self.drop_on[1]
                self.drop_on = None
                asyncio.get_running_loop().create_task(self._drop(code))
                return
            proc.stdin.write(message.encode() + b"\n")
            await proc.stdin.drain()

    async def _down(self, link: Link, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        while line := await proc.stdout.readline():
            result = json.loads(line).get("result")
            if not self.resume and isinstance(result, dict) and "agentCapabilities" in result:
                result["agentCapabilities"]["sessionCapabilities"].pop("resume")
                line = json.dumps(
                    {"jsonrpc": "2.0", "id": json.loads(line)["id"], "result": result}
                ).encode()
            with contextlib.suppress(Exception):
                await link.ws.send(line.decode().rstrip("\n"))


@pytest.fixture
def stand_in(tmp_path: Path) -> Iterator[StandIn]:
    remote = StandIn(tmp_path)
    remote.start()
    yield remote
    remote.close()
    assert remote.errors == []


class Editor(AgentProcess):
    """`acp connect` driven as an editor drives an agent."""

    def __init__(self, tmp: Path, url: str, *args: str, token: str | None = TOKEN, **env: str):
        (tmp / "editor").mkdir(exist_ok=True)
        base = fresh(tmp / "editor", **env)
        base.pop("REASONIX_ACP_TOKEN", None)
        if token is not None:
            base["REASONIX_ACP_TOKEN"] = token
        super().__init__(["connect", url, *args], env=base)
        self.seen: list[dict[str, Any]] = []
        self.next_id = 1

    def request(self, method: str, params: dict[str, Any]) -> int:
        request_id, self.next_id = self.next_id, self.next_id + 1
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        self.send(json.dumps(message).encode() + b"\n")
        return request_id

    def answer(self, request_id: int) -> dict[str, Any]:
        """Frames up to the answer to `request_id` (kept in `seen`); the answer."""
        while True:
            frame = self.receive()
            self.seen.append(frame)
            if frame.get("id") == request_id and "method" not in frame:
                return frame

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return self.answer(self.request(method, params))

    def start_session(self, cwd: Path, capabilities: dict[str, Any] | None = None) -> str:
        params = {"protocolVersion": 1, "clientCapabilities": capabilities or {}}
        init = self.call("initialize", params)
        assert init.get("result", {}).get("agentInfo", {}).get("name") == "reasonix-acp", init
        new = self.call("session/new", {"cwd": str(cwd), "mcpServers": []})
        session_id: str = new["result"]["sessionId"]
        return session_id

    def prompt(self, session_id: str, text: str) -> dict[str, Any]:
        params = {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
        return self.call("session/prompt", params)


def until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"waited {WAIT} s for {what}"
        time.sleep(0.02)


def texts(frames: list[dict[str, Any]], kind: str) -> list[str]:
    """The text of every `kind` update (agent_message_chunk, user_message_chunk ...)."""
    found = []
    for frame in frames:
        update = frame.get("params", {}).get("update", {})
        if frame.get("method") == "session/update" and update.get("sessionUpdate") == kind:
            found.append(update.get("content", {}).get("text", ""))
    return found


def test_a_session_runs_through_the_bridge_and_ends_with_a_clean_close(
    tmp_path: Path, stand_in: StandIn
) -> None:
    editor = Editor(tmp_path, stand_in.url, "--line-limit", "65536")
    session_id = editor.start_session(tmp_path)
    done = editor.prompt(session_id, "hello over the wire")
    assert done["result"]["stopReason"] == "end_turn", done
    assert "".join(texts(editor.seen, "agent_message_chunk")).startswith("Offline reply: hello")
    listed = editor.call("session/list", {})
    assert session_id in [s["sessionId"] for s in listed["result"]["sessions"]], listed
    # Bad input is answered by the bridge as the stdio agent answers it, and never sent on.
    editor.send(b"x" * 70000 + b"\n")
    assert editor.receive() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32700,
            "message": "parse error: a line of more than 65536 bytes was skipped",
        },
    }
    editor.send(b"{not json\n")
    assert editor.receive()["error"]["code"] == -32700
    code, rest = editor.finish()
    assert (code, rest) == (0, []), editor.stderr
    link = stand_in.links[0]
    assert link.ended.wait(WAIT) and link.close_code == 1000
    assert [f.get("method") for f in link.got] == [
        "initialize",
        "session/new",
        "session/prompt",
        "session/list",
    ]
    assert link.ws.request is not None
    assert link.ws.request.path == "/acp"  # the token is in the header, never in the URL
    assert link.ws.request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert TOKEN not in editor.stderr.decode()


@pytest.mark.parametrize("resume", [True, False], ids=["resume", "load"])
def test_a_dropped_connection_is_made_again_and_its_session_goes_on(
    tmp_path: Path, resume: bool
) -> None:
    """The request in flight at the drop gets -32603; a prompt sent while the link is down
    waits, and runs on the same session once the bridge has reopened it (session/resume, or
    session/load whose replay the editor does not see again)."""
    stand_in = StandIn(tmp_path, resume=resume)
    stand_in.start()
    try:
        editor = Editor(tmp_path, stand_in.url)
        session_id = editor.start_session(tmp_path)
        assert editor.prompt(session_id, "first prompt")["result"]["stopReason"] == "end_turn"
        stand_in.drop_on = ("session/prompt", 1011)
        lost = editor.prompt(session_id, "lost prompt")
        assert lost["error"]["code"] == -32603, lost
        assert "connection to the agent was lost" in lost["error"]["message"]
        assert stand_in.dropped.wait(WAIT)
        before = len(editor.seen)
        waiting = editor.request("session/prompt", prompt_params(session_id, "after the drop"))
        stand_in.start()  # the same port
        after = editor.answer(waiting)
        assert after["result"]["stopReason"] == "end_turn", after
        since = editor.seen[before:]
        assert "".join(texts(since, "agent_message_chunk")).startswith("Offline reply: after")
        assert texts(since, "user_message_chunk") == []  # no replay of the first turn
        assert not any(str(f.get("id", "")).startswith("acp-connect-") for f in editor.seen)
        again = stand_in.links[1].got
        assert [f["method"] for f in again[:2]] == [
            "initialize",
            "session/resume" if resume else "session/load",
        ]
        assert [f["id"] for f in again[:2]] == ["acp-connect-1", "acp-connect-2"]
        assert again[1]["params"] == {
            "sessionId": session_id,
            "cwd": str(tmp_path),
            "mcpServers": [],
        }
        assert again[2]["params"]["prompt"][0]["text"] == "after the drop"
        code, _ = editor.finish()
        stderr = editor.stderr.decode()
        assert code == 0, stderr
        assert "lost the connection" in stderr and "reconnected" in stderr, stderr
        assert TOKEN not in stderr
    finally:
        stand_in.close()


def prompt_params(session_id: str, text: str) -> dict[str, Any]:
    return {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}


def test_a_close_for_good_ends_the_bridge_and_answers_what_was_in_flight(
    tmp_path: Path, stand_in: StandIn
) -> None:
    editor = Editor(tmp_path, stand_in.url)
    session_id = editor.start_session(tmp_path)
    stand_in.drop_on = ("session/prompt", 1000)
    lost = editor.prompt(session_id, "never answered")
    assert lost["error"]["code"] == -32603, lost
    assert editor.proc.wait(WAIT) == 1
    lines = editor.stderr.decode().splitlines()
    assert lines == [f"acp: the agent at {stand_in.url} closed with code 1000: stand-in"], lines


def test_a_refused_token_exits_1_naming_the_variable_and_writes_nothing_on_stdout(
    tmp_path: Path, stand_in: StandIn
) -> None:
    cases = [
        ({"token": "wrong-token-value-123"}, [], "refused the token in REASONIX_ACP_TOKEN"),
        ({"token": None}, [], "set REASONIX_ACP_TOKEN to it"),
        (
            {"token": None, "MY_TOKEN": "wrong-token-value-123"},
            ["--token-env", "MY_TOKEN"],
            "MY_TOKEN",
        ),
    ]
    for env, args, said in cases:
        editor = Editor(tmp_path, stand_in.url, *args, **env)  # type: ignore[arg-type]
        assert editor.proc.wait(WAIT) == 1
        assert editor.lines.get(timeout=WAIT) is None  # nothing at all on stdout
        stderr = editor.stderr.decode()
        assert said in stderr and "HTTP 401" in stderr, stderr
        assert "wrong-token-value-123" not in stderr and len(stderr.splitlines()) == 1
    assert stand_in.links == []


def test_usage_errors_exit_2_and_credentials_in_the_url_are_refused(tmp_path: Path) -> None:
    env = {**fresh(tmp_path), "REASONIX_ACP_TOKEN": TOKEN}
    for args, said in [
        (["https://user:hunter2pass@example.com/acp"], "put the token in REASONIX_ACP_TOKEN"),
        (["ftp://example.com/acp"], "must start with https://"),
        (["https://example.com/acp", "--bogus"], "unknown option --bogus"),
        ([], "give one URL"),
        (["http://example.com/acp", "--ca-file", "ca.pem"], "--ca-file is for https://"),
        (["https://example.com/acp", "--token-env", "not a name"], "--token-env takes"),
    ]:
        done = subprocess.run(
            [*acp_command(), "connect", *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=WAIT,
            env=env,
        )
        assert (done.returncode, done.stdout) == (2, ""), (args, done)
        assert done.stderr.startswith(f"acp: {said}") or said in done.stderr, (args, done.stderr)
        assert "hunter2pass" not in done.stderr and TOKEN not in done.stderr
        assert "usage: acp connect URL" in done.stderr


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 0), (signal.SIGINT, 130)])
def test_a_stop_signal_closes_the_websocket_cleanly(
    tmp_path: Path, stand_in: StandIn, sig: signal.Signals, status: int
) -> None:
    editor = Editor(tmp_path, stand_in.url)
    editor.start_session(tmp_path)
    os.kill(editor.proc.pid, sig)
    assert editor.proc.wait(WAIT) == status, editor.stderr
    link = stand_in.links[0]
    assert link.ended.wait(WAIT) and link.close_code == 1000


ASK_SCRIPT = [
    {
        "steps": [
            {
                "tool_call": {
                    "name": "ask_user",
                    "arguments": {"question": "Which?", "options": ["a", "b"]},
                }
            }
        ]
    },
    {"steps": [{"text": "Chosen."}]},
]


def test_the_agents_requests_of_a_lost_connection_are_cancelled_and_their_answers_dropped(
    tmp_path: Path,
) -> None:
    """The agent asked the editor a question, then the link dropped: the editor is told the
    request is cancelled, and its late answer never reaches the new connection. The new
    agent's own request, with the same id, reaches the editor under an id of the bridge's and
    its answer goes back under the agent's."""
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in ASK_SCRIPT))
    stand_in = StandIn(tmp_path, script=script)
    stand_in.start()
    try:
        editor = Editor(tmp_path, stand_in.url)
        session_id = editor.start_session(tmp_path, {"elicitation": {"form": {}}})
        first = editor.request("session/prompt", prompt_params(session_id, "ask me"))
        asked = question(editor)
        stand_in.drop()
        lost = editor.answer(first)
        assert lost["error"]["code"] == -32603, lost
        assert editor.receive() == {
            "jsonrpc": "2.0",
            "method": "$/cancel_request",
            "params": {"requestId": asked["id"]},
        }
        stand_in.start()
        second = editor.request("session/prompt", prompt_params(session_id, "ask me again"))
        again = question(editor)
        assert again["id"] != asked["id"] and str(again["id"]).startswith("acp-connect-"), again
        editor.send(allow(asked) + allow(again))  # the stale answer first: dropped
        done = editor.answer(second)
        assert done["result"]["stopReason"] == "end_turn", done
        answers = [f for f in stand_in.links[1].got if "method" not in f]
        assert [a["id"] for a in answers] == [asked["id"]], answers  # the new agent's own id
        assert editor.finish()[0] == 0
    finally:
        stand_in.close()
    assert stand_in.errors == []


def question(editor: Editor) -> dict[str, Any]:
    """The agent's next request to the editor: ask_user's form."""
    while True:
        frame = editor.receive()
        editor.seen.append(frame)
        if frame.get("method") == "elicitation/create":
            return frame


def allow(request: dict[str, Any]) -> bytes:
    result = {"action": "accept", "content": {"choice": "a"}}
    return json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode() + b"\n"


def test_end_of_input_right_after_a_request_still_prints_its_answer(
    tmp_path: Path, stand_in: StandIn
) -> None:
    """`echo '{...initialize...}' | acp connect URL` prints the answer, as `acp` does."""
    editor = Editor(tmp_path, stand_in.url)
    editor.send(b'{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":1}}\n')
    code, lines = editor.finish()
    assert code == 0, editor.stderr
    assert [json.loads(line)["id"] for line in lines] == [7]
    assert stand_in.links[0].ended.wait(WAIT) and stand_in.links[0].close_code == 1000


def test_tls_is_verified_against_the_system_cas_or_the_ca_file(tmp_path: Path) -> None:
    """A certificate from a private CA is refused (exit 1, one line saying so), and accepted
    with --ca-file naming that CA, or with SSL_CERT_FILE pointing at it."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a CA")
    ca, cert, key = private_ca(tmp_path)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    stand_in = StandIn(tmp_path, tls=tls)
    stand_in.start()
    try:
        refused = Editor(tmp_path, stand_in.url)
        assert refused.proc.wait(WAIT) == 1
        lines = refused.stderr.decode().splitlines()
        assert len(lines) == 1 and "TLS certificate" in lines[0] and "--ca-file" in lines[0], lines
        for args, env in [(["--ca-file", str(ca)], {}), ([], {"SSL_CERT_FILE": str(ca)})]:
            editor = Editor(tmp_path, stand_in.url, *args, **env)
            editor.start_session(tmp_path)
            assert editor.finish()[0] == 0, editor.stderr
    finally:
        stand_in.close()
    assert stand_in.errors == []


def private_ca(tmp: Path) -> tuple[Path, Path, Path]:
    """(CA certificate, server certificate for 127.0.0.1, its key), made with openssl."""
    ca, ca_key, cert, key = (tmp / n for n in ("ca.pem", "ca.key", "cert.pem", "key.pem"))
    ext = tmp / "ext.cnf"
    ext.write_text(
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\n"
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
        "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n"
    )
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    ca_ext = ["-addext", "basicConstraints=critical,CA:TRUE"]
    ca_ext += ["-addext", "keyUsage=critical,keyCertSign"]
    sign = ["-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-extfile", ext]
    for command in [
        [
            "req",
            "-x509",
            *ec,
            "-keyout",
            ca_key,
            "-out",
            ca,
            "-days",
            "1",
            "-subj",
            "/CN=CA",
            *ca_ext,
        ],
        ["req", *ec, "-keyout", key, "-out", tmp / "r.csr", "-subj", "/CN=127.0.0.1"],
        ["x509", "-req", "-in", tmp / "r.csr", *sign, "-out", cert, "-days", "1"],
    ]:
        subprocess.run(["openssl", *map(str, command)], check=True, capture_output=True, cwd=tmp)
    return ca, cert, key


class Served:
    """A real `acp serve --model offline` on 127.0.0.1, its port read from its banner."""

    def __init__(self, tmp: Path, port: int = 0) -> None:
        (tmp / "served").mkdir(exist_ok=True)
        env = {**fresh(tmp / "served"), "REASONIX_ACP_TOKEN": TOKEN}
        command = [*acp_command(), "serve", "--model", "offline", "--listen", f"127.0.0.1:{port}"]
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert self.proc.stderr is not None
        banner = self.proc.stderr.readline().decode()
        if "serving ACP at" not in banner and self.proc.wait(WAIT) == 2:
            pytest.skip(f"this build has no `acp serve`: {banner.strip()}")
        assert "serving ACP at http://127.0.0.1:" in banner, banner
        self.url = banner.split(" at ", 1)[1].split()[0]
        self.port = int(self.url.rsplit(":", 1)[1].split("/")[0])
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(WAIT)


def test_the_bridge_speaks_to_acp_serve_and_outlives_its_restart(tmp_path: Path) -> None:
    """The real remote end: a refused token, a session, the server killed and started again on
    the same port, and a prompt sent meanwhile that runs on the resumed session."""
    served = Served(tmp_path)
    try:
        refused = Editor(tmp_path, served.url, token="wrong-token-value-123")
        assert refused.proc.wait(WAIT) == 1
        assert "refused the token in REASONIX_ACP_TOKEN (HTTP 401)" in refused.stderr.decode()
        editor = Editor(tmp_path, served.url)
        session_id = editor.start_session(tmp_path)
        assert editor.prompt(session_id, "before")["result"]["stopReason"] == "end_turn"
        served.kill()
        waiting = editor.request("session/prompt", prompt_params(session_id, "after"))
        served = Served(tmp_path, served.port)
        after = editor.answer(waiting)
        assert after["result"]["stopReason"] == "end_turn", after
        assert "".join(texts(editor.seen, "agent_message_chunk")).endswith("Offline reply: after")
        code, _ = editor.finish()
        assert code == 0 and "reconnected" in editor.stderr.decode(), editor.stderr
    finally:
        served.kill()


def test_a_connection_lost_again_while_it_is_being_made_is_made_once_more(
    tmp_path: Path, stand_in: StandIn
) -> None:
    """The agent goes away again as the bridge resumes the session: the bridge tries again,
    and the prompt the editor sent meanwhile runs once, on the third connection."""
    editor = Editor(tmp_path, stand_in.url)
    session_id = editor.start_session(tmp_path)
    stand_in.drop_on = ("session/prompt", 1011)
    assert editor.prompt(session_id, "lost")["error"]["code"] == -32603
    assert stand_in.dropped.wait(WAIT)
    waiting = editor.request("session/prompt", prompt_params(session_id, "held"))
    stand_in.drop_on = ("session/resume", 1011)
    stand_in.start()
    until(lambda: len(stand_in.links) == 2 and stand_in.dropped.is_set(), "the second drop")
    stand_in.start()
    after = editor.answer(waiting)
    assert after["result"]["stopReason"] == "end_turn", after
    methods = [[f.get("method") for f in link.got] for link in stand_in.links]
    assert methods[1:] == [
        ["initialize", "session/resume"],
        ["initialize", "session/resume", "session/prompt"],
    ], methods
    assert editor.finish()[0] == 0
