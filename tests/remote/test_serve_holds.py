"""What a client may hold of `acp serve` before it is admitted, and for how long: a request's
head that comes a line at a time is cut off at the head's time limit (not the time between two
reads); an upgrade whose client is gone before the 101 gives back its connection and threads;
with TLS, sockets still in their handshake are counted, bounded and timed. Each through a real
`acp serve` on 127.0.0.1 and raw sockets."""

from __future__ import annotations

import base64
import os
import re
import socket
import ssl
import struct
import time
from pathlib import Path

import httpx

from tests.remote.serving import TOKEN, Served, self_signed

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}
BEARER = {"authorization": f"Bearer {TOKEN}"}


def _address(url: str) -> tuple[str, int]:
    host, port = re.match(r"https?://([^:/]+):(\d+)/", url).groups()  # type: ignore[union-attr]
    return host, int(port)


def _answered(sock: socket.socket) -> bytes | None:
    """What the server sent or b"" for a closed socket (its end of input or a reset); None
    while it is open and silent."""
    sock.setblocking(False)
    try:
        return sock.recv(4096)
    except BlockingIOError:
        return None
    except OSError:
        return b""
    finally:
        sock.setblocking(True)


def _count(pid: int, what: str) -> int:
    return len(os.listdir(f"/proc/{pid}/{what}"))


def test_a_head_sent_a_line_at_a_time_is_cut_off_and_others_get_in(tmp_path: Path) -> None:
    served = Served(tmp_path, "--model", "offline", "--max-connections", "1")
    try:
        socks = [socket.create_connection(_address(served.url)) for _ in range(4)]
        for sock in socks:
            sock.sendall(b"GET /acp HTTP/1.1\r\nHost: x\r\n")
        answers: list[bytes | None] = [None] * len(socks)
        start = time.monotonic()
        line = 0
        while time.monotonic() - start < 12.0:
            time.sleep(3.0)
            line += 1
            for i, sock in enumerate(socks):
                if answers[i] is None:
                    answers[i] = _answered(sock)
                if answers[i] is None:
                    try:
                        sock.sendall(b"X-Line-%d: more\r\n" % line)
                    except OSError:
                        answers[i] = b""
        for i, sock in enumerate(socks):
            if answers[i] is None:
                answers[i] = _answered(sock)
        answer = httpx.post(served.url, json=INITIALIZE, headers=BEARER, timeout=30)
        assert answer.status_code == 200
        for got in answers:
            assert got is not None, "a head sent a line every 3 s was held past its 10 s"
            assert got.startswith(b"HTTP/1.1 400 "), got
        for sock in socks:
            sock.close()
    finally:
        assert served.stop() == 0


def _reset_upgrade(url: str) -> None:
    """A valid upgrade with the token, and the socket reset at once (before the 101 is read)."""
    sock = socket.create_connection(_address(url))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            "GET /acp HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Authorization: Bearer {TOKEN}\r\n\r\n"
        ).encode()
    )
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def _open_and_close(url: str) -> None:
    answer = httpx.post(url, json=INITIALIZE, headers=BEARER, timeout=30)
    assert answer.status_code == 200
    headers = {**BEARER, "acp-connection-id": answer.headers["acp-connection-id"]}
    assert httpx.delete(url, headers=headers, timeout=30).status_code == 202


def test_an_upgrade_reset_before_its_101_gives_its_connection_back(tmp_path: Path) -> None:
    served = Served(tmp_path, "--model", "offline", "--max-connections", "2")
    try:
        pid = served.proc.pid
        _open_and_close(served.url)  # what the first connection starts for good (the store)
        time.sleep(1.0)
        baseline = _count(pid, "task")
        for _ in range(2):
            _reset_upgrade(served.url)
            time.sleep(0.5)
        _open_and_close(served.url)  # two were open: the limit
        deadline = time.monotonic() + 5.0
        while _count(pid, "task") > baseline and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _count(pid, "task") <= baseline
    finally:
        assert served.stop() == 0


def test_sockets_in_their_tls_handshake_are_bounded(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    served = Served(
        tmp_path,
        *("--model", "offline", "--max-connections", "1"),
        *("--tls-cert", str(cert), "--tls-key", str(key)),
    )
    try:
        pid = served.proc.pid
        baseline = _count(pid, "fd")
        silent = [socket.create_connection(_address(served.url)) for _ in range(100)]
        time.sleep(0.5)  # those accepted at once are closed at once, in the next few steps
        most = 0
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            most = max(most, _count(pid, "fd"))
            time.sleep(0.05)
        assert most < baseline + 4 * 1 + 10, (baseline, most)  # 4 sockets a connection
        deadline = time.monotonic() + 15.0  # the handshake's 10 s, and some
        while _count(pid, "fd") > baseline and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _count(pid, "fd") <= baseline  # the server closed the 4 it held
        trusted = ssl.create_default_context(cafile=str(cert))
        answer = httpx.post(served.url, json=INITIALIZE, headers=BEARER, verify=trusted, timeout=30)
        assert answer.status_code == 200
        for sock in silent:
            sock.close()
    finally:
        assert served.stop() == 0
    assert not [line for line in served.log if "ERROR" in line]
