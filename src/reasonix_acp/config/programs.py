"""Where the program of a configured command is found: never where the workspace could choose it.

MCP stdio servers and plugin commands are programs the agent starts itself, outside the sandbox
and the permission gate. Their commands come from the user, but the model can write any file of
the workspace, so nothing the workspace holds may decide which program a command is:

- A name without a slash is looked up in the absolute entries of PATH only. An empty or
  relative entry (`.`, `bin`, ``) is read by the kernel against the directory the program
  starts in, the workspace for a plugin command: it is skipped, and the log says so once per
  PATH (`find`).
- A path with a slash is the caller's to place: absolute as it is, a relative one against the
  directory its entry came from (config.toml's, a plugin's), never against a working directory.
- What a started program finds by name itself (`#!/usr/bin/env python3`, a server running
  `node`) follows the PATH it is given: `absolute_path` is that PATH without the entries above.
"""

from __future__ import annotations

import logging
import os

log = logging.getLogger("reasonix_acp.config")

_said: set[str] = set()  # the PATH values whose skipped entries were logged


class NotFound(Exception):
    """No program of that name in the absolute entries of PATH; the message says which."""


def relative_entries(path: str) -> list[str]:
    """The entries of PATH that are not absolute (an empty one included)."""
    return [entry for entry in path.split(os.pathsep) if not os.path.isabs(entry)]


def absolute_path(path: str) -> str:
    """PATH with only its absolute entries, in their order."""
    return os.pathsep.join(entry for entry in path.split(os.pathsep) if os.path.isabs(entry))


def find(name: str, path: str | None = None) -> str:
    """The program `name` (no slash in it) as the first absolute entry of `path` (ours when
    None) that holds an executable file of that name; NotFound otherwise."""
    path = os.environ.get("PATH", os.defpath) if path is None else path
    skipped = relative_entries(path)
    if skipped and path not in _said:
        _said.add(path)
        shown = ", ".join(f'"{entry}"' for entry in skipped)
        log.warning(
            "PATH entries %s are not absolute: skipped when looking up MCP server and plugin "
            "programs (the workspace could hold a program of the name)",
            shown,
        )
    for directory in absolute_path(path).split(os.pathsep):
        if not directory:
            continue
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise NotFound(f'no "{name}" in the absolute entries of PATH')


def which(name: str, path: str | None = None) -> str | None:
    """`find`, or None where there is no such program: `shutil.which` without the relative
    entries, which it reads against our own cwd (an editor starts us in the workspace)."""
    try:
        return find(name, path)
    except NotFound:
        return None
