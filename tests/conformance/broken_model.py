"""The broken agent's model client (broken_tools.py): a non-streamed Chat Completions request
to the scripted model at SCRIPTED_MODEL, over a socket (urllib.request, with http.client and
the email parser, was most of this agent's start-up, paid once per scenario). BREAK no-tools
offers the model no tools; QUIRK retry-errors sends a request answered with an HTTP error
again, eight times, half a second apart."""

from __future__ import annotations

import json
import os
import time

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a start-up
if TYPE_CHECKING:
    from typing import Any

MODEL = os.environ.get("SCRIPTED_MODEL", "")
BREAK = {b.strip() for b in os.environ.get("BREAK", "").split(",") if b.strip()}
QUIRK = {b.strip() for b in os.environ.get("QUIRK", "").split(",") if b.strip()}


def ask_model(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The model's message, or None (no model, or it failed)."""
    if not MODEL:
        return None
    body: dict[str, Any] = {"model": "conformance-model", "messages": messages}
    if "no-tools" not in BREAK and tools:
        body["tools"] = tools
    # retry-errors: a failed request is sent again after a pause, as SDKs with backoff do, for
    # longer than the runner waits for an answer.
    tries = 8 if "retry-errors" in QUIRK else 1
    for attempt in range(tries):
        try:
            status, reply = _post(MODEL.rstrip("/") + "/chat/completions", json.dumps(body))
            if status < 400:
                message: dict[str, Any] = json.loads(reply)["choices"][0]["message"]
                return message
            if attempt == tries - 1:
                return None
            time.sleep(0.5)
        except (OSError, ValueError, KeyError, IndexError):
            return None
    return None


def _post(url: str, body: str) -> tuple[int, bytes]:
    """(status, body) of an HTTP/1.0 POST of JSON (urllib.request was most of a start-up;
    socket and urllib.parse are imported by the first turn that asks the model)."""
    import socket
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    data = body.encode()
    head = (
        f"POST {parts.path} HTTP/1.0\r\nHost: {parts.netloc}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
    )
    with socket.create_connection((parts.hostname, parts.port or 80), timeout=30) as conn:
        conn.sendall(head.encode() + data)
        answer = b"".join(iter(lambda: conn.recv(65536), b""))
    status, _, rest = answer.partition(b"\r\n")
    return int(status.split()[1]), rest.partition(b"\r\n\r\n")[2]
