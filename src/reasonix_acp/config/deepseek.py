"""DeepSeek's API as its documentation describes it (`guides/thinking_mode`,
`quick_start/pricing`, late 2026). Re-read those pages before changing a figure here.

- Models: `deepseek-flash` (DeepSeek-V4.1-Flash, takes images) and `deepseek-v4-pro` (no
  images); `deepseek-v4-flash` and `deepseek-v4-flash-vision-exp` are still served (by V4.1
  Flash, at its prices). Context 1M tokens, output up to 384K. What the endpoint's `GET /models` lists wins over this list (providers/discovery.py).
- `deepseek-chat` and `deepseek-reasoner` were retired in July 2026 (the API answers 400 "Model
  Not Exist"): a configured or stored one runs on its successor, and the session says so once.
- Thinking is on by default: `thinking: {"type": "enabled" | "disabled"}`, `reasoning_effort`
  low / high (the default) / max. The reasoning of tool-call stretches must be sent back
  (providers/reasoning.py).
- Prices, CNY per 1M tokens (cache hit, cache miss, output), peak and off-peak (half); peak is
  Beijing time (UTC+8) Monday to Friday 09:00-12:00 and 14:00-18:00. Chinese public holidays
  (and weekends) are off-peak all day, which the agent cannot know: `[pricing] off_peak_dates` names them.
"""

from __future__ import annotations

from urllib.parse import urlparse

DEEPSEEK_URL = "https://api.deepseek.com"
# What the `deepseek` provider offers until its endpoint lists its models.
DEEPSEEK_MODELS = ["deepseek-flash", "deepseek-v4-pro"]
RETIRED = {"deepseek-chat": "deepseek-flash", "deepseek-reasoner": "deepseek-flash"}
RETIRED_ON = "July 2026"
# "1M" and "384K" as the API counts them (its hard limit, measured by others: 1,048,570).
WINDOW = 1_048_576  # tokens of context, each model
OUTPUT = 393_216  # tokens a reply may take at most
# Older Flash ids are still served, by V4.1 Flash at its prices.
FLASH = ("deepseek-flash", "deepseek-v4-flash", "deepseek-v4-flash-vision-exp")
WINDOWS = {m: WINDOW for m in (*FLASH, "deepseek-v4-pro")}
VISION = frozenset(FLASH)
# (cache hit, cache miss, output) peak, then off-peak; CNY per 1M tokens.
PRICES = {
    **{m: (("0.04", "2", "8"), ("0.02", "1", "4")) for m in FLASH},
    "deepseek-v4-pro": (("0.30", "9.0", "27"), ("0.15", "4.5", "13.5")),
}
PEAK_WINDOWS = ((9 * 60, 12 * 60), (14 * 60, 18 * 60))  # minutes after midnight, UTC+8
PEAK_DAYS = frozenset(range(5))  # Monday to Friday (datetime.weekday())


def is_deepseek(kind: str, base_url: str) -> bool:
    """A `deepseek` provider, or any provider whose endpoint is DeepSeek's API."""
    if kind == "deepseek":
        return True
    host = (urlparse(base_url).hostname or "").lower() if base_url else ""
    return host == "api.deepseek.com"


def documented(model: str) -> bool:
    """Whether DeepSeek's documentation names `model` as served (its endpoint may serve more)."""
    return model in WINDOWS


def takes_images(model: str) -> bool:
    return model in VISION


def successor(model: str) -> str | None:
    """The current model a retired id runs on, or None when `model` is not retired."""
    return RETIRED.get(model)


def retired_notice(old: str, new: str) -> str:
    return (
        f"DeepSeek retired the model {old} in {RETIRED_ON}: this session runs on {new}. Set "
        f'default_model = "deepseek/{new}" in config.toml (or run `acp setup --provider '
        "deepseek`), or choose a model with the session's model option"
    )
