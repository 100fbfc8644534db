"""Where a session may touch files, and how a path the model gave is judged.

A path resolves against the session cwd, then through `realpath` (so `..` and symlinks are
followed before judging), and is inside when it lies under the cwd, an additional directory,
or the session's temp directory. What needs the user's permission depends on the preset:

  read-only           reads inside: allowed; writes, commands, MCP tools, anything outside: ask
  workspace-write     reads and writes inside: allowed; commands, MCP tools, anything outside: ask
  danger-full-access  nothing asks
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Workspace:
    cwd: str
    extra: list[str] = field(default_factory=list)
    temp: str = ""

    def __post_init__(self) -> None:
        if not self.temp:
            self.temp = os.path.join(tempfile.gettempdir(), "reasonix-acp")

    @property
    def roots(self) -> list[str]:
        return [os.path.realpath(r) for r in (self.cwd, *self.extra, self.temp)]

    def resolve(self, path: str) -> str:
        joined = path if os.path.isabs(path) else os.path.join(self.cwd, path)
        return os.path.realpath(joined)

    def inside(self, real: str) -> bool:
        return any(
            real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots
        )

    def display(self, real: str) -> str:
        """A path as the user reads it: relative to the cwd when it is under it."""
        cwd = os.path.realpath(self.cwd)
        if real == cwd:
            return "."
        if real.startswith(cwd + os.sep):
            return real[len(cwd) + 1 :]
        return real


def needs_permission(preset: str, access: str, inside: bool) -> bool:
    """`access` is "read", "write", "execute", "mcp" or "plugin" (commands, MCP and plugin tool
    calls ask unless the preset is full access)."""
    if preset == "danger-full-access":
        return False
    if access in ("execute", "mcp", "plugin"):
        return True
    if not inside:
        return True
    return access == "write" and preset == "read-only"


def scope_of(real: str) -> str:
    """The path-glob an "allow always" answer remembers: the file's directory and below."""
    return str(Path(real).parent) + os.sep + "**"


def in_scope(real: str, scope: str) -> bool:
    base = scope.removesuffix("**")
    return real.startswith(base)
