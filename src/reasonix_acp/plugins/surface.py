"""Extension surfaces: cards, statuses, forms and notifications that plugins publish.

Every client sees a surface as text: an `agent_message_chunk` of "\\n\\n", then "[warning] "
when its severity is warn or error, then the fallback text of its kind:
  status        [plugin] label[: detail]
  card          title, then markdown (or text), then one "key: value" line per field
  form          title, then message
  notification  title, then body
Clients that opted in (`clientCapabilities._meta["reasonix.io"].extensionSurface.supported`
true) also get the structured `session/update` variant `_reasonix.io/extension_surface` with
the surface under `_meta["reasonix.io"].extensionSurface`, sent just before the text.

A surface a plugin wrote is checked against the vendor schema's `ReasonixExtensionSurface`
(lenient: a bad optional field falls back to absent); its `pluginId` is always the plugin's
own, `surfaceId` defaults to "<kind>-<n>", and one that is not a surface at all is dropped with
a warning on stderr. Surfaces are transcript events (`extension_surface`), so a reload shows
them again.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("reasonix_acp.plugins.surface")

UPDATE = "_reasonix.io/extension_surface"
WARNING_SEVERITIES = ("warn", "warning", "error")


def normalise(plugin_id: str, raw: list[Any], session_id: str | None) -> list[dict[str, Any]]:
    """The valid surfaces of a plugin's output, in wire form."""
    # lazy: start-up
    from pydantic import ValidationError

    # lazy: start-up
    from reasonix_acp.generated.reasonix_models import ReasonixExtensionSurface

    out = []
    for n, item in enumerate(raw, 1):
        if not isinstance(item, dict):
            log.warning("plugin %s: surface %d is not an object; dropped", plugin_id, n)
            continue
        body = {**item, "pluginId": plugin_id}
        body.setdefault("surfaceId", f"{item.get('kind', 'surface')}-{n}")
        if session_id is not None:
            body["sessionId"] = session_id
        try:
            surface = ReasonixExtensionSurface.model_validate(body)
        except ValidationError as exc:
            log.warning("plugin %s: surface %d dropped: %s", plugin_id, n, exc.errors()[0]["msg"])
            continue
        dumped = surface.model_dump(mode="json", by_alias=True, exclude_none=True)
        if dumped.get(dumped["kind"]) is None:
            log.warning("plugin %s: surface %d has no %s; dropped", plugin_id, n, dumped["kind"])
            continue
        out.append(dumped)
    return out


def fallback_text(surface: dict[str, Any]) -> str:
    kind = surface["kind"]
    body: dict[str, Any] = surface.get(kind) or {}
    lines: list[str]
    if kind == "status":
        detail = body.get("detail")
        lines = [
            f"[{surface['pluginId']}] {body.get('label', '')}" + (f": {detail}" if detail else "")
        ]
    elif kind == "card":
        lines = [body.get("title") or "", body.get("markdown") or body.get("text") or ""]
        lines += [f"{f['key']}: {f['value']}" for f in body.get("fields") or []]
    elif kind == "form":
        lines = [body.get("title") or "", body.get("message") or ""]
    else:
        lines = [body.get("title") or "", body.get("body") or ""]
    text = "\n".join(line for line in lines if line)
    severity = str(body.get("severity") or "").lower()
    prefix = "[warning] " if severity in WARNING_SEVERITIES else ""
    return f"\n\n{prefix}{text}"


def updates(surface: dict[str, Any]) -> list[dict[str, Any]]:
    """The structured update (dropped by the sender for clients that did not opt in), then the
    text every client gets."""
    return [
        {"sessionUpdate": UPDATE, "_meta": {"reasonix.io": {"extensionSurface": surface}}},
        {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": fallback_text(surface)},
        },
    ]
