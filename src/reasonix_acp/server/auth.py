"""`auth/status` and `auth/status_update` (unstable, advertised as `auth.status`): what the
agent holds for its one auth method, `reasonix-setup` (`acp setup`, which configures the model
providers in config.toml).

Rules:
- Each configured provider is an account, labelled by its name ("openai API key"), `active`
  for the provider of the default model; `_meta["reasonix.io"]` says whether its key is `set`,
  `missing` or `not_needed` (the offline model). A key, a base URL or a file path never appears.
- `state`: `unauthenticated` when no session could start (config.toml unreadable, no provider,
  a DeepSeek provider without its key); `authenticated` when the default model's provider has a
  key; `not_required` when it needs none (the offline model, an OpenAI-compatible endpoint
  configured without one, where a session starts without signing in).
- What is reported is the configuration the agent holds, read at start, by `authenticate` and
  by a reload; config.toml is not watched, so `acp setup` run elsewhere changes nothing here
  until one of those reads it.
- `auth/status_update` is sent when what the agent holds changes (`authenticate`, `logout`, a
  reload) and differs from what was last reported on the connection (an answer or an update).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reasonix_acp.generated import methods as m

if TYPE_CHECKING:
    from reasonix_acp.config import Config, ProviderConfig


def _key(provider: ProviderConfig) -> str:
    if provider.kind == "offline":
        return "not_needed"
    return "set" if provider.api_key else "missing"


def _label(provider: ProviderConfig) -> str:
    return "offline model (no key)" if provider.kind == "offline" else f"{provider.name} API key"


def _state(config: Config, active: ProviderConfig | None) -> str:
    if config.incomplete() is not None:
        return "unauthenticated"
    if active is not None:
        return "authenticated" if _key(active) == "set" else "not_required"
    # providers whose models an endpoint will list when a session opens: none is default yet
    held = any(_key(p) == "set" for p in config.providers.values())
    return "authenticated" if held else "not_required"


def status(config: Config) -> dict[str, Any]:
    """The AuthStatusResponse for `config`."""
    model = config.default_model
    active = config.provider_for(model) if model else None
    accounts = [
        {
            "label": _label(p),
            "active": p is active,
            "_meta": {"reasonix.io": {"provider": p.name, "key": _key(p)}},
        }
        for p in config.providers.values()
    ]
    return {"state": _state(config, active), "accounts": accounts}


class Reporter:
    """The last status reported on the connection, and the update owed when it changes."""

    def __init__(self, config: Callable[[], Config], notify: Callable[[str, Any], None]):
        self._config = config
        self._notify = notify
        self._reported: dict[str, Any] | None = None

    def answer(self) -> dict[str, Any]:
        """auth/status: what is held now, remembered as reported."""
        self._reported = status(self._config())
        return self._reported

    def before(self) -> None:
        """At initialize and before a change: what is held counts as reported if nothing was
        yet (a client learns it by asking; an update is owed only for a change)."""
        if self._reported is None:
            self._reported = status(self._config())

    def changed(self) -> None:
        """After a change: an update, where what is held differs from what was reported."""
        now = status(self._config())
        if now != self._reported:
            self._reported = now
            self._notify(m.AUTH_STATUS_UPDATE, now)
