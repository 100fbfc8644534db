"""Split the generated classes into small modules, so a method loads only the classes it needs.

Building a pydantic class costs about a millisecond; building all of them on the first decoded
request cost more than everything else a new session does. The classes are therefore grouped by
the set of roots that reach them (a root is a method's params or result class, or a class no other
class refers to): classes reached by exactly the same roots share a module. Importing a root's
module then imports exactly that root's closure, and the modules form a DAG: if class A refers to
B, every root reaching A reaches B, so B's set is a superset of A's and B's module never imports
A's (a cycle between classes puts them in one module).

Within a module the generator's order is kept; it defines every class before the first class that
names it, which `ordered` checks, so the modules need no postponed annotations.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field


class SplitError(RuntimeError):
    """The classes cannot be split as the rules above say."""


@dataclass
class Group:
    module: str
    classes: list[str] = field(default_factory=list)


def names_used(text: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def dependencies(texts: dict[str, str], known: set[str]) -> dict[str, set[str]]:
    """{class: the classes of `known` its source names} (itself excluded)."""
    return {name: (names_used(text) & known) - {name} for name, text in texts.items()}


def _closure(root: str, deps: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    stack = [root]
    while stack:
        name = stack.pop()
        if name not in seen:
            seen.add(name)
            stack.extend(deps.get(name, ()))
    return seen


def partition(order: list[str], deps: dict[str, set[str]], method_roots: set[str]) -> list[Group]:
    """Classes (in `order`) grouped by the roots that reach them; groups in first-class order."""
    local = {n: deps[n] & set(order) for n in order}
    referenced = set().union(*local.values()) if local else set()
    roots = sorted((method_roots & set(order)) | (set(order) - referenced))
    reached_by: dict[str, list[str]] = {name: [] for name in order}
    for root in roots:
        for name in _closure(root, local):
            reached_by[name].append(root)
    groups: dict[tuple[str, ...], Group] = {}
    for name in order:
        key = tuple(reached_by[name])
        if key not in groups:
            groups[key] = Group(module=snake(name))
        groups[key].classes.append(name)
    modules = [g.module for g in groups.values()]
    if len(set(modules)) != len(modules):
        raise SplitError(f"two groups share a module name: {sorted(modules)}")
    return list(groups.values())


def ordered(order: list[str], deps: dict[str, set[str]]) -> None:
    """Raise unless every class is defined before any class that names it."""
    seen: set[str] = set()
    for name in order:
        late = sorted(d for d in deps[name] if d in order and d not in seen)
        if late:
            raise SplitError(f"{name} names {late} before they are defined")
        seen.add(name)


def imports_of(
    group: Group, deps: dict[str, set[str]], home: dict[str, str]
) -> dict[str, set[str]]:
    """{dotted module: names} that `group`'s classes import from other modules; `home` gives
    each class's dotted module."""
    out: dict[str, set[str]] = {}
    for name in group.classes:
        for dep in deps[name]:
            if dep not in group.classes:
                out.setdefault(home[dep], set()).add(dep)
    return out
