"""Render generated/methods.py from the x-method / x-side annotations of the prepared document.

A method is a request when a `*Response` def carries its name, a notification otherwise. A method
may be used by both sides in different shapes (MCP over ACP's `mcp/message`: the agent's request
to the client, the client's notification to the agent): METHODS holds its request, AGENT_SIDE its
agent side's notification. Class names
starting with `Reasonix` live in generated/reasonix_models/, the rest in generated/models/. A vendor
def with `x-reasonix-extends: <UpstreamDef>` replaces that upstream def in the method's entry
(the prompt's `action`, set_config_option's `deprecatedNotice`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


class MethodTableError(RuntimeError):
    """The annotations do not describe a consistent set of methods."""


@dataclass
class Entry:
    method: str
    side: str
    params: str | None = None
    result: str | None = None


def collect(doc: dict[str, Any]) -> list[Entry]:
    defs: dict[str, Any] = doc["$defs"]
    replaced = {
        schema["x-reasonix-extends"]: name
        for name, schema in defs.items()
        if "x-reasonix-extends" in schema
    }
    entries: dict[tuple[str, str], Entry] = {}
    for name in sorted(defs):
        schema = defs[name]
        method = schema.get("x-method")
        if method is None or name in replaced:
            continue
        side = schema.get("x-side")
        if side not in ("agent", "client", "protocol"):
            raise MethodTableError(f"$defs/{name}: x-side {side!r} for {method}")
        entry = entries.setdefault((method, side), Entry(method=method, side=side))
        slot = "result" if name.endswith("Response") else "params"
        if getattr(entry, slot) is not None and "x-reasonix-extends" not in schema:
            raise MethodTableError(f"{method}: two {slot} defs ({getattr(entry, slot)}, {name})")
        setattr(entry, slot, name)
    for entry in entries.values():
        if entry.params is None:
            raise MethodTableError(f"{entry.method}: no params def")
    for method in {m for m, _ in entries}:
        both = [e for (m, _), e in entries.items() if m == method]
        requests = [e for e in both if e.result]
        if len(both) > 1 and (len(both) > 2 or len(requests) != 1 or both[0].side == both[1].side):
            raise MethodTableError(f"{method}: x-side differs between its defs")
        if len(both) > 1 and requests[0].side == "agent":
            raise MethodTableError(f"{method}: the agent side's shape must be the notification")
    return sorted(entries.values(), key=lambda e: (e.method, e.side == "agent"))


def constant_name(method: str) -> str:
    if method == "$/cancel_request":
        return "CANCEL_REQUEST"
    text = method.replace("_reasonix.io/", "reasonix/")
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").upper()


def protocol_version(upstream_path: str) -> int:
    match = re.search(r"(?:^|/)v(\d+)/", upstream_path)
    if match is None:
        raise MethodTableError(f"cannot read the protocol version from {upstream_path}")
    return int(match.group(1))


def render(doc: dict[str, Any], header: str, upstream_path: str) -> str:
    entries = collect(doc)
    lines = [
        header,
        "from typing import Literal, NamedTuple\n\n",
        f"PROTOCOL_VERSION = {protocol_version(upstream_path)}\n\n",
    ]
    methods = [e.method for e in entries]
    two_sided = [e for e in entries if e.side == "agent" and methods.count(e.method) > 1]
    entries = [e for e in entries if e not in two_sided]
    for e in entries:
        lines.append(f"{constant_name(e.method)} = {e.method!r}\n")
    lines.append(
        "\n\nclass MethodSpec(NamedTuple):\n"
        "    method: str\n"
        "    side: Literal['agent', 'client', 'protocol']\n"
        "    kind: Literal['request', 'notification']\n"
        "    params: str\n"
        "    result: str | None\n"
        "\n\n"
        "METHODS: dict[str, MethodSpec] = {\n"
    )
    lines += [_spec(e) for e in entries]
    lines.append("}\n\nAGENT_SIDE: dict[str, MethodSpec] = {\n")
    lines += [_spec(e) for e in two_sided]
    lines.append("}\n")
    return "".join(lines)


def _spec(e: Entry) -> str:
    assert e.params is not None
    kind = "request" if e.result else "notification"
    return (
        f"    {constant_name(e.method)}: MethodSpec(\n"
        f"        {constant_name(e.method)}, {e.side!r}, {kind!r}, {e.params!r}, {e.result!r}\n"
        "    ),\n"
    )
