"""Content-addressed file bytes, kept for checkpoints: one file per distinct content under
`<store dir>/blobs/<2 hex>/<62 hex>`, named by its SHA-256, shared by every session.

Invariants:
- A blob is written to a private temporary name and renamed into place, so a blob that exists
  is whole; its name is the digest of its bytes, so writing the same content twice is a no-op.
- The directories are 0700 and the blobs 0600: they are copies of the user's files.
- `prune` removes only blobs no checkpoint refers to and not touched for a day (a running turn's
  snapshot refers to blobs it has not recorded yet; they are that recent). `discard` removes
  named blobs (a deleted session's) at once unless touched in the last minute: `put` touches a
  blob it finds, so one a turn elsewhere has just taken up again stays.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Collection
from pathlib import Path

from reasonix_acp import digests
from reasonix_acp.sqlite import private_dir

GRACE_SECONDS = 24 * 3600
FRESH_SECONDS = 60


class Blobs:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, digest: str) -> Path:
        return self.directory / digest[:2] / digest[2:]

    def has(self, digest: str) -> bool:
        return self.path(digest).is_file()

    def put(self, data: bytes) -> tuple[str, bool]:
        """Keep `data`; → its digest, and whether it was new."""
        digest = digests.sha256_hex(data)
        target = self.path(digest)
        if target.is_file():
            with contextlib.suppress(OSError):
                os.utime(target)  # in use again: not pruned for another day
            return digest, False
        private_dir(target.parent)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return digest, True

    def read(self, digest: str) -> bytes:
        data = self.path(digest).read_bytes()
        if digests.sha256_hex(data) != digest:
            raise OSError(f"checkpoint blob {digest[:12]} is damaged")
        return data

    def discard(self, digests: Collection[str], now: float | None = None) -> int:
        """Remove the named blobs not touched for FRESH_SECONDS; → how many."""
        cutoff = (now if now is not None else time.time()) - FRESH_SECONDS
        removed = 0
        for digest in digests:
            blob = self.path(digest)
            with contextlib.suppress(OSError):
                if blob.stat().st_mtime < cutoff:
                    blob.unlink()
                    removed += 1
        return removed

    def prune(self, referenced: Collection[str], now: float | None = None) -> int:
        """Remove blobs not in `referenced` untouched for GRACE_SECONDS; → how many."""
        if not self.directory.is_dir():
            return 0
        cutoff = (now if now is not None else time.time()) - GRACE_SECONDS
        removed = 0
        for sub in self.directory.iterdir():
            if not sub.is_dir() or len(sub.name) != 2:
                continue
            for blob in sub.iterdir():
                digest = sub.name + blob.name
                with contextlib.suppress(OSError):
                    if digest not in referenced and blob.stat().st_mtime < cutoff:
                        blob.unlink()
                        removed += 1
        return removed
