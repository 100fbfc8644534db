"""A property's schema in a tool's parameters, read as the generators of tools write it:

- a local `$ref` (`#/$defs/X`, pydantic's; `#/definitions/X`, older generators'; any JSON
  pointer into the parameters schema) is what it points at, with the keys beside it
  (pydantic's `default`, a `description`) kept over it;
- a nullable union, `anyOf` or `oneOf` with one branch that is not `{"type": "null"}`
  (`list[X] | None`, zod's `.nullable()`), is that branch; so is a one-branch `allOf`
  (older pydantic's wrapper of a `$ref`).

Anything else is left as it is: a union of two real branches is no single schema.
"""

from __future__ import annotations

from typing import Any

DEPTH = 8  # refs followed at most (a recursive definition ends there)


def resolved(schema: Any, root: dict[str, Any]) -> dict[str, Any]:
    """`schema` read through local refs (into `root`) and nullable unions; {} when it is no
    schema (not an object, or a ref that points nowhere)."""
    for _ in range(DEPTH):
        if not isinstance(schema, dict):
            return {}
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = _pointed(root, ref)
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **rest} if target else {}
            continue
        branch = _only_branch(schema)
        if branch is None:
            return schema
        schema = branch
    return schema if isinstance(schema, dict) and "$ref" not in schema else {}


def _only_branch(schema: dict[str, Any]) -> Any:
    """The one real branch of a nullable `anyOf`/`oneOf` or of a one-branch `allOf` (with
    the keys beside the union kept over it), or None when `schema` is no such union."""
    for union in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(union)
        if not isinstance(branches, list):
            continue
        real = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
        if len(real) != 1 or not isinstance(real[0], dict):
            return None
        if union == "allOf" and len(branches) != 1:
            return None
        rest = {k: v for k, v in schema.items() if k != union}
        return {**real[0], **rest}
    return None


def _pointed(root: dict[str, Any], ref: str) -> dict[str, Any]:
    """What the local JSON pointer `ref` (`#/$defs/X`) points at in `root` ({} if nothing)."""
    if not ref.startswith("#"):
        return {}
    node: Any = root
    for part in ref[1:].split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else {}
