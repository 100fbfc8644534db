"""The settings the agent runs on: providers and their models, limits, prices, the goal's
limits. `loading.py` fills them from config.toml and the environment."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonix_acp.config.context import ContextSettings, window_size
from reasonix_acp.config.deepseek import (
    is_deepseek,
    retired_notice,
    successor,
    takes_images,
)
from reasonix_acp.config.keys import Unknown
from reasonix_acp.config.sandbox import SandboxSettings
from reasonix_acp.config.web import WebSettings

if TYPE_CHECKING:
    from reasonix_acp.config.pricing import ModelPrice, Pricer, PricingTable

OPENAI_URL = "https://api.openai.com/v1"
OPENAI_ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL")
OFFLINE_MODEL = "offline/default"

# Effort levels by provider dialect, and the level a session starts at ("auto": the provider's
# own default). DeepSeek's are its thinking: `off` disables it, the others are its efforts.
EFFORT_LEVELS: dict[str, list[str]] = {
    "deepseek": ["off", "low", "high", "max"],
    "offline": ["auto", "low", "high"],
}
DEFAULT_EFFORT = {"deepseek": "high"}

NO_PROVIDER = (
    "no model provider is configured: run `acp setup`, or set DEEPSEEK_API_KEY, or set "
    "OPENAI_BASE_URL (and OPENAI_API_KEY, OPENAI_MODEL as needed), or start the agent with "
    "--model offline"
)


@dataclass
class ProviderConfig:
    """One model provider: where it is, its key, its models and what they cost."""

    name: str
    kind: str  # "deepseek" | "openai" | "offline"
    base_url: str = ""
    api_key: str = ""
    models: list[str] = field(default_factory=list)
    api_key_env: str = ""  # the variable its table names for the key (set or not)
    # Its own prices per million tokens, when configured: {"input", "output", "cache_hit"}.
    prices: dict[str, float] = field(default_factory=dict)
    # The currency of its own prices (Config.currency_for also asks [pricing]).
    currency: str = "USD"
    price: ModelPrice | None = None  # `prices`, parsed; wins over [pricing] for its models
    listed: bool = False  # its endpoint was asked for its models (providers/discovery.py)
    context_window: int | None = None  # `context_window` in its table: every model's size
    # Context sizes its endpoint reported, by bare model id (providers/discovery.py)
    reported: dict[str, int] = field(default_factory=dict)
    vision: bool | list[str] = False  # `vision`: all its models take images, or these
    sees: set[str] = field(default_factory=set)  # models its endpoint says take images

    # The models it offers are the built-in list (DeepSeek's) until its endpoint lists its own.
    builtin: bool = False
    # Its base URL was chosen by a client (providers/set): the environment's does not replace it.
    client_routing: bool = False

    @property
    def dialect(self) -> str:
        """ "deepseek" for DeepSeek's API (its kind, or an endpoint on api.deepseek.com): its
        thinking, efforts and rules apply (config/deepseek.py); else the provider's kind."""
        return "deepseek" if is_deepseek(self.kind, self.base_url) else self.kind

    def key_missing(self) -> str:
        """What to say of a provider on DeepSeek's API that has no key, and how to give one."""
        where = f"[providers.{self.name}] of config.toml"
        variable = self.api_key_env or ("DEEPSEEK_API_KEY" if self.name == "deepseek" else "")
        if self.api_key_env:
            unset = f"{where} reads it from {variable}, which is not set for the agent"
        else:
            unset = f"neither {variable} nor {where} gives one" if variable else f"{where} has none"
        fix = (
            "run `acp setup --provider deepseek` in a terminal (it asks for the key)"
            if self.name == "deepseek"
            else f"set api_key or api_key_env in {where}"
        )
        if variable:
            fix += f", or set {variable} where the editor starts the agent"
        return (
            f"no key is set for the provider {self.name}, and DeepSeek's API refuses requests "
            f"without one ({unset}): {fix}"
        )

    def takes_images(self, model: str) -> bool:
        """Whether `model` (its bare id) takes images in prompts."""
        if self.kind == "offline":
            return True  # it describes what it was given
        listed = self.vision if isinstance(self.vision, list) else []
        if self.vision is True or model in listed or model in self.sees:
            return True
        return self.dialect == "deepseek" and self.vision is False and takes_images(model)

    def cost(self, prompt: int, completion: int, cache_hit: int) -> float | None:
        """What a call cost, or None when the provider has no prices."""
        if "input" not in self.prices or "output" not in self.prices:
            return None
        hit_price = self.prices.get("cache_hit", self.prices["input"])
        miss = max(prompt - cache_hit, 0)
        return (
            cache_hit * hit_price + miss * self.prices["input"] + completion * self.prices["output"]
        ) / 1e6

    @property
    def efforts(self) -> list[str]:
        return EFFORT_LEVELS.get(self.dialect, [])

    @property
    def default_effort(self) -> str:
        return DEFAULT_EFFORT.get(self.dialect, "auto")


@dataclass(frozen=True)
class GoalLimits:
    """`[goal]`: what pauses a goal (reasonix_io/goal.py)."""

    turns: int = 20
    tokens: int = 2_000_000
    seconds: int = 3600
    no_progress: int = 3


@dataclass(frozen=True)
class SubagentSettings:
    """`[subagents]`: how many children of the `task` tool run at once in a session (0: no
    `task` tool) and each child's step limit (turn/subagents.py)."""

    at_once: int = 4
    max_steps: int = 25


@dataclass
class Config:
    """What config.toml and the environment say: providers and the default model, limits,
    permissions, the sandbox, MCP servers, plugins and prices."""

    providers: dict[str, ProviderConfig] = field(default_factory=dict)
    # `[providers.<name>] disabled = true` (providers/disable): not a provider; name -> kind
    disabled: dict[str, str] = field(default_factory=dict)
    default_model: str | None = None
    config_file: Path | None = None
    unreadable: str | None = None  # why config.toml could not be read: file, line, column, cause
    max_steps: int = 25
    budget_seconds: float | None = None
    budget_tokens: int | None = None
    budget_cost: float | None = None
    output_cap: int = 48 * 1024
    frame_budget: int = 60 * 1024
    shell: str = "bash"
    deny_commands: list[str] = field(default_factory=list)
    deny_paths: list[str] = field(default_factory=list)
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    web: WebSettings = field(default_factory=WebSettings)
    goal: GoalLimits = field(default_factory=GoalLimits)
    subagents: SubagentSettings = field(default_factory=SubagentSettings)
    context: ContextSettings = field(default_factory=ContextSettings)
    mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    require_checks: bool = False
    plugin_roots: list[Path] = field(default_factory=list)  # plugins.py: where plugins live
    # `[pricing]` as read; None: the built-in defaults (`pricing`), made when first asked.
    pricing_table: PricingTable | None = None
    # Retired model ids met in config.toml → the current ones they run on (config/deepseek.py)
    renamed: dict[str, str] = field(default_factory=dict)
    retired_default: str | None = None  # the retired id the default model was named by
    unknown: list[Unknown] = field(default_factory=list)  # keys of config.toml nothing reads
    ignored: list[str] = field(default_factory=list)  # what of it was left out at start, and why
    _pricers: dict[str, Pricer] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def pricing(self) -> PricingTable:
        """The prices by model: `[pricing]`, else the built-in defaults."""
        return self.pricing_table if self.pricing_table is not None else _default_pricing()

    def currency_for(self, model_id: str) -> str:
        """The currency a model's costs are told in (usage_update): its provider's own prices',
        else the one currency [pricing] prices that provider's models in (DeepSeek's defaults:
        CNY), else the provider's (USD)."""
        provider = self.provider_for(model_id)
        if provider is None:
            return "USD"
        if provider.price is None:
            entries = [self.pricing.lookup(f"{provider.name}/{m}") for m in provider.models]
            currencies = {e.currency for e in entries if e is not None}
            if len(currencies) == 1:
                return currencies.pop()
        return provider.currency

    def price_for(self, model_id: str) -> ModelPrice | None:
        """The provider's own prices, else the [pricing] entry ("provider/model", bare id)."""
        provider = self.provider_for(model_id)
        if provider is not None and provider.price is not None:
            return provider.price
        return self.pricing.lookup(model_id)

    def pricer(self, model_id: str) -> Pricer:
        """The quoter of one model's calls; one per model, so a call asked twice is quoted
        once (the status and the cost budget see the same quote)."""
        if model_id not in self._pricers:
            # lazy: start-up (the pricing code loads with a session's first model call)
            from reasonix_acp.config.pricing import Pricer

            price = self.price_for(model_id)
            self._pricers[model_id] = Pricer(model_id, price, self.pricing.currency)
        return self._pricers[model_id]

    def refusal(self) -> str | None:
        """Why no session can start on this configuration (None: sessions can start)."""
        if self.unreadable:
            return (
                f"config.toml cannot be read: {self.unreadable}. Fix that line; "
                "`acp setup` edits the file in place once it reads"
            )
        if self.default_model is None:
            return NO_PROVIDER
        return self.missing_key(self.default_model)

    def missing_key(self, model_id: str) -> str | None:
        """Why a session on `model_id` cannot reach its model: a provider on DeepSeek's API
        (which refuses every request without a key) that has none. None: nothing missing."""
        provider = self.provider_for(model_id)
        if provider is None or provider.dialect != "deepseek" or provider.api_key:
            return None
        return provider.key_missing()

    def incomplete(self) -> str | None:
        """What is missing before a session could start (None: nothing, or only the model
        list an endpoint will give when a session opens)."""
        if self.unreadable or self.default_model is not None:
            return self.refusal()
        return None if self.providers else NO_PROVIDER

    def unknown_model(self, model_id: str) -> str:
        """What to say of a model no provider offers."""
        ids = self.model_ids()
        known = ", ".join(ids) if ids else "none"
        return (
            f"unknown model {model_id}: models are named provider/model, and the configured "
            f"ones are: {known}"
        )

    def window(self, model_id: str) -> tuple[int, str]:
        """The context size of a model, in tokens, and where it came from (config/context.py)."""
        provider = self.provider_for(model_id)
        own = provider.context_window if provider is not None else None
        reported = provider.reported if provider is not None else {}
        return window_size(self.context, model_id, own, reported)

    def takes_images(self, model_id: str) -> bool:
        provider = self.provider_for(model_id)
        return provider is not None and provider.takes_images(model_id.partition("/")[2])

    def any_takes_images(self) -> bool:
        """Whether a configured model takes images (`promptCapabilities.image`, said before any
        session opens): the offline model, or one `vision` names. What an endpoint reports is
        learnt later, for its sessions' prompts only."""
        return any(
            p.kind == "offline"
            or p.vision is True
            or bool(p.vision)
            or any(p.takes_images(m) for m in p.models)
            for p in self.providers.values()
        )

    def model_ids(self) -> list[str]:
        return [f"{p.name}/{m}" for p in self.providers.values() for m in p.models]

    def provider_for(self, model_id: str) -> ProviderConfig | None:
        name, _, model = model_id.partition("/")
        provider = self.providers.get(name)
        if provider is None or not model:
            return None
        return provider

    def retired(self, model_id: str) -> str | None:
        """The model a retired `model_id` ("provider/model" of a DeepSeek provider) runs on
        now, or None when it is not retired."""
        provider = self.provider_for(model_id)
        if provider is None or provider.dialect != "deepseek":
            return None
        new = successor(model_id.partition("/")[2])
        return f"{provider.name}/{new}" if new else None

    def retired_notice(self, old: str, new: str) -> str:
        return retired_notice(old.partition("/")[2], new.partition("/")[2])

    def efforts_for(self, model_id: str) -> list[str]:
        provider = self.provider_for(model_id)
        return provider.efforts if provider else []

    def default_effort(self, model_id: str) -> str:
        """The effort a session on `model_id` runs at until one is chosen ("auto" stands for
        it in the store)."""
        provider = self.provider_for(model_id)
        return provider.default_effort if provider else "auto"


def normalise_model(model_id: str) -> str:
    model_id = model_id.strip()
    return OFFLINE_MODEL if model_id == "offline" else model_id


@functools.cache
def _default_pricing() -> PricingTable:
    # lazy: start-up (the pricing code loads when a price is first asked for)
    from reasonix_acp.config.pricing import PricingTable

    return PricingTable.defaults()
