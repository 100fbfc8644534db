"""How many tokens a request will take, counted before it is sent.

The count is the request's bytes (its messages and tool schemas, JSON-encoded as the provider
sends them) times the tokens per byte the provider last reported for a whole request
(`prompt_tokens` / its bytes). Until a provider has reported, a byte is taken as a third of a
token, which overestimates English and code and so compacts early rather than late. The rate is
kept with the session (`context` events), so a restart does not start from the guess again.

A message's encoded size is worked out once: the history only grows at its end (a compaction
replaces it whole), so each request measures only what was appended since the last.
"""

from __future__ import annotations

import json
from typing import Any

GUESS = 1 / 3  # tokens per byte before the provider has said
LOWEST, HIGHEST = 1 / 6, 1.0  # a reported rate outside these is a provider's odd count


class Gauge:
    def __init__(self, per_byte: float = GUESS) -> None:
        self.per_byte = per_byte if LOWEST <= per_byte <= HIGHEST else GUESS
        self._sizes: dict[int, tuple[dict[str, Any], int]] = {}  # id → (message, bytes)
        self._tools: tuple[int, int, int] = (0, 0, 0)  # (id, length, bytes) of the tool list

    def size(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int:
        """The bytes of a request with these messages and tools."""
        return self._tools_size(tools) + sum(self.sizes(messages))

    def sizes(self, messages: list[dict[str, Any]]) -> list[int]:
        """Each message's bytes in a request (its separator included)."""
        cache = self._sizes
        out = []
        for message in messages:
            known = cache.get(id(message))
            if known is None or known[0] is not message:
                known = cache[id(message)] = (message, _encoded_size(message) + 1)
            out.append(known[1])
        if len(cache) > 2 * len(messages) + 64:  # a compaction dropped many: forget them
            self._sizes = {id(m): cache[id(m)] for m in messages}
        return out

    def _tools_size(self, tools: list[dict[str, Any]]) -> int:
        key, length, size = self._tools
        if key != id(tools) or length != len(tools):
            size = _encoded_size(tools)
            self._tools = (id(tools), len(tools), size)
        return size

    def tokens(self, size: int) -> int:
        return int(size * self.per_byte) + 1

    def observe(self, size: int, prompt_tokens: int) -> None:
        """A provider reported `prompt_tokens` for a request of `size` bytes."""
        if size > 0 and prompt_tokens > 0:
            rate = prompt_tokens / size
            if LOWEST <= rate <= HIGHEST:
                self.per_byte = rate


# What an image part counts for: providers bill an image by its pixels (a few hundred to a few
# thousand tokens), not by its base64 bytes, which would count it a hundred times over.
IMAGE_BYTES = 4096


def _encoded_size(value: Any) -> int:
    content = value.get("content") if isinstance(value, dict) else None
    if isinstance(content, list):
        rest = [p for p in content if not (isinstance(p, dict) and p.get("type") == "image_url")]
        if len(rest) != len(content):
            images = len(content) - len(rest)
            return _encoded_size({**value, "content": rest}) + images * IMAGE_BYTES
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())
