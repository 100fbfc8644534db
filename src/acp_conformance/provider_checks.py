"""Checks on a `providers/list` answer (the unstable schema's ListProvidersResponse), on the
response of an `await` step:

- `provider_current`: the listed provider `provider` is enabled with the routing `apiType` and
  `baseUrl` (a trailing "/" aside), as a `providers/set` just gave it: `current` is the
  provider's effective routing;
- `provider_disabled`: the provider `provider` is listed disabled (`current` null or omitted)
  or not listed at all, as after a `providers/disable`.

`path` is where the list of ProviderInfo is (`result.providers`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp_conformance.checks import at, brief


def _listed(frame: dict[str, Any], args: dict[str, Any]) -> tuple[list[Any], str]:
    """(the providers listed with id `provider`, why there is no list to look in)."""
    try:
        found = at(frame, args["path"])
    except KeyError:
        return [], f"no {args['path']}: {brief(frame.get('error', frame.get('result')))}"
    if not isinstance(found, list):
        return [], f"{args['path']} is not a list"
    return [p for p in found if isinstance(p, dict) and p.get("providerId") == args["provider"]], ""


def _current(frame: dict[str, Any], args: dict[str, Any]) -> str:
    mine, missing = _listed(frame, args)
    if missing:
        return missing
    if not mine:
        return f"provider {args['provider']!r} is not listed"
    current = mine[0].get("current")
    if not isinstance(current, dict):
        return f"provider {args['provider']!r} is listed with current {current!r} (disabled)"
    url = current.get("baseUrl")
    same_url = isinstance(url, str) and url.rstrip("/") == str(args["baseUrl"]).rstrip("/")
    if current.get("apiType") != args["apiType"] or not same_url:
        wanted = {"apiType": args["apiType"], "baseUrl": args["baseUrl"]}
        return f"provider {args['provider']!r} is listed with current {current}, not {wanted}"
    return ""


def _disabled(frame: dict[str, Any], args: dict[str, Any]) -> str:
    mine, missing = _listed(frame, args)
    if missing:
        return missing
    enabled = [p.get("current") for p in mine if p.get("current") is not None]
    if enabled:
        return f"provider {args['provider']!r} is still listed with current {enabled[0]}"
    return ""


ON_RESPONSE: dict[str, Callable[[dict[str, Any], dict[str, Any]], str]] = {
    "provider_current": _current,
    "provider_disabled": _disabled,
}
