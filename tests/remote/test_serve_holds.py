"""What a client may hold of `acp serve` before it is admitted, and for how long: a request's
head that comes a line at a time is cut off at the head's time limit (not the time between two
reads). Through a real `acp serve` on 127.0.0.1 and raw sockets."""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path

import httpx

from tests.remote.serving import TOKEN, Served

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
