from __future__ import annotations

import pytest

from reasonix_acp.generated.methods import (
    AUTHENTICATE,
    INITIALIZE,
    SESSION_CANCEL,
    SESSION_UPDATE,
    MethodSpec,
)
from reasonix_acp.protocol.errors import MethodNotFound, StateError
from reasonix_acp.protocol.router import Router


def test_only_agent_side_methods_can_be_routed() -> None:
    router = Router()
    with pytest.raises(ValueError, match="not a method the agent side handles"):
        router.add(SESSION_UPDATE, lambda c, p: None)
    with pytest.raises(ValueError):
        router.add("session/steer", lambda c, p: None)


def test_routing_twice_fails() -> None:
    router = Router()
    router.add(INITIALIZE, lambda c, p: None)
    with pytest.raises(ValueError, match="twice"):
        router.add(INITIALIZE, lambda c, p: None)


def test_unknown_request_and_notification() -> None:
    router = Router()
    router.add(SESSION_CANCEL, lambda c, p: None)
    with pytest.raises(MethodNotFound, match="method not found: nope"):
        router.request("nope")
    with pytest.raises(MethodNotFound):
        router.request(SESSION_CANCEL)  # a notification is not a request
    assert router.notification("_x/y") is None
    assert router.notification(SESSION_CANCEL) is not None


def test_guard_applies_to_guarded_routes_only() -> None:
    def guard(spec: MethodSpec) -> None:
        raise StateError(f"{spec.method}: not yet")

    router = Router(guard=guard)
    router.add(INITIALIZE, lambda c, p: None, guarded=False)
    router.add(AUTHENTICATE, lambda c, p: None)
    assert router.request(INITIALIZE).spec.method == INITIALIZE
    with pytest.raises(StateError, match="authenticate: not yet"):
        router.request(AUTHENTICATE)
