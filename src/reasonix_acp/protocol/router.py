"""Method name → handler, driven by the generated method table.

Only methods the table lists for the agent side (or the protocol level) can be routed, so a typo
in a handler registration fails at start-up rather than as a silent -32601 at run time. Unknown
requests get -32601 `method not found: <m>`; unknown notifications (`_…` extensions, `$/…`
protocol notifications, anything else) are ignored, as the spec asks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reasonix_acp.generated.methods import AGENT_SIDE, METHODS, MethodSpec
from reasonix_acp.protocol.errors import MethodNotFound

Handler = Callable[[Any, Any], Any]  # (call context, decoded params) → result or awaitable
Normaliser = Callable[[str, dict[str, Any]], dict[str, Any]]  # raw params → raw params
Guard = Callable[[MethodSpec], None]


class Route:
    __slots__ = ("guarded", "handler", "normalise", "spec")

    def __init__(
        self, spec: MethodSpec, handler: Handler, guarded: bool, normalise: Normaliser | None
    ) -> None:
        self.spec = spec
        self.handler = handler
        self.guarded = guarded
        self.normalise = normalise


class Router:
    def __init__(self, guard: Guard | None = None) -> None:
        self._routes: dict[str, Route] = {}
        self._guard = guard

    def add(
        self,
        method: str,
        handler: Handler,
        *,
        guarded: bool = True,
        normalise: Normaliser | None = None,
    ) -> None:
        spec = AGENT_SIDE.get(method) or METHODS.get(method)
        if spec is None or spec.side not in ("agent", "protocol"):
            raise ValueError(f"{method!r} is not a method the agent side handles")
        if method in self._routes:
            raise ValueError(f"{method!r} is routed twice")
        self._routes[method] = Route(spec, handler, guarded, normalise)

    def methods(self) -> list[str]:
        return sorted(self._routes)

    def _check(self, route: Route) -> Route:
        if route.guarded and self._guard is not None:
            self._guard(route.spec)
        return route

    def request(self, method: str) -> Route:
        route = self._routes.get(method)
        if route is None or route.spec.kind != "request":
            raise MethodNotFound(method)
        return self._check(route)

    def notification(self, method: str) -> Route | None:
        route = self._routes.get(method)
        if route is None or route.spec.kind != "notification":
            return None
        return self._check(route)


class Call:
    """One request being served: its id, its method and the hooks to run after its response.

    `after_response` hooks run once the response frame has been queued for writing, so what
    they send reaches the client after the response (Zed ignores an `available_commands_update`
    that arrives before the `session/new` response).
    """

    __slots__ = ("_hooks", "connection", "method", "request_id")

    def __init__(self, connection: Any, request_id: int | str, method: str) -> None:
        self.connection = connection
        self.request_id = request_id
        self.method = method
        self._hooks: list[Callable[[], None]] = []

    def after_response(self, hook: Callable[[], None]) -> None:
        self._hooks.append(hook)

    def take_hooks(self) -> list[Callable[[], None]]:
        hooks, self._hooks = self._hooks, []
        return hooks
