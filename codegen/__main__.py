"""`python -m codegen`: verify the pin, validate the inputs, write src/reasonix_acp/generated/.

Reads only the pinned schema files (committed in src/acp_conformance/, each refused unless its
sha256 is the one schema/upstream.toml pins) and schema/vendor/. `--check` writes nothing and
exits 1 when a pinned file differs from its pin or the committed code from a fresh generation.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from pathlib import Path

from jsonschema import Draft202012Validator

from codegen import methods, models
from codegen.pin import (
    GENERATED_DIR,
    PIN_FILE,
    SCHEMA_DIR,
    PinError,
    load_pin,
    load_unstable,
    load_upstream,
    load_vendor,
)
from codegen.prepare import SchemaShapeError, prepare, unstable_defs

REGENERATE = "nox -s codegen"


def header(sha256: str, vendor_digest: str, spec: str, path: str, unstable: str = "") -> str:
    """`unstable`: what is taken from the unstable schema, as a line of its own."""
    return (
        f"# GENERATED FROM {spec} {path} (sha256 {sha256})\n"
        + unstable
        + f"# and schema/vendor/*.json (sha256 {vendor_digest}) by codegen/ -- DO NOT EDIT.\n"
        f"# Regenerate with `{REGENERATE}`; `nox -s codegen_check` fails when this file is stale.\n"
        "# ruff: noqa\n"
    )


def validate_inputs(upstream: dict[str, object], vendor: dict[str, dict[str, object]]) -> None:
    Draft202012Validator.check_schema(upstream)
    for name, doc in vendor.items():
        Draft202012Validator.check_schema(doc)
        if set(doc) - {"$schema", "$id", "title", "$defs"}:
            raise SchemaShapeError(f"schema/vendor/{name}: only $defs are allowed at the top level")
        for def_name, schema in doc.get("$defs", {}).items():  # type: ignore[attr-defined]
            if not def_name.startswith("Reasonix"):
                raise SchemaShapeError(
                    f"schema/vendor/{name}: $defs/{def_name} must start with Reasonix"
                )
            _no_inline_objects(f"schema/vendor/{name}#/$defs/{def_name}", schema, top=True)


def _no_inline_objects(where: str, node: object, top: bool = False) -> None:
    """Vendor objects with properties are named defs, so every vendor class name is ours."""
    if isinstance(node, dict):
        if not top and node.get("properties") and "x-method" not in node:
            in_all_of_part = node.get("type") == "object" and "$ref" not in node
            if not in_all_of_part:
                raise SchemaShapeError(f"{where}: inline object; give it its own $defs entry")
        for key, value in node.items():
            if key == "allOf" and isinstance(value, list):
                for part in value:
                    _no_inline_objects(where, part, top=True)
            elif key == "properties" and isinstance(value, dict):
                for sub in value.values():
                    _no_inline_objects(where, sub)
            elif isinstance(value, dict | list) and key not in ("properties",):
                _no_inline_objects(where, value)
    elif isinstance(node, list):
        for item in node:
            _no_inline_objects(where, item)


def generate(pin_file: Path = PIN_FILE, schemas: Path = SCHEMA_DIR) -> dict[str, str]:
    pin = load_pin(pin_file)
    upstream = load_upstream(pin, schemas)
    vendor = load_vendor()
    validate_inputs(upstream, vendor)
    digest = hashlib.sha256(
        b"".join(
            name.encode() + b"\0" + json.dumps(doc, sort_keys=True).encode()
            for name, doc in vendor.items()
        )
    ).hexdigest()
    taken, line = None, ""
    if pin.unstable is not None:
        unstable = load_unstable(pin, schemas)
        assert unstable is not None
        Draft202012Validator.check_schema(unstable)
        taken = unstable_defs(unstable, upstream, pin.unstable.methods, pin.unstable.defs)
        line = (
            f"# with {', '.join(pin.unstable.methods + pin.unstable.defs)} from "
            f"{pin.unstable.path} (sha256 {pin.unstable.sha256})\n"
        )
    head = header(pin.sha256, digest, pin.spec, pin.path, line)
    doc = prepare(upstream, vendor, taken)
    files = models.render(doc, head)
    files["methods.py"] = methods.render(doc, head, pin.path)
    files["__init__.py"] = (
        head + '"""Generator output only; see the header for how to regenerate."""\n'
    )
    return models.ruff_format(files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codegen")
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--out", type=Path, default=GENERATED_DIR)
    parser.add_argument("--pin", type=Path, default=PIN_FILE, help="another pin file")
    parser.add_argument(
        "--schemas", type=Path, default=SCHEMA_DIR, help="where the pinned files are"
    )
    args = parser.parse_args(argv)
    try:
        files = generate(args.pin, args.schemas)
    except (PinError, SchemaShapeError, models.GenerationError, methods.MethodTableError) as exc:
        print(f"codegen: {exc}", file=sys.stderr)
        return 1
    out: Path = args.out
    stale = []
    for name, text in sorted(files.items()):
        target = out / name
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if current != text:
            stale.append(name)
            if not args.check:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
    present = {p.relative_to(out).as_posix() for p in out.rglob("*.py")} if out.is_dir() else set()
    extra = sorted(present - set(files))
    if args.check and (stale or extra):
        print(
            f"codegen: {', '.join(stale + extra)} in {out} differ from a fresh generation; "
            f"run `{REGENERATE}` and commit the result",
            file=sys.stderr,
        )
        return 1
    for name in extra:
        if not args.check:
            (out / name).unlink()
    for folder in sorted((p for p in out.rglob("*") if p.is_dir()), reverse=True):
        if not args.check and not any(folder.rglob("*.py")) and folder.name != "__pycache__":
            shutil.rmtree(folder, ignore_errors=True)
    print(f"codegen: {len(files)} files, {len(stale)} changed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
