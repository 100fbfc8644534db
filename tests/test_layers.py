"""The package's import structure: one-way layers and no cycles, read from the source (ast).

Layers, top to bottom; a module imports only its own layer's siblings (without cycles) and
the layers below it:

    cli → server → turn → session → {vendor, plugins, mcp_servers, providers, tools}
        → {machines, config, redact, sqlite, ids, digests, dirs, safe_read, words, command_proof}
        → {protocol, generated}

Function-level imports count like any other. The few that exist only to keep start-up fast
say so in a comment on the line above (`# lazy: start-up`); none may point upward.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "src" / "reasonix_acp"
PACKAGE = "reasonix_acp"

LAYERS: list[set[str]] = [
    {"cli", "__main__"},
    {"server"},
    {"turn"},
    {"session"},
    {"reasonix_io", "plugins", "mcp_servers", "providers", "tools", "project", "checkpoints"},
    {
        "machines",
        "config",
        "redact",
        "scrubber",
        "sqlite",
        "ids",
        "digests",
        "dirs",
        "safe_read",
        "words",
        "command_proof",
    },
    {"protocol", "generated", "__init__"},
]
LAZY_MARK = "# lazy: start-up"


def wing(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer_of(module: str) -> int:
    name = wing(module)
    for i, layer in enumerate(LAYERS):
        if name in layer:
            return i
    raise AssertionError(f"{module} is in no layer; add its wing to LAYERS")


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def resolve(target: str, known: dict[str, Path]) -> str | None:
    """The module an import names: the longest known prefix of `target`."""
    while target:
        if target in known:
            return target
        target = target.rpartition(".")[0]
    return None


def _function_lines(tree: ast.Module) -> set[int]:
    """Lines inside a function body (imports there run late); `if TYPE_CHECKING:` blocks are
    not: they never run, and still count for direction and cycles."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


class Import:
    def __init__(self, source: str, target: str, line: int, nested: bool, lazy: bool) -> None:
        self.source, self.target, self.line, self.nested, self.lazy = (
            source,
            target,
            line,
            nested,
            lazy,
        )

    def __repr__(self) -> str:
        return f"{self.source}:{self.line} → {self.target}"


def imports(known: dict[str, Path]) -> list[Import]:
    found: list[Import] = []
    for module, path in known.items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text)
        nested_lines = _function_lines(tree)
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module == PACKAGE:
                    names = [f"{PACKAGE}.{a.name}" for a in node.names]
                elif node.module.startswith(PACKAGE + "."):
                    names = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.startswith(PACKAGE + ".")]
            for name in names:
                target = resolve(name, known)
                if target is None or target in (module, PACKAGE):
                    continue
                above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
                found.append(
                    Import(
                        module,
                        target,
                        node.lineno,
                        node.lineno in nested_lines,
                        above.startswith(LAZY_MARK),
                    )
                )
    return found


@pytest.fixture(scope="module")
def graph() -> tuple[dict[str, Path], list[Import]]:
    known = modules()
    return known, imports(known)


def test_every_module_has_a_layer(graph: tuple[dict[str, Path], list[Import]]) -> None:
    known, _ = graph
    for module in known:
        if module != PACKAGE:
            layer_of(module)


def test_imports_only_go_down(graph: tuple[dict[str, Path], list[Import]]) -> None:
    _, found = graph
    upward = [
        i
        for i in found
        if layer_of(i.target) < layer_of(i.source)
        # the generated models subclass protocol's lenient base, and nothing else of protocol
        and not (wing(i.source) == "generated" and i.target == "reasonix_acp.protocol.lenient")
    ]
    assert not upward, f"imports that point up a layer: {upward}"
    sideways = [
        i
        for i in found
        if layer_of(i.target) == layer_of(i.source)
        and wing(i.target) != wing(i.source)
        and wing(i.source) in ("protocol", "generated")
        and not (wing(i.source) == "protocol" and wing(i.target) == "generated")
        and not (wing(i.source) == "generated" and i.target == "reasonix_acp.protocol.lenient")
    ]
    assert not sideways, f"protocol/ imports nothing of the domain: {sideways}"


def test_no_import_cycles(graph: tuple[dict[str, Path], list[Import]]) -> None:
    known, found = graph
    edges: dict[str, set[str]] = {m: set() for m in known}
    for i in found:
        edges[i.source].add(i.target)
    # Tarjan's strongly connected components; any component of two or more is a cycle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in edges:
        if v not in index:
            visit(v)
    assert not cycles, f"import cycles: {cycles}"


def test_nested_imports_are_marked_lazy(graph: tuple[dict[str, Path], list[Import]]) -> None:
    """A function-level import is there for start-up speed and says so; it never hides a cycle
    (the cycle test counts it) or an upward edge (the layer test counts it)."""
    _, found = graph
    unmarked = [i for i in found if i.nested and not i.lazy]
    assert not unmarked, f"function-level imports without the lazy mark: {unmarked}"


def test_the_checks_can_fail() -> None:
    """The layer and cycle rules, on a made-up graph that breaks both."""
    assert layer_of("reasonix_acp.session.service") > layer_of("reasonix_acp.turn.admission")
    assert layer_of("reasonix_acp.protocol.codec") > layer_of("reasonix_acp.config")
    with pytest.raises(AssertionError):
        layer_of("reasonix_acp.nowhere.module")


def test_every_dataclass_has_a_docstring() -> None:
    """A dataclass without one gets `inspect.signature` rendered as its docstring when the
    class is made: a good part of the class's cost at import, on the start-up path."""
    missing = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef) or not any(
                "dataclass" in ast.unparse(d) for d in node.decorator_list
            ):
                continue
            if ast.get_docstring(node) is None:
                missing.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not missing, f"dataclasses without a docstring: {missing}"


MODULE_LINES = 400  # the house's size for a hand-written module


def test_hand_written_modules_stay_under_the_size_limit() -> None:
    sizes = {
        path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in ROOT.rglob("*.py")
        if "generated" not in path.relative_to(ROOT).parts
    }
    assert len(sizes) > 100  # the package was found
    over = {name: lines for name, lines in sizes.items() if lines > MODULE_LINES}
    assert not over, f"split along a seam the code has (more than {MODULE_LINES} lines): {over}"
