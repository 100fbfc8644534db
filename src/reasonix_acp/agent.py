"""The agent's handlers, one per routed method, over the state of one connection.

Handlers take decoded params and return a result (a model or JSON-ready data); they never touch
frames. The connection refuses every method but `initialize` until `initialize` has succeeded.
"""

from __future__ import annotations

from typing import Any

from reasonix_acp import capabilities
from reasonix_acp.generated.methods import AUTHENTICATE, INITIALIZE, MethodSpec
from reasonix_acp.protocol.errors import InvalidParams, StateError
from reasonix_acp.protocol.handshake import ClientFeatures
from reasonix_acp.protocol.router import Call, Router


class Agent:
    def __init__(self) -> None:
        self.client: ClientFeatures | None = None
        self.router = Router(guard=self._require_initialized)
        self.router.add(INITIALIZE, self.initialize, guarded=False)
        self.router.add(AUTHENTICATE, self.authenticate)

    def _require_initialized(self, spec: MethodSpec) -> None:
        if self.client is None:
            raise StateError(
                f"{spec.method}: the connection is not initialized; send initialize first"
            )

    # The handshake is synchronous: it is served before the event loop exists.
    def initialize(self, call: Call, client: ClientFeatures) -> dict[str, Any]:
        # A repeated initialize replaces what the client said before.
        self.client = client
        return capabilities.initialize_result(client)

    def authenticate(self, call: Call, params: Any) -> dict[str, Any]:
        method_id = params.method_id.strip()
        if method_id != capabilities.SETUP_METHOD_ID:
            raise InvalidParams(f"authenticate: unknown methodId {params.method_id}")
        return {}

    async def close(self) -> None:
        """The client went away: release everything this connection holds."""
