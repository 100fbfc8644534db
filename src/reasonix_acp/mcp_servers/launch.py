"""How a stdio MCP server is started: its program, the directory it starts in, its environment.

A server starts when a session opens, outside the sandbox and the permission gate. Its command
is the user's (config.toml, the client's `mcpServers`), but the model can write any file of the
workspace, and a command's meaning depends on where it starts: `python -m x` imports the
directory's `x`, `npx` prefers its `node_modules/.bin`, `uv run` reads its pyproject, `node` and
`deno` their package files, `./x` is its file. So:

- A server starts in the agent's own directory, `<tmp>/reasonix-acp-<uid>/mcp-servers` (both
  0700, made by this user, no link), never inside the session's roots (its cwd and additional
  directories): where the temp directory lies inside them, /tmp is tried; with neither the
  server fails with why. A config.toml entry's `cwd` (absolute, config/mcp_entries.py) is the
  user's own choice and the only way a server starts elsewhere, in the workspace included.
- Its program: a name is found in the absolute entries of PATH only (config/programs.py), the
  PATH the server gets (the entry's `env` PATH, else ours); an absolute path is taken as it is;
  a relative one reaching here is a client's (config.toml's were made absolute against its
  directory) and is refused, naming why.
- Its environment is the SDK's (`get_default_environment()`: HOME, LOGNAME, PATH, SHELL, TERM,
  USER; no provider key) with the entry's `env` over it, and PATH without its relative entries,
  so what the server starts by name is not the workspace's either.
The server learns the workspace as MCP roots (link.py).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from typing import Any, NamedTuple

from reasonix_acp.config.programs import NotFound, absolute_path, find

PLACE = "mcp-servers"  # under the user's temp base; never a session id (those are UUIDs)


class NotStarted(Exception):
    """The server is not started; the message says why."""


class Launch(NamedTuple):
    """What a stdio server runs as."""

    command: str  # absolute
    args: list[str]
    env: dict[str, str]  # over the SDK's default environment
    cwd: str


def launch(spec: dict[str, Any], roots: Sequence[str]) -> Launch:
    """How the stdio server `spec` starts for a session with `roots`; NotStarted says why not."""
    env = {e["name"]: e["value"] for e in spec.get("env") or []}
    path = env["PATH"] if "PATH" in env else os.environ.get("PATH", os.defpath)
    command = program(spec["command"], path)
    cwd = spec.get("cwd") or start_dir(roots)
    return Launch(command, list(spec.get("args") or []), {**env, "PATH": absolute_path(path)}, cwd)


def program(command: str, path: str) -> str:
    """The absolute path of the program `command` names."""
    if os.path.isabs(command):
        return command
    if "/" in command:
        raise NotStarted(
            f'its command "{command}" is a relative path, which would be read in the directory '
            "it starts in: a client's server is named by an absolute path or a name on PATH"
        )
    try:
        return find(command, path)
    except NotFound as exc:
        raise NotStarted(str(exc)) from None


def start_dir(roots: Sequence[str]) -> str:
    """The agent's own directory for servers, outside every root; made here."""
    inside = [os.path.realpath(root) for root in roots]
    why: list[str] = []
    for temp in _temps():
        base = os.path.join(temp, f"reasonix-acp-{os.getuid()}")
        place = os.path.join(base, PLACE)
        if any(_under(os.path.realpath(place), root) for root in inside):
            why.append(f"{place} is inside the session's roots")
            continue
        try:
            _private(base)
            _private(place)
        except OSError as exc:
            why.append(str(exc))
            continue
        return place
    raise NotStarted(
        "no directory outside the workspace to start it in (" + "; ".join(why) + "); "
        "config.toml may name one as its cwd"
    )


def _temps() -> list[str]:
    # lazy: start-up (tempfile loads shutil and random; only sessions with servers need it)
    import tempfile

    found = [os.path.realpath(tempfile.gettempdir()), "/tmp"]
    return [t for i, t in enumerate(found) if t not in found[:i] and os.path.isabs(t)]


def _private(directory: str) -> None:
    """`directory` exists, is this user's (no link) and is 0700; PermissionError otherwise."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(directory, 0o700)
    info = os.lstat(directory)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise PermissionError(f"{directory} is not a directory of this user: refusing to use it")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(directory, 0o700)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")
