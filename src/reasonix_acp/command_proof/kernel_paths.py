"""Paths that mean something else in the shell than in the agent: what is under /proc, /dev and
/sys is the kernel's, and its links (`/proc/self`, `/proc/self/cwd`, `/dev/stdout`,
`/dev/fd/N`) name what the *opening* process has: its own cwd, its own descriptors, which a
redirection earlier in the same line may have pointed at any file. Resolved in the agent's
process they name the agent's, so no such path is a target the gate can judge; `/dev/null` is
the one exception.

`through_kernel` resolves a path component by component as the kernel would (links followed
where they are met, `..` after them) and says whether it reaches the kernel's trees: a link
inside them is about to be followed, or the end is in them. Nothing is opened.
"""

from __future__ import annotations

import os
from collections import deque

KERNEL_TREES = ("/proc", "/dev", "/sys")
KNOWN = frozenset({"/dev/null"})
MAX_LINKS = 40  # as the kernel's own limit


def in_kernel_tree(path: str) -> bool:
    return path not in KNOWN and any(path == t or path.startswith(t + "/") for t in KERNEL_TREES)


def through_kernel(path: str, cwd: str) -> bool:
    """Whether opening `path` from `cwd` goes through /proc, /dev or /sys (but `/dev/null`)."""
    parts = deque(p for p in os.path.join(cwd, path).split("/") if p)
    resolved, links = "/", 0
    while parts:
        part = parts.popleft()
        if part == ".":
            continue
        if part == "..":
            resolved = os.path.dirname(resolved)
            continue
        candidate = os.path.join(resolved, part)
        try:
            target = os.readlink(candidate)
        except OSError:  # not a link, or not there (yet): taken as written
            resolved = candidate
            continue
        links += 1
        if in_kernel_tree(candidate) or links > MAX_LINKS:
            return True
        if target.startswith("/"):
            resolved = "/"
        parts.extendleft(reversed([p for p in target.split("/") if p]))
    return in_kernel_tree(resolved)
