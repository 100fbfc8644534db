"""Run datamodel-code-generator over the prepared document and shape its output into modules.

Post-steps are a named list, each a plain function over source text or the prepared schema, so
what is done to the generator's output can be read here in one place.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from codegen.names import unexpected_numbered

BASE_CLASS = "reasonix_acp.protocol.lenient.LenientModel"

# Pinned generator flags; the generator's own version is pinned by the nox codegen session.
FLAGS = [
    "--input-file-type", "jsonschema",
    "--output-model-type", "pydantic_v2.BaseModel",
    "--target-python-version", "3.11",
    "--use-annotated",
    "--snake-case-field",
    "--collapse-root-models",
    "--use-tag-as-union-variant-name",
    "--allow-population-by-field-name",
    "--extra-fields", "allow",
    "--enum-field-as-literal", "all",
    "--disable-timestamp",
    "--formatters", "ruff-format",
    "--base-class", BASE_CLASS,
    # A URL stays the string the peer sent (AnyUrl would normalise it and break round trips).
    "--type-mappings", "string+uri=string", "string+date-time=string", "string+date=string",
]  # fmt: skip


class GenerationError(RuntimeError):
    """The generator's output does not meet the project's rules."""


def run_generator(doc: dict[str, Any]) -> str:
    exe = shutil.which("datamodel-codegen") or str(
        Path(sys.executable).with_name("datamodel-codegen")
    )
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "schema.json"
        out = Path(tmp) / "out.py"
        src.write_text(json.dumps(doc, indent=1, sort_keys=True), encoding="utf-8")
        proc = subprocess.run(
            [exe, "--input", str(src), "--output", str(out), *FLAGS],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise GenerationError(f"datamodel-codegen failed:\n{proc.stderr}")
        return out.read_text(encoding="utf-8")


def ruff_format(source: str) -> str:
    """Unused imports removed, then the final formatting pass, with ruff's defaults (not the project's config, which skips
    generated/), so the output depends only on the pinned ruff version."""
    exe = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    fixed = subprocess.run(
        [
            exe,
            "check",
            "--isolated",
            "--select",
            "F401",
            "--fix",
            "--quiet",
            "--stdin-filename",
            "generated.py",
            "-",
        ],
        input=source,
        capture_output=True,
        text=True,
    )
    if fixed.returncode != 0:
        raise GenerationError(f"ruff check failed:\n{fixed.stderr}{fixed.stdout}")
    source = fixed.stdout
    proc = subprocess.run(
        [exe, "format", "--isolated", "--stdin-filename", "generated.py", "-"],
        input=source,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise GenerationError(f"ruff format failed:\n{proc.stderr}")
    return proc.stdout


def _segments(source: str) -> tuple[str, list[tuple[str, str]]]:
    """(import block, [(owning class name, statement source)]) of a generated module."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    imports: list[str] = []
    body: list[tuple[str, str]] = []
    for node in tree.body:
        text = "".join(lines[node.lineno - 1 : node.end_lineno])
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            imports.append(text)
        elif isinstance(node, ast.ClassDef):
            body.append((node.name, text))
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            body.append((node.targets[0].id, text))
        elif (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and isinstance(node.value.func.value, ast.Name)
        ):
            body.append((node.value.func.value.id, text))
        else:
            raise GenerationError(f"unexpected top-level statement at line {node.lineno}")
    return "".join(imports), body


def _names_used(text: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}


def lenient_rules(doc: dict[str, Any]) -> dict[str, dict[str, str]]:
    """{def: {property: "default" | "skip_items" | "default_on_null"}} from the x-deserialize marks."""
    rules: dict[str, dict[str, str]] = {}
    for name, schema in sorted(doc["$defs"].items()):
        for prop, sub in sorted(schema.get("properties", {}).items()):
            if not isinstance(sub, dict):
                continue
            if sub.get("x-deserialize-skip-invalid-items"):
                rules.setdefault(name, {})[prop] = "skip_items"
            elif sub.get("x-deserialize-default-on-error"):
                rules.setdefault(name, {})[prop] = "default"
            elif sub.get("x-deserialize-default-on-null"):
                rules.setdefault(name, {})[prop] = "default_on_null"
    return rules


def reject_tags(doc: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    return {
        name: schema["x-reasonix-reject-tags"]
        for name, schema in sorted(doc["$defs"].items())
        if "x-reasonix-reject-tags" in schema
    }


def _table(name: str, value: dict[str, Any], classes: set[str]) -> str:
    kept = {k: v for k, v in value.items() if k in classes}
    body = json.dumps(kept, indent=4, sort_keys=True)
    return f"{name}: dict[str, Any] = {body}\n"


def render(doc: dict[str, Any], header: str) -> dict[str, str]:
    """{file name: source} for models.py (upstream) and reasonix_models.py (vendor)."""
    source = run_generator(doc)
    numbered = unexpected_numbered(source)
    if numbered:
        raise GenerationError(
            "classes named by position, not by tag: "
            + ", ".join(numbered)
            + "; name them in codegen/names.py or codegen/prepare.py"
        )
    imports, body = _segments(source)
    # The schema's root has no type of its own; datamodel-codegen names it `Model`.
    body = [(owner, text) for owner, text in body if owner != "Model"]
    upstream = [(o, t) for o, t in body if not o.startswith("Reasonix")]
    vendor = [(o, t) for o, t in body if o.startswith("Reasonix")]
    upstream_names = {o for o, _ in upstream}
    vendor_names = {o for o, _ in vendor}
    upstream_defs = {n for n in doc["$defs"] if not n.startswith("Reasonix")}
    used_upstream = set().union(*(_names_used(t) - {o} for o, t in upstream))
    strays = sorted(upstream_names - upstream_defs - used_upstream)
    if strays:
        raise GenerationError(
            f"classes {strays} come from inline vendor schemas; give them Reasonix $defs entries"
        )
    for owner, text in upstream:
        leaked = _names_used(text) & vendor_names
        if leaked:
            raise GenerationError(
                f"upstream class {owner} refers to vendor classes {sorted(leaked)}"
            )
    imported = sorted(set().union(*(_names_used(t) for _, t in vendor)) & upstream_names)
    rules = lenient_rules(doc)
    tags = reject_tags(doc)
    outputs: dict[str, str] = {}
    for file_name, part, names, extra_import in (
        ("models.py", upstream, upstream_names, ""),
        (
            "reasonix_models.py",
            vendor,
            vendor_names,
            (
                "from reasonix_acp.generated.models import (\n"
                + "".join(f"    {n},\n" for n in imported)
                + ")\n"
            )
            if imported
            else "",
        ),
    ):
        text = (
            header
            + "from __future__ import annotations\n\n"
            + imports
            + "from reasonix_acp.protocol.lenient import register\n"
            + extra_import
            + "\n\n"
            + "\n\n".join(t.rstrip("\n") + "\n" for _, t in part)
            + "\n\n"
            + _table("LENIENT_FIELDS", rules, names)
            + "\n"
            + _table("REJECT_TAGS", tags, names)
            + "\n"
            + "register(__name__, LENIENT_FIELDS, REJECT_TAGS)\n"
        )
        outputs[file_name] = text
    return outputs
