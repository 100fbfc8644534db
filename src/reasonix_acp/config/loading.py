"""Where the agent's settings come from: config.toml, the environment, the command line.

Precedence for the start-up model: `--model`, then `ACP_MODEL`, then `default_model` in
config.toml, then `OPENAI_MODEL`, then the first model of the first configured provider (an
OpenAI-compatible endpoint that names none is asked for its models when a session opens:
providers/discovery.py). Providers come from config.toml `[providers.<name>]` tables (`kind`,
`base_url`, `api_key` or `api_key_env`, `models`) and from the environment (`DEEPSEEK_API_KEY`;
`OPENAI_BASE_URL`, `OPENAI_API_KEY`, `OPENAI_MODEL`), the environment winning, but for a base
URL a client chose with `providers/set` (`client_routing = true` in its table). A table with
`disabled = true` (written by `providers/disable`) is no provider, whatever else it holds, and the
environment does not bring it back. The built-in `offline` model
is available only when it is selected (`--model offline`, `ACP_MODEL=offline`, or config).
Model ids are `provider/model` everywhere; a bare `offline` means `offline/default`.

`[permissions] deny_commands = ["rm", ...]` (any simple command in a shell line, by name) and
`deny_paths = ["/etc/**", ...]` (globs) are refused under every preset, danger-full-access included. Commands run in bash, locally and in the editor's terminal;
`shell = "/bin/zsh"` names another shell, which the permission gate does not read: every command
line then asks (turn/gate.py). `pass_env = ["NAME", ...]` passes environment variables that look secret to
commands anyway. Every frame stays under `frame_budget_bytes` (default 61440, at least 8192: longer strings in a
tool call are cut, the whole text kept in the session's temp). Tool output shown per update is capped by `output_cap_bytes` (default 49152; the rest is kept in
a file the update names). Turn limits in config.toml: `max_steps = N` (tool-call rounds per prompt, default 25; past it
the prompt answers `max_turn_requests`), and `[budgets] task_seconds = S, task_tokens = T`
(past either, the turn pauses with a warning and answers `end_turn`); `task_cost = C` does the
same for cost, in the currency the model is priced in, which also puts `cost` in `usage_update`.
`[subagents] at_once = N, max_steps = M`: children of the `task` tool running at once in a session
(default 4; 0: no `task` tool) and each one's tool-call rounds (default 25).
Prices (per million tokens): a provider's own `prices = {input = ..., output = ..., cache_hit =
..., currency = "USD"}` win for its models; else the `[pricing]` table (per-model prices by
"provider/model" or bare model id, off-peak prices, peak windows and their UTC offset; it keeps
the built-in DeepSeek list prices unless `include_defaults = false`; pricing_table.py has the
shape). A bad `[pricing]` or `prices` table is ignored with a warning (the defaults stay); a
runtime reload (`strict`) refuses it with a ValueError naming the key.
MCP servers every session gets: `[mcp_servers.<name>]` tables with the fields of an ACP
`mcpServers` entry (`command`, `args`, `env` for stdio; `type = "http"` or `"sse"`, `url`,
`headers` otherwise); a server the client sends under the same name replaces it.
A provider's `vision = true` (or a list of its model ids) says its models take images in prompts
(`promptCapabilities.image`); an endpoint that lists a model's input modalities is believed too.
`[context]` says how large models' contexts are and when a session compacts (config/context.py).
`[web] allow`, `deny` (host patterns), `search_url` and `fetch_seconds` govern the web tools
(config/web.py). `[readiness] require_checks = true` turns on the final-readiness gate (readiness.py).
`[goal] max_turns = 20, max_tokens = 2000000, max_seconds = 3600, no_progress_turns = 3` are
the limits that pause a goal (goal mode: reasonix_io/goal.py); a value that is not a positive
integer keeps its default.
Plugins (plugins.py) live in `<config dir>/plugins/` and in `[plugins] paths = ["/abs", ...]`.
`[sandbox] mode = "auto" | "enforce" | "off"` (REASONIX_ACP_SANDBOX wins; default auto),
`network = true` and `write_roots = ["/abs", ...]` set the OS sandbox commands run in
(tools/sandbox.py); an unknown mode or a relative write root is refused like a bad table.
A key no reading here asks for is named in one warning, with the nearest known one (keys.py).
"""

from __future__ import annotations

import logging
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonix_acp.config.context import ContextSettings, provider_window
from reasonix_acp.config.deepseek import DEEPSEEK_MODELS, DEEPSEEK_URL, documented, successor
from reasonix_acp.config.files import config_dir, read_table
from reasonix_acp.config.keys import Reads, unknown_keys
from reasonix_acp.config.mcp_entries import each_from_config, secret_values
from reasonix_acp.config.sandbox import SANDBOX_MODES, SandboxSettings
from reasonix_acp.config.settings import (
    OFFLINE_MODEL,
    OPENAI_ENV,
    OPENAI_URL,
    Config,
    GoalLimits,
    ProviderConfig,
    SubagentSettings,
    normalise_model,
)
from reasonix_acp.config.web import WebSettings
from reasonix_acp.redact import pass_env, remember

if TYPE_CHECKING:
    from reasonix_acp.config.pricing import PricingTable

log = logging.getLogger("reasonix_acp.config")


def load(
    cli_model: str | None = None,
    env: dict[str, str] | None = None,
    strict: bool = False,
    quiet: bool = False,
) -> Config:
    """`strict`: an unreadable config.toml raises ValueError instead of being ignored.
    `quiet`: what is wrong with the file is kept in the Config, not logged (`acp doctor`
    reports it itself)."""
    env = dict(os.environ if env is None else env)
    path = config_dir(env) / "config.toml"
    table, unreadable = read_table(path, strict)
    data = Reads(table)  # what the loading asks of it is what the agent reads (config/keys.py)
    config = Config(config_file=path, unreadable=unreadable)
    _limits(config, data)
    _permissions(config, data)
    _sandbox(config, data, env.get("REASONIX_ACP_SANDBOX"), strict)
    if "web" in data:
        try:
            config.web = WebSettings.parse(data["web"])
        except ValueError as exc:
            _ignore(config, strict, "[web]", exc)
    try:
        config.context = ContextSettings.parse(data.get("context"))
    except ValueError as exc:
        _ignore(config, strict, "[context]", exc)
    if "mcp_servers" in data:
        config.mcp_servers, left_out = each_from_config(data["mcp_servers"], path)
        config.ignored += left_out
    _plugins(config, data, config_dir(env) / "plugins", strict)
    if "pricing" in data:
        try:
            config.pricing_table = _pricing_table(data["pricing"])
        except ValueError as exc:
            _ignore(config, strict, "[pricing]", exc)
    for name, table in (data.get("providers") or {}).items():
        if isinstance(table, dict) and table.get("disabled") is True:
            # providers/disable: kept in the file as it was, not read (its keys are not unknown)
            config.disabled[name] = str(table.get("kind") or name)
            list(table.keys())
        elif isinstance(table, dict):
            provider = config.providers[name] = _provider(config, name, table, strict)
            if isinstance(table.get("api_key_env"), str):
                provider.api_key_env = table["api_key_env"]
                provider.api_key = env.get(provider.api_key_env) or provider.api_key
    from_env = _from_environment(config, env)
    remember(*(p.api_key for p in config.providers.values()), *secret_values(config.mcp_servers))
    passed = data.get("pass_env")
    pass_env([str(n) for n in passed if isinstance(n, str)] if isinstance(passed, list) else [])
    named = data.get("default_model")  # read whatever wins: the key is known either way
    _default_model(config, cli_model or env.get("ACP_MODEL") or named or from_env)
    config.unknown = unknown_keys(data)
    if not quiet:
        _warn(config)
    return config


def _warn(config: Config) -> None:
    """What is wrong with config.toml, on stderr at start: each thing once."""
    if config.unreadable:
        why = config.unreadable
        log.warning("config.toml cannot be read, so no session starts until it is fixed: %s", why)
    for note in config.ignored:
        log.warning("%s", note)
    if config.unknown:
        said = "; ".join(str(u) for u in config.unknown)
        log.warning("%s has keys acp does not read (ignored): %s", config.config_file, said)


def _ignore(config: Config, strict: bool, what: str, exc: ValueError) -> None:
    """A table that does not hold is left out at start (and said); a reload refuses it."""
    if strict:  # a runtime reload keeps the configuration it has instead
        raise ValueError(f"{config.config_file}: {exc}") from None
    config.ignored.append(f"ignoring {what} of {config.config_file}: {exc}")


def _pricing_table(table: Any) -> PricingTable:
    # lazy: start-up (the pricing code loads where config.toml has prices)
    from reasonix_acp.config.pricing_table import parse_pricing

    return parse_pricing(table)


GOAL_KEYS = {
    "max_turns": "turns",
    "max_tokens": "tokens",
    "max_seconds": "seconds",
    "no_progress_turns": "no_progress",
}


def _limits(config: Config, data: dict[str, Any]) -> None:
    """max_steps, shell, output_cap_bytes, [readiness], [budgets]."""
    steps = data.get("max_steps")
    if isinstance(steps, int) and steps > 0:
        config.max_steps = steps
    if isinstance(data.get("shell"), str) and data["shell"]:
        config.shell = data["shell"]
    budget = data.get("frame_budget_bytes")
    if isinstance(budget, int) and not isinstance(budget, bool) and budget >= 8192:
        config.frame_budget = budget
    cap = data.get("output_cap_bytes")
    if isinstance(cap, int) and cap >= 1024:
        config.output_cap = cap
    readiness = data.get("readiness")
    if isinstance(readiness, dict) and isinstance(readiness.get("require_checks"), bool):
        config.require_checks = readiness["require_checks"]
    raw_budgets = data.get("budgets")
    budgets: dict[str, Any] = raw_budgets if isinstance(raw_budgets, dict) else {}
    seconds, tokens = budgets.get("task_seconds"), budgets.get("task_tokens")
    if isinstance(seconds, int | float) and seconds > 0:
        config.budget_seconds = float(seconds)
    if isinstance(tokens, int) and tokens > 0:
        config.budget_tokens = tokens
    cost = budgets.get("task_cost")
    if isinstance(cost, int | float) and cost > 0:
        config.budget_cost = float(cost)
    raw_goal = data.get("goal")
    goal: dict[str, Any] = raw_goal if isinstance(raw_goal, dict) else {}
    limits = {
        field_name: goal[key]
        for key, field_name in GOAL_KEYS.items()
        if isinstance(goal.get(key), int) and not isinstance(goal[key], bool) and goal[key] > 0
    }
    config.goal = GoalLimits(**limits)
    config.subagents = _subagents(data.get("subagents"))


def _subagents(table: Any) -> SubagentSettings:
    """`[subagents]` at_once (0 or more) and max_steps (1 or more); others: the defaults."""
    given: dict[str, Any] = table if isinstance(table, dict) else {}
    default = SubagentSettings()
    return SubagentSettings(
        _count(given.get("at_once"), 0, default.at_once),
        _count(given.get("max_steps"), 1, default.max_steps),
    )


def _count(value: Any, least: int, default: int) -> int:
    """value when it is a whole number of at least `least`, else default."""
    good = isinstance(value, int) and not isinstance(value, bool) and value >= least
    return int(value) if good else default


def _permissions(config: Config, data: dict[str, Any]) -> None:
    rules = data.get("permissions") if isinstance(data.get("permissions"), dict) else None
    if rules is None:
        return
    config.deny_commands = [str(c) for c in rules.get("deny_commands") or [] if isinstance(c, str)]
    config.deny_paths = [
        os.path.expanduser(str(p)) for p in rules.get("deny_paths") or [] if isinstance(p, str)
    ]


def _sandbox(config: Config, data: dict[str, Any], override: str | None, strict: bool) -> None:
    """[sandbox] mode, network and write_roots; REASONIX_ACP_SANDBOX sets the mode."""
    table = data.get("sandbox", {})
    try:
        config.sandbox = SandboxSettings.parse(table if isinstance(table, dict) else None)
    except ValueError as exc:
        _ignore(config, strict, "[sandbox]", exc)
    if override:
        mode = override.strip().lower()
        if mode not in SANDBOX_MODES:
            config.ignored.append(
                f"ignoring REASONIX_ACP_SANDBOX={override!r}: not one of {SANDBOX_MODES}"
            )
        else:
            config.sandbox = replace(config.sandbox, mode=mode)


def _plugins(config: Config, data: dict[str, Any], default: Path, strict: bool) -> None:
    """The config directory's plugins/, then [plugins] paths."""
    path = config.config_file
    config.plugin_roots = [default] if default.is_dir() else []
    raw_plugins = data.get("plugins")
    if not isinstance(raw_plugins, dict):
        return
    paths = raw_plugins.get("paths", [])
    if isinstance(paths, list) and all(isinstance(x, str) and os.path.isabs(x) for x in paths):
        config.plugin_roots += [Path(x) for x in paths]
    elif strict:
        raise ValueError(f"{path}: [plugins] paths must be a list of absolute paths")
    else:
        config.ignored.append(f"ignoring [plugins] paths of {path}: not absolute paths")


def _provider(config: Config, name: str, table: dict[str, Any], strict: bool) -> ProviderConfig:
    """One [providers.<name>] table; its own `prices` win over [pricing] for its models."""
    kind = str(table.get("kind") or name)
    price = None
    if "prices" in table:
        # lazy: start-up (the pricing code loads where config.toml has prices)
        from reasonix_acp.config.pricing_table import parse_price

        try:
            price = parse_price(
                table["prices"],
                f"providers.{name}.prices",
                currency="USD",
                schedule=config.pricing.schedule,
                source="provider",
            )
        except ValueError as exc:
            _ignore(config, strict, f"[providers.{name}] prices", exc)
    window = None
    try:
        window = provider_window(table, name)
    except ValueError as exc:
        _ignore(config, strict, f"[providers.{name}] context_window", exc)
    vision: bool | list[str] = False
    try:
        vision = _vision(table.get("vision", False))
    except ValueError as exc:
        _ignore(config, strict, f"[providers.{name}] vision", exc)
    prices: dict[str, float] = {}
    if price is not None:
        r = price.rates
        prices = {"input": float(r.input), "output": float(r.output)}
        prices["cache_hit"] = float(r.cache_hit)
    return ProviderConfig(
        name=name,
        kind=kind,
        base_url=str(table.get("base_url") or (DEEPSEEK_URL if kind == "deepseek" else "")),
        api_key=str(table.get("api_key") or ""),
        models=[str(m) for m in models] if isinstance(models := table.get("models"), list) else [],
        prices=prices,
        currency=price.currency if price is not None else "USD",
        price=price,
        context_window=window,
        vision=vision,
        client_routing=table.get("client_routing") is True,
    )


def _vision(value: Any) -> bool | list[str]:
    """`vision = true` (every model of the provider takes images) or a list of its model ids."""
    if isinstance(value, bool):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value]
    raise ValueError("`vision` is true, false or a list of model ids")


def _from_environment(config: Config, env: dict[str, str]) -> str | None:
    """DEEPSEEK_API_KEY; OPENAI_BASE_URL and/or OPENAI_API_KEY (an endpoint such as Ollama
    needs no key; a key alone means OpenAI's API), with OPENAI_MODEL. → the model OPENAI_MODEL
    names, as provider/model."""
    if env.get("DEEPSEEK_API_KEY") and "deepseek" not in config.disabled:
        p = config.providers.setdefault(
            "deepseek", ProviderConfig("deepseek", "deepseek", DEEPSEEK_URL)
        )
        p.api_key = env["DEEPSEEK_API_KEY"]
    base, key, model = (env.get(k, "").strip() for k in OPENAI_ENV)
    if not (base or key) or "openai" in config.disabled:
        return None
    p = config.providers.setdefault("openai", ProviderConfig("openai", "openai"))
    chosen = p.base_url if p.client_routing else ""  # providers/set: the client's choice
    p.base_url = chosen or base or p.base_url or OPENAI_URL
    p.api_key = key or p.api_key
    if model and model not in p.models:
        p.models.insert(0, model)
    return f"openai/{model}" if model else None


def _default_model(config: Config, chosen: Any) -> None:
    """--model, ACP_MODEL or default_model; else the first model a provider offers."""
    default = normalise_model(str(chosen)) if chosen else None
    if default == OFFLINE_MODEL or (default or "").startswith("offline/"):
        config.providers.setdefault(
            "offline", ProviderConfig("offline", "offline", models=["default"])
        )
    for p in config.providers.values():
        if p.dialect == "deepseek":
            _current_models(config, p)
    if default and (current := config.retired(default)) is not None:
        config.renamed[default] = current
        config.retired_default, default = default, current
    if default:
        provider, model = config.provider_for(default), default.partition("/")[2]
        if provider is not None and model not in provider.models and _taken(provider, model):
            provider.models.append(model)
    elif config.model_ids():
        default = config.model_ids()[0]
    config.default_model = default


def _taken(provider: ProviderConfig, model: str) -> bool:
    """Whether a start-up model its provider does not list is taken as named: one DeepSeek
    documents, the offline model, or any on an OpenAI-compatible endpoint that names no models
    (its list is known once asked). Else `session/new` asks the endpoint, and refuses a model it does not serve
    (providers/discovery.py: `confirm`)."""
    if provider.dialect == "deepseek":
        return documented(model)
    if provider.kind == "offline":  # a table of its own (its prices) names no models
        return model == OFFLINE_MODEL.partition("/")[2]
    return provider.kind == "openai" and not provider.models


def _current_models(config: Config, provider: ProviderConfig) -> None:
    """A DeepSeek provider offers the built-in list until its endpoint lists its own; a retired
    id it names is its successor (the session that runs on it says so: config.renamed)."""
    if not provider.models:
        provider.models, provider.builtin = list(DEEPSEEK_MODELS), True
        return
    models: list[str] = []
    for model in provider.models:
        new = successor(model)
        if new is not None:
            config.renamed[f"{provider.name}/{model}"] = f"{provider.name}/{new}"
        if (new or model) not in models:
            models.append(new or model)
    provider.models = models
