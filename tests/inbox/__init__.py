"""Helpers for the inbox tests: the vendor schema, a settable clock, short-hands."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from reasonix_acp.reasonix_io.inbox import SessionInbox

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "schema" / "vendor" / "inbox.json").read_text()
)
REGISTRY = Registry().with_resource(SCHEMA["$id"], Resource.from_contents(SCHEMA))


def valid(name: str, value: Any) -> Any:
    """Validate against one of the vendor schema's $defs; returns the value."""
    ref = {"$ref": f"{SCHEMA['$id']}#/$defs/{name}"}
    Draft202012Validator(ref, registry=REGISTRY).validate(value)
    return value


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def add(inbox: SessionInbox, text: str = "do it", **kw: Any) -> str:
    item_id: str = valid("ReasonixInboxEnqueueResponse", inbox.enqueue(text, **kw))["itemId"]
    return item_id


def state(inbox: SessionInbox, item_id: str) -> str:
    value: str = inbox.get(item_id)["meta"]["state"]
    return value


def snapshot(inbox: SessionInbox) -> dict[str, Any]:
    value: dict[str, Any] = valid("ReasonixInboxListResponse", inbox.list())
    return value
