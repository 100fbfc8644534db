"""`providers/list`, `providers/set`, `providers/disable` (unstable, advertised as
`agentCapabilities.providers: {}`): the `[providers.<name>]` tables of config.toml, as the
schema's ProviderInfo.

Rules:
- Each provider the agent holds (config.toml and the environment; not the built-in offline
  model) is listed, then each disabled one (`disabled = true` in its table) with `current: null`.
  Every provider speaks the OpenAI chat-completions protocol (DeepSeek's API is one), so
  `supported` is `["openai"]` and `current.apiType` `openai`. `required`: the provider of the
  default model. `current.baseUrl` never holds credentials (userinfo and secret-named query
  values are left out: mcp_entries.shown_url); no key or header value is ever listed.
- `providers/set` replaces the provider's routing in config.toml: `base_url`, and its key from
  an `authorization: Bearer KEY` header (the header's name in any case), stored as `acp setup`
  stores keys (`api_key`, the file 0600). Without that header the provider has no stored key
  (`api_key` and `api_key_env` removed; DEEPSEEK_API_KEY / OPENAI_API_KEY still apply to their
  providers). Any other header is refused: a provider has no extra headers here. An unknown id
  makes a new OpenAI-compatible provider; a disabled one is enabled again. The base URL set
  wins over OPENAI_BASE_URL (`client_routing = true` in the table: config/loading.py).
- `providers/disable` writes `disabled = true` in the provider's table (the rest kept); the
  required provider or an id the agent does not know is refused.
- Refusals are -32602 naming the field or header, never a value that may be secret; nothing
  is written then. What is written applies to sessions opened from then on (as `authenticate`
  does; open sessions keep theirs until a reload).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from reasonix_acp.protocol.errors import InvalidParams

if TYPE_CHECKING:
    from reasonix_acp.config import Config

API_TYPE = "openai"  # the LlmProtocol every provider here speaks
PROVIDER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
BEARER = re.compile(r"bearer[ \t]+(\S+)[ \t]*", re.IGNORECASE)


def _shown(url: str) -> str:
    # lazy: start-up (the config package loads with the first use)
    from reasonix_acp.config.mcp_entries import shown_url

    return shown_url(url)


def _base_url(provider: Any) -> str:
    # lazy: start-up
    from reasonix_acp.config import OPENAI_URL

    return str(provider.base_url or (OPENAI_URL if provider.kind == "openai" else ""))


def listing(config: Config) -> dict[str, Any]:
    """The ListProvidersResponse for `config`."""
    default = config.default_model
    required = config.provider_for(default) if default else None
    listed: list[dict[str, Any]] = []
    for p in config.providers.values():
        if p.kind == "offline":
            continue
        current = {"apiType": API_TYPE, "baseUrl": _shown(_base_url(p))}
        info = {"providerId": p.name, "supported": [API_TYPE], "required": p is required}
        listed.append({**info, "current": current})
    for name in config.disabled:
        listed.append(
            {"providerId": name, "supported": [API_TYPE], "required": False, "current": None}
        )
    return {"providers": listed}


def _provider_id(method: str, given: str) -> str:
    name = given.strip()
    if not PROVIDER_ID.fullmatch(name) or name == "offline":
        raise InvalidParams(
            f"{method}: providerId must be 1 to 64 letters, digits, - or _ (not offline)"
        )
    return name


def checked_set(config: Config, params: Any) -> tuple[str, str, str, str]:
    """(name, kind, base URL, key) from a SetProviderRequest; InvalidParams naming what is
    wrong."""
    method = "providers/set"
    name = _provider_id(method, params.provider_id)
    if params.api_type != API_TYPE:
        raise InvalidParams(
            f"{method}: apiType {str(params.api_type)[:40]!r} is not supported; "
            f"providers here speak {API_TYPE}"
        )
    base_url = params.base_url.strip()
    try:
        parts = urlsplit(base_url)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        ok = False
    if not ok:
        raise InvalidParams(f"{method}: baseUrl must be an absolute http:// or https:// URL")
    key = ""
    for header, value in (params.headers or {}).items():
        if header.strip().lower() != "authorization":
            raise InvalidParams(
                f"{method}: header {header[:64]!r} is not supported: a provider's only header "
                "here is authorization (Bearer KEY)"
            )
        found = BEARER.fullmatch(value.strip())
        if found is None:
            raise InvalidParams(f"{method}: header {header!r} must be `Bearer KEY`")
        key = found.group(1)
    held = config.providers.get(name)
    kind = held.kind if held is not None else config.disabled.get(name, "openai")
    return name, kind, base_url, key


def checked_disable(config: Config, params: Any) -> str:
    """The name of the provider to disable; InvalidParams for the required one or an unknown
    one."""
    method = "providers/disable"
    name = params.provider_id.strip()
    default = config.default_model
    required = config.provider_for(default) if default else None
    if required is not None and required.name == name:
        raise InvalidParams(
            f"{method}: {name} is required (it serves the default model {default}) and cannot "
            "be disabled"
        )
    held = name in config.providers and config.providers[name].kind != "offline"
    if not held and name not in config.disabled:
        raise InvalidParams(f"{method}: unknown providerId {name[:64]!r}")
    return str(name)
