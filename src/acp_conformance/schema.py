"""The pinned upstream ACP v1 schema and the `_reasonix.io` vendor schemas, and validation of
a value against one of their `$defs` (a `Reasonix…` name is the vendor's)."""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator


@functools.cache
def document() -> dict[str, Any]:
    """The pinned upstream schema, committed in this package (its sha256 is pinned in
    schema/upstream.toml and checked by `nox -s codegen_check`) and shipped with it."""
    copy = resources.files("acp_conformance").joinpath("upstream_schema.json")
    if not copy.is_file():
        raise FileNotFoundError(
            "acp_conformance/upstream_schema.json is missing from this installation; "
            "it is part of the package: reinstall it"
        )
    doc: dict[str, Any] = json.loads(copy.read_text("utf-8"))
    return doc


@functools.cache
def unstable() -> dict[str, Any]:
    """The `$defs` of the pinned package's unstable schema (`session/fork` and the rest not yet
    in the spec), committed and shipped beside the stable one; empty when it is not there."""
    copy = resources.files("acp_conformance").joinpath("upstream_unstable_schema.json")
    if not copy.is_file():
        return {}
    found: dict[str, Any] = json.loads(copy.read_text("utf-8"))["$defs"]
    return found


@functools.cache
def vendor() -> dict[str, Any]:
    """The `$defs` of every vendor schema, in one namespace: they refer to each other's and
    to the upstream ones (`#/$defs/SessionId`) by name. Shipped in the wheel as
    `vendor_schema/` (schema/vendor of the repository); read from the repository in a checkout."""
    shipped = resources.files("acp_conformance").joinpath("vendor_schema")
    folder: Any = shipped if shipped.is_dir() else Path(__file__).parents[2] / "schema" / "vendor"
    found: dict[str, Any] = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            found.update(json.loads(entry.read_text("utf-8"))["$defs"])
    if not found:
        raise FileNotFoundError("the vendor schemas (schema/vendor/*.json) are missing")
    return found


@functools.cache
def _validator(ref: str, as_unstable: bool = False) -> Draft202012Validator:
    defs = document()["$defs"]
    if ref.startswith("Reasonix"):
        defs = {**defs, **vendor()}
    elif ref not in defs or as_unstable:  # an unstable method's shapes: the unstable file, whole
        defs = unstable()
    if ref not in defs:
        raise KeyError(f"no schema has $defs/{ref}")
    return Draft202012Validator({"$ref": f"#/$defs/{ref}", "$defs": defs})


def problems(value: Any, ref: str, as_unstable: bool = False) -> list[str]:
    """Why `value` does not validate against `$defs/<ref>` (empty: it does); `as_unstable`,
    against the unstable schema's `$defs/<ref>` where both have one (a client that advertised
    an unstable capability takes what its unstable shapes add: `plan_update` among the
    session updates)."""
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
        for e in _validator(ref, as_unstable).iter_errors(value)
    ]


# Root fields earlier ACP schemas defined that the pinned one dropped, still sent by agents for
# hosts that read them: the unstable session-model block (`models`: `availableModels`,
# `currentModelId`) of the session results. Not custom fields: the protocol's own names.
RETIRED = {
    "NewSessionResponse": {"models"},
    "LoadSessionResponse": {"models"},
    "ResumeSessionResponse": {"models"},
}


def fields(ref: str) -> set[str]:
    """The names `$defs/<ref>` defines at its root (`_meta` among them), in the stable schema
    or the unstable one (a field not yet stable, `usage` of PromptResponse, is the
    protocol's own), and the retired protocol fields it had (`RETIRED`)."""
    found: set[str] = set(RETIRED.get(ref, set()))
    for defs in (document()["$defs"], unstable()):
        found |= set((defs.get(ref) or {}).get("properties", {}))
    return found
