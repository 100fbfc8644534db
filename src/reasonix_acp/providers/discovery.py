"""Which models an OpenAI-compatible endpoint serves: `GET <base>/models`, as OpenAI, Ollama,
vLLM, llama.cpp, LM Studio and OpenRouter answer it (`{"data": [{"id": ...}]}`; Ollama's
native `{"models": [{"name": ...}]}` is read too).

A short timeout: this runs when a session opens or `acp setup` checks an endpoint, never on the
`initialize` path. A failure is `ProviderError` naming the provider, the URL (credentials
stripped) and the cause; 401/403 is `ProviderAuthFailed`.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from reasonix_acp.config import Config, ProviderConfig
from reasonix_acp.config.mcp_entries import shown_url
from reasonix_acp.providers.base import Provider, ProviderAuthFailed, ProviderError

TIMEOUT = 4.0
log = logging.getLogger("reasonix_acp.providers.discovery")


def models_url(base_url: str) -> str:
    base = base_url.rstrip("/").removesuffix("/chat/completions")
    return base + "/models"


def parse_models(body: Any) -> list[str]:
    """Model ids from a /models answer, in the order served, without repeats."""
    entries: Any = []
    if isinstance(body, dict):
        entries = body.get("data") or body.get("models") or []
    elif isinstance(body, list):
        entries = body
    ids: dict[str, None] = {}
    for entry in entries if isinstance(entries, list) else []:
        name = entry.get("id") or entry.get("name") if isinstance(entry, dict) else entry
        if isinstance(name, str) and name.strip():
            ids.setdefault(name.strip(), None)
    return list(ids)


# Where OpenAI-compatible servers put a model's context size in their /models entries:
# OpenRouter, vLLM, LM Studio (and OpenRouter's `top_provider` for the provider it routes to).
WINDOW_FIELDS = ("context_length", "max_model_len", "max_context_length", "context_window")


def parse_windows(body: Any) -> dict[str, int]:
    """Context sizes by model id, from a /models answer's entries that give one."""
    entries = body.get("data") or body.get("models") or [] if isinstance(body, dict) else body
    sizes: dict[str, int] = {}
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("id") or entry.get("name"), str):
            continue
        top = entry.get("top_provider")
        places = [entry, top if isinstance(top, dict) else {}]
        found = [p.get(f) for p in places for f in WINDOW_FIELDS]
        size = next((v for v in found if isinstance(v, int) and not isinstance(v, bool)), None)
        if size is not None and size > 0:
            sizes[str(entry.get("id") or entry.get("name")).strip()] = size
    return sizes


def parse_vision(body: Any) -> set[str]:
    """The model ids a /models answer says take images: OpenRouter's
    `architecture.input_modalities`, `input_modalities` or `modalities` at the entry's top, or
    `capabilities` naming "vision"."""
    entries = body.get("data") or body.get("models") or [] if isinstance(body, dict) else body
    seeing: set[str] = set()
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("id") or entry.get("name"), str):
            continue
        arch = entry.get("architecture")
        said = [
            (arch if isinstance(arch, dict) else {}).get("input_modalities"),
            entry.get("input_modalities"),
            entry.get("modalities"),
        ]
        listed = [x for x in said if isinstance(x, list)]
        caps = entry.get("capabilities")
        if any("image" in x for x in listed) or (isinstance(caps, list) and "vision" in caps):
            seeing.add(str(entry.get("id") or entry.get("name")).strip())
    return seeing


def local_kind(body: Any) -> str | None:
    """ "llama.cpp" or "ollama" when a /models answer comes from one of them (their entries'
    `owned_by`), whose context size is asked for apart (`probe_window`)."""
    entries = body.get("data") if isinstance(body, dict) else None
    owners = {e.get("owned_by") for e in entries or [] if isinstance(e, dict)}
    if "llamacpp" in owners:
        return "llama.cpp"
    if owners & {"library", "ollama"}:
        return "ollama"
    return None


async def probe_window(client: Any, base_url: str, kind: str, model: str) -> int | None:
    """The context size llama.cpp (`GET /props`: `n_ctx`) or Ollama (`POST /api/show`: the
    model's `<architecture>.context_length`, or `num_ctx` when its parameters set one) gives
    for `model`; None when it says nothing readable. Never raises."""
    root = base_url.rstrip("/").removesuffix("/chat/completions").removesuffix("/v1")
    try:
        if kind == "llama.cpp":
            answer = (await client.get(root + "/props", timeout=TIMEOUT)).json()
            settings = answer.get("default_generation_settings") or {}
            size = answer.get("n_ctx") or settings.get("n_ctx")
        else:
            shown = await client.post(root + "/api/show", json={"model": model}, timeout=TIMEOUT)
            answer = shown.json()
            params = str(answer.get("parameters") or "")
            numbers = [ln.split()[-1] for ln in params.splitlines() if ln.startswith("num_ctx")]
            info = answer.get("model_info") or {}
            lengths = [v for k, v in info.items() if k.endswith(".context_length")]
            size = int(numbers[0]) if numbers else (lengths[0] if lengths else None)
    except Exception as exc:  # an answer of another shape, or none: the size stays unknown
        log.debug("asking %s for its context size failed: %s", kind, exc)
        return None
    return size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else None


async def list_models(provider: ProviderConfig, timeout: float = TIMEOUT) -> list[str]:
    # lazy: start-up (a session on the offline model never needs it)
    import httpx

    url = models_url(provider.base_url)
    where = f"{provider.name} at {shown_url(url)}"
    headers = {"Accept": "application/json"}
    if provider.api_key:
        headers["Authorization"] = f"Bearer {provider.api_key}"
    try:
        async with httpx.AsyncClient(timeout=timeout) as client:
            response = await client.get(url, headers=headers)
    except httpx.HTTPError as exc:
        raise ProviderError(f"{where}: {type(exc).__name__}: {exc}") from None
    if response.status_code in (401, 403):
        raise ProviderAuthFailed(
            f"{where}: the key was refused (HTTP {response.status_code}); run `acp setup`"
        )
    if response.status_code != 200:
        raise ProviderError(f"{where}: HTTP {response.status_code}")
    try:
        return parse_models(json.loads(response.text))
    except ValueError:
        raise ProviderError(f"{where}: the answer is not JSON") from None


def unlisted(config: Config) -> list[ProviderConfig]:
    """The endpoints to ask for their models, each once per process: OpenAI-compatible ones
    that name no model, or only the default one, and DeepSeek's while it offers the built-in
    list. Each is marked asked."""
    default = (config.default_model or "").partition("/")
    pending = [
        p
        for p in config.providers.values()
        if not p.listed
        and (
            p.builtin
            or (
                p.kind == "openai"
                and (not p.models or (p.name == default[0] and p.models == [default[2]]))
            )
        )
    ]
    for p in pending:
        p.listed = True
    return pending


def take(provider: ProviderConfig, ids: list[str]) -> bool:
    """Add the served `ids` the provider does not name yet; a built-in list is replaced by
    what the endpoint serves. → whether the models changed."""
    if provider.builtin and ids:
        provider.builtin = False
        changed = provider.models != ids
        provider.models = list(ids)
        return changed
    new = [i for i in ids if i not in provider.models]
    provider.models += new
    return bool(new)


async def list_into(pending: list[ProviderConfig]) -> tuple[bool, list[str]]:
    """Ask each endpoint for its models and add them. → (whether any model was new, why the
    endpoints that failed did)."""
    found = await asyncio.gather(*(list_models(p) for p in pending), return_exceptions=True)
    added, problems = False, []
    for p, ids in zip(pending, found, strict=True):
        if isinstance(ids, BaseException):
            problems.append(str(ids))
            log.warning("%s", ids)
            continue
        added = take(p, ids) or added
    return added, problems


async def warm_up(provider: Provider, config: Config, model: str) -> tuple[str | None, bool]:
    """A session's provider warms up (connects); its request lists the models of the session's
    own endpoint, and the other endpoints not asked yet in this process are asked meanwhile.
    → (why the endpoint could not be reached, or None; whether any model was added)."""
    own = config.provider_for(model)
    pending = unlisted(config)
    others = [p for p in pending if p is not own]
    problem, (added, _) = await asyncio.gather(provider.warm(), list_into(others))
    if own is not None and any(p is own for p in pending) and provider.served is not None:
        added = take(own, provider.served) or added
    return problem, added


async def confirm(config: Config, model_id: str) -> str | None:
    """A start-up model its provider does not list: the endpoint is asked for its models (once
    per process; what it serves is taken). → what to say when `model_id` is not among the
    configured models then, or None."""
    provider = config.provider_for(model_id)
    why = ""
    if provider is not None and provider.kind != "offline" and not provider.listed:
        provider.listed = True
        try:
            take(provider, await list_models(provider))
        except ProviderError as exc:
            why = f" (its endpoint could not be asked: {exc})"
    return None if model_id in config.model_ids() else config.unknown_model(model_id) + why


async def complete(config: Config) -> str | None:
    """With no model named: ask the endpoints for their models and take the only one as the
    default. → why no session can start yet, or None. With a named model the session opens at
    once and the endpoints are asked when it warms up, after its response (`warm_up`)."""
    if config.default_model is not None:
        return None
    _, problems = await list_into(unlisted(config))
    ids = config.model_ids()
    if len(ids) == 1:
        config.default_model = ids[0]
        return None
    if ids:
        shown = ", ".join(ids[:12]) + (", ..." if len(ids) > 12 else "")
        return (
            f"the endpoint serves several models ({shown}): name one with OPENAI_MODEL, "
            "default_model in config.toml, `acp setup`, or --model provider/model"
        )
    return "; ".join(problems) or None
