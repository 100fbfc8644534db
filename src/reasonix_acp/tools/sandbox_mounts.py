"""The places a sandboxed command sees (tools/sandbox.py opens with the whole list): the base
mounts, the Unix socket directories emptied, the temp directories and the toolchain under them,
the credential stores hidden, which deny patterns a mount can hide, and the `.git` places under
the writable roots (mounted read-only)."""

from __future__ import annotations

import os
import re
import stat
import time

from reasonix_acp.tools.workspace import dot_git, temp_root

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
    base = pattern
    for tail in ("/**", "/*"):
        if base.endswith(tail):
            base = base[: -len(tail)]
            break
    if not os.path.isabs(base) or WILDCARD.search(base) or base in ("", "/"):
        return None
    return os.path.realpath(base)


class GitPlaces:
    """Every `.git` (directory or file, any name a file system takes for it: tools/workspace.py
    `dot_git`) at or below some directories, found again before each command and kept between
    them: a directory is read again only when its modification time or inode changed (a name
    made, removed or renamed in it changes it), or when it changed within RACY seconds of
    being read (a change in the same clock tick would not show). Links are not followed; a
    `.git` is not entered (its mount covers what is below it)."""

    RACY = 2.0

    def __init__(self) -> None:
        # directory → (its signature, the directories below it, the `.git` places in it)
        self._read: dict[str, tuple[tuple[int, int, int], list[str], list[str]]] = {}

    def below(self, roots: list[str]) -> list[str]:
        found: list[str] = []
        kept: dict[str, tuple[tuple[int, int, int], list[str], list[str]]] = {}
        pending, seen = list(roots), set()
        while pending:
            directory = pending.pop()
            if directory in seen:  # a root below another
                continue
            seen.add(directory)
            try:
                info = os.lstat(directory)
            except OSError:
                continue
            if not stat.S_ISDIR(info.st_mode):
                continue
            signature = (info.st_mtime_ns, info.st_ino, info.st_dev)
            entry = self._read.get(directory)
            if entry is None or entry[0] != signature:
                entry = (signature, *_listed(directory))
            if time.time_ns() - info.st_mtime_ns > self.RACY * 1e9:
                kept[directory] = entry
            found += entry[2]
            pending += entry[1]
        self._read = kept
        return found


def _listed(directory: str) -> tuple[list[str], list[str]]:
    """(the directories in `directory`, links not followed; its `.git` places)."""
    subdirs, places = [], []
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if dot_git(entry.name):
                    places.append(entry.path)
                elif entry.is_dir(follow_symlinks=False):
                    subdirs.append(entry.path)
    except OSError:
        pass
    return subdirs, places
