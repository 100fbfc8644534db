"""Images in prompts: which blocks are images, whether they may go to the session's model, and
the OpenAI `image_url` parts the model reads them as.

An `image` block (base64 `data`, `mimeType`) is an image, and so is an embedded `resource`
whose blob has an image `mimeType`. Rules, checked before anything is published or stored:
- the session's model must take images (config.Config.takes_images: the offline model, a
  provider's `vision`, or what its endpoint reported); else -32602 naming the model and what to
  change;
- PNG, JPEG, GIF or WebP, valid base64, at most MAX_IMAGE_BYTES decoded each.
The prompt's blocks are stored as sent, so a load replays each image in its
`user_message_chunk` (one whose frame would pass the frame budget is replayed as a
`resource_link` to a copy in the session's temp: `replayable`); the model's history keeps the
parts (the `history` event), so the model reads the same request after a reload.
"""

from __future__ import annotations

import binascii
import json
from base64 import b64decode
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reasonix_acp import digests
from reasonix_acp.protocol.errors import InvalidParams
from reasonix_acp.tools.workspace import keep

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
MAX_IMAGE_BYTES = 8 * 1024 * 1024
METHOD = "session/prompt"


def image_of(block: dict[str, Any]) -> tuple[str, Any] | None:
    """(mimeType, base64 data) of an image block or an image resource blob; None otherwise."""
    if block.get("type") == "image":
        return str(block.get("mimeType") or ""), block.get("data")
    resource = block.get("resource") if block.get("type") == "resource" else None
    if isinstance(resource, dict) and "blob" in resource:
        mime = str(resource.get("mimeType") or "")
        if mime.startswith("image/"):
            return mime, resource["blob"]
    return None


def check(blocks: list[dict[str, Any]], model: str, takes_images: bool, fix: str) -> bool:
    """Whether the prompt has images; InvalidParams when one cannot go to `model`. `fix` says
    what to change for a model that takes none."""
    found = False
    for i, block in enumerate(blocks):
        image = image_of(block)
        if image is None:
            continue
        found = True
        if not takes_images:
            raise InvalidParams(
                f"{METHOD}: prompt[{i}] is an image, and the session's model {model} does not "
                f"take images; {fix}"
            )
        mime, data = image
        if mime not in IMAGE_TYPES:
            raise InvalidParams(
                f"{METHOD}: prompt[{i}] is an image of type {mime or 'unknown'}; the types "
                f"taken are {', '.join(IMAGE_TYPES)}"
            )
        size = _decoded_size(data)
        if size is None:
            raise InvalidParams(f"{METHOD}: prompt[{i}] image data is not valid base64")
        if size > MAX_IMAGE_BYTES:
            raise InvalidParams(
                f"{METHOD}: prompt[{i}] image is {size} bytes; at most {MAX_IMAGE_BYTES} are "
                "taken (make it smaller or send a part of it)"
            )
    return found


def _decoded_size(data: Any) -> int | None:
    if not isinstance(data, str) or not data:
        return None
    try:
        return len(b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return None


def parts(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The prompt's images as OpenAI chat content parts (data URIs), in order."""
    found = (image_of(block) for block in blocks)
    return [
        {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}
        for mime, data in (f for f in found if f is not None)
    ]


def user_content(text: str, blocks: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """A user message's content: the text alone, or its text and images as parts."""
    images = parts(blocks)
    if not images:
        return text
    return [{"type": "text", "text": text}, *images] if text else images


ENVELOPE = 1024  # the notification and session id around a replayed update
SUFFIXES = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}


def replayable(update: dict[str, Any], budget: int, directory: Callable[[], str]) -> dict[str, Any]:
    """A replayed `user_message_chunk` whose image would not fit a frame of `budget` bytes,
    with a `resource_link` to the image's bytes kept in `directory()` in its place (one file
    per image, named by its digest, so a second load names the same file); any other unchanged.
    (`directory` is asked only then: finding the temp directory loads `tempfile`.)"""
    content = update.get("content")
    found = image_of(content) if isinstance(content, dict) else None
    if update.get("sessionUpdate") != "user_message_chunk" or found is None:
        return update
    if len(json.dumps(update, separators=(",", ":"))) + ENVELOPE <= budget:
        return update
    mime, data = found
    try:
        raw = b64decode(data, validate=True)
    except (binascii.Error, ValueError, TypeError):
        return {**update, "content": {"type": "text", "text": "[an image that cannot be shown]"}}
    name = f"image-{digests.sha256_hex(raw)[:16]}{SUFFIXES.get(mime, '')}"
    path = keep(directory(), name, raw)
    link = {
        "type": "resource_link",
        "uri": Path(path).as_uri(),
        "name": name,
        "mimeType": mime,
        "size": len(raw),
    }
    return {**update, "content": link}
