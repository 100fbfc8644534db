"""Putting files back as they were before a turn: what a rewind would do to each file the later
turns changed (`plan`), and doing it (`apply`).

A file is put back to its bytes before the earliest of those turns changed it (or removed, if
it did not exist then), but only while it still has the bytes the latest of them left: a file
someone changed since is named and left as it is, unless the rewind is forced.

`apply` is idempotent: it writes each file from its blob whatever the file holds now, through a
temporary name and a rename, so running it again after an interruption finishes the job.

Only files under the session's roots are put back (`plan`, checkpoints/recorder.py's `Roots`):
a change kept for a file outside them (before checkpoints kept only those, or the roots have
changed since) is left and named "outside the workspace".

A step's blob is read and checked against its digest before its file is touched (`apply`): a
blob that is missing, or damaged (other bytes, truncated, not a file), leaves its file as it is,
named ("its earlier bytes are missing" / "are damaged"), and the other steps go on, so a
damaged blob never stops a rewind, nor its finish at the next opening of the session.

Memory is bounded whatever a file or a blob has become: a file is read to compare it (`current`)
no further than the largest file checkpoints keep (recorder.py's MAX_FILE) plus one byte, and a
larger one is none of the kept bytes; a blob is read the same way (blobs.py).

Links (checkpoints/places.py): reading a file now, writing it back, its mode, the directories
it needs and removing it never follow a link. A file reached through a link, or one that is a
link now, is left as it is and named, forced or not, when planned (`plan`) and again when done
(`apply`, which names the steps it could not do: the place became a link, a directory, or
cannot be written), so a rewind finished after a crash keeps the same rule.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass, field
from typing import Any

from reasonix_acp import digests
from reasonix_acp.checkpoints import places
from reasonix_acp.checkpoints.blobs import Blobs, Damaged, Missing
from reasonix_acp.checkpoints.recorder import MAX_FILE, Roots

OTHER = "-"  # what `current` says of a file no kept bytes can be (no digest is this)
SKIPPED = (places.Refused, NotADirectoryError, IsADirectoryError, PermissionError)


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


def current(dirs: places.Dirs, path: str) -> str | None:
    """The digest of the file's bytes now; None when there is no file (or a directory stands
    there); OTHER for one that is not a regular file, or is larger than any file kept (read no
    further than that: it is none of the kept bytes). Raises places.Linked."""
    info = places.lstat(dirs, path)
    if info is None or stat.S_ISDIR(info.st_mode):
        return None
    if stat.S_ISLNK(info.st_mode):
        raise places.Linked(path, path)
    if not stat.S_ISREG(info.st_mode):
        return OTHER
    if info.st_size > MAX_FILE:
        return OTHER
    try:
        data = places.read(dirs, path, MAX_FILE + 1)[1]
    except FileNotFoundError:
        return None
    except places.NotRegular:  # swapped since the stat
        return OTHER
    return OTHER if len(data) > MAX_FILE else digests.sha256_hex(data)


def plan(
    rows: list[tuple[int, str, str | None, str | None, int | None]], force: bool, roots: Roots
) -> Plan:
    """`rows`: (turn, path, before, after, mode) of the turns rewound, in any order."""
    first: dict[str, tuple[int, str | None, int | None]] = {}
    last: dict[str, tuple[int, str | None]] = {}
    for turn, path, before, after, mode in rows:
        if path not in first or turn < first[path][0]:
            first[path] = (turn, before, mode)
        if path not in last or turn > last[path][0]:
            last[path] = (turn, after)
    result = Plan()
    with places.Dirs() as dirs:
        for path in sorted(first):
            _, target, mode = first[path]
            away = roots.away(path)
            if away:
                result.left.append({"path": path, "reason": away})
                continue
            try:
                now = current(dirs, path)
            except SKIPPED as exc:
                result.left.append({"path": path, "reason": reason(exc)})
                continue
            if now == target:
                continue
            if now != last[path][1] and not force:
                why = "changed since the rewound turns" if now is not None else "removed since"
                result.left.append({"path": path, "reason": why})
                continue
            result.steps.append(Step(path, target, mode))
    return result


def reason(exc: OSError) -> str:
    """Why a file was left, from what refused it."""
    if isinstance(exc, places.Refused):
        return exc.strerror or "reached through a link"
    return f"cannot be put back ({exc.strerror or exc})"


def apply(steps: list[Step], blobs: Blobs) -> list[dict[str, str]]:
    """Do the steps; → those left undone, each with why (its bytes are missing or damaged, its
    place is reached through a link or is one, or is not a file's to write). Other failures
    raise: run it again to finish."""
    left = []
    with places.Dirs() as dirs:
        for step in steps:
            why = _done(dirs, step, blobs)
            if why:
                left.append({"path": step.path, "reason": why})
    return left


def _done(dirs: places.Dirs, step: Step, blobs: Blobs) -> str | None:
    """Do one step; → why it was left undone (None: it was done)."""
    data = None
    if step.digest is not None:
        try:
            data = blobs.read(step.digest)  # checked whole before the file is touched
        except OSError as exc:
            return unreadable(exc)
    try:
        if data is None:
            places.remove(dirs, step.path)
        else:
            places.write(dirs, step.path, data, step.mode)
    except SKIPPED as exc:
        return reason(exc)
    return None


def unreadable(exc: OSError) -> str:
    """Why a file was left, from what its blob raised."""
    if isinstance(exc, Missing):
        return "its earlier bytes are missing"
    if isinstance(exc, Damaged):
        return "its earlier bytes are damaged"
    return f"its earlier bytes cannot be read ({exc.strerror or exc})"
