"""`[context]` in config.toml: how large a model's context is, and when a session compacts.

    [context]
    compact_at = 0.8          # a request filling more of the window than this compacts first
    keep_turns = 2            # the newest prompts a compaction keeps word for word
    default_window = 65536    # tokens, for a model nothing else gives the size of
    result_cap_bytes = 32768  # bytes of one tool result the model reads (the rest is kept)

    [context.windows]
    "local/qwen2.5-coder" = 32768    # by provider/model, or by the bare model id

A provider table may also say `context_window = N` for all its models.

The window of a session's model is the first found of: `[context.windows]`, the provider's
`context_window`, what its endpoint reported when the session warmed up (providers/discovery.py:
OpenRouter's `context_length`, vLLM's `max_model_len`, LM Studio's `max_context_length`,
llama.cpp's `/props`, Ollama's `/api/show`), DeepSeek's published sizes, `default_window`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from reasonix_acp.config.deepseek import WINDOWS

# The sizes DeepSeek publishes for its API models (tokens).
PUBLISHED = WINDOWS
DEFAULT_WINDOW = 65536
MIN_WINDOW = 1024


@dataclass(frozen=True)
class ContextSettings:
    """`[context]`: the compaction threshold and kept turns, sizes by model, the result cap."""

    compact_at: float = 0.8
    keep_turns: int = 2
    default_window: int = DEFAULT_WINDOW
    result_cap: int = 32 * 1024
    windows: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def parse(cls, table: Any) -> ContextSettings:
        """`[context]`; a key with a wrong value is a ValueError naming it."""
        if table is None:
            return cls()
        if not isinstance(table, dict):
            raise ValueError("[context] must be a table")
        values: dict[str, Any] = {}
        share = table.get("compact_at")
        if share is not None:
            if not _number(share) or not 0.1 <= share <= 0.95:
                raise ValueError("[context] compact_at must be a number from 0.1 to 0.95")
            values["compact_at"] = float(share)
        for key, name, least in (
            ("keep_turns", "keep_turns", 0),
            ("default_window", "default_window", MIN_WINDOW),
            ("result_cap_bytes", "result_cap", 2048),
        ):
            if key in table:
                values[name] = _count(table[key], f"[context] {key}", least)
        windows = table.get("windows", {})
        if not isinstance(windows, dict):
            raise ValueError("[context] windows must be a table of model = tokens")
        values["windows"] = MappingProxyType(
            {str(k): _count(v, f"[context.windows] {k!r}", MIN_WINDOW) for k, v in windows.items()}
        )
        return cls(**values)


def window_size(
    settings: ContextSettings,
    model_id: str,
    provider_window: int | None,
    reported: Mapping[str, int],
) -> tuple[int, str]:
    """(tokens, where that came from) for `model_id` ("provider/model")."""
    bare = model_id.partition("/")[2] or model_id
    for key in (model_id, bare):
        if key in settings.windows:
            return settings.windows[key], "config"
    if provider_window:
        return provider_window, "config"
    if bare in reported:
        return reported[bare], "endpoint"
    if bare in PUBLISHED:
        return PUBLISHED[bare], "published"
    return settings.default_window, "default"


def provider_window(table: dict[str, Any], name: str) -> int | None:
    """A provider table's `context_window`, when it has one (a ValueError when malformed)."""
    if "context_window" not in table:
        return None
    return _count(table["context_window"], f"[providers.{name}] context_window", MIN_WINDOW)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _count(value: Any, where: str, least: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ValueError(f"{where} must be a whole number of at least {least}")
    return value
