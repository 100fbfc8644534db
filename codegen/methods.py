"""Render generated/methods.py from the x-method / x-side annotations of the prepared document.

A method is a request when a `*Response` def carries its name, a notification otherwise. Class names
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
    entries: dict[str, Entry] = {}
    for name in sorted(defs):
        schema = defs[name]
        method = schema.get("x-method")
        if method is None or name in replaced:
            continue
        side = schema.get("x-side")
        if side not in ("agent", "client", "protocol"):
            raise MethodTableError(f"$defs/{name}: x-side {side!r} for {method}")
        entry = entries.setdefault(method, Entry(method=method, side=side))
        if entry.side != side:
            raise MethodTableError(f"{method}: x-side differs between its defs")
        slot = "result" if name.endswith("Response") else "params"
        if getattr(entry, slot) is not None and "x-reasonix-extends" not in schema:
            raise MethodTableError(f"{method}: two {slot} defs ({getattr(entry, slot)}, {name})")
        setattr(entry, slot, name)
    for entry in entries.values():
        if entry.params is None:
            raise MethodTableError(f"{entry.method}: no params def")
    return sorted(entries.values(), key=lambda e: e.method)


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
    for e in entries:
        assert e.params is not None
        kind = "request" if e.result else "notification"
        lines.append(
            f"    {constant_name(e.method)}: MethodSpec(\n"
            f"        {constant_name(e.method)}, {e.side!r}, {kind!r}, {e.params!r}, {e.result!r}\n"
            "    ),\n"
        )
    lines.append("}\n")
    return "".join(lines)
