"""`acp setup`: choose a provider, its endpoint, key and default model; edit config.toml.

This is what the `reasonix-setup` terminal auth method runs. Rules:
- The existing config.toml is edited in place (tomlkit): other providers, `[permissions]`,
  `[mcp_servers]`, `[plugins]`, `[pricing]`, comments and layout stay as they were. A file that
  does not parse is left alone: setup says where it fails and stops.
- The previous file is kept as `config.toml.bak`; the new one is written 0600, atomically.
- Presets fill the base URL (DeepSeek, OpenAI, Ollama, LM Studio, vLLM, llama.cpp, OpenRouter,
  or `openai` for any compatible endpoint); names are case-insensitive. A key is optional where
  the server needs none; `--api-key-env VAR` stores the variable's name instead of a key.
- The endpoint is checked (`GET /models`): setup says whether it answers, which models it
  serves, where the file is and what to do next. A URL without http:// or https:// is refused.
- Interactive (questions on stderr, answers line by line on stdin; the key without echo on a
  terminal), or with flags: `acp setup --provider ollama --model qwen3 [--base-url URL]
  [--api-key-env VAR] [--no-check]` asks nothing.
"""

from __future__ import annotations

import asyncio
import getpass
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import tomlkit
from tomlkit.exceptions import TOMLKitError

from reasonix_acp.config import ProviderConfig, config_dir, write_private
from reasonix_acp.config.mcp_entries import shown_url
from reasonix_acp.providers.base import ProviderError
from reasonix_acp.providers.discovery import list_models


@dataclass(frozen=True)
class Preset:
    """A provider `acp setup` knows: its kind, its endpoint, a default model, whether it
    needs a key."""

    kind: str
    base_url: str
    model: str = ""
    needs_key: bool = False


PRESETS = {
    # deepseek-flash (takes images) or deepseek-v4-pro: config/deepseek.py
    "deepseek": Preset("deepseek", "https://api.deepseek.com", "deepseek-flash", True),
    "openai": Preset("openai", "https://api.openai.com/v1", "", True),
    "ollama": Preset("openai", "http://127.0.0.1:11434/v1"),
    "lmstudio": Preset("openai", "http://127.0.0.1:1234/v1"),
    "vllm": Preset("openai", "http://127.0.0.1:8000/v1"),
    "llamacpp": Preset("openai", "http://127.0.0.1:8080/v1"),
    "openrouter": Preset("openai", "https://openrouter.ai/api/v1", "", True),
}
FLAGS = ("--provider", "--model", "--base-url", "--api-key-env")


class SetupError(Exception):
    pass


@dataclass
class Choice:
    """What the user chose in `acp setup`: the provider, its endpoint and model, and the key
    or the variable holding it."""

    provider: str
    base_url: str
    model: str
    api_key: str = ""
    api_key_env: str = ""


def canonical(name: str) -> str:
    """`LM Studio` → `lmstudio`, `llama.cpp` → `llamacpp`, `OpenAI` → `openai`."""
    return re.sub(r"[\s._-]+", "", name.strip().lower())


def _ask(prompt: str, default: str = "", secret: bool = False) -> str:
    shown = f"{prompt} [{default}]: " if default else f"{prompt}: "
    if secret and sys.stdin.isatty():
        answer = getpass.getpass(shown, stream=sys.stderr)
    else:
        sys.stderr.write(shown)
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            raise EOFError(prompt)
        answer = line
    return answer.strip() or default


def _flags(args: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    while args:
        arg = args.pop(0)
        if arg == "--no-check":
            out["no-check"] = "1"
            continue
        name, eq, value = arg.partition("=")
        if name not in FLAGS:
            raise SetupError(f"unknown option {arg}")
        if not eq:
            if not args:
                raise SetupError(f"{name} needs a value")
            value = args.pop(0)
        out[name[2:]] = value
    return out


def _choose(flags: dict[str, str]) -> Choice:
    interactive = "provider" not in flags
    names = ", ".join(PRESETS)
    name = canonical(flags.get("provider") or _ask(f"Provider ({names})", "deepseek"))
    preset = PRESETS.get(name)
    if preset is None:
        raise SetupError(f"unknown provider {name!r}; one of: {names}")
    base_url = flags.get("base-url") or (
        _ask("Base URL", preset.base_url) if interactive else preset.base_url
    )
    if not re.match(r"(?i)^https?://[^/\s]", base_url):
        raise SetupError(f"the base URL must start with http:// or https://: {base_url!r}")
    choice = Choice(
        name, base_url, flags.get("model", ""), api_key_env=flags.get("api-key-env", "")
    )
    if interactive and not choice.api_key_env:
        optional = "" if preset.needs_key else " (empty: none)"
        choice.api_key = _ask(f"API key{optional}", secret=True)
    if interactive and not choice.model:
        choice.model = _ask("Model", preset.model)
    choice.model = choice.model or preset.model
    return choice


def _check(choice: Choice) -> list[str] | None:
    """The endpoint's models, or None when it did not answer (said on stderr)."""
    key = choice.api_key
    probe = ProviderConfig(choice.provider, PRESETS[choice.provider].kind, choice.base_url, key)
    try:
        models = asyncio.run(list_models(probe))
    except ProviderError as exc:
        sys.stderr.write(f"acp setup: the endpoint did not answer as expected: {exc}\n")
        return None
    listed = ", ".join(models[:20]) + (", ..." if len(models) > 20 else "")
    sys.stderr.write(
        f"acp setup: {shown_url(choice.base_url)} answers; it serves {listed or 'no models'}\n"
    )
    return models


def _edit(target: Path, choice: Choice) -> tomlkit.TOMLDocument:
    text = target.read_text(encoding="utf-8") if target.exists() else ""
    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise SetupError(
            f"{target} does not parse ({exc}); fix it first, nothing was changed"
        ) from None
    if not text:
        doc.add(tomlkit.comment("Written by `acp setup`; edit freely."))
    doc["default_model"] = f"{choice.provider}/{choice.model}"
    providers = doc.get("providers")
    if providers is None:
        providers = tomlkit.table(is_super_table=True)
        doc["providers"] = providers
    if not isinstance(providers, dict):
        raise SetupError(f"{target}: `providers` is not a table; fix it first, nothing was changed")
    table = providers.get(choice.provider)
    if table is None:
        table = tomlkit.table()
        providers[choice.provider] = table
    if not isinstance(table, dict):
        raise SetupError(
            f"{target}: `providers.{choice.provider}` is not a table; fix it first, nothing was changed"
        )
    if PRESETS[choice.provider].kind != choice.provider:
        table["kind"] = PRESETS[choice.provider].kind
    table["base_url"] = choice.base_url
    for key, value in (("api_key", choice.api_key), ("api_key_env", choice.api_key_env)):
        if value:
            table[key] = value
        elif key in table and (choice.api_key or choice.api_key_env):
            del table[key]  # the other way of giving the key replaces this one
    models = table.get("models")
    if isinstance(models, list) and choice.model not in models:
        models.append(choice.model)
    return doc


def run_setup(args: list[str] | None = None) -> int:
    try:
        flags = _flags(list(args or []))
        choice = _choose(flags)
        models = None if "no-check" in flags else _check(choice)
        if not choice.model and models and len(models) == 1:
            choice.model = models[0]
        if not choice.model:
            raise SetupError("a model is required (--model NAME)")
        target = config_dir() / "config.toml"
        doc = _edit(target, choice)
    except EOFError as exc:
        sys.stderr.write(f"\nacp setup: input ended before {exc}\n")
        return 2
    except SetupError as exc:
        sys.stderr.write(f"acp setup: {exc}\n")
        return 2
    if target.exists():
        backup = target.with_name("config.toml.bak")
        write_private(backup, target.read_text(encoding="utf-8"))
        sys.stderr.write(f"acp setup: the previous file is kept as {backup}\n")
    text = tomlkit.dumps(doc)
    write_private(target, text if text.endswith("\n") else text + "\n")
    if models is not None and choice.model not in models:
        sys.stderr.write(f"acp setup: note: the endpoint does not list {choice.model}\n")
    sys.stderr.write(
        f"acp setup: wrote {target}: default model {choice.provider}/{choice.model}.\n"
        "Next: start a new session in your editor; an agent that is already running reads "
        "the file again when the editor authenticates.\n"
    )
    return 0
