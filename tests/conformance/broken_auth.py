"""The broken agent's authentication (broken_agent.py): one method, an API key it takes as it
is (`authenticate` needs nothing more), `logout` (advertised as `auth.logout`), and
`auth/status` with `auth/status_update` (unstable, advertised as `auth.status`). It starts
holding its key (`authenticated`); `logout` forgets it (`unauthenticated`), `authenticate`
takes it again; each change of the state is sent as an `auth/status_update` before the
answer. Correct by default; the faults (BREAK) it knows:

  dup-auth           two authentication methods with one id
  terminal-auth      a terminal authentication method the client did not ask for
  auth-status-shape  auth/status answers {"status": "ok"}, without its state
  auth-status-32000  auth/status is refused with auth_required (-32000)
  auth-shape         authenticate answers "ok", not an object
  auth-forgets       after authenticate, session/new is refused with auth_required (-32000)
                     (broken_agent.py asks `forgets`)
  logout-unserved    advertises auth.logout and answers logout -32601
  logout-shape       logout answers null
  auth-update-shape  its auth/status_update says {"status": ...}, without its state
  auth-update-none   sends no auth/status_update when logout or authenticate changes the state
  auth-update-twice  sends each auth/status_update twice

QUIRK (comma-separated), as real agents lawfully do (test_peers.py):
  auth-refused       refuses the credentials of its authentication method (-32000)
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Answer = Callable[[Any, Any], None]  # (request id, result)
    Refuse = Callable[[Any, int, str], None]  # (request id, code, message)
    Send = Callable[[dict[str, Any]], None]  # a frame to the client

BREAK = {b.strip() for b in os.environ.get("BREAK", "").split(",") if b.strip()}
QUIRK = {b.strip() for b in os.environ.get("QUIRK", "").split(",") if b.strip()}
METHODS = ("auth/status", "authenticate", "logout")
authenticated: list[str] = []  # the methods authenticate took (auth-forgets: then -32000)
held = {"key": True}  # whether it holds its API key


def methods() -> list[dict[str, Any]]:
    """The advertised authMethods: the API key, unless a fault offers others."""
    key = {"id": "key", "name": "API key"}
    if "dup-auth" in BREAK:
        return [key, {**key, "name": "API key again"}]
    if "terminal-auth" in BREAK:
        return [{"id": "login", "name": "Log in", "type": "terminal", "args": ["--login"]}]
    return [key]


def forgets() -> bool:
    """auth-forgets: session/new is refused once authenticate was taken."""
    return "auth-forgets" in BREAK and bool(authenticated)


def status() -> dict[str, Any]:
    """The AuthStatusResponse for what it holds."""
    if not held["key"]:
        return {"state": "unauthenticated", "accounts": []}
    return {"state": "authenticated", "accounts": [{"label": "API key", "active": True}]}


def _hold(key: bool, send: Send) -> None:
    """Hold the key or not; an auth/status_update where that changes the state."""
    if held["key"] == key:
        return
    held["key"] = key
    if "auth-update-none" in BREAK:
        return
    now = status()
    params = {"status": now["state"]} if "auth-update-shape" in BREAK else now
    for _ in range(2 if "auth-update-twice" in BREAK else 1):
        send({"jsonrpc": "2.0", "method": "auth/status_update", "params": params})


def serve(
    rid: Any, method: str, params: dict[str, Any], answer: Answer, refuse: Refuse, send: Send
) -> None:
    if method == "auth/status":
        if "auth-status-32000" in BREAK:
            return refuse(rid, -32000, "authentication required")
        return answer(rid, {"status": "ok"} if "auth-status-shape" in BREAK else status())
    if method == "authenticate":
        chosen = params.get("methodId")
        if chosen not in [m["id"] for m in methods()]:
            return refuse(rid, -32602, f"unknown methodId {chosen}")
        if "auth-refused" in QUIRK:
            return refuse(rid, -32000, "the API key was refused")
        authenticated.append(str(chosen))
        _hold(True, send)
        return answer(rid, "ok" if "auth-shape" in BREAK else {})
    # logout
    if "logout-unserved" in BREAK:
        return refuse(rid, -32601, "method not found: logout")
    authenticated.clear()
    _hold(False, send)
    return answer(rid, None if "logout-shape" in BREAK else {})
