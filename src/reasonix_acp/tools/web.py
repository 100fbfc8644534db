"""The web tools a session offers: `web_fetch` always, `web_search` where there is something to
search with (DeepSeek's Search API with a DeepSeek key, else `[web] search_url`)."""

from __future__ import annotations

from typing import Any

from reasonix_acp.config.settings import Config
from reasonix_acp.tools.web_fetch import WebFetch


def web_tools(config: Config) -> list[Any]:
    return [WebFetch(config.web)]
