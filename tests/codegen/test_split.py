"""The generated models are split so that a method loads its own classes and nothing else."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from codegen import split
from codegen.pin import GENERATED_DIR
from reasonix_acp.generated.methods import METHODS

PACKAGES = ("models", "unstable_models", "reasonix_models")


def _modules() -> dict[str, tuple[set[str], set[str]]]:
    """{dotted module: (classes it defines, generated modules it imports)}."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for package in PACKAGES:
        for path in (GENERATED_DIR / package).glob("*.py"):
            if path.name == "__init__.py":
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
            pulled = {
                n.module
                for n in tree.body
                if isinstance(n, ast.ImportFrom)
                and n.module
                and n.module.startswith("reasonix_acp.generated.")
            }
            out[f"reasonix_acp.generated.{package}.{path.stem}"] = (classes, pulled)
    return out


def _class_deps() -> dict[str, set[str]]:
    texts: dict[str, str] = {}
    for package in PACKAGES:
        for path in (GENERATED_DIR / package).glob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    texts[node.name] = ast.unparse(node)
    return split.dependencies(texts, set(texts))


def _closure(root: str, deps: dict[str, set[str]]) -> set[str]:
    seen, stack = set(), [root]
    while stack:
        name = stack.pop()
        if name not in seen:
            seen.add(name)
            stack.extend(deps[name])
    return seen


def test_a_methods_modules_hold_exactly_its_classes() -> None:
    modules = _modules()
    home = {c: m for m, (classes, _) in modules.items() for c in classes}
    deps = _class_deps()
    roots = {n for s in METHODS.values() for n in (s.params, s.result) if n}
    assert roots <= set(home)
    for root in sorted(roots):
        loaded, stack = set(), [home[root]]
        while stack:
            module = stack.pop()
            if module not in loaded:
                loaded.add(module)
                stack.extend(modules[module][1])
        defined = set().union(*(modules[m][0] for m in loaded))
        assert defined == _closure(root, deps), root


def test_the_module_graph_has_no_cycle() -> None:
    modules = _modules()
    state: dict[str, str] = {}

    def visit(module: str, path: list[str]) -> None:
        if state.get(module) == "done":
            return
        assert state.get(module) != "open", " -> ".join([*path, module])
        state[module] = "open"
        for dep in modules[module][1]:
            visit(dep, [*path, module])
        state[module] = "done"

    for module in modules:
        visit(module, [])


def test_decoding_session_new_builds_only_its_own_classes() -> None:
    code = (
        "import sys, json\n"
        "from reasonix_acp.generated import unstable_models\n"
        "unstable_models.NewSessionRequest.model_validate({'cwd': '/w', 'mcpServers': []})\n"
        "from pydantic import BaseModel\n"
        "built = [c.__name__ for c in BaseModel.__subclasses__()]\n"
        "prefixes = ('reasonix_acp.generated.models.', 'reasonix_acp.generated.unstable_models.')\n"
        "loaded = [m for m in sys.modules if m.startswith(prefixes)]\n"
        "print(json.dumps({'loaded': loaded}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(done.stdout)["loaded"]
    modules = _modules()
    classes = set().union(*(modules[m][0] for m in loaded))
    assert "NewSessionRequest" in classes and "PromptRequest" not in classes
    # its systemPrompt (unstable) is content blocks: their dozen classes come with it
    assert len(classes) <= 24, sorted(classes)


def test_partition_groups_by_the_roots_that_reach_a_class() -> None:
    deps = {"A": {"C"}, "B": {"C", "D"}, "C": set(), "D": set(), "E": {"F"}, "F": {"E"}}
    order = ["C", "D", "A", "B", "E", "F"]
    groups = split.partition(order, deps, {"A", "B"})
    assert [(g.module, g.classes) for g in groups] == [
        ("c", ["C"]),  # reached by A and B
        ("d", ["D", "B"]),  # reached by B alone
        ("a", ["A"]),
        ("e", ["E", "F"]),  # a cycle no root reaches stays together
    ]


def test_a_class_named_before_it_is_defined_is_refused() -> None:
    with pytest.raises(split.SplitError, match=r"A names \['B'\]"):
        split.ordered(["A", "B"], {"A": {"B"}, "B": set()})


def test_the_generated_modules_do_not_postpone_annotations() -> None:
    for path in Path(GENERATED_DIR).rglob("*.py"):
        assert "from __future__ import annotations" not in path.read_text(encoding="utf-8"), path
