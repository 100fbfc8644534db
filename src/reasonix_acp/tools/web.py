"""The web tools a session offers: `web_fetch` always, `web_search` where there is something to
search with: DeepSeek's Search API where a DeepSeek provider has a key, else `[web] search_url`
(a SearXNG instance), else nothing."""

from __future__ import annotations

from typing import Any

from reasonix_acp.config.deepseek import DEEPSEEK_URL
from reasonix_acp.config.settings import Config
from reasonix_acp.tools.web_fetch import WebFetch
from reasonix_acp.tools.web_search import Engine, WebSearch, deepseek_search_url


def web_tools(config: Config) -> list[Any]:
    engine = search_engine(config)
    return [WebFetch(config.web), *([WebSearch(engine)] if engine else [])]


def search_engine(config: Config) -> Engine | None:
    for provider in config.providers.values():
        if provider.kind == "deepseek" and provider.api_key:
            return Engine(
                "deepseek", deepseek_search_url(provider.base_url or DEEPSEEK_URL), provider.api_key
            )
    if config.web.search_url:
        return Engine("searxng", config.web.search_url)
    return None
