"""Putting files back as they were before a turn: what a rewind would do to each file the later
turns changed (`plan`), and doing it (`apply`).

A file is put back to its bytes before the earliest of those turns changed it (or removed, if
it did not exist then), but only while it still has the bytes the latest of them left: a file
someone changed since is named and left as it is, unless the rewind is forced.

`apply` is idempotent: it writes each file from its blob whatever the file holds now, through a
temporary name and a rename, so running it again after an interruption finishes the job.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from typing import Any

from reasonix_acp import digests
from reasonix_acp.checkpoints.blobs import Blobs


@dataclass(frozen=True)
class Step:
    """One file to put back: its bytes' digest (None: remove it) and mode."""

    path: str
    digest: str | None
    mode: int | None

    def body(self) -> dict[str, Any]:
        return {"path": self.path, "digest": self.digest, "mode": self.mode}


@dataclass
class Plan:
    """What a rewind does to files: the steps, and the files it leaves, each with why."""

    steps: list[Step] = field(default_factory=list)
    left: list[dict[str, str]] = field(default_factory=list)


def current(path: str) -> str | None:
    """The digest of the file's bytes now; None when there is no file."""
    try:
        with open(path, "rb") as fh:
            return digests.sha256_hex(fh.read())
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def plan(rows: list[tuple[int, str, str | None, str | None, int | None]], force: bool) -> Plan:
    """`rows`: (turn, path, before, after, mode) of the turns rewound, in any order."""
    first: dict[str, tuple[int, str | None, int | None]] = {}
    last: dict[str, tuple[int, str | None]] = {}
    for turn, path, before, after, mode in rows:
        if path not in first or turn < first[path][0]:
            first[path] = (turn, before, mode)
        if path not in last or turn > last[path][0]:
            last[path] = (turn, after)
    result = Plan()
    for path in sorted(first):
        _, target, mode = first[path]
        now = current(path)
        if now == target:
            continue
        if now != last[path][1] and not force:
            why = "changed since the rewound turns" if now is not None else "removed since"
            result.left.append({"path": path, "reason": why})
            continue
        result.steps.append(Step(path, target, mode))
    return result


def missing(steps: list[Step], blobs: Blobs) -> list[str]:
    """The steps' paths whose bytes are no longer kept."""
    return [s.path for s in steps if s.digest is not None and not blobs.has(s.digest)]


def apply(steps: list[Step], blobs: Blobs) -> None:
    for step in steps:
        if step.digest is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(step.path)
            continue
        data = blobs.read(step.digest)
        os.makedirs(os.path.dirname(step.path), exist_ok=True)
        tmp = f"{step.path}.reasonix-rewind-{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                if step.mode is not None:
                    os.fchmod(fh.fileno(), step.mode)
            os.replace(tmp, step.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
