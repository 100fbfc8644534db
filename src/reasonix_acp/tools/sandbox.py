"""Commands in an OS sandbox: bubblewrap (`bwrap`) on Linux. The bash tool's commands, in the
agent's process or the editor's terminal, and plugin commands run through `Sandbox.argv`.

What a sandboxed command gets (the bwrap arguments, in this order: a later mount wins):
- the whole file system read-only, a private /dev, /proc and /tmp (empty and writable: nothing
  another program keeps there, its sockets included, is in reach);
- read-only, the programs PATH names under a temp directory (a virtual environment in a
  checkout under /tmp: `toolchain`); the user's base of session temp directories hidden
  wherever TMPDIR puts it, so no session reads another's; TMPDIR set to the session's own;
- writable: the session cwd, its additional directories, its private temp directory and
  `[sandbox] write_roots`; under read-only (and in plan mode), the session temp alone, the cwd
  and additional directories shown read-only (also where they are under /tmp); every `.git`
  (directory or file, nested repositories and submodules too, in any case) at or below a
  writable root stays read-only, where it leads when it is a link, and so does what exists of
  the places the repositories' configuration designates there (the `core.hooksPath`
  directory, an included configuration file, a program a key names): the host's git runs
  them, outside the sandbox (tools/git_guard.py finds them before each command, reading again
  only the directories and configuration files that changed);
- hidden: each deny_paths pattern that names a path (`/p`, `/p/*`, `/p/**`), the agent's own
  config and data directories and the usual credential stores (CREDENTIALS), behind a
  directory nobody may enter or /dev/null; /run and /var/run are empty (a read-only mount does
  not stop a connect() to a service's Unix socket there). A pattern with other wildcards cannot be hidden
  by a mount: while there is one, the sandbox does not replace the permission question
  (`whole` is False) and a command is judged as without a sandbox, that pattern on the
  places it names and where its programs run too (turn/line_denied.py);
- new user, PID, IPC, UTS, cgroup and network namespaces (the network is kept only with
  `[sandbox] network = true`), no capability, no user namespace inside (where this bwrap can
  forbid it), its own session (no TIOCSTI into the editor's terminal), killed with its parent.
  Killing bwrap ends its PID namespace, so the bash tool's group kill reaches every process
  the command started; a background process does not outlive its command.

A command that fails as the sandbox makes it fail (a write to a read-only place, the network,
a path it hides under a temp directory) is offered once for a run outside (`blocked`).

The engine is probed once per process (`engine`): `bwrap` on PATH, run once with the flags a
command gets. An engine that fails the probe (no user namespaces, say) is unavailable, with
the probe's own words as the reason, and commands run as they would without it.

Mode (`[sandbox] mode`, REASONIX_ACP_SANDBOX): `auto` uses the engine where it works, `enforce`
also refuses to open a session without it (`refusal`), `off` never uses it (nor probes).
Under danger-full-access commands run outside the sandbox.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

from reasonix_acp.config import programs
from reasonix_acp.config.sandbox import SandboxSettings
from reasonix_acp.tools.git_guard import protected
from reasonix_acp.tools.sandbox_mounts import (
    CREDENTIALS,
    base_mounts,
    hide_target,
    sockets_hidden,
    temp_mounts,
    temp_roots,
    toolchain,
    under,
)
from reasonix_acp.tools.workspace import Workspace, ensure_temp

FULL = "danger-full-access"
PROBE_TIMEOUT = 5.0
# Every command; the namespace flags are the first of NAMESPACES the probe finds working.
COMMON = ("--die-with-parent", "--new-session", "--cap-drop", "ALL")
NAMESPACES = (
    ("--unshare-all", "--unshare-user", "--disable-userns"),
    ("--unshare-all",),
)
BLOCKED_WRITE = "Read-only file system"
BLOCKED_NETWORK = re.compile(
    r"Network is unreachable|Temporary failure in name resolution|Could not resolve host"
    r"|Name or service not known|getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|Connection refused"
    r"|No address associated with hostname"
)
BLOCKED_MISSING = re.compile(r"No such file or directory|not found|cannot access|can't open")
ABSOLUTE = re.compile(r"(?<![\w.~-])/[^\s'\"`:,;)]+")


@dataclass(frozen=True)
class Engine:
    """The confinement commands run in (bubblewrap), or none and why."""

    name: str  # "bubblewrap", or "none"
    path: str = ""
    flags: tuple[str, ...] = ()
    problem: str = ""  # why there is none

    @property
    def available(self) -> bool:
        return bool(self.path)


_probed: Engine | None = None
_probe_lock = threading.Lock()


def engine() -> Engine:
    """This machine's engine, probed the first time it is asked for (from any thread)."""
    global _probed
    with _probe_lock:
        if _probed is None:
            _probed = probe()
        return _probed


def probe(which: Callable[[str], str | None] | None = None) -> Engine:
    if not sys.platform.startswith("linux"):
        return Engine("none", problem=f"no sandbox engine is supported on {sys.platform}")
    path = (which or programs.which)("bwrap")  # PATH's absolute entries: never our cwd's
    if path is None:
        return Engine("none", problem="bwrap (bubblewrap) is not installed")
    problem = ""
    for namespaces in NAMESPACES:
        flags = (*namespaces, *COMMON)
        test = [path, *flags, *base_mounts(), "--", "/bin/sh", "-c", "exit 0"]
        try:
            done = subprocess.run(
                test, capture_output=True, timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return Engine("none", problem=f"bwrap cannot run: {exc}")
        if done.returncode == 0:
            return Engine("bubblewrap", path, flags)
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        problem = lines[-1][:300] if lines else f"bwrap exited with status {done.returncode}"
    return Engine("none", problem=f"bwrap does not work here: {problem}")


def refusal(settings: SandboxSettings) -> str | None:
    """Why a session may not open: enforce mode with no working engine."""
    if settings.mode != "enforce":
        return None
    found = engine()
    return None if found.available else f"effective bash sandbox unavailable: {found.problem}"


def summary(settings: SandboxSettings) -> tuple[str, bool]:
    """One line for `acp doctor`, and whether it is as configured (False: enforce cannot be
    met)."""
    if settings.mode == "off":
        return "command sandbox: off ([sandbox] mode)", True
    found = engine()
    if found.available:
        network = "on" if settings.network else "off"
        return (
            f"command sandbox: {found.name} ({found.path}), mode {settings.mode}, network {network}",
            True,
        )
    return (
        f"command sandbox: none ({found.problem}); commands are asked instead",
        settings.mode != "enforce",
    )


def _resolved(workspace: Workspace, path: str) -> str:
    """A path named in a command's output, resolved as far as it can be (output is text the
    command chose: a path may be unreadable or not a path at all)."""
    try:
        return workspace.resolve(path)
    except (OSError, ValueError):
        return os.path.abspath(path)


class Sandbox:
    """One session's sandbox for commands, as it stands now: the preset and the settings (a
    reload replaces them) are read at each use."""

    def __init__(
        self,
        workspace: Callable[[], Workspace],
        preset: Callable[[], str],
        settings: Callable[[], SandboxSettings],
        find: Callable[[], Engine] = engine,
        private: Callable[[], list[str]] = list,
    ) -> None:
        self.workspace = workspace
        self.preset = preset
        self.settings = settings
        self.find = find
        self.private = private  # the agent's config and data directories
        self.noticed = False
        # The roots last resolved, and what they resolved to (status asks on every change).
        self._resolved: tuple[tuple[str, ...], list[str]] = ((), [])

    def engine(self) -> Engine:
        if self.settings().mode == "off":
            return Engine("none", problem="the sandbox is turned off")
        return self.find()

    def active(self) -> bool:
        """Commands run in the sandbox now."""
        return self.preset() != FULL and self.engine().available

    def whole(self) -> bool:
        """The sandbox confines a command enough to run it without asking: it is active and
        hides every deny_paths pattern."""
        return self.active() and all(hide_target(p) for p in self.workspace().deny)

    def notice(self) -> str | None:
        """Once per session, where commands run unconfined although the sandbox was wanted."""
        if self.noticed or self.settings().mode == "off" or self.preset() == FULL:
            return None
        found = self.engine()
        if found.available:
            return None
        self.noticed = True
        return f"commands run without an OS sandbox: {found.problem}"

    def write_roots(self, fresh: bool = True) -> list[str]:
        """The writable roots, resolved. `fresh=False` (the status, which reports them on every
        change) reuses the last resolution of the same roots; a command's mounts never do."""
        workspace = self.workspace()
        roots: tuple[str, ...] = (workspace.temp,)
        if self.preset() != "read-only":
            roots = (workspace.cwd, *workspace.extra, workspace.temp, *self.settings().write_roots)
        if not fresh and self._resolved[0] == roots:
            return list(self._resolved[1])
        seen: list[str] = []
        for root in roots:
            real = os.path.realpath(root)
            if real not in seen:
                seen.append(real)
        self._resolved = (roots, seen)
        return list(seen)

    def argv(self, command: list[str], cwd: str) -> list[str]:
        """`command` as it runs: inside bwrap when the sandbox is active, else unchanged."""
        if not self.active():
            return command
        found = self.engine()
        network = self.settings().network
        args = [found.path, *found.flags, *base_mounts(), *sockets_hidden(network)]
        if network:
            args.append("--share-net")
        temp = self.workspace().temp
        ensure_temp(temp)  # refused when another user made it first
        args += temp_mounts(os.path.realpath(os.path.dirname(temp)))
        roots = self.write_roots()
        workspace = self.workspace()
        for root in (workspace.cwd, *workspace.extra):  # seen, if not written (under /tmp too)
            real = os.path.realpath(root)
            if real not in roots and os.path.isdir(real):
                args += ["--ro-bind", real, real]
        for root in roots:
            if os.path.isdir(root):
                args += ["--bind", root, root]
        for real in protected(roots).mounts():  # what the host's git runs stays as it is
            args += ["--ro-bind", real, real]
        args += ["--setenv", "TMPDIR", temp]
        for target in self._hidden():
            if os.path.isdir(target):
                args += ["--perms", "0000", "--tmpfs", target, "--remount-ro", target]
            else:
                args += ["--ro-bind", "/dev/null", target]
        return [*args, "--chdir", cwd, "--", *command]

    def _hidden(self) -> list[str]:
        """What no command may read: deny_paths a mount can hide, the agent's own config and
        data directories (keys, transcripts), the usual credential stores."""
        wanted = [hide_target(p) for p in self.workspace().deny]
        wanted += [os.path.realpath(p) for p in self.private()]
        wanted += [os.path.realpath(os.path.expanduser(p)) for p in CREDENTIALS]
        found: list[str] = []
        for target in wanted:
            if target and os.path.lexists(target) and target not in found:
                found.append(target)
        return found

    def blocked(self, output: str) -> str | None:
        """Why a failed sandboxed command's output looks like the sandbox stopped it (a write
        outside the roots, the network), or None. A denied path is never a reason."""
        workspace = self.workspace()
        for line in output.splitlines():
            paths = [_resolved(workspace, p) for p in ABSOLUTE.findall(line.replace("\0", " "))]
            if any(workspace.denied(p) for p in paths):
                continue
            if BLOCKED_WRITE in line or (
                "Permission denied" in line and any(not workspace.inside(p) for p in paths)
            ):
                return f"a write outside the sandbox's writable roots was refused: {line.strip()[:200]}"
            if not self.settings().network and BLOCKED_NETWORK.search(line):
                return f"the network is off in the sandbox: {line.strip()[:200]}"
            hidden = [p for p in paths if self._hidden_temp(p)]
            if hidden and BLOCKED_MISSING.search(line):
                return (
                    f"the sandbox hides {hidden[0]} (under a temp directory): {line.strip()[:200]}"
                )
        return None

    def _hidden_temp(self, path: str) -> bool:
        """A path that exists but that the sandbox does not show: under a temp directory, and
        neither a writable root nor part of the toolchain on PATH."""
        if not os.path.lexists(path) or not any(under(path, r) for r in temp_roots()):
            return False
        base = os.path.realpath(os.path.dirname(self.workspace().temp))
        shown = [*self.write_roots(fresh=False), *toolchain(base)]
        return not any(under(path, root) for root in shown)

    def describe(self) -> str:
        """What confines commands now, for `/status`."""
        found = self.engine()
        if self.active():
            network = "on" if self.settings().network else "off"
            roots = ", ".join(self.write_roots())
            return f"commands in a {found.name} sandbox (writable: {roots}; network {network})"
        if self.preset() == FULL:
            return "commands outside the sandbox (danger-full-access)"
        if self.settings().mode == "off":
            return "commands without a sandbox (turned off)"
        return f"commands without a sandbox: {found.problem}"

    def status(self) -> dict[str, object]:
        """The status object's `sandbox`: what is enforced now."""
        workspace = self.workspace()
        found = self.engine()
        if not self.active():
            return {
                "mode": "off",
                "engine": found.name if found.available else "none",
                "available": found.available,
                "workspaceRoot": workspace.cwd,
                "writeRoots": [workspace.cwd, *workspace.extra],
                "networkEnabled": True,
            }
        return {
            "mode": "enforce",
            "engine": found.name,
            "available": True,
            "workspaceRoot": workspace.cwd,
            "writeRoots": self.write_roots(fresh=False),
            "networkEnabled": self.settings().network,
        }
