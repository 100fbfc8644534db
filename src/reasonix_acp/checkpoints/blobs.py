"""Content-addressed file bytes, kept for checkpoints: one file per distinct content under
`<store dir>/blobs/<2 hex>/<62 hex>`, named by its SHA-256, shared by every session.

Invariants:
- A blob is written to a private temporary name and renamed into place, so a blob written is
  whole; its name is the digest of its bytes. `put` of bytes whose blob exists checks it first,
  its size (fstat) and then, when that matches, its bytes against those given (streamed, no more
  than their length plus one read: a comparison, sound as a digest is, as the name is the
  digest of the bytes given, and cheaper than hashing it again); a blob that does not match
  (damaged since: other bytes, cut short, grown, a link or a FIFO in its place) is written
  again the same way, so keeping the same bytes again mends it. One that matches is only
  touched.
- A blob is at most MAX_BLOB bytes (the largest file checkpoints keep: recorder.py's MAX_FILE
  is this bound); `put` refuses more (OSError, EFBIG).
- The directories are 0700 and the blobs 0600: they are copies of the user's files.
- `prune` removes only blobs no checkpoint refers to and not touched for a day (a running turn's
  snapshot refers to blobs it has not recorded yet; they are that recent). `discard` removes
  named blobs (a deleted session's) at once unless touched in the last minute: `put` touches a
  blob it finds, so one a turn elsewhere has just taken up again stays.
- Below the store's directory no link is followed: `blobs`, its sub-directories and the blobs
  are opened, made, touched and removed by name relative to their directory's descriptor with
  O_NOFOLLOW (a workspace may hold the store: a link put there never leads a write, a read or a
  removal elsewhere). Only regular files with a blob's name (or a temporary one's) are removed.
- A digest is 64 lowercase hex digits; anything else is refused with ValueError naming it.
- `read` gives back a blob's bytes only once they match its digest: a blob that is not there
  raises `Missing`; one whose bytes are other (changed, truncated), that is not a regular file
  (a directory, a link, a FIFO in its place), over MAX_BLOB bytes, or whose name is not a
  digest raises `Damaged`. Nothing is written back from a blob that has not been checked whole.
- Memory is bounded whatever was put in a blob's place: `read` refuses a file whose size is
  over MAX_BLOB before reading it, reads at most MAX_BLOB + 1 bytes (a file growing meanwhile)
  and streams the digest as it reads; `put` reads no more than the bytes it was given, plus one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import time
from collections.abc import Collection, Iterator
from pathlib import Path

from reasonix_acp import digests

MAX_BLOB = 16 * 1024 * 1024
CHUNK = 1 << 20
GRACE_SECONDS = 24 * 3600
FRESH_SECONDS = 60
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
DIGEST = re.compile(r"[0-9a-f]{64}")
LEFTOVER = re.compile(r"\.[0-9a-f]{62}\.\d+\.tmp")  # a temporary name a lost process left


class Missing(FileNotFoundError):
    """No blob by that name."""


class Damaged(OSError):
    """A blob that does not give back its digest's bytes."""


class Blobs:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, digest: str) -> Path:
        return self.directory / _checked(digest)[:2] / digest[2:]

    def has(self, digest: str) -> bool:
        with self._sub(digest, create=False) as sub:
            return sub is not None and _regular(sub, digest[2:]) is not None

    def put(self, data: bytes) -> tuple[str, bool]:
        """Keep `data`; → its digest, and whether it was written (new, or mended: a blob there
        that did not hold these bytes)."""
        if len(data) > MAX_BLOB:
            raise OSError(errno.EFBIG, f"over {MAX_BLOB // 2**20} MB")
        digest = digests.sha256_hex(data)
        name = digest[2:]
        with self._sub(digest, create=True) as sub:
            assert sub is not None
            if _holds(sub, name, data):
                with contextlib.suppress(OSError):  # in use again: not pruned for another day
                    os.utime(name, dir_fd=sub, follow_symlinks=False)
                return digest, False
            _write(sub, name, data)
        return digest, True

    def read(self, digest: str) -> bytes:
        """The blob's bytes, checked against its digest. Raises Missing, Damaged, or the
        OSError reading it met."""
        if not isinstance(digest, str) or not DIGEST.fullmatch(digest):
            raise Damaged(f"checkpoint blob: {digest!r} is not a SHA-256 digest")
        with self._sub(digest, create=False) as sub:
            if sub is None:
                raise Missing(f"checkpoint blob {digest[:12]} is missing")
            try:
                fd = os.open(digest[2:], READ_FLAGS, dir_fd=sub)
            except FileNotFoundError:
                raise Missing(f"checkpoint blob {digest[:12]} is missing") from None
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.EISDIR):
                    raise
                raise Damaged(f"checkpoint blob {digest[:12]} is not a file") from None
            try:
                data = _checked_bytes(fd, digest)
            finally:
                os.close(fd)
        return data

    def discard(self, digests: Collection[str], now: float | None = None) -> int:
        """Remove the named blobs not touched for FRESH_SECONDS; → how many."""
        cutoff = (now if now is not None else time.time()) - FRESH_SECONDS
        removed = 0
        for digest in digests:
            with self._sub(digest, create=False) as sub:
                if sub is not None:
                    removed += _remove_older(sub, digest[2:], cutoff)
        return removed

    def prune(self, referenced: Collection[str], now: float | None = None) -> int:
        """Remove blobs not in `referenced` untouched for GRACE_SECONDS; → how many."""
        cutoff = (now if now is not None else time.time()) - GRACE_SECONDS
        removed = 0
        with self._top(create=False) as top:
            if top is None:
                return 0
            for sub_name in sorted(os.listdir(top)):
                if re.fullmatch(r"[0-9a-f]{2}", sub_name):
                    with _opened(top, sub_name, create=False) as sub:
                        if sub is not None:
                            removed += _prune_in(sub, sub_name, referenced, cutoff)
        return removed

    @contextlib.contextmanager
    def _top(self, create: bool) -> Iterator[int | None]:
        """The `blobs` directory's descriptor (None: there is none and `create` is false)."""
        if create:
            self.directory.parent.mkdir(parents=True, exist_ok=True)
        try:
            store = os.open(self.directory.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except FileNotFoundError:
            if create:
                raise
            yield None
            return
        try:
            with _opened(store, self.directory.name, create) as top:
                yield top
        finally:
            os.close(store)

    @contextlib.contextmanager
    def _sub(self, digest: str, create: bool) -> Iterator[int | None]:
        """The descriptor of the directory `digest`'s blob is in (None: there is none)."""
        _checked(digest)
        with self._top(create) as top:
            if top is None:
                yield None
                return
            with _opened(top, digest[:2], create) as sub:
                yield sub


def _checked_bytes(fd: int, digest: str) -> bytes:
    """The bytes of the open blob `fd`, once they match `digest` (Damaged otherwise): a regular
    file of at most MAX_BLOB bytes, read no further than one byte past that, digest streamed."""
    # lazy: start-up
    import hashlib

    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):  # a directory, a FIFO
        raise Damaged(f"checkpoint blob {digest[:12]} is not a file")
    if info.st_size > MAX_BLOB:
        raise Damaged(f"checkpoint blob {digest[:12]} is damaged (over {MAX_BLOB} bytes)")
    hashed, chunks, total = hashlib.sha256(), [], 0
    while chunk := os.read(fd, min(CHUNK, MAX_BLOB + 1 - total)):
        total += len(chunk)
        if total > MAX_BLOB:  # grown since the fstat
            raise Damaged(f"checkpoint blob {digest[:12]} is damaged (over {MAX_BLOB} bytes)")
        hashed.update(chunk)
        chunks.append(chunk)
    if hashed.hexdigest() != digest:
        raise Damaged(f"checkpoint blob {digest[:12]} is damaged")
    return b"".join(chunks)


def _holds(sub: int, name: str, data: bytes) -> bool:
    """Whether `name` in `sub` is a regular file holding exactly `data` (not followed if a
    link): its size first, then its bytes, read no further than one byte past `data`."""
    try:
        fd = os.open(name, READ_FLAGS, dir_fd=sub)
    except OSError:  # absent, a link, a directory
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
            return False
        view, seen = memoryview(data), 0
        while chunk := os.read(fd, min(CHUNK, len(data) + 1 - seen)):
            if view[seen : seen + len(chunk)] != chunk:
                return False
            seen += len(chunk)
        return seen == len(data)
    except OSError:
        return False
    finally:
        os.close(fd)


def _write(sub: int, name: str, data: bytes) -> None:
    """`name` in `sub` holds `data`: written to a private temporary name, synced and renamed
    over whatever is there (a link or a FIFO is replaced, never followed)."""
    tmp = f".{name}.{os.getpid()}.tmp"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp, dir_fd=sub)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(tmp, flags, 0o600, dir_fd=sub)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, name, src_dir_fd=sub, dst_dir_fd=sub)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=sub)
        raise


def _checked(digest: str) -> str:
    if not isinstance(digest, str) or not DIGEST.fullmatch(digest):
        raise ValueError(f"checkpoint blob: {digest!r} is not a SHA-256 digest")
    return digest


@contextlib.contextmanager
def _opened(parent: int, name: str, create: bool) -> Iterator[int | None]:
    """The private directory `name` in `parent`, never followed if it is a link (made 0700 when
    `create`). Absent, a link or a file there: None, or OSError when `create`."""
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o700, dir_fd=parent)
    try:
        fd = os.open(name, DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        if create:  # a link or a file where the directory goes: nothing is kept through it
            raise OSError(f"checkpoint blobs: {name} is not a directory of its own") from exc
        yield None  # none of ours there
        return
    try:
        if create and stat.S_IMODE(os.fstat(fd).st_mode) != 0o700:
            with contextlib.suppress(PermissionError):
                os.fchmod(fd, 0o700)
        yield fd
    finally:
        os.close(fd)


def _prune_in(sub: int, prefix: str, referenced: Collection[str], cutoff: float) -> int:
    """Prune one sub-directory: blobs not referenced, and temporary names left behind."""
    removed = 0
    for name in os.listdir(sub):
        blob = DIGEST.fullmatch(prefix + name) is not None
        if (blob and prefix + name not in referenced) or LEFTOVER.fullmatch(name):
            removed += _remove_older(sub, name, cutoff)
    return removed


def _regular(parent: int, name: str) -> os.stat_result | None:
    """The stat of the regular file `name` in `parent`, not followed; None for anything else."""
    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except OSError:
        return None
    return info if stat.S_ISREG(info.st_mode) else None


def _remove_older(parent: int, name: str, cutoff: float) -> int:
    """Remove the regular file `name` in `parent` if untouched since `cutoff`; → 1 if removed."""
    info = _regular(parent, name)
    if info is None or info.st_mtime >= cutoff:
        return 0
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=parent)
        return 1
    return 0
