"""The places a sandboxed command sees (tools/sandbox.py opens with the whole list): the base
mounts, the Unix socket directories emptied, the temp directories and the toolchain under them,
the credential stores hidden, and which deny patterns a mount can hide. The places git runs
or reads under the writable roots, mounted read-only, are tools/git_guard.py's."""

from __future__ import annotations

import os
import re

from reasonix_acp.tools.workspace import temp_root

WILDCARD = re.compile(r"[*?\[]")

# Credentials a command has no business reading, hidden in every sandbox (besides deny_paths).
CREDENTIALS = (
    "~/.ssh",
    "~/.gnupg",
    "~/.aws",
    "~/.azure",
    "~/.config/gcloud",
    "~/.kube",
    "~/.docker",
    "~/.netrc",
    "~/.git-credentials",
    "~/.npmrc",
    "~/.pypirc",
)
# Where services listen on Unix sockets (D-Bus, docker, systemd, ...): a read-only mount does
# not stop connect(), so these are replaced by empty directories.
SOCKET_DIRS = ("/run", "/var/run")


def base_mounts() -> list[str]:
    """The whole file system read-only; a private /dev, /proc and /tmp."""
    return ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]


def sockets_hidden(network: bool) -> list[str]:
    args: list[str] = []
    for directory in SOCKET_DIRS:
        if os.path.isdir(directory) and not os.path.islink(directory):
            args += ["--tmpfs", directory]
    if network:  # the stub resolver /etc/resolv.conf may point to
        args += ["--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve"]
    return args


def temp_roots() -> list[str]:
    """Where temp files live on this machine: /tmp and the system temp directory (TMPDIR)."""
    roots = ["/tmp", os.path.realpath(temp_root())]
    return [r for i, r in enumerate(roots) if r not in roots[:i]]


def under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def toolchain(base: str) -> list[str]:
    """The programs PATH names under a temp directory (a checkout's or a CI's virtual
    environment): the prefix each such PATH entry belongs to (`<prefix>/bin` → `<prefix>`),
    shown read-only; nothing else under the temp directories is."""
    found: list[str] = []
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isabs(entry):
            continue
        real = os.path.realpath(entry)
        prefix = os.path.dirname(real) if os.path.basename(real) == "bin" else real
        if not os.path.isdir(prefix) or under(prefix, base) or prefix in found:
            continue
        if any(under(prefix, root) and prefix != root for root in temp_roots()):
            found.append(prefix)
    return found


def temp_mounts(base: str) -> list[str]:
    """/tmp private and empty; the toolchain PATH names under a temp directory read-only; the
    user's base of session temp directories hidden wherever TMPDIR puts it (the session's own is
    bound back with the writable roots)."""
    args: list[str] = []
    for prefix in toolchain(base):
        args += ["--ro-bind", prefix, prefix]
    return [*args, "--perms", "0700", "--tmpfs", base]


def hide_target(pattern: str) -> str | None:
    """The path a deny pattern names, when a mount can hide all it matches; else None."""
    base = rule_base(pattern)
    return None if base is None else os.path.realpath(base)


def rule_base(pattern: str) -> str | None:
    """The path a deny pattern names as written (`/p`, `/p/*`, `/p/**` name `/p`), when it is
    all it matches; None for a pattern with a wildcard before its last part, or the root."""
    base = pattern
    for tail in ("/**", "/*"):
        if base.endswith(tail):
            base = base[: -len(tail)]
            break
    if not os.path.isabs(base) or WILDCARD.search(base) or base in ("", "/"):
        return None
    return base
