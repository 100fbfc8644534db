"""Frames and the steps of serving one request, shared by the synchronous handshake and the
asyncio connection. No I/O here: callers write the frames these functions build."""

from __future__ import annotations

import logging
from typing import Any

from reasonix_acp.protocol import codec
from reasonix_acp.protocol.errors import AcpError, InternalError
from reasonix_acp.protocol.messages import Request, RequestId
from reasonix_acp.protocol.router import Call, Route, Router

log = logging.getLogger("reasonix_acp.dispatch")


def result_frame(request_id: RequestId, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": codec.dump(result)}


def error_frame(request_id: RequestId | None, error: AcpError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_error()}


def prepare(router: Router, request: Request, connection: Any) -> tuple[Route, Any, Call]:
    """Resolve and decode; raises the AcpError to answer when the request cannot be served."""
    route = router.request(request.method)
    params = codec.decode_params(route.spec, request.params, route.normalise)
    return route, params, Call(connection, request.id, request.method)


def internal(method: str, exc: BaseException) -> InternalError:
    """Our bug while serving `method`: logged whole, answered with its cause (bounded and
    redacted by InternalError, as `message` and `data.details`)."""
    log.error("%s failed", method, exc_info=exc)
    return InternalError(f"{method}: {str(exc) or type(exc).__name__}")
