"""The streams of one connection of `acp serve`, through a real process: a WebSocket client that
only answers pings is still let go when idle."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.remote.serving import TOKEN, Served

AUTH = {"authorization": f"Bearer {TOKEN}"}
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}


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
