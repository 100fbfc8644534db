"""Who reaches `acp serve`: the token, the Origin, TLS, the token file, the bounds; each
through a real `acp serve` on 127.0.0.1 and real HTTP and WebSocket clients (httpx, websockets)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import ssl
import stat
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.agent_process import acp_command
from tests.remote.serving import TOKEN, Served, self_signed

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}
JSON = {"content-type": "application/json"}


def _bearer(token: str = TOKEN) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def _ws_status(url: str, headers: dict[str, str]) -> int:
    async def attempt() -> int:
        try:
            async with connect(url.replace("http", "ws", 1), additional_headers=headers):
                return 101
        except InvalidStatus as exc:
            return exc.response.status_code

    return asyncio.run(attempt())


@pytest.fixture
def served(tmp_path: Path) -> Served:
    server = Served(tmp_path, "--model", "offline")
    yield server  # type: ignore[misc]
    assert server.stop() == 0


def test_no_token_or_a_wrong_one_is_refused_slower_each_time(served: Served) -> None:
    start = time.monotonic()
    for headers in ({}, _bearer("wrong-token-0123456789"), {"authorization": TOKEN}):
        answer = httpx.post(served.url, json=INITIALIZE, headers=headers, timeout=30)
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"] == "Bearer"
        assert TOKEN not in answer.text
    assert time.monotonic() - start >= 0.25 + 0.5 + 1.0
    waits = re.findall(
        r"refused 127\.0\.0\.1 \(401 .*\), answered after (\S+) s", "\n".join(served.log)
    )
    assert waits == ["0.25", "0.50", "1.00"]
    assert _ws_status(served.url, {}) == 401
    assert TOKEN not in "\n".join(served.log)  # never logged, though the last one sent it
    good = httpx.post(served.url, json=INITIALIZE, headers=_bearer(), timeout=30)
    assert good.status_code == 200 and good.json()["result"]["protocolVersion"] == 1
    assert re.fullmatch(r"[0-9a-f-]{36}", good.headers["acp-connection-id"])


def test_a_browser_page_is_refused_even_with_the_token(served: Served) -> None:
    page = {"origin": "https://evil.example", **_bearer()}
    answer = httpx.post(served.url, json=INITIALIZE, headers=page, timeout=30)
    assert answer.status_code == 403
    assert _ws_status(served.url, page) == 403
    assert _ws_status(served.url, _bearer()) == 101


def test_an_allowed_origin_is_admitted(tmp_path: Path) -> None:
    served = Served(tmp_path, "--model", "offline", "--allow-origin", "https://ide.example")
    try:
        page = {"origin": "https://ide.example", **_bearer()}
        assert httpx.post(served.url, json=INITIALIZE, headers=page, timeout=30).status_code == 200
        other = {"origin": "https://evil.example", **_bearer()}
        assert httpx.post(served.url, json=INITIALIZE, headers=other, timeout=30).status_code == 403
    finally:
        assert served.stop() == 0


def test_http_requests_are_checked_as_the_sdk_server_checks_them(tmp_path: Path) -> None:
    served = Served(tmp_path, "--model", "offline", "--line-limit", "1000000")
    try:
        _checked(served)
    finally:
        assert served.stop() == 0


def _checked(served: Served) -> None:
    url, auth = served.url, _bearer()
    with httpx.Client(headers=auth, timeout=30) as http:
        assert http.post(url.replace("/acp", "/other"), json=INITIALIZE).status_code == 404
        assert (
            http.post(url, content=b"{}", headers={"content-type": "text/plain"}).status_code == 415
        )
        assert http.post(url, content=b"{nope", headers=JSON).status_code == 400
        batch = http.post(url, content=b"[]", headers=JSON)
        assert batch.status_code == 400 and batch.json()["error"]["code"] == -32600
        opened = http.post(url, json=INITIALIZE)
        cid = opened.headers["acp-connection-id"]
        new = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "session/new",
            "params": {"cwd": str(served.workspace), "mcpServers": []},
        }
        assert http.post(url, json=new).status_code == 400  # no Acp-Connection-Id
        assert http.post(url, json=new, headers={"acp-connection-id": "nope"}).status_code == 404
        again = http.post(url, json=INITIALIZE, headers={"acp-connection-id": cid})
        assert again.status_code == 400
        prompt = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "session/prompt",
            "params": {"sessionId": "s", "prompt": []},
        }
        assert http.post(url, json=prompt, headers={"acp-connection-id": cid}).status_code == 400
        mismatched = {"acp-connection-id": cid, "acp-session-id": "t"}
        assert http.post(url, json=prompt, headers=mismatched).status_code == 400
        assert http.get(url, headers={"acp-connection-id": cid}).status_code == 406
        assert http.put(url, json={}).status_code == 405
        big = http.post(url, content=b" " * (2 << 20), headers={**JSON, "acp-connection-id": cid})
        assert big.status_code == 413
        assert http.delete(url, headers={"acp-connection-id": cid}).status_code == 202
        assert http.delete(url, headers={"acp-connection-id": cid}).status_code == 404


def test_a_session_limit_and_a_connection_limit_hold(tmp_path: Path) -> None:
    served = Served(
        tmp_path, "--model", "offline", "--max-connections", "1", "--sessions-per-connection", "1"
    )
    try:
        with httpx.Client(headers=_bearer(), timeout=30) as http:
            cid = http.post(served.url, json=INITIALIZE).headers["acp-connection-id"]
            assert http.post(served.url, json=INITIALIZE).status_code == 503
            assert _ws_status(served.url, _bearer()) == 503
            new = {"cwd": str(served.workspace), "mcpServers": []}
            with http.stream(
                "GET", served.url, headers={"acp-connection-id": cid, "accept": "text/event-stream"}
            ) as events:
                for rid in (1, 2):
                    frame = {"jsonrpc": "2.0", "id": rid, "method": "session/new", "params": new}
                    sent = http.post(served.url, json=frame, headers={"acp-connection-id": cid})
                    assert sent.status_code == 202
                answers = {}
                for line in events.iter_lines():
                    if line.startswith("data: "):
                        message = json.loads(line[6:])
                        if message.get("id") in (1, 2):
                            answers[message["id"]] = message
                    if len(answers) == 2:
                        break
            assert "sessionId" in answers[1]["result"]
            assert answers[2]["error"]["code"] == -32600
            assert "holds 1 sessions" in answers[2]["error"]["message"]
    finally:
        assert served.stop() == 0


def test_the_token_file_is_made_private_and_a_readable_one_refused(tmp_path: Path) -> None:
    env = {"REASONIX_ACP_TOKEN": "", "REASONIX_ACP_CONFIG_DIR": str(tmp_path / "config")}
    served = Served(tmp_path, "--model", "offline", env=env)
    try:
        token_file = tmp_path / "config" / "serve-token"
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        token = token_file.read_text(encoding="ascii").strip()
        assert any(str(token_file) in line for line in served.log)
        assert token not in "\n".join(served.log)
        answer = httpx.post(served.url, json=INITIALIZE, headers=_bearer(token), timeout=30)
        assert answer.status_code == 200
    finally:
        assert served.stop() == 0
    token_file.chmod(0o644)
    refused = subprocess.run(
        [*acp_command(), "serve", "--listen", "127.0.0.1:0"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert refused.returncode == 2
    assert "may be read by other users" in refused.stderr and "chmod 600" in refused.stderr


def test_another_address_needs_tls_unless_the_network_is_said_private() -> None:
    refused = subprocess.run(
        [*acp_command(), "serve", "--listen", "0.0.0.0:0"],
        env={**os.environ, "REASONIX_ACP_TOKEN": TOKEN},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert refused.returncode == 2
    assert "--tls-cert" in refused.stderr and "--allow-plaintext" in refused.stderr


def test_tls_is_served_with_a_certificate(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    served = Served(tmp_path, "--model", "offline", "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        assert served.url.startswith("https://127.0.0.1:")
        trusted = ssl.create_default_context(cafile=str(cert))
        answer = httpx.post(
            served.url, json=INITIALIZE, headers=_bearer(), verify=trusted, timeout=30
        )
        assert answer.status_code == 200
        with pytest.raises(httpx.ConnectError):
            httpx.post(served.url, json=INITIALIZE, headers=_bearer(), timeout=30)  # no trust
    finally:
        assert served.stop() == 0
