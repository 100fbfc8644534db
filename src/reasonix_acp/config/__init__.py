"""The agent's settings: `settings` (what they are), `loading` (config.toml, the environment
and the command line: precedence and every table), `files` (the file itself)."""

from reasonix_acp.config.deepseek import DEEPSEEK_MODELS, DEEPSEEK_URL
from reasonix_acp.config.files import clear_credentials, config_dir, write_private
from reasonix_acp.config.loading import load
from reasonix_acp.config.settings import (
    EFFORT_LEVELS,
    NO_PROVIDER,
    OFFLINE_MODEL,
    OPENAI_ENV,
    OPENAI_URL,
    Config,
    GoalLimits,
    ProviderConfig,
    normalise_model,
)

__all__ = [
    "DEEPSEEK_MODELS",
    "DEEPSEEK_URL",
    "EFFORT_LEVELS",
    "NO_PROVIDER",
    "OFFLINE_MODEL",
    "OPENAI_ENV",
    "OPENAI_URL",
    "Config",
    "GoalLimits",
    "ProviderConfig",
    "clear_credentials",
    "config_dir",
    "load",
    "normalise_model",
    "write_private",
]
