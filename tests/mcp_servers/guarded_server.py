"""The tools server over streamable HTTP on 127.0.0.1, answering only requests that carry its
credentials: `python guarded_server.py PORT USER PASSWORD KEY` wants HTTP basic auth
USER:PASSWORD and the query parameter `api_key=KEY`; any other request gets 401."""

from __future__ import annotations

import base64
import sys
from typing import Any
from urllib.parse import parse_qs

import uvicorn
from tools_server import server


def guarded(app: Any, user: str, password: str, key: str) -> Any:
    wanted = b"Basic " + base64.b64encode(f"{user}:{password}".encode())

    async def serve(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope["headers"]).get(b"authorization")
            query = parse_qs(scope["query_string"].decode())
            if given != wanted or query.get("api_key") != [key]:
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"credentials required"})
                return
        await app(scope, receive, send)

    return serve


if __name__ == "__main__":
    port, user, password, key = sys.argv[1:5]
    app = guarded(server.streamable_http_app(), user, password, key)
    uvicorn.run(app, host="127.0.0.1", port=int(port), log_level="warning")
