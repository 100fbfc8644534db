"""What an endpoint's error answer means, and what the user is told to do about it.

- 413, or 400 saying the request is too long: `ContextOverflow` (the turn compacts, tries once
  more).
- 401, 403: `ProviderAuthFailed` (the client is asked to authenticate again).
- 400 or 404 saying the model does not exist: `ProviderError` naming the models the endpoint
  serves, when it listed them.
- Any other 400 or 422: `RequestRefused`. The request is built from the session's history, so
  the advice is the way out that rewrites it: `/compact` (which, when the history itself is
  refused, summarises it as plain text: turn/compaction.py), or a new session.
- Anything else: `ProviderError` with the status and the server's message.
- No answer at all (`unreachable`): `ProviderError` naming what to check (the server, the
  provider's base_url) and `acp doctor`.
"""

from __future__ import annotations

import json

from reasonix_acp.providers.base import (
    ContextOverflow,
    ProviderAuthFailed,
    ProviderError,
    RequestRefused,
)

# What servers say when a request is longer than the model's context (OpenAI, DeepSeek, vLLM,
# llama.cpp, Ollama, LM Studio, OpenRouter, Anthropic-compatible gateways), lower-cased.
OVERFLOW_WORDS = (
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "context window",
    "context size",
    "prompt is too long",
    "too many tokens",
    "exceeds the available context",
    "input is too long",
    "reduce the length",
)
# What servers say of a model id they do not serve (DeepSeek: "Model Not Exist", and for a
# retired id "The supported API model names are ..., but you passed ...").
NO_MODEL_WORDS = ("model not exist", "model_not_found", "unknown model", "supported api model")
REFUSED_HELP = (
    "The endpoint refused the request this session's history makes: run /compact to rewrite "
    "the history as a summary (the session goes on from it), or start a new session"
)
KEY_HINT = {
    "deepseek": "config.toml or DEEPSEEK_API_KEY",
    "openai": "config.toml or OPENAI_API_KEY",
}


def unreachable(name: str, kind: str, where: str, cause: str) -> ProviderError:
    """A request that got no answer at all (a refused connection, a name that does not
    resolve, a timeout), said with what to check: `where` is the URL, credentials stripped."""
    env = " (or OPENAI_BASE_URL)" if kind == "openai" else ""
    return ProviderError(
        f"{name} at {where}: {cause}. Check that the server is running and reachable from "
        f"here, and the base_url of [providers.{name}] in config.toml{env}; `acp doctor` "
        "checks every endpoint"
    )


def overflowed(status: int, text: str) -> bool:
    """Whether an error answer says the request did not fit the model's context."""
    if status == 413:
        return True
    return status == 400 and any(word in text.lower() for word in OVERFLOW_WORDS)


def refusal(
    name: str, kind: str, model: str, status: int, text: str, served: list[str] | None
) -> ProviderError:
    """The error for an endpoint's answer `status` with body `text` (not retried)."""
    message = f"{name}: " + status_message(status, text)
    if overflowed(status, text):
        return ContextOverflow(message)
    if status in (401, 403):
        return ProviderAuthFailed(
            f"{message}. Set a valid key: run `acp setup`, or set the provider's key in "
            f"{KEY_HINT.get(kind, 'config.toml')}"
        )
    lower = text.lower()
    no_model = any(w in lower for w in NO_MODEL_WORDS) or (
        "model" in lower and "does not exist" in lower
    )
    if status in (400, 404) and no_model:
        listed = ", ".join(f"{name}/{m}" for m in served or [])
        where = f"it serves {listed}" if listed else "`acp doctor` lists what it serves"
        return ProviderError(
            f"{message}. The endpoint does not serve the model {model}: {where}. Choose one "
            "with the session's model option, or set default_model in config.toml"
        )
    if status in (400, 422):
        return RequestRefused(f"{message}. {REFUSED_HELP}")
    return ProviderError(message)


def status_message(status: int, text: str) -> str:
    try:
        detail = json.loads(text).get("error", {})
        message = detail.get("message") if isinstance(detail, dict) else str(detail)
    except (ValueError, AttributeError):
        message = text.strip()
    if status in (401, 403):
        return f"authentication failed (HTTP {status}): {message or 'the API key was refused'}"
    return f"HTTP {status}: {message or 'no detail'}"
