"""The pinned upstream ACP v1 schema, and validation of a value against one of its `$defs`."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator


@functools.cache
def document() -> dict[str, Any]:
    """The schema `nox -s update_schema` fetched and verified (its sha256 is pinned in
    schema/upstream.toml), copied into this package and shipped with it."""
    copy = resources.files("acp_conformance").joinpath("upstream_schema.json")
    if not copy.is_file():
        raise FileNotFoundError(
            "acp_conformance/upstream_schema.json is missing: in a checkout, run `nox -s update_schema`"
        )
    doc: dict[str, Any] = json.loads(copy.read_text("utf-8"))
    return doc


@functools.cache
def _validator(ref: str) -> Draft202012Validator:
    doc = document()
    if ref not in doc["$defs"]:
        raise KeyError(f"the pinned schema has no $defs/{ref}")
    return Draft202012Validator({"$ref": f"#/$defs/{ref}", "$defs": doc["$defs"]})


def problems(value: Any, ref: str) -> list[str]:
    """Why `value` does not validate against `$defs/<ref>` (empty: it does)."""
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
        for e in _validator(ref).iter_errors(value)
    ]
