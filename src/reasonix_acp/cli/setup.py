"""`acp setup`: choose a provider, its endpoint, key and default model; edit config.toml.

This is what the `reasonix-setup` terminal auth method runs. Rules:
- The existing config.toml is edited in place (tomlkit): other providers, `[permissions]`,
  `[mcp_servers]`, `[plugins]`, `[pricing]`, comments and layout stay as they were. A file that
  does not parse is left alone: setup says where it fails and stops.
- The previous file is kept as `config.toml.bak`; the new one is written 0600, atomically.
- Presets fill the base URL (DeepSeek, OpenAI, Ollama, LM Studio, vLLM, llama.cpp, OpenRouter,
  or `openai` for any compatible endpoint); names are case-insensitive. A model DeepSeek
  retired (`deepseek-chat`, `deepseek-reasoner`) is refused, naming the current ones. A key is
  optional where the server needs none; `--api-key-env VAR` stores the variable's name instead
  of a key.
- A provider that needs a key (DeepSeek, OpenAI, OpenRouter) gets one: in a terminal it is asked
  without echo (a key, or the name of the variable holding it; Enter keeps the key config.toml
  has, or takes the provider's usual variable when it is set); without a terminal the key
  config.toml has or the usual variable (`DEEPSEEK_API_KEY` ...) is taken, else setup fails
  saying how to give one. Setup says where the key is kept: in config.toml (0600), or only the
  variable's name.
- The endpoint is checked (`GET /models`, with the key the agent will send): setup says
  whether it answers, which models it serves, where the file is and what to do next. A refused
  key or an endpoint that does not answer stops it (exit 1, nothing written) unless
  `--no-check`. A URL without http:// or https:// is refused.
- Interactive (questions on stderr, answers line by line on stdin; the key without echo on a
  terminal), or with flags: `acp setup --provider ollama --model qwen3 [--base-url URL]
  [--api-key-env VAR] [--no-check]` asks nothing but a missing key, in a terminal.
"""

from __future__ import annotations

import asyncio
import getpass
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from reasonix_acp.config import (
    DEEPSEEK_MODELS,
    DEEPSEEK_URL,
    OPENAI_URL,
    ProviderConfig,
    config_dir,
    write_private,
)
from reasonix_acp.config.deepseek import RETIRED_ON, is_deepseek, successor
from reasonix_acp.config.mcp_entries import shown_url
from reasonix_acp.config.provider_table import provider_table
from reasonix_acp.providers.base import ProviderAuthFailed, ProviderError
from reasonix_acp.providers.discovery import list_models


@dataclass(frozen=True)
class Preset:
    """A provider `acp setup` knows: its kind, its endpoint, a default model, whether it
    needs a key."""

    kind: str
    base_url: str
    model: str = ""
    key_env: str = ""  # the variable its key is usually in; set: its service needs a key

    def needs_key(self, base_url: str) -> bool:
        """DeepSeek's API needs a key, and so does a keyed service at its own URL; `openai`
        pointed at another endpoint (a local server) may need none."""
        own = base_url.rstrip("/") == self.base_url.rstrip("/")
        return bool(self.key_env) and (self.kind == "deepseek" or own)


PRESETS = {
    # deepseek-flash (takes images) or deepseek-v4-pro: config/deepseek.py
    "deepseek": Preset("deepseek", DEEPSEEK_URL, DEEPSEEK_MODELS[0], "DEEPSEEK_API_KEY"),
    "openai": Preset("openai", OPENAI_URL, "", "OPENAI_API_KEY"),
    "ollama": Preset("openai", "http://127.0.0.1:11434/v1"),
    "lmstudio": Preset("openai", "http://127.0.0.1:1234/v1"),
    "vllm": Preset("openai", "http://127.0.0.1:8000/v1"),
    "llamacpp": Preset("openai", "http://127.0.0.1:8080/v1"),
    "openrouter": Preset("openai", "https://openrouter.ai/api/v1", "", "OPENROUTER_API_KEY"),
}
# The providers whose usual variable, when set, wins over config.toml (config/loading.py).
ENVIRONMENT_WINS = ("deepseek", "openai")
# An answer to the key question that names the variable holding the key, not the key itself.
VARIABLE = re.compile(r"\$?([A-Z_][A-Z0-9_]*)")
FLAGS = ("--provider", "--model", "--base-url", "--api-key-env")


class SetupError(Exception):
    """Why setup stops without writing: `status` 2 for what was asked of it, 1 for what it
    found (a refused key, an endpoint that does not answer)."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Choice:
    """What the user chose in `acp setup`: the provider, its endpoint and model, and the key
    or the variable holding it."""

    provider: str
    base_url: str
    model: str
    api_key: str = ""
    api_key_env: str = ""
    kept: str = ""  # what config.toml already says of the key, when that is kept

    @property
    def key(self) -> str:
        """The key the agent will send: the one given, else the named variable's value."""
        return self.api_key or os.environ.get(self.api_key_env, "")


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


def _choose(flags: dict[str, str], doc: tomlkit.TOMLDocument) -> Choice:
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
    model = flags.get("model", "")
    if model.lower().startswith(name.lower() + "/"):  # provider/model, as the agent names it
        model = model[len(name) + 1 :]
    choice = Choice(name, base_url, model, api_key_env=flags.get("api-key-env", ""))
    _current(choice, preset)  # before the key is asked
    if not choice.api_key_env:
        _key(choice, preset, _table_of(doc, name), interactive)
    if interactive and not choice.model:
        choice.model = _ask("Model", preset.model)
    choice.model = choice.model or preset.model
    _current(choice, preset)
    return choice


def _current(choice: Choice, preset: Preset) -> None:
    """A model DeepSeek retired is refused, naming the current ones (config/deepseek.py)."""
    new = successor(choice.model) if is_deepseek(preset.kind, choice.base_url) else None
    if new is not None:
        current = " and ".join(DEEPSEEK_MODELS)
        raise SetupError(
            f"DeepSeek retired the model {choice.model} in {RETIRED_ON} (its API answers 400 "
            f'"Model Not Exist"); the current models are {current}: --model {new} runs where '
            f"{choice.model} did. Nothing was written"
        )


def _table_of(doc: tomlkit.TOMLDocument, name: str) -> dict[str, Any]:
    """The provider's table in config.toml as it is, or {}."""
    providers = doc.get("providers")
    table = providers.get(name) if isinstance(providers, dict) else None
    return table if isinstance(table, dict) else {}


def _key(choice: Choice, preset: Preset, table: dict[str, Any], interactive: bool) -> None:
    """The provider's key, or the variable holding it: asked (hidden in a terminal) where setup
    asks; else, and on an empty answer, what config.toml has, else the provider's usual
    variable when it is set. A provider that needs a key and gets none is a SetupError."""
    kept = {k: str(table[k]) for k in ("api_key", "api_key_env") if table.get(k)}
    needed = preset.needs_key(choice.base_url)
    usual = preset.key_env if os.environ.get(preset.key_env or "-") else ""
    if kept:
        hint = " [Enter: keep the one config.toml has]"
    elif usual:
        hint = f" [Enter: {usual}, which is set]"
    else:
        hint = "" if needed else " (empty: none)"
    answer = ""
    if interactive or (needed and sys.stdin.isatty()):
        question = f"API key for {choice.provider}, or the name of the variable that holds it"
        hidden = " (input hidden)" if sys.stdin.isatty() else ""
        answer = _ask(f"{question}{hidden}{hint}", secret=True)
    variable = VARIABLE.fullmatch(answer)
    if variable:
        choice.api_key_env = variable.group(1)
    elif answer:
        choice.api_key = answer
    elif kept:
        choice.api_key, choice.api_key_env = kept.get("api_key", ""), kept.get("api_key_env", "")
        choice.kept = "yes"
    elif usual:
        choice.api_key_env = usual
    elif needed:
        raise SetupError(_no_key(choice.provider, preset))


def _no_key(name: str, preset: Preset) -> str:
    asked = "none was given" if sys.stdin.isatty() else "there is no terminal to ask for it in"
    return (
        f"{name} needs an API key, and {asked}: set {preset.key_env} and run this again, or "
        "pass --api-key-env VAR naming the variable that holds it, or run `acp setup "
        f"--provider {name}` in a terminal to type the key (it is not shown). Nothing was written"
    )


def _check(choice: Choice) -> list[str]:
    """The endpoint's models, asked as the agent will ask (`GET /models`, with the key it will
    send). A refused key, or an endpoint that does not answer, is a SetupError."""
    where = shown_url(choice.base_url)
    variable = choice.api_key_env if not choice.api_key else ""
    if variable and not os.environ.get(variable):
        raise SetupError(
            f"{variable} is not set here, so {where} cannot be checked with the key it holds: "
            "set it in this shell too, or pass --no-check to store its name anyway. Nothing "
            "was written",
            1,
        )
    kind = PRESETS[choice.provider].kind
    probe = ProviderConfig(choice.provider, kind, choice.base_url, choice.key)
    try:
        models = asyncio.run(list_models(probe))
    except ProviderAuthFailed as exc:
        status = re.search(r"HTTP \d+", str(exc))
        raise SetupError(_refused(choice, where, status[0] if status else "HTTP 401"), 1) from None
    except ProviderError as exc:
        raise SetupError(
            f"{where} did not answer as expected: {exc}. Check the URL (--base-url) and that "
            "the server is running, or pass --no-check to write the settings anyway. Nothing "
            "was written",
            1,
        ) from None
    listed = ", ".join(models[:20]) + (", ..." if len(models) > 20 else "")
    sys.stderr.write(f"acp setup: {where} answers; it serves {listed or 'no models'}\n")
    return models


def _refused(choice: Choice, where: str, status: str) -> str:
    if choice.api_key_env and not choice.api_key:
        whose = f"the key in {choice.api_key_env}"
    elif choice.kept:
        whose = "the key config.toml has"
    else:
        whose = "the key" if choice.api_key else "a request without a key"
    return (
        f"{where} refused {whose} ({status}): check the key (a typo, a revoked key, "
        "another provider's key) and give it again, or pass --no-check to write the settings "
        "anyway. Nothing was written"
    )


def _read(target: Path) -> tomlkit.TOMLDocument:
    """config.toml as tomlkit reads it (comments and layout kept); a new one when there is
    none. A file that does not parse is a SetupError: it is left alone."""
    text = target.read_text(encoding="utf-8") if target.exists() else ""
    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise SetupError(
            f"{target} does not parse ({exc}); fix it first, nothing was changed"
        ) from None
    if not text:
        doc.add(tomlkit.comment("Written by `acp setup`; edit freely."))
    return doc


def _edit(target: Path, doc: tomlkit.TOMLDocument, choice: Choice) -> None:
    doc["default_model"] = f"{choice.provider}/{choice.model}"
    try:
        table = provider_table(doc, choice.provider, target, "fix it first, nothing was changed")
    except ValueError as exc:
        raise SetupError(str(exc)) from None
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


def _where_the_key_is(target: Path, choice: Choice) -> str:
    """What setup tells of the key: where it is kept, and who can read it."""
    if choice.api_key_env and not choice.api_key:
        return (
            f"the key is not stored: `acp` reads it from the variable {choice.api_key_env} when "
            f"it starts, so what starts it (your editor) must have {choice.api_key_env} set"
        )
    if choice.api_key:
        again = "is still" if choice.kept else "is"
        return (
            f"the key {again} stored in {target}, mode 0600 (only you can read or change it; "
            "`acp doctor` never shows it)"
        )
    return ""


def run_setup(args: list[str] | None = None) -> int:
    target = config_dir() / "config.toml"
    try:
        flags = _flags(list(args or []))
        doc = _read(target)
        choice = _choose(flags, doc)
        models = None if "no-check" in flags else _check(choice)
        if not choice.model and models and len(models) == 1:
            choice.model = models[0]
        if not choice.model:
            raise SetupError("a model is required (--model NAME)")
        _edit(target, doc, choice)
    except EOFError as exc:
        sys.stderr.write(f"\nacp setup: input ended before {exc}\n")
        return 2
    except SetupError as exc:
        sys.stderr.write(f"acp setup: {exc}\n")
        return exc.status
    if target.exists():
        backup = target.with_name("config.toml.bak")
        write_private(backup, target.read_text(encoding="utf-8"))
        sys.stderr.write(f"acp setup: the previous file is kept as {backup}\n")
    text = tomlkit.dumps(doc)
    write_private(target, text if text.endswith("\n") else text + "\n")
    if models is None:
        sys.stderr.write("acp setup: the endpoint and the key were not checked (--no-check)\n")
    elif choice.model not in models:
        sys.stderr.write(f"acp setup: note: the endpoint does not list {choice.model}\n")
    sys.stderr.write(
        f"acp setup: wrote {target}: default model {choice.provider}/{choice.model}.\n"
    )
    if key := _where_the_key_is(target, choice):
        sys.stderr.write(f"acp setup: {key}.\n")
    usual = PRESETS[choice.provider].key_env
    if (
        choice.provider in ENVIRONMENT_WINS
        and os.environ.get(usual)
        and choice.api_key_env != usual
    ):
        sys.stderr.write(
            f"acp setup: note: {usual} is set here; an agent started with it set uses it, not "
            "the key above\n"
        )
    sys.stderr.write(
        "Next: start a new session in your editor; an agent that is already running reads "
        "the file again when the editor authenticates.\n"
    )
    return 0
