"""Remote transports benchmark (`acp serve`): what a prompt costs the agent when it arrives over
WebSocket or Streamable HTTP rather than stdio, what one server holds for N clients, and what a
client that stops reading costs the others. The offline model throughout (no network).

1. Agent time of a prompt: from writing `session/prompt` (the WebSocket frame, the POST, the
   line on stdin) to reading its response (on the socket, the session's SSE stream, stdout),
   every update in between streamed to and parsed by the client. Three variants, each with N
   clients, each client holding one session (opened and prompted twice first, PAUSE s apart,
   as bench/ready.py does, so what loads ahead has loaded):
   - `stdio`: N `acp` processes, one per client (what N editors start today);
   - `ws`: one `acp serve`, N WebSocket connections;
   - `http`: another `acp serve`, N HTTP connections (POSTs, a connection and a session SSE
     stream each).
   Concurrent: WAVES waves a round, each wave every client sending one prompt at once. Single:
   client 0 of each variant alone (the others idle), SINGLE prompts a round, the variants
   alternating prompt by prompt. The variants' order turns every round, so all see the machine
   as it is then; a ratio is the median of the rounds' ratios (remote / stdio). Beside the
   times: the agent's CPU per prompt and the cores it kept busy (utime + stime of the serving
   processes, /proc), and this client's own CPU share (this script is every client, on one
   asyncio loop, with raw sockets: h11 for HTTP, the `websockets` sans-I/O protocol for
   WebSocket). Target (issue): remote ≤ 1.5x stdio.
2. Memory after setup and at the end: VmHWM, VmRSS and PSS of the one server against the sum
   over the N stdio processes (PSS splits the pages processes share, so the sum of PSS is what
   the N processes hold together; the sum of RSS counts shared pages N times).
3. A stalled reader, each condition on a fresh `acp serve --script` whose third model call
   streams a reply of STALL_MB MiB (64-character chunks, STEP characters between yields to the
   loop). A client (WebSocket) prompts in a loop, and another client pings the server every
   20 ms (the longest answer is the longest the server's loop was held), while a third, on its
   own connection: (a) does nothing (`alone`, 40 prompts); (b) takes the long reply and reads
   it (`reading`); (c) takes it over WebSocket and stops reading its socket (`stalled-ws`);
   (d) the same over HTTP, not reading its session's SSE stream (`stalled-http`). For (c) and
   (d), until the server ends the stalled connection (its log at `--log-level info` says so):
   the server's RSS growth, the time to the end, then its RSS and sockets while the stalled
   client keeps its socket open 3 s more. For comparison, the RSS an `acp` on stdio grows by
   streaming the same reply. Then (3b) `--held` stalled clients in a row on one server, each
   ended by the server and then either keeping its socket open or closing it: the server's
   RSS and sockets after each.

Run: `.venv/bin/python bench/remote.py [--clients 32] [--rounds 5] [--stall-rounds 2]
[--held 3] [--json]` (PYTHONDONTWRITEBYTECODE unset: users have bytecode; ~10 min on the
2-core machine). Prints the figures, or with `--json` one JSON object. Exit status 1 when a
concurrent ratio is over 1.5 or a stalled connection was not ended.

Figures, 2026-12-07, the 2-core machine with other work on it (load average 8 to 11 during
the run), the defaults (32 clients, 5 rounds of 5 waves and 12 single prompts, 2 stall rounds,
3 held), one run; ms median [p10-p90], round medians' range:
- 32 at once: stdio 108 [55-199] (87-131); ws 199 [151-275] (163-230), 1.90x stdio (rounds
  1.46-2.10); http 199 [151-333] (157-311), 2.13x (1.56-2.63). Agent CPU per prompt: stdio
  5.2 ms, ws 4.4 (0.85x), http 5.0 (0.97x); the server kept 0.69 of a core busy, the 32 stdio
  processes 0.80. Three runs earlier that day, less loaded: ws 2.26x, 2.27x, 2.47x; http
  2.61x-2.68x; CPU per prompt 0.96x-1.03x (ws) and 1.06x-1.16x (http); the server at
  0.94-1.04 cores, the stdio processes at 1.24-1.34. So: the remote path costs no more CPU per prompt
  under load; one server process is one core (one loop), and 32 prompts at once queue on it,
  where 32 processes spread over the machine's cores. Client CPU 6-19% of a core.
- One at a time: stdio 5.7 [4.1-15.5], ws 8.7 [5.0-15.9] (1.38x, +2.2 ms), http 7.8
  [6.5-19.7] (1.43x, +2.6 ms); agent CPU per prompt 4.5, 6.2 (1.37x), 8.2 (1.81x) ms.
- Memory after setup: 32 stdio processes VmRSS 1330 MB in all (PSS 830 MB); the one server
  51 MB (ws; PSS 35) and 42 MB (http; PSS 30); at the end 57-58 MB against 1339 MB.
- Stalled reader (16 MiB reply, ~76 MiB of updates): the other client's prompt alone 7.0 ms
  median (max 38); while the long reply streams to a reader 38 ms (p90 134, max 2924; the
  server's loop held up to 2254 ms, at the end of the long turn); stalled-ws 31 ms (p90 80,
  max 733; loop up to 585 ms), stalled-http 31 ms (p90 89, max 532). The stalled connection is
  ended in 3.1-4.4 s, logged: "a WebSocket client ended: 16777135 bytes waited for a client
  that did not read them" and "remote connection ... ended: 16777113 bytes waited ...". The
  server's RSS peak +29 to +54 MB during the stall, against +162 MB to stream the whole reply
  to a reader (an `acp` on stdio: +164 to +166 MB for the same reply).
- 3 stalled clients in a row, each keeping its socket open after the server ended its
  connection: server RSS +70/+101/+136 MB (ws) and +76/+102/+130 MB (http), one socket more
  each (ws; three each over HTTP); each closing its socket instead: +56/+92/+78 (ws) and
  +64/+78/+64 MB (http), no socket left.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import re
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import h11
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

ACP = shutil.which("acp") or str(Path(sys.executable).with_name("acp"))
TOKEN = "bench-" + secrets.token_urlsafe(24)
PAUSE = 1.0  # after each client's first prompt: what loads ahead has loaded
WAVES = 5
SINGLE = 12
PROMPT = "Summarise the meeting notes in three short lines for the whole team tomorrow"
STALL_MB = 16  # its updates come to ~76 MiB: past the Outbox and the kernel buffers (tcp_rmem max 32 MiB here)
STALL_CHUNK = 64
STEP = 1024  # characters a step of the long reply (16 chunks between yields)
TARGET = 1.5
VARIANTS = ("stdio", "ws", "http")
TICK = os.sysconf("SC_CLK_TCK")
LONG_TEXT = b"0123456789abcdef0123456789abcdef"  # in every chunk of the stall script's long reply


# -- the agent's processes ----------------------------------------------------------------------


def proc_status(pid: int) -> dict[str, int]:
    """VmHWM, VmRSS (kB) and Pss (kB, smaps_rollup) of a process."""
    out: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key = line.split(":")[0]
        if key in ("VmHWM", "VmRSS"):
            out[key] = int(line.split()[1])
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                out["Pss"] = int(line.split()[1])
    return out


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


def open_sockets(pid: int) -> int:
    n = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            n += os.readlink(fd).startswith("socket:")
    return n


def environment(home: Path) -> dict[str, str]:
    """As users run the agent: bytecode cached, nothing of this machine's provider setup."""
    ours = ("OPENAI_", "DEEPSEEK_", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "REASONIX_ACP_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(ours)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["HOME"] = str(home)
    env["REASONIX_ACP_TOKEN"] = TOKEN
    return env


class Server:
    """One `acp serve` on a free loopback port; its log lines, timed as they are read."""

    def __init__(self) -> None:
        self.log: list[tuple[float, str]] = []
        self.url = ""

    async def start(self, env: dict[str, str], *extra: str, connections: int = 32) -> Server:
        self.proc = await asyncio.create_subprocess_exec(
            *(ACP, "serve", "--listen", "127.0.0.1:0", "--model", "offline", "--log-level"),
            *("info", "--max-connections", str(max(connections, 32)), *extra),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        assert self.proc.stderr is not None
        while not self.url:
            line = await self.proc.stderr.readline()
            if not line:
                raise RuntimeError(f"acp serve did not start: {self.log}")
            self.log.append((time.perf_counter(), line.decode().rstrip()))
            found = re.search(r"serving ACP at (\S+)", line.decode())
            if found:
                self.url = found.group(1)
        self._reading = asyncio.create_task(self._read())
        return self

    @property
    def pid(self) -> int:
        return self.proc.pid

    async def _read(self) -> None:
        assert self.proc.stderr is not None
        while line := await self.proc.stderr.readline():
            self.log.append((time.perf_counter(), line.decode().rstrip()))

    def said(self, pattern: str, since: float = 0.0) -> float | None:
        """When a log line matching `pattern` was read, if one was, after `since`."""
        for at, line in self.log:
            if at >= since and re.search(pattern, line):
                return at
        return None

    async def stop(self) -> None:
        if self.proc.returncode is None:
            self.proc.terminate()
            try:
                await asyncio.wait_for(self.proc.wait(), 30)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        with contextlib.suppress(Exception):
            await self._reading


# -- clients ------------------------------------------------------------------------------------


class Peer:
    """One ACP client: its requests, their responses by id, the updates counted."""

    def __init__(self) -> None:
        self.n = 0
        self.waiting: dict[int, asyncio.Future[tuple[dict[str, Any], float]]] = {}
        self.notes = 0
        self.received_bytes = 0
        self.session = ""
        self.long_reply_seen = asyncio.Event()  # a chunk of the stall script's long reply came

    def received(self, line: bytes) -> None:
        self.received_bytes += len(line)
        if b'"method"' in line[:48]:  # an update (no request of the agent's is expected)
            self.notes += 1
            if not self.long_reply_seen.is_set() and LONG_TEXT in line:
                self.long_reply_seen.set()
            return
        at = time.perf_counter()
        message = json.loads(line)
        future = self.waiting.pop(message.get("id"), None)
        if future is not None and not future.done():
            future.set_result((message, at))

    def lost(self, why: str) -> None:
        for future in self.waiting.values():
            if not future.done():
                future.set_exception(ConnectionError(why))
        self.waiting.clear()

    async def write(self, frame: bytes, session: str | None) -> None:
        raise NotImplementedError

    async def call(self, method: str, params: dict[str, Any]) -> tuple[dict[str, Any], float]:
        """(result, ms from writing the request to reading its response)."""
        self.n += 1
        future = asyncio.get_running_loop().create_future()
        self.waiting[self.n] = future
        frame = json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        sent = time.perf_counter()
        await self.write(frame.encode(), params.get("sessionId"))
        message, done = await future
        if "result" not in message:
            raise RuntimeError(f"{method}: {message}")
        return message["result"], (done - sent) * 1000

    async def initialize(self) -> None:
        await self.call("initialize", {"protocolVersion": 1})

    async def new_session(self, cwd: str) -> None:
        result, _ = await self.call("session/new", {"cwd": cwd, "mcpServers": []})
        self.session = result["sessionId"]

    async def send_prompt(self, text: str = PROMPT) -> asyncio.Future[Any]:
        """Write a prompt; the future of its response (for a client that will not read it)."""
        self.n += 1
        future = asyncio.get_running_loop().create_future()
        self.waiting[self.n] = future
        params = {"sessionId": self.session, "prompt": [{"type": "text", "text": text}]}
        frame = {"jsonrpc": "2.0", "id": self.n, "method": "session/prompt", "params": params}
        await self.write(json.dumps(frame).encode(), self.session)
        return future

    async def prompt(self, text: str = PROMPT) -> float:
        params = {"sessionId": self.session, "prompt": [{"type": "text", "text": text}]}
        result, ms = await self.call("session/prompt", params)
        if result.get("stopReason") != "end_turn":
            raise RuntimeError(f"session/prompt: {result}")
        return ms

    async def close(self) -> None:
        raise NotImplementedError


class StdioPeer(Peer):
    async def start(self, env: dict[str, str], *args: str) -> StdioPeer:
        self.proc = await asyncio.create_subprocess_exec(
            *(ACP, "--model", "offline", *args),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
            limit=1 << 26,
        )
        self.pid = self.proc.pid
        self._reading = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        try:
            while line := await self.proc.stdout.readline():
                self.received(line.rstrip(b"\n"))
        finally:
            self.lost("the agent closed its output")

    async def write(self, frame: bytes, session: str | None) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(frame + b"\n")
        await self.proc.stdin.drain()

    async def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        await self.proc.wait()
        await self._reading


class WsPeer(Peer):
    async def start(self, url: str) -> WsPeer:
        uri = parse_uri(url.replace("http", "ws", 1))
        self.reader, self.writer = await asyncio.open_connection(uri.host, uri.port)
        self.protocol = ClientProtocol(uri, max_size=None)
        request = self.protocol.connect()
        request.headers["Authorization"] = f"Bearer {TOKEN}"
        self.protocol.send_request(request)
        self._flush()
        self._opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.first_bytes = b""  # what came before the handshake's answer, kept to show it
        self._pings: collections.deque[tuple[float, asyncio.Future[float]]] = collections.deque()
        self._reading = asyncio.create_task(self._read())
        await self._opened
        return self

    def _flush(self) -> None:
        for data in self.protocol.data_to_send():
            if data:
                self.writer.write(data)

    async def _read(self) -> None:
        try:
            while data := await self.reader.read(1 << 16):
                if not self._opened.done():
                    self.first_bytes += data[:512]
                self.protocol.receive_data(data)
                for event in self.protocol.events_received():
                    if isinstance(event, Response) and not self._opened.done():
                        if event.status_code == 101 and self.protocol.handshake_exc is None:
                            self._opened.set_result(None)
                        else:
                            self._opened.set_exception(ConnectionError(str(event.status_code)))
                    elif isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                        self.received(bytes(event.data))
                    elif isinstance(event, Frame) and event.opcode is Opcode.PONG and self._pings:
                        sent, future = self._pings.popleft()
                        if not future.done():
                            future.set_result((time.perf_counter() - sent) * 1000)
                if self.protocol.handshake_exc is not None and not self._opened.done():
                    self._opened.set_exception(ConnectionError("not a WebSocket handshake"))
                    return
                self._flush()  # pongs
        except ConnectionError:
            pass
        finally:
            self.lost("the WebSocket ended")
            if not self._opened.done():
                self._opened.set_exception(ConnectionError("no handshake"))

    async def ping(self) -> float:
        """ms from a ping to its pong: the server's loop answers it (ws_transport.py)."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._pings.append((time.perf_counter(), future))
        self.protocol.send_ping(b"bench")
        self._flush()
        return await future

    def stall(self) -> None:
        """Stop reading the socket (the kernel's buffers fill, then the server's)."""
        self._reading.cancel()

    async def write(self, frame: bytes, session: str | None) -> None:
        self.protocol.send_text(frame)
        self._flush()
        await self.writer.drain()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            self.protocol.send_close()
            self._flush()
            await asyncio.wait_for(self.writer.drain(), 2)
        self._reading.cancel()
        self.writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.writer.wait_closed(), 2)


class HttpSocket:
    """One client socket speaking HTTP/1.1 (h11)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.conn = h11.Connection(h11.CLIENT)

    @classmethod
    async def open(cls, host: str, port: int) -> HttpSocket:
        return cls(*await asyncio.open_connection(host, port))

    async def request(
        self, method: str, headers: list[tuple[str, str]], body: bytes = b""
    ) -> h11.Response:
        sent = [("host", "bench"), ("authorization", f"Bearer {TOKEN}"), *headers]
        if method != "GET":
            sent.append(("content-length", str(len(body))))
        self.writer.write(self.conn.send(h11.Request(method=method, target="/acp", headers=sent)))
        if body:
            self.writer.write(self.conn.send(h11.Data(data=body)))
        self.writer.write(self.conn.send(h11.EndOfMessage()))
        await self.writer.drain()
        event = await self.event()
        if not isinstance(event, h11.Response):
            raise ConnectionError(f"{method}: {event}")
        return event

    async def event(self) -> Any:
        while True:
            event = self.conn.next_event()
            if event is not h11.NEED_DATA:
                return event
            self.conn.receive_data(await self.reader.read(1 << 16))

    async def body(self) -> bytes:
        parts = []
        while not isinstance(event := await self.event(), h11.EndOfMessage):
            if isinstance(event, h11.Data):
                parts.append(bytes(event.data))
            elif event is h11.PAUSED or isinstance(event, h11.ConnectionClosed):
                raise ConnectionError("the body ended early")
        self.conn.start_next_cycle()
        return b"".join(parts)

    def close(self) -> None:
        self.writer.close()


class HttpPeer(Peer):
    async def start(self, url: str) -> HttpPeer:
        uri = parse_uri(url.replace("http", "ws", 1))
        self.host, self.port = uri.host, uri.port
        self.posts = await HttpSocket.open(self.host, self.port)
        self.lock = asyncio.Lock()
        self.connection_id = ""
        self.streams: dict[str | None, asyncio.Task[None]] = {}
        self.stream_sockets: list[HttpSocket] = []
        return self

    async def _post(self, body: bytes, session: str | None) -> tuple[h11.Response, bytes]:
        headers = [("content-type", "application/json")]
        if self.connection_id:
            headers.append(("acp-connection-id", self.connection_id))
        if session:
            headers.append(("acp-session-id", session))
        async with self.lock:
            response = await self.posts.request("POST", headers, body)
            return response, await self.posts.body()

    async def write(self, frame: bytes, session: str | None) -> None:
        response, _ = await self._post(frame, session)
        if response.status_code != 202:
            raise ConnectionError(f"POST: {response.status_code}")

    async def initialize(self) -> None:
        body = json.dumps(
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}
        )
        response, answer = await self._post(body.encode(), None)
        assert response.status_code == 200, (response, answer)
        self.connection_id = dict(response.headers)[b"acp-connection-id"].decode()
        await self._open_stream(None)

    async def new_session(self, cwd: str) -> None:
        await super().new_session(cwd)
        await self._open_stream(self.session)

    async def _open_stream(self, session: str | None) -> None:
        sock = await HttpSocket.open(self.host, self.port)
        self.stream_sockets.append(sock)
        headers = [("accept", "text/event-stream"), ("acp-connection-id", self.connection_id)]
        if session:
            headers.append(("acp-session-id", session))
        response = await sock.request("GET", headers)
        assert response.status_code == 200, response
        self.streams[session] = asyncio.create_task(self._stream(sock))

    async def _stream(self, sock: HttpSocket) -> None:
        buffer = b""
        try:
            while isinstance(event := await sock.event(), h11.Data):
                buffer += event.data
                if b"\n\n" not in buffer:
                    continue
                *events, buffer = buffer.split(b"\n\n")
                for one in events:
                    if one.startswith(b"data: "):
                        self.received(one[6:])
        except ConnectionError:
            pass
        finally:
            self.lost("an SSE stream ended")

    def stall(self) -> None:
        """Stop reading the session's SSE stream."""
        self.streams[self.session].cancel()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(5):
                async with self.lock:
                    headers = [("acp-connection-id", self.connection_id)]
                    await self.posts.request("DELETE", headers)
                    await self.posts.body()
        for task in self.streams.values():
            task.cancel()
        for sock in (self.posts, *self.stream_sockets):
            sock.close()


async def open_peer(peer: Peer, cwd: str) -> Peer:
    await peer.initialize()
    await peer.new_session(cwd)
    return peer


# -- 1 and 2: per-prompt agent time, memory -----------------------------------------------------


class Fleet:
    """The three variants, each with N clients holding a session."""

    def __init__(self, tmp: Path, clients: int) -> None:
        self.tmp, self.clients = tmp, clients
        self.peers: dict[str, list[Peer]] = {}
        self.pids: dict[str, list[int]] = {}
        self.servers: list[Server] = []

    async def start(self) -> None:
        cwd = str(self.tmp / "ws")
        os.makedirs(cwd, exist_ok=True)
        n = self.clients
        stdio_env = environment(self.tmp / "home-stdio")
        stdio = [await StdioPeer().start(stdio_env) for _ in range(n)]
        self.peers["stdio"] = list(await asyncio.gather(*(open_peer(p, cwd) for p in stdio)))
        self.pids["stdio"] = [p.pid for p in stdio]
        for name, make in (("ws", WsPeer), ("http", HttpPeer)):
            server = await Server().start(environment(self.tmp / f"home-{name}"), connections=n)
            self.servers.append(server)
            self.pids[name] = [server.pid]
            peers = [await make().start(server.url) for _ in range(n)]
            self.peers[name] = list(await asyncio.gather(*(open_peer(p, cwd) for p in peers)))
        for name in VARIANTS:  # each session's first prompt, as an editor's user sends it
            await asyncio.gather(*(p.prompt() for p in self.peers[name]))
        await asyncio.sleep(PAUSE)
        for name in VARIANTS:  # and a second: the prompt path warm everywhere
            await asyncio.gather(*(p.prompt() for p in self.peers[name]))

    def memory(self) -> dict[str, dict[str, float]]:
        out = {}
        for name in VARIANTS:
            stats = [proc_status(pid) for pid in self.pids[name]]
            out[name] = {
                key: sum(s.get(key, 0) for s in stats) / 1024 for key in ("VmHWM", "VmRSS", "Pss")
            }
            out[name]["processes"] = len(stats)
        return out

    async def stop(self) -> None:
        for name in VARIANTS:
            await asyncio.gather(*(p.close() for p in self.peers.get(name, [])))
        for server in self.servers:
            await server.stop()


async def measured(
    pids: list[int], run: Callable[[], Awaitable[list[float]]]
) -> tuple[list[float], float, float, float]:
    """(times, the agent's CPU s, this client's CPU s, wall s) of one run."""
    agent, client, wall = cpu_seconds(pids), time.process_time(), time.perf_counter()
    times = await run()
    return (
        times,
        cpu_seconds(pids) - agent,
        time.process_time() - client,
        time.perf_counter() - wall,
    )


async def waves(peers: list[Peer], count: int) -> list[float]:
    times: list[float] = []
    for _ in range(count):
        times.extend(await asyncio.gather(*(p.prompt() for p in peers)))
    return times


async def timing(
    fleet: Fleet, rounds: int, waves_per_round: int, say: Callable[[str], None]
) -> dict[str, Any]:
    seen: dict[str, dict[str, list[Any]]] = {
        mode: {v: [] for v in VARIANTS} for mode in ("concurrent", "single")
    }
    cpu: dict[str, dict[str, list[float]]] = {
        mode: {v: [0.0, 0.0, 0.0, 0] for v in VARIANTS} for mode in ("concurrent", "single")
    }
    for r in range(rounds):
        order = VARIANTS[r % 3 :] + VARIANTS[: r % 3]
        for name in order:
            peers = fleet.peers[name]
            times, agent, client, wall = await measured(
                fleet.pids[name], lambda peers=peers: waves(peers, waves_per_round)
            )
            seen["concurrent"][name].append(times)
            acc = cpu["concurrent"][name]
            acc[0] += agent
            acc[1] += client
            acc[2] += wall
            acc[3] += len(times)
        single: dict[str, list[float]] = {v: [] for v in VARIANTS}
        for _ in range(SINGLE):
            for name in order:
                peer = fleet.peers[name][0]
                pid = fleet.pids[name][0]
                times, agent, client, wall = await measured([pid], lambda peer=peer: _one(peer))
                single[name].extend(times)
                acc = cpu["single"][name]
                acc[0] += agent
                acc[1] += client
                acc[2] += wall
                acc[3] += 1
        for name in VARIANTS:
            seen["single"][name].append(single[name])
        say(
            f"  round {r + 1}/{rounds}: concurrent medians "
            + "  ".join(f"{v} {statistics.median(seen['concurrent'][v][-1]):.1f}" for v in VARIANTS)
            + " ms; single "
            + "  ".join(f"{v} {statistics.median(single[v]):.2f}" for v in VARIANTS)
            + " ms"
        )
    out: dict[str, Any] = {}
    for mode in ("concurrent", "single"):
        figures: dict[str, Any] = {}
        for name in VARIANTS:
            rounds_seen = seen[mode][name]
            every = sorted(t for times in rounds_seen for t in times)
            agent, client, wall, count = cpu[mode][name]
            figures[name] = {
                "median_ms": statistics.median(every),
                "p10_ms": every[len(every) // 10],
                "p90_ms": every[len(every) * 9 // 10],
                "max_ms": every[-1],
                "round_medians_ms": [statistics.median(t) for t in rounds_seen],
                "prompts": len(every),
                "agent_cpu_ms_per_prompt": agent * 1000 / count,
                "agent_cores": agent / wall,  # how many cores the agent's processes kept busy
                "client_cpu_share": client / wall,
            }
        for name in ("ws", "http"):
            ratios = [
                statistics.median(b) / statistics.median(a)
                for a, b in zip(seen[mode]["stdio"], seen[mode][name], strict=True)
            ]
            figures[name]["ratio_to_stdio"] = statistics.median(ratios)
            figures[name]["round_ratios"] = ratios
            figures[name]["added_ms"] = statistics.median(
                statistics.median(b) - statistics.median(a)
                for a, b in zip(seen[mode]["stdio"], seen[mode][name], strict=True)
            )
            figures[name]["cpu_ratio_to_stdio"] = (
                figures[name]["agent_cpu_ms_per_prompt"]
                / figures["stdio"]["agent_cpu_ms_per_prompt"]
            )
        out[mode] = figures
    return out


async def _one(peer: Peer) -> list[float]:
    return [await peer.prompt()]


# -- 3: a stalled reader ------------------------------------------------------------------------


STALL_CONDITIONS = ("alone", "reading", "stalled-ws", "stalled-http")
ENDED = {"ws": r"WebSocket client ended", "http": r"remote connection \w+ ended"}
STALL_WAIT = 120.0  # seconds a stalled connection is given to be ended


def stall_script(path: Path, short: int, long: int) -> Path:
    """`short` short replies, then `long` replies of STALL_MB MiB each, in STALL_CHUNK-character
    chunks, STEP characters a step: the offline model yields to the loop after each step (as a
    provider reading the network does between reads), not between the chunks of one step."""
    piece = ("0123456789abcdef" * (STEP // 16 + 1))[:STEP]
    steps = [{"text": piece}] * (STALL_MB * (1 << 20) // STEP)
    lines = [{"steps": [{"text": "A short reply."}]}] * short
    lines += [{"chunk": STALL_CHUNK, "steps": steps}] * long
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


async def sample_rss(pid: int, peak: list[int]) -> None:
    while True:
        with contextlib.suppress(OSError):
            peak[0] = max(peak[0], proc_status(pid).get("VmRSS", 0))
        await asyncio.sleep(0.02)


def mb(kb: int) -> float:
    return kb / 1024


async def long_reply_started(peer: Peer) -> None:
    """Until the long reply streams to `peer`: the script is the process's, its lines taken in
    the order model calls start, so another client's prompt sent sooner could take it."""
    await asyncio.wait_for(peer.long_reply_seen.wait(), 60)


async def stall_condition(tmp: Path, name: str, alone_prompts: int) -> dict[str, Any]:
    """The normal client's prompt times while the other client does what `name` says."""
    home = tmp / f"stall-{name}-{time.monotonic_ns()}"
    script = stall_script(home.with_suffix(".jsonl"), 2, 0 if name == "alone" else 1)
    cwd = str(tmp / "ws")
    server = await Server().start(environment(home), "--script", str(script))
    out: dict[str, Any] = {"condition": name}
    try:
        normal = await open_peer(await WsPeer().start(server.url), cwd)
        await normal.prompt()  # the script's first call: short
        other: WsPeer | HttpPeer | None = None
        if name != "alone":
            other = HttpPeer() if name == "stalled-http" else WsPeer()
            await open_peer(await other.start(server.url), cwd)
        await asyncio.sleep(PAUSE)
        await normal.prompt()  # the second: short; the next is the long reply
        prober = await WsPeer().start(server.url)
        base = proc_status(server.pid)["VmRSS"]
        sockets_before = open_sockets(server.pid)
        peak = [base]
        sampler = asyncio.create_task(sample_rss(server.pid, peak))
        delays: list[float] = []
        probing = asyncio.create_task(loop_probe(prober, delays))
        start = time.perf_counter()
        times: list[float] = []
        if other is None:
            for _ in range(alone_prompts):
                times.append(await normal.prompt())
        elif name == "reading":
            long_reply = await other.send_prompt("the long reply")
            await long_reply_started(other)
            while not long_reply.done():
                times.append(await normal.prompt())
            await long_reply
            out["streamed_mb"] = other.received_bytes / (1 << 20)
            out["updates"] = other.notes
            out["stream_s"] = time.perf_counter() - start
            out["peak_rss_growth_mb"] = mb(peak[0] - base)
            await asyncio.sleep(1.0)
            out["rss_growth_after_mb"] = mb(proc_status(server.pid)["VmRSS"] - base)
        else:
            await other.send_prompt("the long reply")
            await long_reply_started(other)
            other.stall()
            pattern = ENDED[name.split("-")[1]]
            while server.said(pattern, start) is None and time.perf_counter() - start < STALL_WAIT:
                times.append(await normal.prompt())
            ended = server.said(pattern, start)
            out["ended_after_s"] = None if ended is None else ended - start
            out["peak_rss_growth_mb"] = mb(peak[0] - base)
            await asyncio.sleep(3.0)  # the stalled client keeps its socket open, unread
            out["rss_growth_held_open_mb"] = mb(proc_status(server.pid)["VmRSS"] - base)
            out["sockets_held_open"] = open_sockets(server.pid) - sockets_before
            for _ in range(5):  # the other client is still served meanwhile
                times.append(await normal.prompt())
            await other.close()
            other = None
            await asyncio.sleep(1.0)
            out["sockets_after_close"] = open_sockets(server.pid) - sockets_before
        sampler.cancel()
        probing.cancel()
        await prober.close()
        out["loop_max_ms"] = max(delays)
        out["pings_over_100ms"] = sum(d > 100 for d in delays)
        out["prompts"] = len(times)
        out["median_ms"] = statistics.median(times)
        out["p90_ms"] = sorted(times)[len(times) * 9 // 10]
        out["max_ms"] = max(times)
        out["times_ms"] = times
        await normal.close()
        if other is not None:
            await other.close()
    finally:
        await server.stop()
        out["log"] = [line for _, line in server.log[2:]]  # after the start banner
    return out


async def loop_probe(peer: WsPeer, delays: list[float]) -> None:
    """Pings every 20 ms; each delay recorded (a blocked server loop shows as a long one)."""
    while True:
        delays.append(await peer.ping())
        await asyncio.sleep(0.02)


async def stdio_stream(tmp: Path) -> dict[str, float]:
    """For comparison: the same long reply streamed by an `acp` on stdio to a client that reads
    it; the growth of that process's RSS."""
    home = tmp / f"stdio-stream-{time.monotonic_ns()}"
    script = stall_script(home.with_suffix(".jsonl"), 2, 1)
    env = environment(home)
    peer = await StdioPeer().start(env, "--script", str(script))
    await open_peer(peer, str(tmp / "ws"))
    await peer.prompt()
    await asyncio.sleep(PAUSE)
    await peer.prompt()
    base = proc_status(peer.pid)["VmRSS"]
    peak = [base]
    sampler = asyncio.create_task(sample_rss(peer.pid, peak))
    start = time.perf_counter()
    await peer.prompt("the long reply")
    took = time.perf_counter() - start
    sampler.cancel()
    await peer.close()
    return {"peak_rss_growth_mb": mb(peak[0] - base), "stream_s": took}


async def held(tmp: Path, kind: str, count: int, keep_open: bool) -> dict[str, Any]:
    """`count` clients in a row on one server, each stalling on a long reply until the server
    ends its connection; each then keeps its socket open, unread (`keep_open`), or closes it.
    After each: the server's RSS and open sockets, and (WebSocket) the time from the log's
    "client ended" to its "connection ended". A client whose connection does not open is
    counted, what it received instead kept, and the next one tried. (No client pings here:
    pinging changes the timing enough to hide what the clients in a row can meet.)"""
    home = tmp / f"held-{kind}-{keep_open}-{time.monotonic_ns()}"
    script = stall_script(home.with_suffix(".jsonl"), 0, count)
    cwd = str(tmp / "ws")
    server = await Server().start(environment(home), "--script", str(script))
    out: dict[str, Any] = {
        "rss_growth_mb": [],
        "sockets": [],
        "ended_after_s": [],
        "closing_s": [],
        "refused_handshakes": [],
    }
    kept: list[Peer] = []
    sessions: list[str] = []
    try:
        idle = await open_peer(await WsPeer().start(server.url), cwd)  # the script loaded
        await asyncio.sleep(PAUSE)
        base = proc_status(server.pid)["VmRSS"]
        sockets_before = open_sockets(server.pid)
        for _ in range(count):
            peer = HttpPeer() if kind == "http" else WsPeer()
            try:
                await open_peer(await peer.start(server.url), cwd)
            except ConnectionError as exc:
                got = getattr(peer, "first_bytes", b"")
                out["refused_handshakes"].append(
                    {
                        "error": str(exc),
                        "received": got[:200].decode("latin-1"),
                        "an_earlier_session": any(sid.encode() in got for sid in sessions),
                    }
                )
                await peer.close()
                continue
            sessions.append(peer.session)
            start = time.perf_counter()
            await peer.send_prompt("the long reply")
            await long_reply_started(peer)
            peer.stall()  # type: ignore[attr-defined]
            while (ended := server.said(ENDED[kind], start)) is None:
                if time.perf_counter() - start > STALL_WAIT:
                    raise TimeoutError(f"a stalled {kind} connection was not ended")
                await asyncio.sleep(0.1)
            out["ended_after_s"].append(ended - start)
            await asyncio.sleep(3.0)  # what the server does with it meanwhile has been done
            if keep_open:
                kept.append(peer)
            else:
                await peer.close()
                await asyncio.sleep(1.0)
            closed = server.said(r"WebSocket connection ended", ended) if kind == "ws" else None
            if closed is not None:
                out["closing_s"].append(closed - ended)
            out["rss_growth_mb"].append(mb(proc_status(server.pid)["VmRSS"] - base))
            out["sockets"].append(open_sockets(server.pid) - sockets_before)
        for peer in kept:
            await peer.close()
        await asyncio.sleep(2.0)
        out["rss_growth_all_closed_mb"] = mb(proc_status(server.pid)["VmRSS"] - base)
        out["sockets_all_closed"] = open_sockets(server.pid) - sockets_before
        await idle.close()
    finally:
        for peer in kept:
            with contextlib.suppress(Exception):
                await peer.close()
        await server.stop()
    return out


async def stalls(
    tmp: Path, rounds: int, held_count: int, say: Callable[[str], None]
) -> dict[str, Any]:
    seen: dict[str, list[dict[str, Any]]] = {c: [] for c in STALL_CONDITIONS}
    alone = 40
    for r in range(rounds):
        order = STALL_CONDITIONS[r % 4 :] + STALL_CONDITIONS[: r % 4]
        for name in order:
            result = await stall_condition(tmp, name, alone)
            seen[name].append(result)
            say(f"  stall round {r + 1}/{rounds} {name}: " + _stall_line(result))
    out: dict[str, Any] = {"stall_mb": STALL_MB, "chunk": STALL_CHUNK, "step": STEP}
    out["stdio-reading"] = [await stdio_stream(tmp) for _ in range(rounds)]
    say(
        "  the same reply on stdio, read: RSS peak +"
        + "/".join(f"{r['peak_rss_growth_mb']:.1f}" for r in out["stdio-reading"])
        + " MB"
    )
    for name, results in seen.items():
        every = sorted(t for res in results for t in res["times_ms"])
        figures: dict[str, Any] = {
            "median_ms": statistics.median(every),
            "p90_ms": every[len(every) * 9 // 10],
            "max_ms": every[-1],
            "prompts": len(every),
            "round_medians_ms": [res["median_ms"] for res in results],
        }
        for res in results:
            for key, value in res.items():
                if key not in ("condition", "times_ms", "log", "prompts") and key not in figures:
                    figures.setdefault(key + "_rounds", []).append(value)
        figures["log"] = results[-1]["log"]
        out[name] = figures
    if held_count:
        out["held"] = {}
        for kind in ("ws", "http"):
            for keep_open in (True, False):
                key = f"{kind}-{'kept-open' if keep_open else 'closed'}"
                out["held"][key] = result = await held(tmp, kind, held_count, keep_open)
                say(
                    f"  {held_count} stalled {kind} clients in a row, each "
                    f"{'keeping its socket open' if keep_open else 'closing its socket'}: "
                    + _held_line(result)
                )
    return out


def _held_line(f: dict[str, Any]) -> str:
    return (
        "server RSS +"
        + "/".join(f"{v:.1f}" for v in f["rss_growth_mb"])
        + " MB, sockets "
        + "/".join(f"{v:+d}" for v in f["sockets"])
        + (
            ", closing took " + "/".join(f"{v:.1f}" for v in f["closing_s"]) + " s"
            if f["closing_s"]
            else ""
        )
        + f"; all closed +{f['rss_growth_all_closed_mb']:.1f} MB,"
        f" sockets {f['sockets_all_closed']:+d}"
        + (f"; {len(f['refused_handshakes'])} failed to connect" if f["refused_handshakes"] else "")
    )


def _stall_line(res: dict[str, Any]) -> str:
    line = (
        f"the other client's prompt median {res['median_ms']:.1f} ms, p90 {res['p90_ms']:.1f},"
        f" max {res['max_ms']:.1f} ({res['prompts']} prompts); server loop max"
        f" {res['loop_max_ms']:.0f} ms"
    )
    if "peak_rss_growth_mb" in res:
        line += f"; server RSS peak +{res['peak_rss_growth_mb']:.1f} MB"
    if "stream_s" in res:
        line += (
            f"; {res['updates']} updates ({res['streamed_mb']:.1f} MB) in {res['stream_s']:.1f} s"
        )
    if "ended_after_s" in res:
        ended = res["ended_after_s"]
        line += (
            (f"; ended after {ended:.1f} s" if ended is not None else "; NOT ENDED")
            + f"; held open 3 s: RSS +{res['rss_growth_held_open_mb']:.1f} MB,"
            f" sockets {res['sockets_held_open']:+d}; closed: sockets {res['sockets_after_close']:+d}"
        )
    return line


# -- the whole ----------------------------------------------------------------------------------


async def run(args: argparse.Namespace, say: Callable[[str], None]) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="bench-remote-"))
    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d"),
        "cpus": os.cpu_count(),
        "clients": args.clients,
        "rounds": args.rounds,
        "waves": args.waves,
        "single_per_round": SINGLE,
    }
    try:
        if not args.no_timing:
            fleet = Fleet(tmp, args.clients)
            try:
                say(f"starting {args.clients} clients on each of {', '.join(VARIANTS)}")
                await fleet.start()
                report["memory_after_setup"] = fleet.memory()
                report.update(await timing(fleet, args.rounds, args.waves, say))
                report["memory_at_end"] = fleet.memory()
            finally:
                await fleet.stop()
        if args.stall_rounds:
            report["stall"] = await stalls(tmp, args.stall_rounds, args.held, say)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report


def show(report: dict[str, Any]) -> bool:
    n = report["clients"]
    ok = True
    print(
        f"remote ({report['date']}, {report['cpus']} cpus, offline model; {n} clients, "
        f"{report['rounds']} rounds)"
    )
    for mode, what in (
        ("concurrent", f"{n} clients prompting at once, {report['waves']} waves a round"),
        ("single", f"one client at a time, {report['single_per_round']} prompts a round"),
    ):
        if mode not in report:
            continue
        print(f"  per-prompt agent time, {what} (ms: median [p10-p90], round medians)")
        for name in VARIANTS:
            f = report[mode][name]
            line = (
                f"    {name:5} {f['median_ms']:7.2f} [{f['p10_ms']:.2f}-{f['p90_ms']:.2f}]"
                f"  rounds {min(f['round_medians_ms']):.2f}-{max(f['round_medians_ms']):.2f}"
                f"  agent CPU {f['agent_cpu_ms_per_prompt']:.2f} ms/prompt"
                f" ({f['agent_cores']:.2f} cores)"
                f"  client CPU {f['client_cpu_share'] * 100:.0f}%"
            )
            if name != "stdio":
                line += (
                    f"  x{f['ratio_to_stdio']:.2f} of stdio"
                    f" (rounds {min(f['round_ratios']):.2f}-{max(f['round_ratios']):.2f};"
                    f" {f['added_ms']:+.2f} ms; CPU x{f['cpu_ratio_to_stdio']:.2f})"
                )
                if mode == "concurrent" and f["ratio_to_stdio"] > TARGET:
                    line += f"   OVER TARGET ({TARGET}x)"
                    ok = False
            print(line)
    for key in ("memory_after_setup", "memory_at_end"):
        if key not in report:
            continue
        print(f"  memory, {key.replace('_', ' ')} (MB; stdio: the sum over {n} processes)")
        for name in VARIANTS:
            m = report[key][name]
            print(
                f"    {name:5} VmHWM {m['VmHWM']:7.1f}  VmRSS {m['VmRSS']:7.1f}  PSS {m['Pss']:7.1f}"
            )
    if "stall" in report:
        s = report["stall"]
        print(
            f"  a stalled reader ({s['stall_mb']} MiB reply in {s['chunk']}-char chunks): the"
            " other client's prompt (ms: median, p90, max; round medians), the server's RSS"
        )
        for name in STALL_CONDITIONS:
            f = s[name]
            rm = f["round_medians_ms"]
            line = (
                f"    {name:12} {f['median_ms']:6.2f} {f['p90_ms']:7.2f} {f['max_ms']:8.2f}"
                f"  ({min(rm):.2f}-{max(rm):.2f}; {f['prompts']} prompts)"
            )
            line += "  loop max " + "/".join(f"{v:.0f}" for v in f["loop_max_ms_rounds"]) + " ms"
            if "peak_rss_growth_mb_rounds" in f:
                line += "  RSS peak +" + "/".join(
                    f"{v:.1f}" for v in f["peak_rss_growth_mb_rounds"]
                )
            if "ended_after_s_rounds" in f:
                line += "  ended after " + "/".join(
                    "NOT" if v is None else f"{v:.1f}" for v in f["ended_after_s_rounds"]
                )
                line += " s; sockets held open " + "/".join(
                    f"{v:+d}" for v in f["sockets_held_open_rounds"]
                )
                if any(v is None for v in f["ended_after_s_rounds"]):
                    ok = False
            if "stream_s_rounds" in f:
                line += "  streamed in " + "/".join(f"{v:.1f}" for v in f["stream_s_rounds"]) + " s"
            print(line)
        print(
            "    stdio, read   RSS peak +"
            + "/".join(f"{r['peak_rss_growth_mb']:.1f}" for r in s["stdio-reading"])
            + " MB (the same reply from an `acp` on stdio, for comparison)"
        )
        for key, f in s.get("held", {}).items():
            print(f"    {key:17} {_held_line(f)}")
            for refused in f["refused_handshakes"]:
                print(
                    f"      a new client's connection did not open ({refused['error']});"
                    f" an earlier client's session in what it received:"
                    f" {refused['an_earlier_session']}; it received {refused['received'][:100]!r}"
                )
        for name in ("stalled-ws", "stalled-http"):
            print(f"    server log, {name} (last round):")
            for line in s[name]["log"]:
                if line.startswith(("acp: WARNING", "acp: INFO reasonix_acp")):
                    print(f"      {line[:160]}")
    print("  PASS" if ok else "  OVER TARGET")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--waves", type=int, default=WAVES)
    parser.add_argument("--stall-rounds", type=int, default=2)
    parser.add_argument("--held", type=int, default=3, help="stalled clients in a row (3b)")
    parser.add_argument("--no-timing", action="store_true", help="only the stalled reader")
    parser.add_argument("--json", action="store_true", help="the figures as one JSON object")
    args = parser.parse_args()

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    report = asyncio.run(run(args, say))
    if args.json:
        for name in STALL_CONDITIONS:
            report.get("stall", {}).get(name, {}).pop("times_ms", None)
        print(json.dumps(report, indent=2))
        ok = all(
            report[m][v]["ratio_to_stdio"] <= TARGET
            for m in ("concurrent",)
            if m in report
            for v in ("ws", "http")
        ) and all(
            v is not None
            for name in ("stalled-ws", "stalled-http")
            for v in report.get("stall", {}).get(name, {}).get("ended_after_s_rounds", [])
        )
    else:
        ok = show(report)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
