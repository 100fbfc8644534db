"""Model id → provider instance."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from reasonix_acp.config import Config
from reasonix_acp.providers.base import Provider


@functools.cache
def _script(path: str) -> list[dict[str, Any]]:
    # lazy: start-up
    from reasonix_acp.providers.offline import load_script

    return load_script(Path(path))


_shared_offline: dict[str, Any] = {}


def make(config: Config, model_id: str, script: str | None) -> Provider:
    provider = config.provider_for(model_id)
    if provider is None:
        raise ValueError(f"model {model_id!r} is not configured")
    if provider.kind == "offline":
        # lazy: start-up
        from reasonix_acp.providers.offline import OfflineProvider

        # One scripted conversation per process: every session consumes the same script in order.
        window = config.window(model_id)[0]
        if script:
            if "scripted" not in _shared_offline:
                _shared_offline["scripted"] = OfflineProvider(_script(script), window)
            return _shared_offline["scripted"]  # type: ignore[no-any-return]
        return OfflineProvider(window=window)
    # lazy: start-up
    from reasonix_acp.providers.openai import OpenAIProvider

    return OpenAIProvider(
        provider, model_id.partition("/")[2], window=lambda: config.window(model_id)[0]
    )
