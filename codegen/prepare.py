"""Schema passes run before datamodel-code-generator sees the document.

Each pass is a named function over the merged document (upstream `$defs` plus every vendor `$defs`).
They exist so that every generated class gets a name chosen from schema data (a union tag or a
variant title), never from its position in a list, and so that no schema prose reaches the output.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

from codegen.names import VARIANT_RENAMES

Schema = dict[str, Any]

# Keys that only carry prose; the generated code must not contain any of it.
PROSE_KEYS = frozenset({"description", "$comment", "examples"})


class SchemaShapeError(RuntimeError):
    """The schema has a shape the passes below do not know how to name."""


def merge(upstream: Schema, vendor: dict[str, Schema]) -> Schema:
    """One document: upstream `$defs` plus every vendor file's `$defs` (names must not clash)."""
    defs: dict[str, Any] = dict(upstream["$defs"])
    for file_name, doc in vendor.items():
        for name, schema in doc.get("$defs", {}).items():
            if name in defs:
                raise SchemaShapeError(f"schema/vendor/{file_name}: $defs/{name} already defined")
            defs[name] = schema
    return {"$schema": upstream["$schema"], "$defs": defs}


def strip_prose(doc: Schema) -> Schema:
    def walk(node: Any, keys_are_names: bool = False) -> Any:
        # Under "properties" and "$defs" the keys are names (a property may be called
        # "description"); everywhere else they are schema keywords.
        if isinstance(node, dict):
            if keys_are_names:
                return {k: walk(v) for k, v in node.items()}
            return {
                k: walk(v, k in ("properties", "$defs", "patternProperties"))
                for k, v in node.items()
                if k not in PROSE_KEYS
            }
        if isinstance(node, list):
            return [walk(x) for x in node]
        return node

    result: Schema = walk(doc)
    return result


def drop_envelopes(doc: Schema) -> Schema:
    """The JSON-RPC envelope defs cannot dispatch (method and params are unlinked); the router
    does that from the x-method table, so they are not generated."""
    doc["$defs"] = {k: v for k, v in doc["$defs"].items() if not v.get("x-docs-ignore")}
    return doc


def _tag_of(member: Schema) -> tuple[str, str] | None:
    """(property, value) of the `const` that tags a union member, if any."""
    for prop, sub in member.get("properties", {}).items():
        if isinstance(sub, dict) and "const" in sub:
            return prop, str(sub["const"])
    return None


def pascal(text: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", text) if part)


def name_catch_alls(doc: Schema) -> Schema:
    """An extensible union's `{"title": "other"}` member becomes its own def `<Union>Other`: an
    open object whose tag is any string except the known ones (kept in `x-reasonix-reject-tags`
    for the generated validator)."""
    defs = doc["$defs"]
    for name in list(defs):
        schema = defs[name]
        for key in ("anyOf", "oneOf"):
            members = schema.get(key)
            if not isinstance(members, list):
                continue
            for i, member in enumerate(members):
                if member.get("title") != "other" or member.get("type") == "string":
                    continue  # an open string enum needs no class: it stays `Literal[...] | str`
                tag_props = [
                    p for p, s in member.get("properties", {}).items() if s.get("type") == "string"
                ]
                if len(tag_props) != 1:
                    raise SchemaShapeError(f"$defs/{name}: catch-all member has no single tag")
                tag = tag_props[0]
                known = sorted(
                    str(alt["properties"][tag]["const"])
                    for alt in member.get("not", {}).get("anyOf", [])
                )
                other_name = f"{name}Other"
                defs[other_name] = {
                    "type": "object",
                    "properties": {tag: {"type": "string"}},
                    "required": [tag],
                    "additionalProperties": True,
                    "x-reasonix-reject-tags": {tag: known},
                }
                members[i] = {"$ref": f"#/$defs/{other_name}"}
            if any(m.get("$ref") == f"#/$defs/{name}Other" for m in members):
                schema.pop("discriminator", None)
    return doc


def _is_composed(schema: Schema) -> bool:
    return bool(schema.get("properties")) and isinstance(schema.get("anyOf"), list)


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _merge_object(into: Schema, part: Schema) -> None:
    into.setdefault("properties", {}).update(copy.deepcopy(part.get("properties", {})))
    for req in part.get("required", []):
        if req not in into.setdefault("required", []):
            into["required"].append(req)
    for flag in ("additionalProperties", "unevaluatedProperties"):
        if part.get(flag) is True:
            into["additionalProperties"] = True


def _expand(defs: dict[str, Schema], name: str) -> list[tuple[str, Schema]]:
    """Every concrete object a composed def stands for, each with a name suffix built from tags."""
    schema = defs[name]
    common: Schema = {"type": "object"}
    _merge_object(common, schema)
    results: list[tuple[str, Schema]] = []
    for member in schema["anyOf"]:
        if "$ref" in member and len(member) == 1:
            # Only the named catch-all is a bare ref here: `<name>Other`, merged in place.
            target = _ref_name(member["$ref"])
            if target != f"{name}Other":
                raise SchemaShapeError(f"$defs/{name}: unexpected bare member {target}")
            obj = copy.deepcopy(common)
            _merge_object(obj, defs[target])
            obj.update({k: v for k, v in defs[target].items() if k.startswith("x-reasonix")})
            results.append(("Other", obj))
            continue
        tag = _tag_of(member)
        label = tag[1] if tag else member.get("title")
        if not label:
            raise SchemaShapeError(f"$defs/{name}: a union member has neither a tag nor a title")
        label = VARIANT_RENAMES.get((name, label), label)
        partials: list[tuple[str, Schema]] = [("", {})]
        own = {k: v for k, v in member.items() if k != "allOf"}
        for ref in member.get("allOf", []):
            target = _ref_name(ref["$ref"])
            if _is_composed(defs[target]):
                partials = [
                    (suffix + sub_suffix, {**obj, "_parts": [*obj.get("_parts", []), sub]})
                    for suffix, obj in partials
                    for sub_suffix, sub in _expand(defs, target)
                ]
            else:
                partials = [
                    (suffix, {**obj, "_parts": [*obj.get("_parts", []), defs[target]]})
                    for suffix, obj in partials
                ]
        for suffix, acc in partials:
            obj = copy.deepcopy(common)
            for part in acc.get("_parts", []):
                _merge_object(obj, part)
            _merge_object(obj, own)
            results.append((pascal(label) + suffix, obj))
    return results


def distribute_composed(doc: Schema) -> Schema:
    """A def with its own properties *and* an `anyOf` of variants (CreateElicitationRequest,
    SetSessionConfigOptionRequest, ...) becomes a union of named defs, each holding the common
    properties merged with one variant's. Names are `<Def><Tag>...`, built from tags and titles."""
    defs = doc["$defs"]
    composed = [n for n, s in defs.items() if _is_composed(s)]
    # A union none of whose members is composed but one names a composed def in its `allOf`
    # (StateUpdate's `idle`, whose stop reasons are variants): distributed the same way.
    composed += [
        n
        for n, s in defs.items()
        if n not in composed
        and isinstance(s.get("anyOf"), list)
        and any(
            _is_composed(defs[_ref_name(ref["$ref"])])
            for m in s["anyOf"]
            for ref in m.get("allOf", [])
            if "$ref" in ref
        )
    ]
    expansions = {n: _expand(defs, n) for n in composed}
    for name, variants in expansions.items():
        refs = []
        for suffix, obj in variants:
            variant_name = name + suffix
            if variant_name in defs and suffix != "Other":
                raise SchemaShapeError(f"$defs/{variant_name} would be defined twice")
            if defs[name].get(UNSTABLE_MARK):  # an unstable def's variants are unstable too
                obj = {**obj, UNSTABLE_MARK: True}
            defs[variant_name] = obj
            refs.append({"$ref": f"#/$defs/{variant_name}"})
        kept = {k: v for k, v in defs[name].items() if k.startswith("x-")}
        defs[name] = {"anyOf": refs, **kept}
    return doc


def name_titled_members(doc: Schema) -> Schema:
    """A union of inline objects each with a title (MessageMcpResponse: `Result`, `Error`)
    gets a def per member, `<Union><Title>`, so that no class is named by its position."""
    defs = doc["$defs"]
    for name, schema in list(defs.items()):
        members = schema.get("anyOf")
        if _is_composed(schema) or not isinstance(members, list):
            continue
        inline = [
            m for m in members if m.get("type") == "object" and "properties" in m and "title" in m
        ]
        if not inline or len(inline) != len(members):
            continue
        refs = []
        for member in inline:
            member_name = name + pascal(member["title"])
            if member_name in defs:
                raise SchemaShapeError(f"$defs/{member_name} would be defined twice")
            kept = {k: v for k, v in schema.items() if k.startswith("x-reasonix")}
            defs[member_name] = {**{k: v for k, v in member.items() if k != "title"}, **kept}
            refs.append({"$ref": f"#/$defs/{member_name}"})
        defs[name] = {**{k: v for k, v in schema.items() if k != "anyOf"}, "anyOf": refs}
    return doc


PASSES: list[tuple[str, Callable[[Schema], Schema]]] = [
    ("strip_prose", strip_prose),
    ("drop_envelopes", drop_envelopes),
    ("name_catch_alls", name_catch_alls),
    ("distribute_composed", distribute_composed),
    ("name_titled_members", name_titled_members),
]


UNSTABLE_MARK = "x-reasonix-unstable"


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {str(node["$ref"]).rsplit("/", 1)[-1]} if "$ref" in node else set()
        return found.union(*(_refs(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(x) for x in node))
    return set()


def unstable_defs(
    unstable: Schema, upstream: Schema, methods: tuple[str, ...], names: tuple[str, ...]
) -> Schema:
    """The defs taken from the unstable schema, each marked `x-reasonix-unstable`: those of
    `methods` (params, result) and the `names` given, with the defs they name that the stable
    schema has not (a def it has is the stable one, unless it is one of `names`: a stable def
    the unstable schema extends, such as ListSessionsRequest's `archived`, is named to take the
    unstable one)."""
    defs, stable = unstable["$defs"], upstream["$defs"]
    roots = [n for n, d in defs.items() if d.get("x-method") in methods] + list(names)
    missing = sorted(set(methods) - {defs[n].get("x-method") for n in roots if n in defs})
    unknown = sorted(n for n in names if n not in defs)
    if missing or unknown:
        raise SchemaShapeError(f"the unstable schema has no {', '.join(missing + unknown)}")
    chosen: Schema = {}
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in chosen or (name in stable and name not in names):
            continue
        chosen[name] = {**defs[name], UNSTABLE_MARK: True}
        stack.extend(sorted(_refs(defs[name])))
    return chosen


def prepare(upstream: Schema, vendor: dict[str, Schema], unstable: Schema | None = None) -> Schema:
    """The document the generator reads: upstream, the `unstable` defs taken, the vendor's."""
    if unstable:
        upstream = {**upstream, "$defs": {**upstream["$defs"], **unstable}}
    doc = merge(upstream, vendor)
    for _name, step in PASSES:
        doc = step(doc)
    return doc
