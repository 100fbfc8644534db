"""Where a session may touch files, and how a path the model gave is judged.

A path resolves against the session cwd, then through `realpath` (so `..` and symlinks are
followed before judging), and is inside when it lies under the cwd, an additional directory,
or the session's own temp directory. What needs the user's permission depends on the preset:

  read-only           reads inside: allowed; writes, commands, MCP tools, anything outside: ask
  workspace-write     reads and writes inside: allowed; commands, MCP tools, anything outside: ask
  danger-full-access  nothing asks

A repository's `.git` is a protected place (`in_git`): a path with a component a file system
takes for `.git` (any case, as macOS and Windows read names; git's own list of the other
spellings) is one, so nested repositories and submodules' `.git` files are too; so is every
place the repositories' configuration makes git run or read outside `.git` (the hooks
directory `core.hooksPath` names, an included configuration file, a program a key names:
tools/git_guard.py, `protected`). A write there asks under every preset but
danger-full-access, inside the workspace too (`needs_permission`): the user's git or the
editor's runs what is there the next time it runs (`git_why` says why). It is judged on the
path as given and on where it leads.

A deny rule (config.toml's `deny_paths`, a glob on the real path) denies the paths it matches
and what is under them (`deny_match`: `/p` denies `/p/x`, as the sandbox hides `/p` whole).
What a search or listing reports is judged again, result by result, after `realpath`
(`reports`): a result outside the roots (unless under the directory the user let the tool
search, or the preset is danger-full-access) or under a deny rule is left out and counted.

The temp directory is private to one session: `<tmp>/reasonix-acp-<uid>/<session id>`, both
0700, the base refused when it is not a directory this user owns; what is kept there is 0600.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from reasonix_acp import digests
from reasonix_acp.tools.git_guard import GIT_WHY, Places, dot_git, in_git, protected

__all__ = ["GIT_WHY", "dot_git", "in_git"]  # judged here, defined with the places (git_guard)


def temp_root() -> str:
    """The system's temp directory (`tempfile.gettempdir`), looked up when first needed: the
    lookup loads `tempfile`, `shutil` and `random` with their compression and hash modules."""
    # lazy: start-up
    import tempfile

    return tempfile.gettempdir()


def _temp_base() -> str:
    """The user's private base for session temp directories, made 0700 and checked."""
    base = os.path.join(temp_root(), f"reasonix-acp-{os.getuid()}")
    with contextlib.suppress(FileExistsError):
        os.mkdir(base, 0o700)
    info = os.lstat(base)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise PermissionError(f"{base} is not a directory of this user: refusing to use it")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(base, 0o700)
    return base


def session_temp(session_id: str) -> str:
    """The session's private temp directory (not created here; `keep` creates it)."""
    safe = session_id if re.fullmatch(r"[A-Za-z0-9_.-]{1,128}", session_id) else None
    if not safe or safe in (".", ".."):
        safe = "id-" + digests.sha256_hex(session_id.encode("utf-8", "surrogateescape"))
    name = safe
    return os.path.join(temp_root(), f"reasonix-acp-{os.getuid()}", name)


def ensure_temp(directory: str) -> None:
    """`directory` exists, 0700, under the user's checked base (a directory another user
    created first, or a symbolic link, is refused with PermissionError)."""
    _temp_base()
    os.makedirs(directory, 0o700, exist_ok=True)
    info = os.lstat(directory)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise PermissionError(f"{directory} is not a directory of this user: refusing to use it")


def keep(directory: str, name: str, data: bytes) -> str:
    """Write `data` to `directory/name`, the directory 0700 and the file 0600; → its path.
    Every secret the agent holds is replaced by [redacted] first (redact.scrub_known).
    Commands may write the directory too: a name they took that is not a regular file (a
    FIFO that would block the open, a link) is replaced, never followed or waited on."""
    ensure_temp(directory)
    path = os.path.join(directory, name)
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
    try:
        fd = os.open(path, flags, 0o600)
    except OSError:  # a FIFO nobody reads (ENXIO), a link (ELOOP): not ours to keep
        os.unlink(path)
        fd = os.open(path, flags | os.O_EXCL, 0o600)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        os.unlink(path)
        fd = os.open(path, flags | os.O_EXCL, 0o600)
    os.set_blocking(fd, True)
    os.ftruncate(fd, 0)
    with os.fdopen(fd, "wb") as fh:
        os.fchmod(fd, 0o600)
        # lazy: start-up (a session opens without keeping anything)
        from reasonix_acp.redact import scrub_known_bytes

        fh.write(scrub_known_bytes(data))
    return path


def remove_session_temp(session_id: str) -> None:
    # lazy: start-up
    import shutil

    shutil.rmtree(session_temp(session_id), ignore_errors=True)


@dataclass
class Workspace:
    """The directories a session's tools may touch (cwd, additional directories, its temp
    directory) and what is denied in them."""

    cwd: str
    extra: list[str] = field(default_factory=list)
    temp: str = ""
    deny: tuple[str, ...] = ()  # config.toml's deny_paths
    unconfined: Callable[[], bool] = lambda: False  # the preset is danger-full-access

    def __post_init__(self) -> None:
        if not self.temp:
            self.temp = session_temp("shared")

    def denied(self, real: str) -> bool:
        return deny_match(real, self.deny)

    def reports(self, real: str, searched: str) -> str:
        """Why a result at `real` is left out ("outside", "denied"), or "" when it is shown.
        `searched` is the real directory the tool was let search."""
        if self.denied(real):
            return "denied"
        if self.unconfined() or self.inside(real) or _under(real, searched):
            return ""
        return "outside"

    @property
    def roots(self) -> list[str]:
        return [os.path.realpath(r) for r in (self.cwd, *self.extra, self.temp)]

    def resolve(self, path: str) -> str:
        joined = path if os.path.isabs(path) else os.path.join(self.cwd, path)
        return os.path.realpath(joined)

    def inside(self, real: str) -> bool:
        return any(_under(real, root) for root in self.roots)

    def protected(self) -> Places:
        """The places git runs or reads under the roots, as they stand now (git_guard.py)."""
        return protected(self.roots)

    def git_why(self, given: str, real: str) -> str:
        """Why a path the model gave is a protected place, or "": as given (a link named `.git`
        that leads elsewhere still is one, `.husky/x` with `.husky` a link too) or where it
        leads (`lnk/config`, `lnk` a link to `.git`)."""
        if in_git(given):
            return GIT_WHY
        places = self.protected()
        lexical = os.path.abspath(os.path.join(self.cwd, given)) if given else real
        return places.why(lexical) or places.why(real)

    def display(self, real: str) -> str:
        """A path as the user reads it: relative to the cwd when it is under it."""
        cwd = os.path.realpath(self.cwd)
        if real == cwd:
            return "."
        if real.startswith(cwd + os.sep):
            return real[len(cwd) + 1 :]
        return real


def deny_match(real: str, patterns: tuple[str, ...] | list[str]) -> bool:
    """Whether a deny rule (a glob on the real path) matches `real` or a folder above it: a
    rule naming a folder (`/p`, as a mount hides it whole) denies what is in it."""
    if not patterns:
        return False
    path = real
    while True:
        if any(fnmatch.fnmatch(path, pattern) for pattern in patterns):
            return True
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent


def _under(real: str, root: str) -> bool:
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def needs_permission(preset: str, access: str, inside: bool, git: bool = False) -> bool:
    """`access` is "read", "write", "execute", "mcp", "plugin" or "network" (commands, MCP and
    plugin tool calls and web requests ask unless the preset is full access); `git`: the
    target is a protected place (`git_why`), where a write asks under every other preset."""
    if preset == "danger-full-access":
        return False
    if access in ("execute", "mcp", "plugin", "network"):
        return True
    if not inside or (git and access == "write"):
        return True
    return access == "write" and preset == "read-only"


def scope_of(real: str) -> str:
    """The path-glob an "allow always" answer remembers: the file's directory and below."""
    return str(Path(real).parent) + os.sep + "**"


def in_scope(real: str, scope: str) -> bool:
    base = scope.removesuffix("**")
    return real.startswith(base)
