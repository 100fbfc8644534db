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

from codegen import methods, split
from codegen.names import unexpected_numbered
from codegen.prepare import UNSTABLE_MARK

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


def ruff_format(files: dict[str, str]) -> dict[str, str]:
    """Unused imports removed, then the final formatting pass, with ruff's defaults (not the
    project's config, which skips generated/), so the output depends only on the pinned ruff
    version. One ruff run over a scratch copy of all the files."""
    exe = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "out"
        for name, text in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        for args, what in (
            (["check", "--isolated", "--select", "F401", "--fix", "--quiet", "."], "check"),
            (["format", "--isolated", "--quiet", "."], "format"),
        ):
            proc = subprocess.run([exe, *args], cwd=root, capture_output=True, text=True)
            if proc.returncode != 0:
                raise GenerationError(f"ruff {what} failed:\n{proc.stderr}{proc.stdout}")
        return {name: (root / name).read_text(encoding="utf-8") for name in files}


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


PACKAGE = "reasonix_acp.generated"

INIT_DOC = (
    '"""The generated classes, each in the module of the methods that need it (see\n'
    "codegen/split.py); a class is imported on first use, so a request loads only its own.\n"
    '"""\n\n'
)

INIT_BODY = """
__all__ = sorted(WHERE)


def __getattr__(name: str) -> Any:
    module = WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
"""


def _check_sources(
    upstream: list[tuple[str, str]], vendor: list[tuple[str, str]], doc: dict[str, Any]
) -> None:
    upstream_names = {o for o, _ in upstream}
    vendor_names = {o for o, _ in vendor}
    upstream_defs = {n for n in doc["$defs"] if not n.startswith("Reasonix")}
    used_upstream = set().union(*(split.names_used(t) - {o} for o, t in upstream))
    strays = sorted(upstream_names - upstream_defs - used_upstream)
    if strays:
        raise GenerationError(
            f"classes {strays} come from inline vendor schemas; give them Reasonix $defs entries"
        )
    for owner, text in upstream:
        leaked = split.names_used(text) & vendor_names
        if leaked:
            raise GenerationError(
                f"upstream class {owner} refers to vendor classes {sorted(leaked)}"
            )


def _texts(part: list[tuple[str, str]]) -> dict[str, str]:
    """{class: its statements}, in the generator's order."""
    out: dict[str, str] = {}
    for owner, text in part:
        out[owner] = out.get(owner, "") + text.rstrip("\n") + "\n"
    return out


def _module_source(
    header: str,
    imports: str,
    group: split.Group,
    texts: dict[str, str],
    pulled: dict[str, set[str]],
    tables: tuple[dict[str, Any], dict[str, Any]],
) -> str:
    names = set(group.classes)
    pulled_lines = "".join(
        f"from {module} import {', '.join(sorted(classes))}\n"
        for module, classes in sorted(pulled.items())
    )
    return (
        header
        + imports
        + "from reasonix_acp.protocol.lenient import register\n"
        + pulled_lines
        + "\n\n"
        + "\n\n".join(texts[name] for name in group.classes)
        + "\n\n"
        + _table("LENIENT_FIELDS", tables[0], names)
        + "\n"
        + _table("REJECT_TAGS", tables[1], names)
        + "\n"
        + "register(__name__, LENIENT_FIELDS, REJECT_TAGS)\n"
    )


def render(doc: dict[str, Any], header: str) -> dict[str, str]:
    """{path under generated/: source}: the packages models/ (upstream), unstable_models/ (the
    defs taken from the unstable schema) and reasonix_models/ (vendor), each a lazy
    `__init__.py` and one module per group of codegen/split.py."""
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
    _check_sources(upstream, vendor, doc)
    unstable_names = {n for n, d in doc["$defs"].items() if d.get(UNSTABLE_MARK)}
    # A union's member class the generator names `<Def>Model` (McpServer's `acp` member, whose
    # fields are McpServerAcp's) lives where that def does.
    unstable_names |= {f"{n}Model" for n in unstable_names}
    unstable = [(o, t) for o, t in upstream if o in unstable_names]
    upstream = [(o, t) for o, t in upstream if o not in unstable_names]
    texts = _texts(body)
    deps = split.dependencies(texts, set(texts))
    roots = {n for e in methods.collect(doc) for n in (e.params, e.result) if n is not None}
    tables = (lenient_rules(doc), reject_tags(doc))
    outputs: dict[str, str] = {}
    home: dict[str, str] = {}
    packages = [("models", upstream), ("unstable_models", unstable), ("reasonix_models", vendor)]
    partitions: dict[str, list[split.Group]] = {}
    for package, part in packages:  # every class's home first: a package may import a later one's
        if not part:
            continue
        order = list(dict.fromkeys(owner for owner, _ in part))
        try:
            split.ordered(order, deps)
            partitions[package] = split.partition(order, deps, roots)
        except split.SplitError as exc:
            raise GenerationError(str(exc)) from None
        for group in partitions[package]:
            for name in group.classes:
                home[name] = f"{PACKAGE}.{package}.{group.module}"
    for package, groups in partitions.items():
        where = {name: group.module for group in groups for name in group.classes}
        for group in groups:
            pulled = split.imports_of(group, deps, home)
            outputs[f"{package}/{group.module}.py"] = _module_source(
                header, imports, group, texts, pulled, tables
            )
        outputs[f"{package}/__init__.py"] = (
            header
            + INIT_DOC
            + "from importlib import import_module\nfrom typing import Any\n\n"
            + _table("WHERE", {n: where[n] for n in sorted(where)}, set(where))
            + INIT_BODY
        )
    return outputs
