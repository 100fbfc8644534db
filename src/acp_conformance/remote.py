"""An agent reached over the network (`--url`): the same face as a spawned one (process.py), so
the scenarios run unchanged, over either transport of the ACP transport RFD as the official
TypeScript SDK speaks it.

- `ws`: one WebSocket to the URL (`http` → `ws`), one JSON-RPC message per text frame.
- `http`: Streamable HTTP: `POST initialize` opens the connection (its answer, with
  `Acp-Connection-Id`, is the agent's response); every other message is a `POST` answered 202,
  its answers arriving on Server-Sent Events streams read on threads: the connection's, opened
  after initialize, and one per session, opened when an answer names a new session (and before
  a message for a session not yet heard of is sent, as the SDK's client does). A message whose
  params name a session carries `Acp-Session-Id`; so does an answer to a request that came on a
  session's stream.

The token (`--token-env`, REASONIX_ACP_TOKEN by default) goes in `Authorization: Bearer` and
nowhere else. A scenario's end of input closes the connection (DELETE, or a close frame); what
a process would do at its end (its exit status) cannot be seen here: such checks are SKIP.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import time
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from acp_conformance.process import QUIET, QUIET_CAP, Agent, CannotStart, Wire
from acp_conformance.results import Settings, Skip

NO_PROCESS = "the agent is reached over the network (--url): it has no process whose end to see"


def agent_for(settings: Settings, places: dict[str, str]) -> Agent | RemoteAgent:
    """The scenario's agent: a process spawned from --agent, or the one at --url."""
    if not settings.url:
        return Agent(settings.command, settings.env, places, settings.keep_home)
    try:
        return RemoteAgent(settings.url, settings.token, settings.transport, settings.start)
    except (OSError, httpx.HTTPError, ConnectionClosed, TimeoutError) as exc:
        raise CannotStart(f"{settings.url}: {exc}") from None
    except Exception as exc:  # the WebSocket library's refusals (an HTTP status, a handshake)
        raise CannotStart(f"{settings.url}: {exc}") from None


class RemoteAgent:
    remote = True

    def __init__(self, url: str, token: str, transport: str, timeout: float) -> None:
        self.wire = Wire()
        self.last_output = time.monotonic()
        self.frames: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.not_utf8: list[str] = []
        self._lock = threading.Lock()
        self._ended = False
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        carrier = _Socket if transport == "ws" else _Streams
        self._carrier = carrier(url, headers, timeout, self._received)

    def _received(self, text: str | None) -> None:
        """A message from the agent (None: the connection ended)."""
        with self._lock:
            if text is None:
                if not self._ended:
                    self._ended = True
                    self.frames.put(None)
                return
            self.wire.add("a2c", text)
            self.last_output = time.monotonic()
        try:
            frame = json.loads(text)
        except ValueError:
            frame = None
        self.frames.put(frame if isinstance(frame, dict) else {"_unparsed": text})

    def send_line(self, text: str) -> None:
        with self._lock:
            self.wire.add("c2a", text)
        try:
            self._carrier.send(text)
        except (OSError, httpx.HTTPError, ConnectionClosed) as exc:
            with self._lock:
                self.wire.add("stderr", f"sending failed: {exc}")

    def send(self, frame: Any) -> None:
        self.send_line(json.dumps(frame, ensure_ascii=False))

    def next(self, timeout: float) -> dict[str, Any] | None:
        try:
            return self.frames.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            raise TimeoutError from None

    def close_stdin(self) -> None:
        if not self._ended:
            with self._lock:
                self.wire.add("c2a", "<end of input>")
            self._carrier.close()

    def wait(self, timeout: float) -> int | None:
        return None

    def stop(self) -> None:
        """Close once the agent has been quiet (as process.Agent.stop)."""
        deadline = time.monotonic() + QUIET_CAP
        while time.monotonic() - self.last_output < QUIET and time.monotonic() < deadline:
            time.sleep(QUIET / 4)
        self.close_stdin()
        self._received(None)


class _Socket:
    def __init__(self, url: str, headers: dict[str, str], timeout: float, received: Any) -> None:
        target = "ws" + url[4:] if url.startswith("http") else url
        self._ws: ClientConnection = connect(
            target, additional_headers=headers, open_timeout=timeout, max_size=None
        )
        self._received = received
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for message in self._ws:
                text = message if isinstance(message, str) else message.decode("utf-8", "replace")
                self._received(text)
        except ConnectionClosed:
            pass
        self._received(None)

    def send(self, text: str) -> None:
        self._ws.send(text)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._ws.close()


class _Streams:
    def __init__(self, url: str, headers: dict[str, str], timeout: float, received: Any) -> None:
        self.url, self._received = url, received
        limits = httpx.Timeout(timeout, read=None)
        self._http = httpx.Client(headers=headers, timeout=limits)
        self.connection = ""
        self._sessions: set[str] = set()  # sessions whose stream is open
        self._asked_on: dict[str, str] = {}  # an agent request's id (JSON) → its session
        self._closed = False
        # Whether the agent admits us at all, before the scenario starts (a GET naming no
        # connection is refused 400 by an agent that does): a refused token ends the run.
        probe = self._http.get(url, headers={"accept": "text/event-stream"})
        if probe.status_code in (401, 403):
            raise CannotStart(f"refused: HTTP {probe.status_code} {probe.text.strip()[:200]}")

    def send(self, text: str) -> None:
        message = _object(text)
        if message.get("method") == "initialize" and not self.connection:
            self._initialize(text)
            return
        headers = {"content-type": "application/json"}
        if self.connection:
            headers["acp-connection-id"] = self.connection
        session = _session_of(message) or self._asked_on.pop(json.dumps(message.get("id")), "")
        if session:
            self._stream(session)
            headers["acp-session-id"] = session
        answer = self._http.post(self.url, content=text.encode(), headers=headers)
        if answer.status_code != 202:
            self._refused(message, answer)

    def _refused(self, message: dict[str, Any], answer: httpx.Response) -> None:
        """A POST not accepted. Before any connection, or for a body that is no JSON-RPC
        object, HTTP itself is the answer (SKIP: what stdio answers in JSON-RPC has no
        JSON-RPC answer here); a request is answered as the SDK's client answers it (-32603
        naming the status), so its checks judge a refusal."""
        status = f"HTTP {answer.status_code} {answer.reason_phrase}: {answer.text.strip()[:200]}"
        if not message or not self.connection:
            raise Skip(f"over Streamable HTTP the message was refused with {status}")
        if "id" in message and "method" in message:
            error = {"code": -32603, "message": f"ACP POST failed: {status}"}
            self._received(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}))

    def _initialize(self, text: str) -> None:
        answer = self._http.post(
            self.url, content=text.encode(), headers={"content-type": "application/json"}
        )
        self.connection = answer.headers.get("acp-connection-id", "")
        self._received(answer.text)
        if self.connection:
            self._stream(None)

    def _stream(self, session: str | None) -> None:
        if session is not None:
            if session in self._sessions:
                return
            self._sessions.add(session)
        ready = threading.Event()
        threading.Thread(target=self._read, args=(session, ready), daemon=True).start()
        ready.wait(10)  # the SDK's client waits for the stream before it sends on it

    def _read(self, session: str | None, ready: threading.Event) -> None:
        headers = {"accept": "text/event-stream", "acp-connection-id": self.connection}
        if session is not None:
            headers["acp-session-id"] = session
        try:
            with self._http.stream("GET", self.url, headers=headers) as events:
                ready.set()
                data: list[str] = []
                for line in events.iter_lines():
                    if line.startswith("data:"):
                        data.append(line[5:].removeprefix(" "))
                    elif not line and data:
                        self._event("\n".join(data), session)
                        data = []
        except httpx.HTTPError:
            pass
        finally:
            ready.set()
            if session is None and not self._closed:
                self._received(None)  # the connection's stream ended: the connection did

    def _event(self, text: str, session: str | None) -> None:
        message = _object(text)
        result = message.get("result")
        opened = result.get("sessionId") if isinstance(result, dict) else None
        if isinstance(opened, str):
            self._stream(opened)
        if session is not None and "method" in message and "id" in message:
            self._asked_on[json.dumps(message["id"])] = session
        self._received(text)

    def close(self) -> None:
        self._closed = True
        if self.connection:
            with contextlib.suppress(httpx.HTTPError):
                self._http.delete(self.url, headers={"acp-connection-id": self.connection})
        self._http.close()


def _object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _session_of(message: dict[str, Any]) -> str:
    params = message.get("params")
    session = params.get("sessionId") if isinstance(params, dict) else None
    return session if isinstance(session, str) else ""
