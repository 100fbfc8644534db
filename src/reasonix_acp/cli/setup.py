"""`acp setup`: ask for a provider, its endpoint, key and default model; write config.toml.

This is what the `reasonix-setup` terminal auth method runs. The file lives in the user config
directory (platformdirs; `REASONIX_ACP_CONFIG_DIR` overrides it) with mode 0600, since it holds
a credential. Input is read line by line from stdin, so the editor's terminal, a plain shell
and a test's pipe all work; the key is read without echo when stdin is a terminal.
"""

from __future__ import annotations

import getpass
import json
import sys

from reasonix_acp.config import config_dir, write_private

PROVIDERS = {
    "deepseek": {"base_url": "https://api.deepseek.com", "model": "deepseek-chat"},
    "openai": {"base_url": "", "model": ""},
}


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


def _toml_string(value: str) -> str:
    # A JSON string with ASCII escapes is a valid TOML basic string.
    return json.dumps(value, ensure_ascii=True)


def render(provider: str, base_url: str, api_key: str, model: str) -> str:
    return (
        "# Written by `acp setup`; edit freely.\n"
        f"default_model = {_toml_string(f'{provider}/{model}')}\n\n"
        f"[providers.{provider}]\n"
        f"base_url = {_toml_string(base_url)}\n"
        f"api_key = {_toml_string(api_key)}\n"
    )


def run_setup() -> int:
    try:
        provider = _ask(
            "Provider (deepseek, openai for any OpenAI-compatible endpoint)", "deepseek"
        )
        if provider not in PROVIDERS:
            sys.stderr.write(f"acp setup: unknown provider {provider!r}\n")
            return 2
        defaults = PROVIDERS[provider]
        base_url = _ask("Base URL", defaults["base_url"])
        api_key = _ask("API key", secret=True)
        model = _ask("Model", defaults["model"])
    except EOFError as exc:
        sys.stderr.write(f"\nacp setup: input ended before {exc}\n")
        return 2
    if not base_url or not model:
        sys.stderr.write("acp setup: a base URL and a model are required\n")
        return 2
    target = config_dir() / "config.toml"
    write_private(target, render(provider, base_url, api_key, model))
    sys.stderr.write(f"acp setup: wrote {target}\n")
    return 0
