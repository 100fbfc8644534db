"""The broken agent's LLM providers (broken_agent.py), advertised as
`agentCapabilities.providers`: `providers/list`, `providers/set` and `providers/disable` of the
unstable schema, over two providers kept in memory, `main` (required: it serves the agent's
model) and `spare`. providers/set replaces a provider's routing (an id it does not have adds a
provider), providers/disable lists the provider with `current: null`; disabling the required
one or an id it does not have is refused (-32602). Correct by default; the faults (BREAK) it
knows:

  providers-unserved      answers every providers/* method -32601
  providers-shape         listed providers without `required`; providers/set answers "ok",
                          providers/disable null
  providers-twice         lists `main` twice
  providers-refused       refuses providers/set of a provider it lists, and every
                          providers/disable (-32603)
  providers-set-ignored   providers/set answers {} and changes nothing
  providers-disable-kept  providers/disable answers {} and leaves the provider enabled
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Answer = Callable[[Any, Any], None]  # (request id, result)
    Refuse = Callable[[Any, int, str], None]  # (request id, code, message)

BREAK = {b.strip() for b in os.environ.get("BREAK", "").split(",") if b.strip()}
ROUTE = {"apiType": "openai", "baseUrl": os.environ.get("SCRIPTED_MODEL") or "http://127.0.0.1/v1"}
held: dict[str, dict[str, Any] | None] = {"main": dict(ROUTE), "spare": dict(ROUTE)}
REQUIRED = "main"


def listing() -> dict[str, Any]:
    listed = []
    for name, current in held.items():
        info: dict[str, Any] = {"providerId": name, "supported": ["openai"]}
        info |= {"required": name == REQUIRED, "current": current}
        if "providers-shape" in BREAK:
            del info["required"]
        listed.append(info)
    if "providers-twice" in BREAK:
        listed.append(listed[0])
    return {"providers": listed}


def serve(rid: Any, method: str, params: dict[str, Any], answer: Answer, refuse: Refuse) -> None:
    """One providers/* request."""
    shape = "providers-shape" in BREAK
    name = params.get("providerId")
    if "providers-unserved" in BREAK or method not in (
        "providers/list",
        "providers/set",
        "providers/disable",
    ):
        return refuse(rid, -32601, f"method not found: {method}")
    if method == "providers/list":
        return answer(rid, listing())
    if not isinstance(name, str) or not name:
        return refuse(rid, -32602, "providerId must be a non-empty string")
    if method == "providers/set":
        route = {"apiType": params.get("apiType"), "baseUrl": params.get("baseUrl")}
        if not all(isinstance(v, str) and v for v in route.values()):
            return refuse(rid, -32602, "apiType and baseUrl must be non-empty strings")
        if "providers-refused" in BREAK and name in held:
            return refuse(rid, -32603, f"cannot configure {name} now")
        if "providers-set-ignored" not in BREAK:
            held[name] = route
        return answer(rid, "ok" if shape else {})
    if "providers-refused" in BREAK:
        return refuse(rid, -32603, f"cannot disable {name} now")
    if name == REQUIRED or name not in held:
        why = "is required" if name == REQUIRED else "is not a provider here"
        return refuse(rid, -32602, f"providerId {name} {why}")
    if "providers-disable-kept" not in BREAK:
        held[name] = None
    return answer(rid, None if shape else {})
