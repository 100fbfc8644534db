"""The streams of one connection of `acp serve`, through a real process: a WebSocket client that
only answers pings is still let go when idle; an HTTP connection holds at most MAX_STREAMS
session streams, however they are named (a GET, or a POST's Acp-Session-Id); a stream has one
reader even when two ask for it at the same moment."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import time
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.remote.serving import TOKEN, Served

AUTH = {"authorization": f"Bearer {TOKEN}"}
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}
MAX_STREAMS = 1024


@pytest.mark.slow
def test_a_websocket_client_that_only_answers_pings_ends_when_idle(tmp_path: Path) -> None:
    # past the first ping (20 s), so the client's pong comes before the idle time is up
    served = Served(tmp_path, "--model", "offline", "--idle-timeout", "22")
    try:
        with connect(served.url.replace("http", "ws", 1), additional_headers=AUTH) as ws:
            ws.send(json.dumps(INITIALIZE))
            assert json.loads(ws.recv(timeout=30))["id"] == 0
            start = time.monotonic()
            with pytest.raises(ConnectionClosed) as closed:
                while True:  # its library answers the server's pings; it sends nothing else
                    ws.recv(timeout=max(start + 50 - time.monotonic(), 0.1))
            waited = time.monotonic() - start
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
        assert 21 < waited < 30
    finally:
        assert served.stop() == 0


def _rss(pid: int) -> int:
    """The process's resident memory, in kB."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1))  # type: ignore[union-attr]


def test_posts_naming_new_session_streams_are_refused_past_the_bound(tmp_path: Path) -> None:
    served = Served(tmp_path, "--model", "offline")
    try:
        with httpx.Client(headers=AUTH, timeout=30) as http:
            cid = http.post(served.url, json=INITIALIZE).headers["acp-connection-id"]

            def listed(i: int) -> httpx.Response:
                request = {"jsonrpc": "2.0", "id": i, "method": "session/list", "params": {}}
                named = {"acp-connection-id": cid, "acp-session-id": f"s{i}"}
                return http.post(served.url, json=request, headers=named)

            answers = [listed(i) for i in range(1, 1101)]  # never read, never a GET
            assert [a.status_code for a in answers[:MAX_STREAMS]] == [202] * MAX_STREAMS
            assert {a.status_code for a in answers[MAX_STREAMS:]} == {400}
            assert answers[-1].text == f"Too many session streams (at most {MAX_STREAMS})\n"
            stream = {"acp-connection-id": cid, "acp-session-id": "another"}
            get = http.get(served.url, headers={"accept": "text/event-stream", **stream})
            assert get.status_code == 400
            time.sleep(1.0)  # the answers, routed
            full = _rss(served.proc.pid)
            assert {listed(i).status_code for i in range(1101, 3101)} == {400}
            time.sleep(1.0)
            assert _rss(served.proc.pid) - full < 3000  # 2,000 more streams: some 6 MB
            new = {"jsonrpc": "2.0", "id": 5000, "method": "session/list", "params": {}}
            posted = http.post(served.url, json=new, headers={"acp-connection-id": cid})
            assert posted.status_code == 202  # the connection's own stream is not bounded
    finally:
        assert served.stop() == 0


def test_two_readers_asking_for_one_stream_at_once_get_200_and_409(tmp_path: Path) -> None:
    served = Served(tmp_path, "--model", "offline")
    try:
        opened = httpx.post(served.url, json=INITIALIZE, headers=AUTH, timeout=30)
        cid = opened.headers["acp-connection-id"]
        host, port = re.match(r"http://([^:/]+):(\d+)/", served.url).groups()  # type: ignore[union-attr]
        request = (
            f"GET /acp HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n"
            f"Authorization: Bearer {TOKEN}\r\nAcp-Connection-Id: {cid}\r\n\r\n"
        ).encode()
        readers = [socket.create_connection((host, int(port)), timeout=30) for _ in range(2)]
        time.sleep(0.5)  # both accepted, each waiting for its request
        os.kill(served.proc.pid, signal.SIGSTOP)  # both requests arrive before it looks again
        try:
            for reader in readers:
                reader.sendall(request)
            time.sleep(0.2)
        finally:
            os.kill(served.proc.pid, signal.SIGCONT)
        statuses = sorted(int(reader.recv(4096).split(b" ")[1]) for reader in readers)
        assert statuses == [200, 409]
        for reader in readers:
            reader.close()
    finally:
        assert served.stop() == 0
